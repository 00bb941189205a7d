/**
 * Errors of code mode: the snippet error with its position, and failures that carry the partial
 * result.
 */
import { ToolexecError, type ErrorCode } from '../model/index.js';
import { abortOutcome, textOf } from '../model/internal.js';
import { SNIPPET_LANGUAGES } from '../runtime/internal.js';
import type { CodeResult } from './types.js';

/** What {@link CodeError} is built from. */
export interface CodeErrorInit {
  /** What went wrong, without the position. */
  message: string;
  /** 1-based line in the user's snippet; 0 or absent when unknown. */
  line?: number;
  /** 1-based column; 0 or absent when unknown. */
  column?: number;
  /** The original error (the engine's, the sandbox's). */
  cause?: unknown;
  /** Further data; `line` and `column` are added. */
  details?: Record<string, unknown>;
}

/**
 * A snippet failed: code `CODE_EXECUTION`, the position in `details.line` /
 * `details.column` and on the instance.
 *
 * @remarks The message is `<message> (line L, col C)` when `line > 0` (even with column 0), else
 * just `<message>`. The original error stays reachable as `cause`. Engines use it for their own
 * snippet failures; the runtime engine passes the sandbox's `CODE_EXECUTION` errors on as they are.
 */
export class CodeError extends ToolexecError {
  /** 1-based line, 0 when unknown. */
  readonly line: number;
  /** 1-based column, 0 when unknown. */
  readonly column: number;
  /** The message without the position. */
  readonly reason: string;

  constructor(init: CodeErrorInit) {
    const line = init.line !== undefined && init.line > 0 ? init.line : 0;
    const column = init.column !== undefined && init.column > 0 ? init.column : 0;
    const message = line > 0 ? `${init.message} (line ${line}, col ${column})` : init.message;
    super('CODE_EXECUTION', message, {
      ...(init.cause === undefined ? {} : { cause: init.cause }),
      details: { ...init.details, ...(line > 0 ? { line } : {}), ...(column > 0 ? { column } : {}) },
    });
    this.line = line;
    this.column = column;
    this.reason = init.message;
  }
}

/**
 * The execution's failure with `result` (the partial {@link CodeResult}) under `details.result`.
 *
 * @remarks
 * `code`, `message`, the other details and the `cause` are kept (`code` may be replaced by
 * `asCode`), so a `LIMIT_EXCEEDED` that wraps a `TIMEOUT` keeps the `TIMEOUT` as its direct cause;
 * the original error itself is not made the cause (it would repeat the message, the details and
 * the partial result). A value that is not a library error becomes `CODE_EXECUTION` with it as cause.
 *
 * @internal
 */
export function withCodeResult(err: unknown, result: CodeResult, asCode?: ErrorCode): ToolexecError {
  if (ToolexecError.isInstance(err)) {
    const { result: _engineResult, ...details } = err.details ?? {};
    return new ToolexecError(asCode ?? err.code, err.message, {
      ...(err.cause === undefined ? {} : { cause: err.cause }),
      details: { ...details, result },
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ToolexecError(asCode ?? 'CODE_EXECUTION', `code execution error: ${message}`, { cause: err, details: { result } });
}

/** The partial result on a failed execution (`details.result`), if any. */
export function codeResultOf(err: unknown): CodeResult | undefined {
  if (!ToolexecError.isInstance(err)) return undefined;
  const result = err.details?.result;
  return result !== null && typeof result === 'object' ? (result as CodeResult) : undefined;
}

/**
 * The error of a snippet stopped by its own deadline: `LIMIT_EXCEEDED`, `limit exceeded: timeout
 * after N ms` (`details: { limit: 'timeout', timeoutMs }`) whose `cause` is the `TIMEOUT`. One
 * message per limit, however the deadline was noticed (the executor's clock, the sandbox's).
 *
 * @internal
 */
export function snippetTimeoutError(timeoutMs: number, cause: unknown): ToolexecError {
  // withCodeResult keeps this error's cause (the TIMEOUT) as the final error's direct cause.
  return new ToolexecError('LIMIT_EXCEEDED', `limit exceeded: timeout after ${timeoutMs} ms`, {
    cause,
    details: { limit: 'timeout', timeoutMs },
  });
}

/**
 * The error of a snippet that waited `queueTimeoutMs` for a sandbox and never started:
 * `LIMIT_EXCEEDED`, `details: { limit: 'queue', phase: 'queue', queueTimeoutMs }`, whose `cause` is
 * the runtime's `TIMEOUT`.
 *
 * @internal
 */
export function queueTimeoutError(queueTimeoutMs: number, cause: unknown, details: Record<string, unknown> = {}): ToolexecError {
  return new ToolexecError(
    'LIMIT_EXCEEDED',
    `limit exceeded: queued ${queueTimeoutMs} ms without a free sandbox; the snippet never started`,
    { cause, details: { ...details, limit: 'queue', phase: 'queue', queueTimeoutMs } },
  );
}

/**
 * The error of a snippet stopped by the caller's `signal`, whenever the abort lands (before the
 * snippet starts, while it waits for a sandbox, while it runs, during one of its tool calls):
 * `ABORTED`, `code execution aborted: <reason>`, or `TIMEOUT`, `code execution timed out: <reason>`
 * when the reason is a timeout (`AbortSignal.timeout(ms)`); `cause` is the signal's reason. The one
 * place this error is made, so one cause reads the same every time.
 *
 * @internal
 */
export function snippetAbortError(reason: unknown): ToolexecError {
  const outcome = abortOutcome(reason);
  return new ToolexecError(outcome.code, `code execution ${outcome.text}`, { cause: reason });
}

/**
 * The error of a snippet whose `language` no runtime of the library runs (`cobol`): the caller's
 * bad value, `INVALID_ARGUMENT` (400) naming the available languages (`details.field: 'language'`,
 * `details.value`, `details.available`), the runtime's refusal as `cause`. A language the library
 * knows whose runtime is not there (Python on the `dev` profile) stays `RUNTIME_UNAVAILABLE`.
 *
 * @internal
 */
export function unknownLanguageError(language: string, cause: unknown, result?: unknown): ToolexecError {
  const available = [...SNIPPET_LANGUAGES];
  return new ToolexecError(
    'INVALID_ARGUMENT',
    `executeCode: language "${textOf(language)}" is not supported; available: ${available.join(', ')}`,
    { cause, details: { field: 'language', value: textOf(language), available, ...(result === undefined ? {} : { result }) } },
  );
}
