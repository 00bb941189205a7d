/**
 * The messages of the remote runtime protocol beyond the gateway protocol: the signed `execute`
 * request, and the terminal `result` / `failed` messages, with their JSON forms.
 */
import { protocolError, toJsonSafe } from '../../gateway/wire.js';
import { readSnippetWarnings } from '../../core/pending-calls.js';
import type { BackendInfo, ExecuteRequest, ExecuteResult, Limits, LimitsEnforced, SnippetWarning } from '../../core/types.js';

/** The request part of an `execute` message (everything but the gateway and the signal). */
export interface RemoteExecutePayload {
  /** {@link ExecuteRequest.language}. */
  language?: string;
  /** {@link ExecuteRequest.code}. */
  code: string;
  /** {@link ExecuteRequest.timeoutMs}, in milliseconds. */
  timeoutMs?: number;
  /** A copy of {@link ExecuteRequest.limits}. */
  limits?: Limits;
  /** {@link ExecuteRequest.profile}. */
  profile?: string;
  /** {@link ExecuteRequest.metadata}, made JSON-safe. */
  metadata?: Record<string, unknown>;
  /** {@link ExecuteRequest.strict}, sent only when true. */
  strict?: boolean;
}

/** The first message of an exchange, signed through the request headers. */
export interface RemoteExecuteMessage {
  /** Always `execute`. */
  type: 'execute';
  /** The request to run. */
  request: RemoteExecutePayload;
}

/**
 * An {@link ExecuteResult} as it crosses the wire: `value` made JSON-safe, `toolCalls` and
 * `durationMs` as the server recorded them, `backend` the server-side backend that ran the snippet.
 */
export type RemoteResultPayload = ExecuteResult;

/** Builds the `execute` message of a request. */
export function executeMessage(request: ExecuteRequest): RemoteExecuteMessage {
  const payload: RemoteExecutePayload = { code: request.code };
  if (request.language !== undefined) payload.language = request.language;
  if (request.timeoutMs !== undefined) payload.timeoutMs = request.timeoutMs;
  if (request.limits !== undefined) payload.limits = { ...request.limits };
  if (request.profile !== undefined) payload.profile = request.profile;
  if (request.strict === true) payload.strict = true;
  if (request.metadata !== undefined) {
    const metadata = toJsonSafe(request.metadata);
    if (metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata))
      payload.metadata = metadata as Record<string, unknown>;
  }
  return { type: 'execute', request: payload };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function optional(payload: Record<string, unknown>, field: string, type: 'string' | 'number' | 'boolean' | 'object'): void {
  const value = payload[field];
  if (value === undefined) return;
  const ok = type === 'object' ? isObject(value) : typeof value === type;
  if (!ok) throw protocolError(`bad execute message: "${field}" must be ${type === 'object' ? 'an object' : `a ${type}`}`);
}

/**
 * Reads an `execute` message (the parsed first line of an exchange).
 * @throws `PROTOCOL` naming the first field of the wrong type.
 */
export function parseExecuteMessage(value: unknown): RemoteExecutePayload {
  if (!isObject(value) || value.type !== 'execute') throw protocolError('the first message must be {"type":"execute",...}');
  const request = value.request;
  if (!isObject(request)) throw protocolError('bad execute message: "request" must be an object');
  if (typeof request.code !== 'string') throw protocolError('bad execute message: "code" must be a string');
  optional(request, 'language', 'string');
  optional(request, 'timeoutMs', 'number');
  optional(request, 'limits', 'object');
  optional(request, 'profile', 'string');
  optional(request, 'metadata', 'object');
  optional(request, 'strict', 'boolean');
  return request as unknown as RemoteExecutePayload;
}

/** The JSON form of a result (or a partial result). */
export function resultPayload(result: ExecuteResult): RemoteResultPayload {
  return toJsonSafe(result) as RemoteResultPayload;
}

const LIMIT_KEYS = ['timeout', 'toolCalls', 'chainSteps', 'memory', 'cpu', 'pids', 'disk'] as const;

/** Reads the enforced limits a server reported (anything but `true` is `false`). */
export function readLimitsEnforced(value: unknown): LimitsEnforced {
  const source = isObject(value) ? value : {};
  const out = {} as LimitsEnforced;
  for (const key of LIMIT_KEYS) out[key] = source[key] === true;
  return out;
}

/** Reads the parts of a result payload the client keeps: value, output, duration, backend, limits. */
export function readResultPayload(value: unknown): {
  hasValue: boolean;
  value?: unknown;
  stdout: string;
  stderr: string;
  durationMs?: number;
  backend?: BackendInfo;
  limitsEnforced: LimitsEnforced;
  warnings: SnippetWarning[];
} {
  const payload = isObject(value) ? value : {};
  const backend =
    isObject(payload.backend) && typeof payload.backend.kind === 'string' ? (payload.backend as unknown as BackendInfo) : undefined;
  return {
    hasValue: Object.hasOwn(payload, 'value'),
    ...(Object.hasOwn(payload, 'value') ? { value: payload.value } : {}),
    stdout: typeof payload.stdout === 'string' ? payload.stdout : '',
    stderr: typeof payload.stderr === 'string' ? payload.stderr : '',
    ...(typeof payload.durationMs === 'number' && Number.isFinite(payload.durationMs) ? { durationMs: payload.durationMs } : {}),
    ...(backend === undefined ? {} : { backend }),
    limitsEnforced: readLimitsEnforced(payload.limitsEnforced),
    warnings: readSnippetWarnings(payload.warnings),
  };
}
