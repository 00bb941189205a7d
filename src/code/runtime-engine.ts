/**
 * The runtime engine: runs snippets through a {@link Runtime},
 * with the execution's tools environment as the sandbox's gateway.
 */
import { ToolexecError } from '../model/index.js';
import { ToolError } from '../run/index.js';
import { isSecurityProfile, isSnippetLanguage, partialResultOf } from '../runtime/internal.js';
import { DefaultRuntime, type ExecuteRequest, type ExecuteResult, type Runtime, type SecurityProfile } from '../runtime/index.js';
import { queueTimeoutError, snippetTimeoutError, unknownLanguageError } from './errors.js';
import type { CodeEngine, CodeEngineParams, CodeEngineResult, ToolsEnvironment } from './types.js';

/** Profile of the runtime engine when neither it nor the call names one. */
export const DEFAULT_ENGINE_PROFILE: SecurityProfile = 'standard';

/** Options of {@link createRuntimeEngine}. */
export interface RuntimeEngineOptions {
  /** Where snippets run. Required. */
  runtime: Runtime;
  /** Profile of calls that name none. @defaultValue 'standard' */
  profile?: SecurityProfile;
}

/** The engine's view of a runtime result (also of the partial result of a failure). */
export function toEngineResult(result: ExecuteResult): CodeEngineResult {
  const out: CodeEngineResult = { stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
  if (result.value !== undefined) out.value = result.value;
  if (result.backend !== undefined) out.backend = result.backend;
  if (result.limitsEnforced !== undefined) out.limitsEnforced = result.limitsEnforced;
  if (result.warnings !== undefined) out.warnings = result.warnings;
  return out;
}

/**
 * Maps a runtime failure to the error code mode reports, with the partial engine
 * result under `details.result`.
 *
 * @remarks
 * - The snippet's `TIMEOUT` → `LIMIT_EXCEEDED`, `limit exceeded: timeout after N ms` (the same
 *   message whichever clock noticed it); a `TIMEOUT` in the queue (`details.phase: 'queue'`) →
 *   `LIMIT_EXCEEDED`, `details.limit: 'queue'`; `RESOURCE_LIMIT` → `LIMIT_EXCEEDED` (`limit
 *   exceeded: <message>`). The runtime's error is the `cause` (so `hasErrorCode(err, 'TIMEOUT')`
 *   still holds), its details kept.
 * - `INVALID_LIMITS` (a limit above the runtime's ceiling, ...) → `INVALID_ARGUMENT`
 *   (`executeCode: <message>`): the caller asked for something the runtime does not allow.
 * - `SANDBOX_VIOLATION` → `CODE_EXECUTION` (`code execution error: <message>`), cause the original.
 * - `RUNTIME_UNAVAILABLE` refusing a `language` (`details.language`) that no runtime of the library
 *   runs (`cobol`; `language` is the request's) → `INVALID_ARGUMENT` naming the available
 *   languages: the caller's bad value, not an outage. For a language the library knows (Python on
 *   a profile without a Python backend) it stays `RUNTIME_UNAVAILABLE`.
 * - Everything else keeps its code, message, details and cause (`ABORTED`, `MISSING_CODE`,
 *   `RUNTIME_UNAVAILABLE`, `CODE_EXECUTION`, `LIMIT_EXCEEDED` from the call budget, ...). So does a `TIMEOUT` that a
 *   *tool call* reported (its cause is the run layer's `ToolError`): that is the tool's deadline,
 *   not the snippet's, and is not a code-mode limit.
 *
 * The original error is never flattened: it is the `cause`.
 */
export function mapRuntimeError(err: unknown, timeoutMs?: number, language?: string): ToolexecError {
  const partial = partialResultOf(err);
  const result = partial === undefined ? undefined : toEngineResult(partial);
  if (!ToolexecError.isInstance(err)) {
    const message = err instanceof Error ? err.message : String(err);
    return new ToolexecError('CODE_EXECUTION', `code execution error: ${message}`, {
      cause: err,
      ...(result === undefined ? {} : { details: { result } }),
    });
  }
  const { result: _runtimeResult, ...details } = err.details ?? {};
  // The partial result moves up to the error made here: the runtime's error, kept as the cause,
  // would otherwise carry a second copy of it in every report of the failure.
  if (err.details !== undefined && 'result' in err.details) delete err.details.result;
  if (result !== undefined) details.result = result;
  const fromToolCall = ToolError.isToolError(err.cause);
  if (err.code === 'TIMEOUT' && !fromToolCall) {
    if (details.phase === 'queue') {
      const queueMs = typeof details.queueTimeoutMs === 'number' ? details.queueTimeoutMs : 0;
      return queueTimeoutError(queueMs, err, details);
    }
    const ms = typeof details.timeoutMs === 'number' ? details.timeoutMs : timeoutMs;
    if (ms !== undefined) {
      const mapped = snippetTimeoutError(ms, err);
      return new ToolexecError(mapped.code, mapped.message, { cause: err, details: { ...details, ...mapped.details } });
    }
    return new ToolexecError('LIMIT_EXCEEDED', `limit exceeded: ${err.message}`, { cause: err, details: { limit: 'timeout', ...details } });
  }
  if (err.code === 'RESOURCE_LIMIT') {
    return new ToolexecError('LIMIT_EXCEEDED', `limit exceeded: ${err.message}`, {
      cause: err,
      details: { limit: 'resource', ...details },
    });
  }
  if (err.code === 'INVALID_LIMITS') {
    return new ToolexecError('INVALID_ARGUMENT', `executeCode: ${err.message}`, { cause: err, details });
  }
  // the runtime's refusal of the language itself names it (`details.language`): a runtime of your
  // own that runs more languages and is down for one of them stays RUNTIME_UNAVAILABLE
  if (err.code === 'RUNTIME_UNAVAILABLE' && details.language !== undefined && language !== undefined && !isSnippetLanguage(language)) {
    return unknownLanguageError(language, err, result);
  }
  if (err.code === 'SANDBOX_VIOLATION') {
    return new ToolexecError('CODE_EXECUTION', `code execution error: ${err.message}`, { cause: err, details });
  }
  // the same failure with the engine's result: its cause is the runtime error's own (a copy of the
  // error as its own cause would repeat its message and details)
  return new ToolexecError(err.code, err.message, err.cause === undefined ? { details } : { cause: err.cause, details });
}

/** The request fields a backend's ceiling may lower (when the call did not set them itself). */
type LowerableField = 'timeoutMs' | 'queueTimeoutMs';

/** The field and ceiling of an `INVALID_LIMITS` refusal of `timeoutMs` or `queueTimeoutMs`, else `undefined`. */
function ceilingRefusalOf(err: unknown): { field: LowerableField; ceiling: number } | undefined {
  if (!ToolexecError.isInstance(err) || err.code !== 'INVALID_LIMITS') return undefined;
  const field = err.details?.field;
  if (field !== 'timeoutMs' && field !== 'queueTimeoutMs') return undefined;
  const ceiling = err.details?.ceiling;
  return typeof ceiling === 'number' && Number.isInteger(ceiling) && ceiling > 0 ? { field, ceiling } : undefined;
}

/**
 * A {@link CodeEngine} that runs snippets on a {@link Runtime} (sandbox backends by profile).
 *
 * @remarks
 * Each call becomes one `ExecuteRequest`: `language` (none for the executor's JavaScript default, so
 * that TypeScript runs too; a call naming `javascript` runs as written), `code`, `timeoutMs` (lowered to the
 * runtime's ceiling when it is only the time left before the caller's deadline or the executor's
 * default), `queueTimeoutMs` (lowered likewise when it is the executor's default), `onStart`, `limits: { maxToolCalls, maxChainSteps, memoryBytes }`, `profile` (the call's, else the
 * engine's), `metadata`, `signal`, and the execution's {@link ToolsEnvironment} as the gateway
 * (the sandbox's `tools` object reaches it, so its budget and trace cover every call). The result
 * is mapped back — on failure too, into `details.result` — and failures are mapped by
 * {@link mapRuntimeError}. The engine never closes the runtime (its owner does).
 */
export class RuntimeEngine implements CodeEngine {
  /**
   * True over the default runtime, which calls `onStart` once the snippet has its sandbox (see
   * {@link ExecuteRequest.onStart}); a runtime of your own is not assumed to, so the executor's
   * deadline then counts from the call.
   */
  readonly reportsStart: boolean;
  readonly #runtime: Runtime;
  readonly #profile: SecurityProfile;

  constructor(options: RuntimeEngineOptions) {
    const runtime = (options as Partial<RuntimeEngineOptions> | undefined)?.runtime;
    if (runtime === undefined || runtime === null || typeof runtime.execute !== 'function') {
      throw new ToolexecError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the runtime engine needs a runtime');
    }
    const profile = options.profile ?? DEFAULT_ENGINE_PROFILE;
    if (!isSecurityProfile(profile)) {
      throw new ToolexecError('CONFIGURATION', `configuration error: unknown profile "${String(profile)}"`, {
        details: { field: 'profile', value: profile },
      });
    }
    this.#runtime = runtime;
    this.#profile = profile;
    this.reportsStart = runtime instanceof DefaultRuntime;
  }

  /** The profile of calls that name none. */
  get profile(): SecurityProfile {
    return this.#profile;
  }

  /** The runtime snippets run on. */
  get runtime(): Runtime {
    return this.#runtime;
  }

  async execute(params: CodeEngineParams, tools: ToolsEnvironment): Promise<CodeEngineResult> {
    const request: ExecuteRequest = {
      // the JavaScript default names no language: the runtime then accepts TypeScript too
      ...(params.languageDefaulted === true ? {} : { language: params.language }),
      code: params.code,
      timeoutMs: params.timeoutMs,
      limits: {
        maxToolCalls: params.maxToolCalls,
        maxChainSteps: params.maxChainSteps,
        ...(params.memoryBytes === undefined ? {} : { memoryBytes: params.memoryBytes }),
      },
      profile: params.profile ?? this.#profile,
      gateway: tools,
      signal: params.signal,
    };
    if (params.queueTimeoutMs !== undefined) request.queueTimeoutMs = params.queueTimeoutMs;
    if (params.onStart !== undefined) request.onStart = params.onStart;
    if (params.metadata !== undefined) request.metadata = params.metadata;
    if (params.strict === true) request.strict = true;
    // values the call did not set itself (the executor's defaults, the time left before a
    // deadline) are lowered to the backend's ceiling rather than refused
    const lowerable = new Set<LowerableField>();
    if (params.timeoutFromDeadline === true || params.timeoutDefaulted === true) lowerable.add('timeoutMs');
    if (params.queueTimeoutDefaulted === true) lowerable.add('queueTimeoutMs');
    let result: ExecuteResult;
    try {
      result = await this.#execute(request, lowerable);
    } catch (err) {
      throw mapRuntimeError(err, params.timeoutMs, request.language);
    }
    return toEngineResult(result);
  }

  /**
   * Runs the request; when the runtime refuses a field of `lowerable` (a `timeoutMs` that is only
   * the time left before the caller's deadline or the executor's default, a `queueTimeoutMs` that is
   * the executor's default) as above its ceiling (refused before the snippet queues), runs it again
   * with the ceiling in its place; a value the caller gave is refused as it is.
   */
  async #execute(request: ExecuteRequest, lowerable: ReadonlySet<LowerableField>): Promise<ExecuteResult> {
    let current = request;
    const lowered = new Set<LowerableField>();
    for (;;) {
      try {
        return await this.#runtime.execute(current);
      } catch (err) {
        const refusal = ceilingRefusalOf(err);
        if (refusal === undefined || !lowerable.has(refusal.field) || lowered.has(refusal.field)) throw err;
        const value = current[refusal.field];
        if (value === undefined || refusal.ceiling >= value) throw err;
        lowered.add(refusal.field);
        current = { ...current, [refusal.field]: refusal.ceiling };
      }
    }
  }
}

/**
 * Creates the runtime engine.
 *
 * @throws `RUNTIME_UNAVAILABLE` without a runtime; `CONFIGURATION` for an unknown profile.
 */
export function createRuntimeEngine(options: RuntimeEngineOptions): RuntimeEngine {
  return new RuntimeEngine(options);
}
