/**
 * The options of the `wasm` backend, as a caller writes them (no imports: the runtime's own
 * options refer to them for its default backend). Defaults are resolved in `options.ts`.
 */
import type { PooledSandboxOptions } from '../../core/pooled-sandbox-options.js';

/**
 * Options of {@link createWasmBackend}: the pooled sandbox options, with the `wasm` backend's
 * defaults — memory 64 MiB per run (the QuickJS heap, and a raw WASI module's memory), a 1 GiB
 * ceiling, a 100 ms kill grace — and its own.
 */
export interface WasmBackendOptions extends PooledSandboxOptions {
  /**
   * Workers in the pool: the most snippets running at once. Workers start on demand (the busy
   * ones, the queued runs and one spare) up to this many. 1–64. @defaultValue the available cores
   * (`os.availableParallelism()`, at most 64)
   */
  poolSize?: number;
  /**
   * QuickJS native stack budget. Deeper recursion fails with `RESOURCE_LIMIT` (`limit: 'stack'`).
   * At most 512 KiB. @defaultValue 512 KiB
   */
  maxStackBytes?: number;
  /** Largest JSON result a snippet may return (`RESOURCE_LIMIT`, `limit: 'result'`). @defaultValue 8 MiB */
  maxResultBytes?: number;
  /** V8 heap of each worker (a backstop: the worker holds strings in transit). @defaultValue 256 MiB */
  workerHeapBytes?: number;
  /** How long a new worker may take to start. @defaultValue 15000 */
  workerStartupTimeoutMs?: number;
  /** Largest raw WASI module accepted in `metadata.wasm_module`. @defaultValue 64 MiB */
  maxModuleBytes?: number;
  /**
   * How long a worker waiting on a tool call's reply busy-waits before it sleeps, in milliseconds
   * (0 to 10; 0: never spin). A reply that lands while the worker spins skips a thread wake-up,
   * which on a VM is a large part of a fast tool call. At most one worker fewer than the machine's
   * cores spins at a time (none on one core). @defaultValue 0.2
   */
  replySpinMs?: number;
}
