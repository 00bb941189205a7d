/**
 * The host half of the gateway wire codec: values and library errors turned into JSON and back.
 * The message shapes and the reading of an error reply live in `codec.ts`, which the guest
 * bundles share; this module adds what needs the library's error class.
 */
import { ToolexecError, isErrorCode, type ErrorCode } from '../../model/index.js';
import { layerErrors } from '../../model/internal.js';
import { decodeWireStep, readWireError, GATEWAY_REQUEST_TYPES, type GatewayRequestType, type WireError } from './codec.js';

export { GATEWAY_REQUEST_TYPES } from './codec.js';
export type { GatewayReplyType, GatewayRequestType, WireError, WireMessage } from './codec.js';

const errors = layerErrors('runtime');

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
  return convert(value, [], 0);
}

/** `ancestors`: the objects being converted around `value` (a cycle leads back to one of them). */
function convert(value: unknown, ancestors: object[], depth: number): unknown {
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
  if (ancestors.includes(object)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  ancestors.push(object);
  try {
    if (ToolexecError.isInstance(object)) return serializeError(object);
    if (object instanceof Error) return { name: object.name, message: object.message };
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function' && !(object instanceof Date)) {
      return convert((toJSON as () => unknown).call(object), ancestors, depth + 1);
    }
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
    if (Array.isArray(object)) return object.map((item) => convert(item, ancestors, depth + 1) ?? null);
    if (ArrayBuffer.isView(object)) return Array.from(new Uint8Array(object.buffer, object.byteOffset, object.byteLength));
    if (object instanceof Map) return convert(Object.fromEntries(object), ancestors, depth + 1);
    if (object instanceof Set) return convert([...object], ancestors, depth + 1);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(object)) {
      const converted = convert((object as Record<string, unknown>)[key], ancestors, depth + 1);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  } finally {
    ancestors.pop();
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

/** Rebuilds a step result serialized by {@link serializeStep} (its `error` through {@link deserializeError}). */
export function deserializeStep(step: unknown): unknown {
  return decodeWireStep(step, deserializeError);
}

/**
 * Rebuilds an error reply as a {@link ToolexecError} with the same code (`EXECUTION` when the code
 * is missing or unknown), message, name and details; ToolError fields (`toolId`, `op`, `backend`)
 * and ChainError `steps` are restored as properties, the cause chain as `cause`.
 */
export function deserializeError(payload: unknown): ToolexecError {
  const wire = readWireError(payload);
  const code: ErrorCode = isErrorCode(wire.code) ? wire.code : 'EXECUTION';
  const cause = wire.cause !== undefined ? deserializeError(wire.cause) : undefined;
  // a rebuilt error keeps the remote message as it was: it is not made here
  const error = new ToolexecError(code, wire.message, {
    ...(cause === undefined ? {} : { cause }),
    ...(wire.details === undefined ? {} : { details: wire.details }),
  });
  if (wire.name !== undefined) error.name = wire.name;
  const extra = error as unknown as Record<string, unknown>;
  if (wire.toolId !== undefined) extra.toolId = wire.toolId;
  if (wire.op !== undefined) extra.op = wire.op;
  if (wire.backend !== undefined) extra.backend = wire.backend;
  if (wire.steps !== undefined) extra.steps = wire.steps.map((step) => deserializeStep(step));
  return error;
}

/** A `PROTOCOL` error: `runtime: protocol error: <message>`. */
export function protocolError(message: string, details?: Record<string, unknown>, cause?: unknown): ToolexecError {
  return errors('PROTOCOL', `protocol error: ${message}`, {
    ...(details === undefined ? {} : { details }),
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A `CONNECTION_CLOSED` error: `runtime: <message>`. */
export function connectionClosedError(message = 'gateway connection closed', cause?: unknown): ToolexecError {
  return errors('CONNECTION_CLOSED', message, cause === undefined ? {} : { cause });
}
