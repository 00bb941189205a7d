import { ToolexecError, errorMessage } from '../model/index.js';
import { describeValue, layerErrors, modelErrors, textOf } from '../model/internal.js';

/** Errors for a caller's value that cannot be read at all (a throwing getter, a revoked proxy): `discovery: <what> could not be read`. */
export const guardErrors = layerErrors('discovery');

type Details = Record<string, unknown>;

/**
 * Every error the discovery layer makes, made here. The messages keep the texts of the Go
 * `index` and `tooldoc` packages (`tool not found: x`, `invalid cursor: ...`), which the Go
 * conformance cases fix, so they carry no layer prefix.
 */
export const discoveryErrors = {
  ...modelErrors,
  /** `INVALID_ARGUMENT`: a bad argument to an index or doc-store method. */
  invalidArgument: (message: string, details?: Details, cause?: unknown): ToolexecError =>
    new ToolexecError('INVALID_ARGUMENT', message, {
      ...(details === undefined ? {} : { details }),
      ...(cause === undefined ? {} : { cause }),
    }),
  /** `CONFIGURATION`: a bad option of `createToolIndex` / `createDocStore`, or of what they were given. */
  configuration: (message: string, details?: Details): ToolexecError =>
    new ToolexecError('CONFIGURATION', message, details === undefined ? {} : { details }),
  /** `TOOL_NOT_FOUND` at the schema and full levels for an ID that has a doc but no tool. */
  toolRequired: (id: string, level: string): ToolexecError =>
    new ToolexecError('TOOL_NOT_FOUND', `tool required for schema/full level: ${id}`, {
      details: { toolId: id, level, reason: 'a doc exists but no tool is known for this ID' },
    }),
  /** `INVALID_CURSOR`: `invalid cursor: <reason>`. */
  invalidCursor: (reason: string, cause?: unknown): ToolexecError =>
    new ToolexecError('INVALID_CURSOR', `invalid cursor: ${reason}`, { details: { reason }, ...(cause === undefined ? {} : { cause }) }),
  /** `INVALID_DETAIL`: `invalid detail level: <level>`. */
  invalidDetail: (level: unknown): ToolexecError =>
    new ToolexecError('INVALID_DETAIL', `invalid detail level: ${textOf(level)}`, { details: { level: textOf(level) } }),
  /** `ARGS_TOO_LARGE`: `args exceeds caps: <what>`. */
  argsTooLarge: (what: string, details: Details): ToolexecError =>
    new ToolexecError('ARGS_TOO_LARGE', `args exceeds caps: ${what}`, { details }),
  /** `NO_BACKENDS`: an empty backend list given to the selector. */
  noBackends: (): ToolexecError => new ToolexecError('NO_BACKENDS', 'no backends to select from'),
  /** `EXECUTION`: a custom backend selector threw (`getTool`); its error is the `cause`. */
  selectorFailed: (id: string, cause: unknown): ToolexecError =>
    new ToolexecError('EXECUTION', `backend selector failed: ${errorMessage(cause)}`, { details: { toolId: id }, cause }),
  /** `CONFIGURATION`: a custom backend selector returned something that is not a backend. */
  selectorReturned: (id: string, returned: unknown, cause: unknown): ToolexecError =>
    new ToolexecError('CONFIGURATION', `backend selector returned ${describeValue(returned)}, not a backend (for ${id})`, {
      details: { toolId: id, returned: describeValue(returned) },
      cause,
    }),
  /** The error of one refused entry of a batch: the entry's code, a message naming the entry, the entry's error as `cause`. */
  batchEntry: (entryError: ToolexecError, message: string, details: Details): ToolexecError =>
    new ToolexecError(entryError.code, message, { details, cause: entryError }),
  /** `EXECUTION`: a custom searcher threw or answered something that is not a list of summaries. */
  searcherFailed: (problem: string, cause?: unknown): ToolexecError =>
    new ToolexecError('EXECUTION', `searcher failed: ${problem}`, cause === undefined ? {} : { cause }),
};
