/**
 * What the pooled, in-process sandbox backends (`wasm`, `python`) share: the options of a pool of
 * warm sandboxes and the limits of one run, resolved and checked in one place.
 */
import { DEFAULT_TIMEOUT_MS } from '../../model/internal.js';
import type { OptionReader } from './option-reader.js';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_MAX_SOURCE_BYTES, DEFAULT_MAX_TIMEOUT_MS, checkCeiling, checkSourceSize } from './request.js';
import type { PooledSandboxOptions } from './pooled-sandbox-options.js';
import type { ExecuteRequest } from './types.js';

/** {@link PooledSandboxOptions} with every default applied. */
export type ResolvedPooledSandboxOptions = Required<PooledSandboxOptions>;

/** A backend's own defaults for the shared options (the rest are the same for every backend). */
export interface PooledSandboxDefaults {
  /** Default pool size. */
  poolSize: number;
  /** Largest pool size accepted. */
  maxPoolSize: number;
  /** Default memory cap of a run, in bytes. */
  memoryBytes: number;
  /** Default ceiling on a request's memory cap, in bytes. */
  maxMemoryBytes: number;
  /** Largest memory ceiling accepted, in bytes. */
  memoryBytesBound: number;
  /** Default grace before a sandbox that did not stop is killed, in milliseconds. */
  killGraceMs: number;
}

/**
 * Reads the shared options through `read` (each a positive integer within its bound; a default
 * above its ceiling is lowered to it).
 * @throws `CONFIGURATION` naming the first option out of range.
 */
export function resolvePooledOptions(
  read: OptionReader<PooledSandboxOptions>,
  defaults: PooledSandboxDefaults,
): ResolvedPooledSandboxOptions {
  const maxTimeoutMs = read.integerUpTo('maxTimeoutMs', DEFAULT_MAX_TIMEOUT_MS);
  const maxMemoryBytes = read.integerUpTo('maxMemoryBytes', defaults.maxMemoryBytes, defaults.memoryBytesBound);
  const timeoutMs = Math.min(DEFAULT_TIMEOUT_MS, maxTimeoutMs);
  return {
    poolSize: read.integerUpTo('poolSize', defaults.poolSize, defaults.maxPoolSize),
    queueTimeoutMs: read.integerUpTo('queueTimeoutMs', timeoutMs, maxTimeoutMs),
    defaultTimeoutMs: read.integerUpTo('defaultTimeoutMs', timeoutMs, maxTimeoutMs),
    maxTimeoutMs,
    defaultMemoryBytes: read.integerUpTo('defaultMemoryBytes', Math.min(defaults.memoryBytes, maxMemoryBytes), maxMemoryBytes),
    maxMemoryBytes,
    defaultMaxOutputBytes: read.integerUpTo('defaultMaxOutputBytes', DEFAULT_MAX_OUTPUT_BYTES),
    maxSourceBytes: read.integerUpTo('maxSourceBytes', DEFAULT_MAX_SOURCE_BYTES),
    maxMessageBytes: read.integerUpTo('maxMessageBytes', 8 * 1024 * 1024),
    killGraceMs: read.integerUpTo('killGraceMs', defaults.killGraceMs),
  };
}

/**
 * Refuses a request above a ceiling (`timeoutMs`, `queueTimeoutMs`, `limits.memoryBytes`:
 * `INVALID_LIMITS`, never clamped) and, unless `source` is false, a source over `maxSourceBytes`
 * (`LIMIT_EXCEEDED`).
 */
export function checkPooledRequest(request: ExecuteRequest, options: ResolvedPooledSandboxOptions, source = true): void {
  checkCeiling('timeoutMs', request.timeoutMs, options.maxTimeoutMs);
  checkCeiling('queueTimeoutMs', request.queueTimeoutMs, options.maxTimeoutMs);
  checkCeiling('memoryBytes', request.limits?.memoryBytes, options.maxMemoryBytes);
  if (source) checkSourceSize(request.code, options.maxSourceBytes);
}

/** The memory cap of a run: the request's `limits.memoryBytes`, else the backend's default. */
export function runMemoryBytes(request: ExecuteRequest, options: ResolvedPooledSandboxOptions): number {
  const requested = request.limits?.memoryBytes;
  return requested !== undefined && requested > 0 ? requested : options.defaultMemoryBytes;
}
