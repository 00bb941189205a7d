import { ToolexecError, type ErrorCode, type ToolexecErrorOptions } from './errors.js';

/**
 * The one place a layer makes its errors, so that every message reads the same way:
 * `<layer>: <what went wrong>`, the code chosen by what was wrong:
 *
 * - `INVALID_ARGUMENT`: a bad argument to a call (a method's parameter, a per-call option);
 * - `CONFIGURATION`: a bad option given when something is created (`createX(options)`);
 * - any other code: through the call signature, with the same prefix.
 */
export interface LayerErrors {
  /** `<layer>: <message>` with any code. */
  (code: ErrorCode, message: string, options?: ToolexecErrorOptions): ToolexecError;
  /**
   * `<layer>: <name> <problem>`, code `INVALID_ARGUMENT` (a bad argument to a call), with
   * `details.field`: the argument's name (`option timeoutMs` → `timeoutMs`) unless the details say.
   */
  invalidArgument(name: string, problem: string, options?: ToolexecErrorOptions): ToolexecError;
  /**
   * `<layer>: option <name> <problem>`, code `CONFIGURATION` (a bad option when creating something),
   * with `details.field`: the option's name unless the details say.
   */
  configuration(name: string, problem: string, options?: ToolexecErrorOptions): ToolexecError;
}

/** The argument a message names: `option timeoutMs` → `timeoutMs`, `params.name` as it is. */
function fieldOf(name: string): string {
  return name.startsWith('option ') ? name.slice('option '.length) : name;
}

/** The error factory of one layer (`run`, `mcp`, `runtime`, ...). */
export function layerErrors(layer: string): LayerErrors {
  const make = (code: ErrorCode, message: string, options?: ToolexecErrorOptions): ToolexecError =>
    new ToolexecError(code, `${layer}: ${message}`, options);
  return Object.assign(make, {
    invalidArgument: (name: string, problem: string, options?: ToolexecErrorOptions) =>
      make('INVALID_ARGUMENT', `${name} ${problem}`, { ...options, details: { field: fieldOf(name), ...options?.details } }),
    configuration: (name: string, problem: string, options?: ToolexecErrorOptions) =>
      make('CONFIGURATION', `option ${name} ${problem}`, { ...options, details: { field: name, ...options?.details } }),
  });
}

/**
 * The model's own errors. Their messages are the Go sentinel texts (`invalid tool: name is
 * required`, ...), which the Go conformance cases fix and the layers above embed, so they carry no
 * layer prefix.
 */
export const modelErrors = {
  /** `INVALID_TOOL`: `invalid tool: <reason>`. */
  invalidTool: (reason: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}): ToolexecError =>
    new ToolexecError('INVALID_TOOL', `invalid tool: ${reason}`, { ...options, details: { reason, ...options.details } }),
  /** `INVALID_TOOL_ID`: `invalid tool ID format: <reason>`. */
  invalidToolId: (id: unknown, reason: string): ToolexecError =>
    new ToolexecError('INVALID_TOOL_ID', `invalid tool ID format: ${reason}`, { details: { id, reason } }),
  /** `INVALID_BACKEND`: `invalid backend: <reason>`. */
  invalidBackend: (reason: string, details?: Record<string, unknown>): ToolexecError =>
    new ToolexecError('INVALID_BACKEND', `invalid backend: ${reason}`, { details: { reason, ...details } }),
  /** `TOOL_NOT_FOUND`: `tool not found: <what>`. */
  toolNotFound: (what: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}): ToolexecError =>
    new ToolexecError('TOOL_NOT_FOUND', `tool not found: ${what}`, options),
};
