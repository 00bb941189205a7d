/**
 * Options of the `wasm` backend and the one place their defaults are resolved.
 */
import { availableParallelism } from 'node:os';
import { DEFAULT_TIMEOUT_MS } from '../../core/request.js';
import { resolvePooledOptions, type ResolvedPooledSandboxOptions } from '../../core/pooled-sandbox.js';
import { OptionReader, optionError } from '../../core/option-reader.js';
import type { WasmBackendOptions } from './option-types.js';

export type { WasmBackendOptions };

/** Default QuickJS heap cap of one run: 64 MiB. */
export const DEFAULT_WASM_MEMORY_BYTES = 64 * 1024 * 1024;

/** Default ceiling on a request's QuickJS heap cap: 1 GiB. */
export const DEFAULT_WASM_MAX_MEMORY_BYTES = 1024 * 1024 * 1024;

/** Default bound on a run's wait for a free worker: 30 s. */
export const DEFAULT_WASM_QUEUE_TIMEOUT_MS = DEFAULT_TIMEOUT_MS;

/** Most workers a pool may have. */
const MAX_POOL_SIZE = 64;

/** Default (and largest) QuickJS native stack of one run: 512 KiB (about 2,000 nested JS calls). */
export const DEFAULT_WASM_MAX_STACK_BYTES = 512 * 1024;

/** Largest memory a 32-bit WebAssembly instance can address: 4 GiB. */
export const WASM32_MAX_MEMORY_BYTES = 4 * 1024 * 1024 * 1024;

/** Default busy-wait for a tool call's reply: 0.2 ms (a fast call's round trip is well under it). */
const DEFAULT_REPLY_SPIN_MS = 0.2;
/** Longest busy-wait `replySpinMs` accepts. */
const MAX_REPLY_SPIN_MS = 10;

/** {@link WasmBackendOptions} with every default applied. */
export interface ResolvedWasmOptions extends ResolvedPooledSandboxOptions {
  /** QuickJS native stack budget in bytes (at most 512 KiB). @defaultValue 512 KiB */
  maxStackBytes: number;
  /** Largest JSON result in bytes. @defaultValue 8 MiB */
  maxResultBytes: number;
  /** V8 heap of each worker, in bytes. @defaultValue 256 MiB */
  workerHeapBytes: number;
  /** How long a new worker may take to start, in milliseconds. @defaultValue 15000 */
  workerStartupTimeoutMs: number;
  /** Largest raw WASI module accepted, in bytes. @defaultValue 64 MiB */
  maxModuleBytes: number;
  /** How long a worker waiting on a tool call's reply busy-waits before it sleeps, in ms (0: never). @defaultValue 0.2 */
  replySpinMs: number;
}

function spinMs(value: number | undefined): number {
  if (value === undefined) return DEFAULT_REPLY_SPIN_MS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_REPLY_SPIN_MS) {
    throw optionError('wasm', 'replySpinMs', `must be a number between 0 and ${MAX_REPLY_SPIN_MS}`, value);
  }
  return value;
}

/**
 * Applies the defaults of {@link WasmBackendOptions}.
 *
 * @throws `CONFIGURATION` naming the first option out of range (not a positive integer, or
 * `replySpinMs` not a number from 0 to 10).
 */
export function resolveWasmOptions(options: WasmBackendOptions = {}): ResolvedWasmOptions {
  if (options === null || typeof options !== 'object') throw optionError('wasm', 'options', 'must be an object', options);
  const read = new OptionReader('wasm', options);
  return {
    ...resolvePooledOptions(read, {
      poolSize: Math.max(1, Math.min(MAX_POOL_SIZE, availableParallelism())),
      maxPoolSize: MAX_POOL_SIZE,
      memoryBytes: DEFAULT_WASM_MEMORY_BYTES,
      maxMemoryBytes: DEFAULT_WASM_MAX_MEMORY_BYTES,
      memoryBytesBound: WASM32_MAX_MEMORY_BYTES,
      killGraceMs: 100,
    }),
    maxStackBytes: read.integerUpTo('maxStackBytes', DEFAULT_WASM_MAX_STACK_BYTES, DEFAULT_WASM_MAX_STACK_BYTES),
    maxResultBytes: read.integerUpTo('maxResultBytes', 8 * 1024 * 1024),
    workerHeapBytes: read.integerUpTo('workerHeapBytes', 256 * 1024 * 1024),
    workerStartupTimeoutMs: read.integerUpTo('workerStartupTimeoutMs', 15_000),
    maxModuleBytes: read.integerUpTo('maxModuleBytes', 64 * 1024 * 1024),
    replySpinMs: spinMs(options.replySpinMs),
  };
}
