/**
 * The options of the `wasm` backend, as a caller writes them (no imports: the runtime's own
 * options refer to them for its default backend). Defaults are resolved in `options.ts`.
 */

/** Options of {@link createWasmBackend}. */
export interface WasmBackendOptions {
  /**
   * Workers in the pool: the most snippets running at once. Workers start on demand (the busy
   * ones, the queued runs and one spare) up to this many. 1–64. @defaultValue the available cores
   * (`os.availableParallelism()`, at most 64)
   */
  poolSize?: number;
  /**
   * Longest wait for a free worker before a snippet starts, in milliseconds; past it the run fails
   * with `TIMEOUT`, `details.phase: 'queue'` (the snippet never ran). A request's own
   * `queueTimeoutMs` replaces it. @defaultValue 30000
   */
  queueTimeoutMs?: number;
  /** Wall-clock limit when the request has none, counted from the snippet's start. @defaultValue 30000 */
  defaultTimeoutMs?: number;
  /** Ceiling on a request's `timeoutMs` and `queueTimeoutMs`; above it → `INVALID_LIMITS`. @defaultValue 600000 (10 min) */
  maxTimeoutMs?: number;
  /** QuickJS heap cap (and WASI memory cap) when the request's limits have none. @defaultValue 64 MiB */
  defaultMemoryBytes?: number;
  /** Ceiling on a request's `limits.memoryBytes`; above it → `INVALID_LIMITS`. @defaultValue 1 GiB */
  maxMemoryBytes?: number;
  /** stdout + stderr cap when the request's limits have none. @defaultValue 1 MiB */
  defaultMaxOutputBytes?: number;
  /** Largest snippet source, in UTF-8 bytes (`LIMIT_EXCEEDED`, `limit: 'sourceBytes'`). @defaultValue 1 MiB */
  maxSourceBytes?: number;
  /**
   * QuickJS native stack budget. Deeper recursion fails with `RESOURCE_LIMIT` (`limit: 'stack'`).
   * At most 512 KiB. @defaultValue 512 KiB
   */
  maxStackBytes?: number;
  /** Largest JSON result a snippet may return (`RESOURCE_LIMIT`, `limit: 'result'`). @defaultValue 8 MiB */
  maxResultBytes?: number;
  /** Largest tool-call request a snippet may send (`PROTOCOL` error inside the snippet). @defaultValue 8 MiB */
  maxMessageBytes?: number;
  /**
   * How long a cancelled run (timeout, abort, output cap) may take to stop before its worker is
   * terminated and replaced. @defaultValue 100
   */
  killGraceMs?: number;
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
