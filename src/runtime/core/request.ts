/**
 * Request checks shared by the runtime and every backend, and the defaults they resolve.
 */
import { type ToolexecError } from '../../model/index.js';
import { DEFAULT_TIMEOUT_MS, layerErrors, readSignal } from '../../model/internal.js';
import { runtimeError } from './errors.js';
import { throwIfAborted } from './stopping.js';
import { SECURITY_PROFILES, type ExecuteRequest, type Limits, type SecurityProfile } from './types.js';

const errors = layerErrors('runtime');

/** Default wall-clock limit of one snippet: the deadline module's default, 30 s. */
export { DEFAULT_TIMEOUT_MS };

/** Default cap on captured stdout + stderr: 1 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** Default cap on a snippet's source, in UTF-8 bytes: 1 MiB. */
export const DEFAULT_MAX_SOURCE_BYTES = 1024 * 1024;

/** Default ceiling on a request's `timeoutMs` and `queueTimeoutMs`: 10 minutes. */
export const DEFAULT_MAX_TIMEOUT_MS = 10 * 60 * 1000;

/** The limit fields, in the order they are checked. */
export const LIMIT_FIELDS = [
  'maxToolCalls',
  'maxChainSteps',
  'cpuQuotaMs',
  'memoryBytes',
  'pidsMax',
  'diskBytes',
  'maxOutputBytes',
] as const satisfies readonly (keyof Limits)[];

function invalidLimit(field: string, value: unknown, problem: string): ToolexecError {
  return runtimeError('INVALID_LIMITS', `invalid limits: ${field} ${problem}`, { details: { field, value } });
}

function checkCount(field: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || Number.isNaN(value)) throw invalidLimit(field, value, 'must be a number');
  if (value < 0) throw invalidLimit(field, value, 'cannot be negative');
  if (!Number.isFinite(value)) throw invalidLimit(field, value, 'must be finite');
  if (!Number.isInteger(value)) throw invalidLimit(field, value, 'must be an integer');
}

/**
 * Checks `limits` field by field (in {@link LIMIT_FIELDS} order): each must be absent or a
 * non-negative finite integer. @throws `INVALID_LIMITS` naming the first bad field.
 */
export function validateLimits(limits: Limits | undefined): void {
  if (limits === undefined) return;
  if (limits === null || typeof limits !== 'object') throw invalidLimit('limits', limits, 'must be an object');
  for (const field of LIMIT_FIELDS) checkCount(field, limits[field]);
}

/**
 * Checks a request in the runtime's order: aborted signal (`ABORTED`), gateway
 * (`MISSING_GATEWAY`), code (`MISSING_CODE`: absent, empty or not a string — unless
 * `metadata.wasm_component` carries a component, whose code may be empty), `timeoutMs` and limits
 * (`INVALID_LIMITS` naming the field).
 */
export function validateRequest(request: ExecuteRequest): void {
  if (request === null || typeof request !== 'object') {
    throw runtimeError('MISSING_GATEWAY', 'gateway is required');
  }
  // a `signal` that is no AbortSignal is the caller's mistake, said before it is used
  throwIfAborted(readSignal(errors, request.signal), 'execution');
  if (request.gateway === undefined || request.gateway === null || typeof request.gateway !== 'object') {
    throw runtimeError('MISSING_GATEWAY', 'gateway is required');
  }
  // a WebAssembly component (`metadata.wasm_component`) is the program itself: its code may be empty
  const component = (request.metadata as Record<string, unknown> | undefined | null)?.wasm_component;
  const codeOptional = component !== undefined && component !== null && (request.code === undefined || request.code === '');
  if (!codeOptional && (typeof request.code !== 'string' || request.code === '')) {
    throw runtimeError('MISSING_CODE', 'code is required');
  }
  checkCount('timeoutMs', request.timeoutMs);
  checkCount('queueTimeoutMs', request.queueTimeoutMs);
  validateLimits(request.limits);
  if (request.onStart !== undefined && typeof request.onStart !== 'function') {
    throw invalidLimit('onStart', typeof request.onStart, 'must be a function');
  }
}

/**
 * Refuses a snippet whose source is larger than `maxSourceBytes` (UTF-8), at once: `LIMIT_EXCEEDED`
 * with `details: { limit: 'sourceBytes', maxSourceBytes, sourceBytes }`. The message names only the
 * limit, so it is the same for every source over it.
 */
export function checkSourceSize(code: string, maxSourceBytes: number): void {
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit: only a source in between needs counting
  if (code.length * 3 <= maxSourceBytes) return;
  const sourceBytes = code.length > maxSourceBytes ? undefined : Buffer.byteLength(code);
  if (sourceBytes !== undefined && sourceBytes <= maxSourceBytes) return;
  throw runtimeError('LIMIT_EXCEEDED', `limit exceeded: the snippet source is larger than ${maxSourceBytes} bytes`, {
    details: { limit: 'sourceBytes', maxSourceBytes, ...(sourceBytes === undefined ? { sourceChars: code.length } : { sourceBytes }) },
  });
}

/**
 * Refuses a request value above a backend's ceiling: `INVALID_LIMITS` naming the field, the value
 * and the ceiling (a request is never silently clamped).
 */
export function checkCeiling(field: string, value: number | undefined, ceiling: number): void {
  if (value === undefined || value <= ceiling) return;
  throw runtimeError('INVALID_LIMITS', `invalid limits: ${field} ${value} is above the ceiling of ${ceiling}`, {
    details: { field, value, ceiling },
  });
}

/** True for `dev`, `standard` and `hardened`. */
export function isSecurityProfile(value: unknown): value is SecurityProfile {
  return typeof value === 'string' && (SECURITY_PROFILES as readonly string[]).includes(value);
}

/** The request's timeout, or `fallbackMs` when it is absent or 0. */
export function effectiveTimeoutMs(request: ExecuteRequest, fallbackMs = DEFAULT_TIMEOUT_MS): number {
  return request.timeoutMs !== undefined && request.timeoutMs > 0 ? request.timeoutMs : fallbackMs;
}

/** The request's queue bound, or `fallbackMs` when it is absent or 0. */
export function effectiveQueueTimeoutMs(request: ExecuteRequest, fallbackMs: number): number {
  return request.queueTimeoutMs !== undefined && request.queueTimeoutMs > 0 ? request.queueTimeoutMs : fallbackMs;
}

/** The request's output cap, or `fallbackBytes` when it is absent or 0. */
export function effectiveMaxOutputBytes(request: ExecuteRequest, fallbackBytes = DEFAULT_MAX_OUTPUT_BYTES): number {
  const value = request.limits?.maxOutputBytes;
  return value !== undefined && value > 0 ? value : fallbackBytes;
}
