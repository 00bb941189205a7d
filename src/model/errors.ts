/**
 * The error base shared by every layer: one class, a stable string `code`, the original error as
 * `cause`, and structured `details`.
 */

/** Every stable error code the library produces, grouped by the layer that raises it. */
export const ERROR_CODES = [
  // any layer: a bad argument to a call (a non-positive page size, a malformed per-call option, ...)
  'INVALID_ARGUMENT',
  // any layer: a bad option given when something is created (createRunner, createExec, a backend, ...)
  'CONFIGURATION',
  // model / discovery
  'INVALID_TOOL',
  'INVALID_TOOL_ID',
  'INVALID_BACKEND',
  'INVALID_SCHEMA',
  'TOOL_NOT_FOUND',
  'INVALID_CURSOR',
  'INVALID_DETAIL',
  'ARGS_TOO_LARGE',
  // run
  'NO_BACKENDS',
  'VALIDATION',
  'OUTPUT_VALIDATION',
  'EXECUTION',
  'STREAM_NOT_SUPPORTED',
  'ABORTED',
  'TIMEOUT',
  // backend
  'BACKEND_NOT_FOUND',
  'BACKEND_DISABLED',
  'BACKEND_EXISTS',
  // code
  'LIMIT_EXCEEDED',
  'CODE_EXECUTION',
  // runtime
  'RUNTIME_UNAVAILABLE',
  'BACKEND_DENIED',
  'SANDBOX_VIOLATION',
  'RESOURCE_LIMIT',
  'MISSING_GATEWAY',
  'MISSING_CODE',
  'INVALID_LIMITS',
  // gateway
  'CONNECTION_CLOSED',
  'PROTOCOL',
] as const;

/** A stable, machine-readable error code. Match on it, never on messages. */
export type ErrorCode = (typeof ERROR_CODES)[number];

const MARKER = Symbol.for('toolexec.error');
const CODE_SET: ReadonlySet<string> = new Set(ERROR_CODES);

/** Options accepted by {@link ToolexecError} and its subclasses. */
export interface ToolexecErrorOptions {
  /** The error this one wraps (a handler's own error, an abort reason, ...). */
  cause?: unknown;
  /** Structured, JSON-safe data about the failure (violations, limits, the server name, ...). */
  details?: Record<string, unknown>;
}

/**
 * The base class of every error the library throws or rejects with.
 *
 * @remarks
 * `code` is stable across releases; `cause` keeps the original error (never flattened);
 * `details` carries structured data such as schema violations. Use {@link hasErrorCode} to test a
 * code anywhere in the cause chain. Instances are recognised across duplicate
 * copies of the package through a `Symbol.for` marker ({@link ToolexecError.isInstance}).
 */
export class ToolexecError extends Error {
  /** The stable error code. */
  readonly code: ErrorCode;
  /** Structured data about the failure. */
  readonly details?: Record<string, unknown>;
  /** The wrapped original error (a handler's throw, an abort reason, ...); undefined when none. */
  declare readonly cause?: unknown;

  constructor(code: ErrorCode, message: string, options: ToolexecErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    if (options.details !== undefined) this.details = options.details;
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for a ToolexecError from any copy of this package. */
  static isInstance(value: unknown): value is ToolexecError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[MARKER] === true &&
      typeof (value as { code?: unknown }).code === 'string'
    );
  }

  /** A JSON form: name, code, message, details and the cause's message chain. */
  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = { name: this.name, code: this.code, message: this.message };
    if (this.details !== undefined) json.details = this.details;
    if (this.cause !== undefined) json.cause = describeCause(this.cause);
    return json;
  }
}

function describeCause(cause: unknown): unknown {
  if (ToolexecError.isInstance(cause)) return cause.toJSON();
  if (cause instanceof Error) return { name: cause.name, message: cause.message };
  return typeof cause === 'string' ? cause : safeString(cause);
}

/** `String(value)` that never throws (null-prototype objects, hostile `toString`s). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** True if `value` is one of the library's {@link ErrorCode}s. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

/**
 * True when `err`, or any error in its `cause` chain (and any error inside an AggregateError
 * on that chain), is a {@link ToolexecError} with `code`. The walk stops on cycles.
 */
export function hasErrorCode(err: unknown, code: ErrorCode): boolean {
  return findError(err, code) !== undefined;
}

/** The first {@link ToolexecError} with `code` on the cause chain of `err`, if any. */
export function findError(err: unknown, code: ErrorCode): ToolexecError | undefined {
  const seen = new Set<unknown>();
  const stack: unknown[] = [err];
  while (stack.length > 0) {
    const current = stack.pop();
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    if (ToolexecError.isInstance(current) && current.code === code) return current;
    if (current instanceof AggregateError) stack.push(...(current.errors as unknown[]));
    const cause = (current as { cause?: unknown }).cause;
    if (cause !== undefined) stack.push(cause);
  }
  return undefined;
}

/** The envelope of seed 004: what a model or an API client receives for a failure. */
export interface ErrorShape {
  /** Always `'Error'`. */
  status: 'Error';
  /** The failure. */
  error: {
    /** The {@link ErrorCode}; `EXECUTION` for an error that is not a {@link ToolexecError}. */
    code: string;
    /** The error's message. */
    message: string;
    /** The error's `details`, when it has any. */
    details?: Record<string, unknown>;
  };
}

/**
 * Turns any thrown value into the `{ status: 'Error', error: { code, message, details } }` shape.
 * A non-library error becomes code `EXECUTION` with its message.
 */
export function toErrorShape(err: unknown): ErrorShape {
  if (ToolexecError.isInstance(err)) {
    const error: ErrorShape['error'] = { code: err.code, message: err.message };
    if (err.details !== undefined) error.details = err.details;
    return { status: 'Error', error };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { status: 'Error', error: { code: 'EXECUTION', message } };
}

/** A one-line description of any thrown value, for messages that wrap it. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? safeString(err);
  } catch {
    return safeString(err);
  }
}
