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
  // mcp / exec: an MCP server that cannot be reached (`details.server`, the connect error as `cause`)
  'SERVER_UNAVAILABLE',
] as const;

/** A stable, machine-readable error code. Match on it, never on messages. */
export type ErrorCode = (typeof ERROR_CODES)[number];

import type { ToolexecErrorDetails } from './error-details.js';
import { toJsonSafe } from './json-safe.js';
import { reachableObjects } from './reachable.js';

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
 *
 * The type parameter is the code when it is known statically (`ToolexecError<'TOOL_NOT_FOUND'>`,
 * from {@link findError}); `details` then has that code's shape ({@link ToolexecErrorDetails}).
 *
 * @typeParam C - The error's code, when known; every {@link ErrorCode} by default.
 */
export class ToolexecError<C extends ErrorCode = ErrorCode> extends Error {
  /** The stable error code. */
  readonly code: C;
  /** Structured data about the failure; its shape per code is {@link ToolexecErrorDetails}. */
  readonly details?: ToolexecErrorDetails[C];
  /** The wrapped original error (a handler's throw, an abort reason, ...); undefined when none. */
  declare readonly cause?: unknown;

  constructor(code: C, message: string, options: ToolexecErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    // The producers of each code fill its shape (see error-details.ts); the options stay open.
    if (options.details !== undefined) this.details = options.details as ToolexecErrorDetails[C];
    Object.defineProperty(this, MARKER, { value: true });
  }

  /**
   * True for a ToolexecError from any copy of this package; with `code`, only for one with that
   * code (`value` itself, not its causes: see {@link hasErrorCode}), whose `details` it then types:
   * `if (ToolexecError.isInstance(err, 'VALIDATION')) err.details?.violations`.
   */
  static isInstance<K extends ErrorCode = ErrorCode>(value: unknown, code?: K): value is ToolexecError<K> {
    if (typeof value !== 'object' || value === null) return false;
    try {
      return (
        (value as Record<symbol, unknown>)[MARKER] === true &&
        typeof (value as { code?: unknown }).code === 'string' &&
        (code === undefined || (value as { code: unknown }).code === code)
      );
    } catch {
      // A revoked proxy or a throwing getter: not one of ours.
      return false;
    }
  }

  /**
   * A JSON form: name, code, message, details (as JSON-safe data, see {@link toErrorShape}) and
   * the cause chain in the same form (a non-library cause as its name and message). A chain that
   * loops back on itself ends where it would repeat; it is cut after 8 links.
   */
  toJSON(): Record<string, unknown> {
    return errorJson(this, new Set<unknown>([this]), 0);
  }
}

// A cause chain longer than this is cut (a chain is rarely deeper than 4; cycles stop earlier).
const MAX_CAUSE_DEPTH = 8;

function errorJson(error: ToolexecError, seen: Set<unknown>, depth: number): Record<string, unknown> {
  const json: Record<string, unknown> = { name: error.name, code: error.code, message: error.message };
  if (error.details !== undefined) json.details = safeDetails(error.details);
  const cause = error.cause;
  if (cause !== undefined && depth < MAX_CAUSE_DEPTH && !seen.has(cause)) {
    seen.add(cause);
    json.cause = describeCause(cause, seen, depth + 1);
  }
  return json;
}

function describeCause(cause: unknown, seen: Set<unknown>, depth: number): unknown {
  if (ToolexecError.isInstance(cause)) return errorJson(cause, seen, depth);
  if (cause instanceof Error) return { name: cause.name, message: cause.message };
  return typeof cause === 'string' ? cause : safeString(cause);
}

/** `String(value)` that never throws (null-prototype objects, hostile `toString`s). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return typeof value;
    }
  }
}

/** `details` as JSON-safe data ({@link toJsonSafe}); anything but an object comes back as `{ value }`. */
function safeDetails(details: Record<string, unknown>): Record<string, unknown> {
  const safe = toJsonSafe(details);
  return typeof safe === 'object' && safe !== null && !Array.isArray(safe) ? (safe as Record<string, unknown>) : { value: safe };
}

/** True if `value` is one of the library's {@link ErrorCode}s. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

/**
 * True when `err`, or any error in its `cause` chain (and any error inside an AggregateError
 * on that chain), is a {@link ToolexecError} with `code`. The walk stops on cycles.
 *
 * @remarks It does not narrow `err`: the match may be a cause of `err`, with a code and details
 * of its own. To read the matched error's typed details, use {@link findError}, or test `err`
 * itself with {@link ToolexecError.isInstance} and a code.
 */
export function hasErrorCode(err: unknown, code: ErrorCode): boolean {
  return findError(err, code) !== undefined;
}

/**
 * The first {@link ToolexecError} with `code` on the cause chain of `err` (walked as
 * {@link hasErrorCode} walks it), if any, typed by its code: `findError(err, 'TOOL_NOT_FOUND')?.details?.suggestions`
 * is a `string[] | undefined`.
 */
export function findError<C extends ErrorCode>(err: unknown, code: C): ToolexecError<C> | undefined {
  try {
    return findOnChain(err, code) as ToolexecError<C> | undefined;
  } catch {
    // A link that cannot be read (a revoked proxy, a throwing `cause` getter) ends the walk.
    return undefined;
  }
}

function findOnChain(err: unknown, code: ErrorCode): ToolexecError | undefined {
  for (const current of reachableObjects(err, errorLinks)) {
    if (ToolexecError.isInstance(current, code)) return current;
  }
  return undefined;
}

/** What an error wraps: an AggregateError's errors, then its `cause`. */
function errorLinks(error: object): unknown[] {
  const links: unknown[] = error instanceof AggregateError ? [...(error.errors as unknown[])] : [];
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined) links.push(cause);
  return links;
}

/** One link of an error's cause chain, as {@link toErrorShape} reports it. */
export interface ErrorCauseShape {
  /** The {@link ErrorCode} of a library error; absent for any other error. */
  code?: string;
  /** The error's message (or the thrown value, described in one line). */
  message: string;
  /** The error's `details`, for a library error that has any, as JSON-safe data. */
  details?: Record<string, unknown>;
  /** What this error wrapped, in turn. */
  cause?: ErrorCauseShape;
  /** The errors of an `AggregateError`. */
  errors?: ErrorCauseShape[];
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
    /** The error's `details`, when it has any, as JSON-safe data. */
    details?: Record<string, unknown>;
    /** What the error wrapped (its `cause` chain: messages, codes and details), when it wrapped anything. */
    cause?: ErrorCauseShape;
    /** For an `AggregateError`: the errors it gathered, each as a cause is shown. */
    errors?: ErrorCauseShape[];
  };
}

/**
 * Turns any thrown value into the `{ status: 'Error', error: { code, message, details, cause } }`
 * shape. A non-library error becomes code `EXECUTION` with its message. `cause` keeps the chain
 * of wrapped errors (each with its code when it is a library error). The whole shape is JSON-safe:
 * `details` are copied as JSON-safe data (a bigint as a string, a cycle as `"[Circular]"`, a
 * function or symbol dropped, a getter that throws as `"[Unreadable: <message>]"`; plain JSON as it
 * is), so `JSON.stringify` never throws on it.
 */
export function toErrorShape(err: unknown): ErrorShape {
  try {
    return errorShape(err);
  } catch {
    // A thrown value that cannot even be read (a revoked proxy): still an answer to send.
    return { status: 'Error', error: { code: 'EXECUTION', message: 'an error that could not be read' } };
  }
}

function errorShape(err: unknown): ErrorShape {
  const seen = new Set<unknown>([err]);
  if (ToolexecError.isInstance(err)) {
    const error: ErrorShape['error'] = { code: err.code, message: err.message };
    if (err.details !== undefined) error.details = safeDetails(err.details);
    const cause = causeShape(err.cause, seen, 0);
    if (cause !== undefined) error.cause = cause;
    return { status: 'Error', error };
  }
  const error: ErrorShape['error'] = { code: 'EXECUTION', message: errorMessage(err) };
  const cause = err instanceof Error ? causeShape(err.cause, seen, 0) : undefined;
  if (cause !== undefined) error.cause = cause;
  const errors = err instanceof AggregateError ? innerShapes(err, seen, 0) : undefined;
  if (errors !== undefined) error.errors = errors;
  return { status: 'Error', error };
}

/** The shapes of an `AggregateError`'s inner errors; `undefined` when there are none to show. */
function innerShapes(err: AggregateError, seen: Set<unknown>, depth: number): ErrorCauseShape[] | undefined {
  const inner = Array.isArray(err.errors) ? (err.errors as unknown[]) : [];
  const shapes = inner.map((item) => causeShape(item, seen, depth + 1)).filter((item): item is ErrorCauseShape => item !== undefined);
  return shapes.length > 0 ? shapes : undefined;
}

function causeShape(cause: unknown, seen: Set<unknown>, depth: number): ErrorCauseShape | undefined {
  if (cause === undefined || depth >= MAX_CAUSE_DEPTH || seen.has(cause)) return undefined;
  seen.add(cause);
  const shape: ErrorCauseShape = { message: errorMessage(cause) };
  if (ToolexecError.isInstance(cause)) {
    shape.code = cause.code;
    if (cause.details !== undefined) shape.details = safeDetails(cause.details);
  }
  if (cause instanceof AggregateError) {
    const errors = innerShapes(cause, seen, depth);
    if (errors !== undefined) shape.errors = errors;
  }
  const next = typeof cause === 'object' && cause !== null ? causeShape((cause as { cause?: unknown }).cause, seen, depth + 1) : undefined;
  if (next !== undefined) shape.cause = next;
  return shape;
}

/**
 * The HTTP status a service should answer with for each {@link ErrorCode} (see docs/failures.md).
 * 400: the request was wrong; 404: no such tool or backend; 408: the caller gave up; 429: a limit
 * was reached; 502: the tool (or the server behind it) failed or answered wrongly; 503: what runs
 * the tool cannot be reached now; 504: the tool took too long; 500: the service is misconfigured.
 */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  INVALID_ARGUMENT: 400,
  CONFIGURATION: 500,
  INVALID_TOOL: 400,
  INVALID_TOOL_ID: 400,
  INVALID_BACKEND: 400,
  INVALID_SCHEMA: 500,
  TOOL_NOT_FOUND: 404,
  INVALID_CURSOR: 400,
  INVALID_DETAIL: 400,
  ARGS_TOO_LARGE: 400,
  NO_BACKENDS: 503,
  VALIDATION: 400,
  OUTPUT_VALIDATION: 502,
  EXECUTION: 502,
  STREAM_NOT_SUPPORTED: 400,
  ABORTED: 408,
  TIMEOUT: 504,
  BACKEND_NOT_FOUND: 404,
  BACKEND_DISABLED: 503,
  BACKEND_EXISTS: 500,
  LIMIT_EXCEEDED: 429,
  CODE_EXECUTION: 400,
  RUNTIME_UNAVAILABLE: 503,
  BACKEND_DENIED: 400,
  SANDBOX_VIOLATION: 400,
  RESOURCE_LIMIT: 429,
  MISSING_GATEWAY: 500,
  MISSING_CODE: 400,
  INVALID_LIMITS: 400,
  CONNECTION_CLOSED: 503,
  PROTOCOL: 502,
  SERVER_UNAVAILABLE: 503,
});

/**
 * The HTTP status a backend service should answer with for `err`: its code's entry in
 * {@link ERROR_STATUS}; 500 for anything that is not a library error. Every failure of the
 * library's own calls is a library error, so anything else came from the service's own code: a
 * bug, not a tool's failure, even though {@link toErrorShape} gives it the code `EXECUTION`.
 */
export function errorStatus(err: unknown): number {
  return ToolexecError.isInstance(err) ? (ERROR_STATUS[err.code] ?? 500) : 500;
}

/**
 * The longest text of another party (a tool's, a server's, a backend's error) a library message
 * quotes, in UTF-16 code units (4 KiB): such a text can be megabytes, and a message is logged,
 * traced and shown to models. The whole text stays where it came from (the error's `cause`, an
 * MCP result in `details`).
 */
export const MAX_QUOTED_CHARS = 4096;

/**
 * `text` as a message quotes it: whole when it fits `maxChars` ({@link MAX_QUOTED_CHARS}), else its
 * start (never half a surrogate pair) followed by `… (<length> characters)`.
 *
 * @internal
 */
export function capText(text: string, maxChars: number = MAX_QUOTED_CHARS): string {
  if (text.length <= maxChars) return text;
  const high = text.charCodeAt(maxChars - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? maxChars - 1 : maxChars;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

/**
 * A description of any thrown value, for messages that wrap it: an Error's message, a string as
 * it is, anything else as JSON; cut at 4 KiB with its length
 * (`<first 4096 characters>… (<length> characters)`), since such a text can be megabytes and a
 * message is logged, traced and shown to models.
 */
export function errorMessage(err: unknown): string {
  return capText(rawErrorMessage(err));
}

function rawErrorMessage(err: unknown): string {
  if (typeof err === 'string') return err;
  try {
    if (err instanceof Error) return String(err.message);
    return JSON.stringify(err) ?? safeString(err);
  } catch {
    return safeString(err);
  }
}
