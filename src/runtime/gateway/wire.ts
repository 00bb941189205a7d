/**
 * The gateway wire protocol: message envelopes, request and reply payloads, and the one place
 * where errors and values are turned into JSON and back.
 */
import { ToolexecError, isErrorCode, type ErrorCode } from '../../model/index.js';

/** The request types a gateway client sends. */
export const GATEWAY_REQUEST_TYPES = [
  'search_tools',
  'list_namespaces',
  'describe_tool',
  'list_tool_examples',
  'run_tool',
  'run_chain',
] as const;

/** A gateway request type. */
export type GatewayRequestType = (typeof GATEWAY_REQUEST_TYPES)[number];

/** The reply types: `response` (success) and `error`. */
export type GatewayReplyType = 'response' | 'error';

/**
 * One protocol message: `{ type, id, payload? }`. Requests and replies always carry an `id`;
 * other messages on the same channel (guest output, start, result) may not.
 */
export interface WireMessage {
  /** A {@link GatewayRequestType}, a {@link GatewayReplyType}, or another message type of the channel. */
  type: string;
  /** Pairs a reply with its request; absent on messages that are neither. */
  id?: string;
  /** The request's arguments, the reply's value, or a {@link WireError} for `error`. */
  payload?: unknown;
  /** Other fields of channel-specific messages. */
  [key: string]: unknown;
}

/** The payload of an `error` reply. Everything but `error` is optional. */
export interface WireError {
  /** The message. */
  error: string;
  /** The library error code (`TOOL_NOT_FOUND`, ...). */
  code?: string;
  /** The error class name (`ToolError`, `ChainError`, ...). */
  name?: string;
  /** JSON-safe details. */
  details?: Record<string, unknown>;
  /** ToolError fields, when present. */
  toolId?: string;
  /** The failed pipeline stage of a ToolError (`resolve`, `execute`, ...). */
  op?: string;
  /** The backend of a ToolError, when one had been selected. */
  backend?: unknown;
  /** ChainError step results (each step's error serialized the same way). */
  steps?: unknown[];
  /** The cause chain, a few levels deep. */
  cause?: WireError;
}

const REQUEST_TYPE_SET: ReadonlySet<string> = new Set(GATEWAY_REQUEST_TYPES);

/** True when `type` is one of the six gateway request types. */
export function isGatewayRequestType(type: unknown): type is GatewayRequestType {
  return typeof type === 'string' && REQUEST_TYPE_SET.has(type);
}

const MAX_DEPTH = 64;

/**
 * A JSON-safe deep copy of `value`: functions, symbols and `undefined` members are dropped, bigints
 * become strings, cycles and depth beyond 64 become `"[Circular]"` / `"[Truncated]"`, errors become
 * `{ name, message, code? }`, objects with `toJSON` are honoured. Returns `undefined` for values
 * that have no JSON form.
 */
export function toJsonSafe(value: unknown): unknown {
  return convert(value, new Set(), 0);
}

function convert(value: unknown, seen: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  seen.add(object);
  try {
    if (ToolexecError.isInstance(object)) return serializeError(object);
    if (object instanceof Error) return { name: object.name, message: object.message };
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function' && !(object instanceof Date)) {
      return convert((toJSON as () => unknown).call(object), seen, depth + 1);
    }
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
    if (Array.isArray(object)) return object.map((item) => convert(item, seen, depth + 1) ?? null);
    if (ArrayBuffer.isView(object)) return Array.from(new Uint8Array(object.buffer, object.byteOffset, object.byteLength));
    if (object instanceof Map) return convert(Object.fromEntries(object), seen, depth + 1);
    if (object instanceof Set) return convert([...object], seen, depth + 1);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(object)) {
      const converted = convert(item, seen, depth + 1);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  } finally {
    seen.delete(object);
  }
}

const MAX_CAUSE_DEPTH = 4;

/**
 * Serializes any thrown value for an `error` reply: message, code (`EXECUTION` for non-library
 * errors), name, JSON-safe details, ToolError/ChainError fields and a short cause chain.
 */
export function serializeError(err: unknown, depth = 0): WireError {
  if (!(err instanceof Error) && !ToolexecError.isInstance(err)) {
    return { error: typeof err === 'string' ? err : String(err), code: 'EXECUTION' };
  }
  const wire: WireError = { error: err.message, name: err.name };
  const record = err as unknown as Record<string, unknown>;
  if (ToolexecError.isInstance(err)) {
    wire.code = err.code;
    if (err.details !== undefined) {
      const details = toJsonSafe(err.details);
      if (details !== null && typeof details === 'object') wire.details = details as Record<string, unknown>;
    }
  } else {
    wire.code = 'EXECUTION';
  }
  if (typeof record.toolId === 'string') wire.toolId = record.toolId;
  if (typeof record.op === 'string') wire.op = record.op;
  if (record.backend !== undefined && record.backend !== null) wire.backend = toJsonSafe(record.backend);
  if (Array.isArray(record.steps)) wire.steps = record.steps.map((step) => serializeStep(step));
  if (err.cause !== undefined && depth < MAX_CAUSE_DEPTH) wire.cause = serializeError(err.cause, depth + 1);
  return wire;
}

/** Serializes a chain step result (its `error` through {@link serializeError}). */
export function serializeStep(step: unknown): unknown {
  if (step === null || typeof step !== 'object') return toJsonSafe(step);
  const { error, ...rest } = step as { error?: unknown } & Record<string, unknown>;
  const out = toJsonSafe(rest) as Record<string, unknown>;
  if (error !== undefined) out.error = serializeError(error);
  return out;
}

/** Rebuilds a step result serialized by {@link serializeStep}. */
export function deserializeStep(step: unknown): unknown {
  if (step === null || typeof step !== 'object') return step;
  const { error, ...rest } = step as { error?: unknown } & Record<string, unknown>;
  if (error === undefined) return rest;
  return { ...rest, error: deserializeError(error) };
}

/**
 * Rebuilds an error reply as a {@link ToolexecError} with the same code (`EXECUTION` when the code
 * is missing or unknown), message, name and details; ToolError fields (`toolId`, `op`, `backend`)
 * and ChainError `steps` are restored as properties, the cause chain as `cause`.
 */
export function deserializeError(payload: unknown): ToolexecError {
  if (payload === null || typeof payload !== 'object') {
    return new ToolexecError('EXECUTION', 'unknown error');
  }
  const wire = payload as Partial<WireError>;
  const message = typeof wire.error === 'string' && wire.error !== '' ? wire.error : 'unknown error';
  const code: ErrorCode = isErrorCode(wire.code) ? wire.code : 'EXECUTION';
  const details = wire.details !== null && typeof wire.details === 'object' && !Array.isArray(wire.details) ? wire.details : undefined;
  const cause = wire.cause !== undefined ? deserializeError(wire.cause) : undefined;
  const error = new ToolexecError(code, message, {
    ...(cause === undefined ? {} : { cause }),
    ...(details === undefined ? {} : { details }),
  });
  if (typeof wire.name === 'string' && wire.name !== '') error.name = wire.name;
  const extra = error as unknown as Record<string, unknown>;
  if (typeof wire.toolId === 'string') extra.toolId = wire.toolId;
  if (typeof wire.op === 'string') extra.op = wire.op;
  if (wire.backend !== undefined) extra.backend = wire.backend;
  if (Array.isArray(wire.steps)) extra.steps = wire.steps.map((step) => deserializeStep(step));
  return error;
}

/** A `PROTOCOL` error with `message`. */
export function protocolError(message: string, details?: Record<string, unknown>, cause?: unknown): ToolexecError {
  return new ToolexecError('PROTOCOL', `protocol error: ${message}`, {
    ...(details === undefined ? {} : { details }),
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A `CONNECTION_CLOSED` error. */
export function connectionClosedError(message = 'gateway connection closed', cause?: unknown): ToolexecError {
  return new ToolexecError('CONNECTION_CLOSED', message, cause === undefined ? {} : { cause });
}
