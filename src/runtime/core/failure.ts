/**
 * Turns what a guest (the node guest, the wasm worker) reports about a failed run into the
 * library's failure, so that every backend fails with the same codes, messages and details.
 */
import { ToolexecError, type ErrorCode } from '../../model/index.js';

/** A failure, ready for `runtimeError(code, message, { cause, details, result })`. */
export interface RunFailure {
  /** The error code the run fails with (`TIMEOUT`, `RESOURCE_LIMIT`, `CODE_EXECUTION`, ...). */
  code: ErrorCode;
  /** The error message. */
  message: string;
  /** The original error (a gateway call's error, an abort reason, a spawn error), when there is one. */
  cause?: unknown;
  /** Structured data about the failure (`limit`, `timeoutMs`, `stderrTail`, ...). */
  details?: Record<string, unknown>;
}

/** The limits a failure message may name. */
export interface FailureContext {
  /** Original errors of failed gateway calls, by request id. */
  gatewayErrors: ReadonlyMap<string, unknown>;
  timeoutMs: number;
  maxOutputBytes: number;
  /** The memory cap, when the backend applies one. */
  memoryBytes?: number;
  /** Rewrites the reported stack for the user (e.g. keeps only the snippet's frames). */
  formatStack?: (stack: string) => string | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The TIMEOUT failure of a run that outlived `timeoutMs`. */
export function timeoutFailure(timeoutMs: number, extra: Record<string, unknown> = {}): RunFailure {
  return {
    code: 'TIMEOUT',
    message: `execution timeout: the snippet ran longer than ${timeoutMs}ms`,
    details: { timeoutMs, ...extra },
  };
}

/** The RESOURCE_LIMIT failure of output beyond `maxOutputBytes`. */
export function outputFailure(maxOutputBytes: number): RunFailure {
  return {
    code: 'RESOURCE_LIMIT',
    message: `resource limit exceeded: output over ${maxOutputBytes} bytes`,
    details: { limit: 'output', maxOutputBytes },
  };
}

/** The RESOURCE_LIMIT failure of a run that needed more than `memoryBytes`. */
export function memoryFailure(memoryBytes: number | undefined, text?: string, extra: Record<string, unknown> = {}): RunFailure {
  const why = text === undefined ? `more than ${memoryBytes ?? '?'} bytes` : text;
  return {
    code: 'RESOURCE_LIMIT',
    message: `resource limit exceeded: memory (${why})`,
    details: { limit: 'memory', memoryBytes, ...extra },
  };
}

/** Maps the worker's `failed` report. */
export function failureFromReport(report: unknown, context: FailureContext): RunFailure {
  const r = isObject(report) ? report : {};
  const line = positive(r.line);
  const column = positive(r.column);
  const where: Record<string, unknown> = line === undefined ? {} : { line, ...(column === undefined ? {} : { column }) };
  const extra: Record<string, unknown> = {};
  if (typeof r.exitCode === 'number') extra.exitCode = r.exitCode;
  if (typeof r.memoryBytes === 'number') extra.memoryBytesUsed = r.memoryBytes;
  const name = typeof r.name === 'string' && r.name !== '' ? r.name : 'Error';
  const text = typeof r.message === 'string' ? r.message : 'the snippet failed';

  if (r.timeout === true) return timeoutFailure(context.timeoutMs);
  if (r.cancelled === true) return { code: 'ABORTED', message: 'execution aborted' };
  const original = typeof r.requestId === 'string' ? context.gatewayErrors.get(r.requestId) : undefined;
  if (original !== undefined && ToolexecError.isInstance(original)) {
    return { code: original.code, message: original.message, cause: original, details: { ...original.details, ...where } };
  }
  if (r.limit === 'stack') {
    return { code: 'RESOURCE_LIMIT', message: `resource limit exceeded: stack (${text})`, details: { limit: 'stack', ...where, ...extra } };
  }
  if (r.limit === 'result') {
    return { code: 'RESOURCE_LIMIT', message: `resource limit exceeded: result (${text})`, details: { limit: 'result' } };
  }
  if (r.limit === 'output') {
    if (r.what === 'console') return outputFailure(context.maxOutputBytes);
    return {
      code: 'RESOURCE_LIMIT',
      message: `resource limit exceeded: output (${text})`,
      details: { limit: 'output', maxOutputBytes: context.maxOutputBytes },
    };
  }
  if (r.limit === 'memory') {
    const cap = context.memoryBytes === undefined ? 'its memory cap' : `${context.memoryBytes} bytes`;
    return memoryFailure(context.memoryBytes, `the snippet needed more than ${cap}: ${text}`, { ...where, ...extra });
  }
  // a guest that knows no column (Python without position tables) gives the line alone
  const location = line === undefined ? '' : column === undefined ? ` (line ${line})` : ` (line ${line}, col ${column})`;
  const details: Record<string, unknown> = { ...where, name, ...extra };
  if (typeof r.stack === 'string' && r.stack !== '') {
    const stack = context.formatStack === undefined ? r.stack : context.formatStack(r.stack);
    if (stack !== undefined) details.stack = stack;
  }
  if (r.phase === 'compile') details.phase = 'compile';
  return {
    code: 'CODE_EXECUTION',
    message: `${name === 'Error' ? '' : `${name}: `}${text}${location}`,
    ...(original === undefined ? {} : { cause: original }),
    details,
  };
}
