/**
 * The defaults of the code executor and the one place they are resolved and checked.
 */
import { ToolexecError } from '../model/index.js';
import { describeValue, textOf } from '../model/internal.js';
import {
  DEFAULT_TIMEOUT_MS,
  guardCall,
  budgetMs,
  layerErrors,
  readDeadline,
  readField,
  readSignal,
  readTimeoutMs,
} from '../model/internal.js';

const codeErrors = layerErrors('executeCode');
import type { DocStore, ToolIndex } from '../discovery/index.js';
import type { Runner } from '../run/index.js';
import { SNIPPET_LANGUAGES, isSecurityProfile, isSnippetLanguage } from '../runtime/internal.js';
import type { Runtime, SecurityProfile } from '../runtime/index.js';
import type { CodeEngine, CodeExecutorOptions, CodeParams } from './types.js';

/** Language of a call that names none: the sandboxes run JavaScript (and TypeScript, stripped). */
export const DEFAULT_CODE_LANGUAGE = 'javascript';

/** True for the names of JavaScript (`javascript`, `js`, any case). */
function isJavaScriptName(language: string): boolean {
  return /^\s*(javascript|js)\s*$/i.test(language);
}

/** Wall-clock budget of a call that names none: 30 s. */
export const DEFAULT_CODE_TIMEOUT_MS = DEFAULT_TIMEOUT_MS;

/** Longest wait for a free sandbox of a call that names none: 30 s. */
export const DEFAULT_CODE_QUEUE_TIMEOUT_MS = DEFAULT_TIMEOUT_MS;

/**
 * How long the executor keeps waiting for an engine after the deadline (or the caller's abort)
 * has aborted its signal, before it gives up on it and rejects with the partial result it has.
 */
export const ENGINE_STOP_GRACE_MS = 250;

/** {@link CodeExecutorOptions} with every default applied. */
export interface ResolvedCodeExecutorOptions {
  /** Answers the snippets' `searchTools` / `listNamespaces`. */
  index: ToolIndex;
  /** Answers the snippets' `describeTool` / `listToolExamples`. */
  docs: DocStore;
  /** Runs the snippets' tool calls. */
  runner: Runner;
  /** The caller's runtime; `undefined` means the executor creates its own for the default engine. */
  runtime: Runtime | undefined;
  /** The caller's engine; `undefined` means the runtime engine. */
  engine: CodeEngine | undefined;
  /** Language of calls that name none. @defaultValue 'javascript' */
  defaultLanguage: string;
  /** Budget of calls that name none, in whole milliseconds (rounded up). @defaultValue 30000 */
  defaultTimeoutMs: number;
  /** Queue bound of calls that name none, in whole milliseconds. @defaultValue 30000 */
  queueTimeoutMs: number;
  /** Memory cap of calls that name none, in bytes; `undefined` leaves it to the backend. */
  memoryBytes: number | undefined;
  /** Cap on every call's tool calls; 0: no cap. @defaultValue 0 */
  maxToolCalls: number;
  /** Most steps per chain; 0: unlimited. @defaultValue 0 */
  maxChainSteps: number;
  /** Profile of calls that name none; `undefined` leaves it to the engine. */
  profile: SecurityProfile | undefined;
}

function isObject(value: unknown): value is object {
  return value !== null && (typeof value === 'object' || typeof value === 'function');
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isPositiveCount(value: unknown): value is number {
  return isCount(value) && value > 0;
}

function isTimeout(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/**
 * Checks `options` and applies the defaults.
 *
 * @throws `CONFIGURATION`: one message naming every missing required field (`missing required
 * fields: index, docs, runner`), then every invalid one.
 */
export function resolveCodeExecutorOptions(options: CodeExecutorOptions): ResolvedCodeExecutorOptions {
  // A caller's object that throws (a getter, a revoked proxy) is a bad option, not a crash.
  return guardCall(codeErrors, 'code executor options', () => resolveOptions(options), true);
}

function resolveOptions(options: CodeExecutorOptions): ResolvedCodeExecutorOptions {
  const o = (isObject(options) ? options : {}) as Partial<CodeExecutorOptions>;
  const missing: string[] = [];
  if (!isObject(o.index)) missing.push('index');
  if (!isObject(o.docs)) missing.push('docs');
  if (!isObject(o.runner)) missing.push('runner');
  const invalid: string[] = [];
  const why: string[] = [];
  if (o.runtime !== undefined && typeof (o.runtime as { execute?: unknown } | null)?.execute !== 'function') invalid.push('runtime');
  if (o.engine !== undefined && typeof (o.engine as { execute?: unknown } | null)?.execute !== 'function') invalid.push('engine');
  if (o.defaultLanguage !== undefined && typeof o.defaultLanguage !== 'string') invalid.push('defaultLanguage');
  // the executor's own runtime runs the library's languages only (a runtime or engine of the caller's may run more)
  else if (o.runtime === undefined && o.engine === undefined && o.defaultLanguage && !isSnippetLanguage(o.defaultLanguage)) {
    invalid.push('defaultLanguage');
    why.push(`no runtime runs defaultLanguage "${textOf(o.defaultLanguage)}" (available: ${SNIPPET_LANGUAGES.join(', ')})`);
  }
  if (o.defaultTimeoutMs !== undefined && !isTimeout(o.defaultTimeoutMs)) invalid.push('defaultTimeoutMs');
  if (o.queueTimeoutMs !== undefined && !isTimeout(o.queueTimeoutMs)) invalid.push('queueTimeoutMs');
  if (o.memoryBytes !== undefined && !isPositiveCount(o.memoryBytes)) invalid.push('memoryBytes');
  if (o.maxToolCalls !== undefined && !isCount(o.maxToolCalls)) invalid.push('maxToolCalls');
  if (o.maxChainSteps !== undefined && !isCount(o.maxChainSteps)) invalid.push('maxChainSteps');
  if (o.profile !== undefined && !isSecurityProfile(o.profile)) invalid.push('profile');
  if (missing.length > 0 || invalid.length > 0) {
    const parts = [
      ...(missing.length > 0 ? [`missing required fields: ${missing.join(', ')}`] : []),
      ...(invalid.length > 0 ? [`invalid fields: ${invalid.join(', ')}`] : []),
      ...why,
    ];
    throw new ToolexecError('CONFIGURATION', `configuration error: ${parts.join('; ')}`, { details: { missing, invalid } });
  }
  return {
    index: o.index as ToolIndex,
    docs: o.docs as DocStore,
    runner: o.runner as Runner,
    runtime: o.runtime,
    engine: o.engine,
    defaultLanguage: o.defaultLanguage === undefined || o.defaultLanguage === '' ? DEFAULT_CODE_LANGUAGE : o.defaultLanguage,
    defaultTimeoutMs: Math.ceil(o.defaultTimeoutMs ?? DEFAULT_CODE_TIMEOUT_MS),
    queueTimeoutMs: Math.ceil(o.queueTimeoutMs ?? DEFAULT_CODE_QUEUE_TIMEOUT_MS),
    memoryBytes: o.memoryBytes,
    maxToolCalls: o.maxToolCalls ?? 0,
    maxChainSteps: o.maxChainSteps ?? 0,
    profile: o.profile,
  };
}

/** One call's parameters with the executor's defaults applied. */
export interface ResolvedCodeParams {
  /** The snippet. */
  code: string;
  /** The call's language, else the executor's default; never empty. */
  language: string;
  /** The call named no language and the executor's default is JavaScript: TypeScript is accepted too (stripped). */
  languageDefaulted: boolean;
  /** The wall-clock budget in whole milliseconds (rounded up): the earlier of `timeoutMs` (else the executor's default) and `deadline`. */
  timeoutMs: number;
  /** `timeoutMs` is the time left before `deadline` (the call gave no `timeoutMs`): a backend's ceiling lowers it rather than refusing it. */
  timeoutFromDeadline: boolean;
  /** `timeoutMs` is the executor's default (the call gave neither `timeoutMs` nor `deadline`): a backend's ceiling lowers it. */
  timeoutDefaulted: boolean;
  /** The call's tool-call cap, capped by the executor's; 0: unlimited. */
  maxToolCalls: number;
  /** The call's queue bound, else the executor's (integer milliseconds). */
  queueTimeoutMs: number;
  /** `queueTimeoutMs` is the executor's (the call gave none): a backend's ceiling lowers it. */
  queueTimeoutDefaulted: boolean;
  /** The call's memory cap, else the executor's; `undefined` leaves it to the backend. */
  memoryBytes: number | undefined;
  /** The call's profile, else the executor's; `undefined` leaves it to the engine. */
  profile: SecurityProfile | undefined;
  /** The caller's cancellation signal, when given. */
  signal: AbortSignal | undefined;
  /** The caller's absolute deadline (epoch milliseconds), when given: the snippet's tool calls hand it on. */
  deadlineMs: number | undefined;
  /** The call's metadata, passed to the engine. */
  metadata: Record<string, unknown> | undefined;
  /** A tool call left pending when the snippet returns fails the run (else: a warning). */
  strict: boolean;
}

function invalidParam(field: string, value: unknown, problem: string): ToolexecError {
  return new ToolexecError('INVALID_ARGUMENT', `executeCode: ${field} ${problem}, got ${describeValue(value)}`, {
    details: { field, ...(typeof value === 'object' ? {} : { value: typeof value === 'string' ? textOf(value) : value }) },
  });
}

/** Every field of {@link CodeParams}, in the order {@link readCodeParams} reads them. */
const CODE_PARAM_FIELDS = [
  'code',
  'language',
  'timeoutMs',
  'queueTimeoutMs',
  'memoryBytes',
  'deadline',
  'maxToolCalls',
  'profile',
  'signal',
  'metadata',
  'strict',
] as const satisfies readonly (keyof CodeParams)[];

/**
 * A call's parameters read once: a plain copy of every field of {@link CodeParams} the caller set
 * (each read once, never spread), so what is decided from them later — the wait for MCP servers,
 * the run itself — sees the same values however the caller's object behaves. The values are not
 * checked here ({@link resolveCodeParams} does).
 *
 * @throws `INVALID_ARGUMENT`: `params` is not an object, or one of its fields cannot be read
 * (`executeCode: option <field> could not be read`, what was thrown as `cause`).
 *
 * @internal
 */
export function readCodeParams(params: unknown): CodeParams {
  if (!isObject(params)) throw invalidParam('params', params, 'must be an object');
  const copy: Record<string, unknown> = {};
  for (const field of CODE_PARAM_FIELDS) {
    const value = readField(codeErrors, params, field);
    if (value !== undefined) copy[field] = value;
  }
  return copy as unknown as CodeParams;
}

/** What bounds a call in time, read from its (already copied) parameters. */
export interface SnippetBounds {
  /** The caller's signal. */
  signal: AbortSignal | undefined;
  /** The call's own `timeoutMs` (finite), if any. */
  timeoutMs: number | undefined;
  /** The call's absolute deadline (epoch milliseconds), if any. */
  deadlineMs: number | undefined;
}

/**
 * The call's `signal`, `timeoutMs` and `deadline`, checked (the one reading of a snippet's
 * bounds: the facade's wait for MCP servers and {@link resolveCodeParams} both use it).
 *
 * @throws `INVALID_ARGUMENT` for a `timeoutMs` that is not a positive finite number, a `deadline`
 * that is not a date, a `signal` that is not one.
 *
 * @internal
 */
export function readSnippetBounds(params: CodeParams): SnippetBounds {
  return {
    timeoutMs: readTimeoutMs(codeErrors, params.timeoutMs, 'timeoutMs', true),
    deadlineMs: readDeadline(codeErrors, params.deadline),
    signal: readSignal(codeErrors, params.signal),
  };
}

/**
 * Applies the executor's defaults to one call: the default language and
 * timeout, and the call-limit cap — `maxToolCalls = params.maxToolCalls`, replaced by the
 * executor's cap when that is set and the call's value is 0 (unlimited) or larger than it.
 * `params` is read once (`readCodeParams`).
 *
 * @throws `INVALID_ARGUMENT` naming the first bad field.
 */
export function resolveCodeParams(params: CodeParams, options: ResolvedCodeExecutorOptions): ResolvedCodeParams {
  const given = readCodeParams(params);
  const { code, language, maxToolCalls, profile, metadata, strict, queueTimeoutMs, memoryBytes } = given as Partial<
    Record<keyof CodeParams, unknown>
  >;
  if (typeof code !== 'string') throw invalidParam('code', code, 'must be a string');
  if (language !== undefined && typeof language !== 'string') throw invalidParam('language', language, 'must be a string');
  // The one reading of budgets (model/options-reader.ts, model/deadline.ts): the same words as every other call.
  const { timeoutMs: givenTimeoutMs, deadlineMs: deadline, signal } = readSnippetBounds(given);
  const timeoutMs = budgetMs(givenTimeoutMs ?? (deadline === undefined ? options.defaultTimeoutMs : undefined), deadline) as number;
  if (timeoutMs <= 0) {
    throw codeErrors('TIMEOUT', 'the run was not started: its deadline had passed', { details: { deadline } });
  }
  if (queueTimeoutMs !== undefined && !isTimeout(queueTimeoutMs))
    throw invalidParam('queueTimeoutMs', queueTimeoutMs, 'must be a positive, finite number of milliseconds');
  if (memoryBytes !== undefined && !isPositiveCount(memoryBytes))
    throw invalidParam('memoryBytes', memoryBytes, 'must be a positive integer number of bytes');
  if (maxToolCalls !== undefined && !isCount(maxToolCalls))
    throw invalidParam('maxToolCalls', maxToolCalls, 'must be a non-negative integer');
  if (profile !== undefined && !isSecurityProfile(profile)) throw invalidParam('profile', profile, 'must be dev, standard or hardened');
  if (metadata !== undefined && (metadata === null || typeof metadata !== 'object'))
    throw invalidParam('metadata', metadata, 'must be an object');
  if (strict !== undefined && typeof strict !== 'boolean') throw invalidParam('strict', strict, 'must be a boolean');
  const named = language !== undefined && language !== '';
  let max = maxToolCalls ?? 0;
  if (options.maxToolCalls > 0 && (max === 0 || max > options.maxToolCalls)) max = options.maxToolCalls;
  return {
    code,
    language: named ? language : options.defaultLanguage,
    languageDefaulted: !named && isJavaScriptName(options.defaultLanguage),
    timeoutMs: Math.ceil(timeoutMs),
    timeoutFromDeadline: givenTimeoutMs === undefined && deadline !== undefined,
    timeoutDefaulted: givenTimeoutMs === undefined && deadline === undefined,
    queueTimeoutMs: queueTimeoutMs === undefined ? options.queueTimeoutMs : Math.ceil(queueTimeoutMs),
    queueTimeoutDefaulted: queueTimeoutMs === undefined,
    memoryBytes: memoryBytes ?? options.memoryBytes,
    maxToolCalls: max,
    profile: profile ?? options.profile,
    signal,
    deadlineMs: deadline,
    metadata: metadata as Record<string, unknown> | undefined,
    strict: strict === true,
  };
}
