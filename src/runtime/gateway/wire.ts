/**
 * The host half of the gateway wire codec: values and library errors turned into JSON and back.
 * The message shapes and the reading of an error reply live in `codec.ts`, which the guest
 * bundles share; this module adds what needs the library's error class.
 */
import { ToolexecError, isErrorCode, type ErrorCode } from '../../model/index.js';
import { layerErrors, toJsonSafe as jsonSafe } from '../../model/internal.js';
import { MAX_VALUE_DEPTH } from '../core/errors.js';
import { decodeWireStep, readWireError, GATEWAY_REQUEST_TYPES, type GatewayRequestType, type WireError } from './codec.js';

export { GATEWAY_REQUEST_TYPES } from './codec.js';
export type { GatewayReplyType, GatewayRequestType, WireError, WireMessage } from './codec.js';

const errors = layerErrors('runtime');

const REQUEST_TYPE_SET: ReadonlySet<string> = new Set(GATEWAY_REQUEST_TYPES);

/** True when `type` is one of the six gateway request types. */
export function isGatewayRequestType(type: unknown): type is GatewayRequestType {
  return typeof type === 'string' && REQUEST_TYPE_SET.has(type);
}

/**
 * How much deeper than a value a reply nests it: a chain step's `steps[i].result.structured` is
 * four levels below the reply's top (a `run_tool` result's `structured`, one).
 */
const REPLY_ENVELOPE_DEPTH = 4;

/** An error inside a value on the wire: a library error as an error reply, anything else `{ name, message }`. */
function wireErrorForm(err: Error): unknown {
  return ToolexecError.isInstance(err) ? serializeError(err) : { name: err.name, message: err.message };
}

/**
 * A JSON-safe deep copy of `value` (the model's one conversion, `model/json-safe.ts`): functions,
 * symbols and `undefined` members dropped, bigints as strings, cycles and depth beyond
 * 512 (`MAX_VALUE_DEPTH`) as `"[Circular]"` / `"[Truncated]"`, a library error as its error
 * reply form, `toJSON` honoured. `undefined` for values that have no JSON form.
 */
export function toJsonSafe(value: unknown): unknown {
  return jsonSafe(value, { maxDepth: MAX_VALUE_DEPTH, error: wireErrorForm });
}

/**
 * {@link toJsonSafe} for the payload of a reply to a gateway request: a value nested deeper than
 * 512 levels, `MAX_VALUE_DEPTH` (below where the reply puts it), is refused rather than cut, so
 * the snippet sees an error, never a `"[Truncated]"` it did not expect.
 *
 * @throws `PROTOCOL` — `protocol error: a value in the reply nests deeper than 512 levels`
 * (`limit: 'depth'`, `maxDepth`).
 */
export function toJsonReply(value: unknown): unknown {
  let cut = false;
  const copy = jsonSafe(value, {
    maxDepth: MAX_VALUE_DEPTH + REPLY_ENVELOPE_DEPTH,
    error: wireErrorForm,
    onTruncate: () => {
      cut = true;
    },
  });
  if (cut)
    throw protocolError(`a value in the reply nests deeper than ${MAX_VALUE_DEPTH} levels`, { limit: 'depth', maxDepth: MAX_VALUE_DEPTH });
  return copy;
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

/**
 * Serializes a chain step result (its `error` through {@link serializeError}); with `rest: 'keep'`
 * only the error, the rest left for the caller's own conversion (a reply's {@link toJsonReply}).
 */
export function serializeStep(step: unknown, rest: 'convert' | 'keep' = 'convert'): unknown {
  if (step === null || typeof step !== 'object') return rest === 'convert' ? toJsonSafe(step) : step;
  const { error, ...fields } = step as { error?: unknown } & Record<string, unknown>;
  const out = rest === 'convert' ? (toJsonSafe(fields) as Record<string, unknown>) : fields;
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
export function connectionClosedError(
  message = 'gateway connection closed',
  cause?: unknown,
  details?: Record<string, unknown>,
): ToolexecError {
  return errors('CONNECTION_CLOSED', message, {
    ...(details === undefined ? {} : { details }),
    ...(cause === undefined ? {} : { cause }),
  });
}
