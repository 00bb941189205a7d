/**
 * The options every pooled sandbox backend (`wasm`, `python`) takes, as a type only (the backends'
 * option types extend it without importing code). Each backend states its own defaults where they
 * differ (pool size, memory, kill grace).
 */

/** Options shared by the pooled sandbox backends (`createWasmBackend`, `createPythonBackend`). */
export interface PooledSandboxOptions {
  /** Sandboxes in the pool: the most snippets running at once. @defaultValue per backend */
  poolSize?: number;
  /**
   * Longest wait for a free sandbox before a snippet starts, in milliseconds; past it the run fails
   * with `TIMEOUT`, `details.phase: 'queue'` (the snippet never ran). A request's own
   * `queueTimeoutMs` replaces it. @defaultValue 30000
   */
  queueTimeoutMs?: number;
  /** Wall-clock limit when the request has none, counted from the snippet's start. @defaultValue 30000 */
  defaultTimeoutMs?: number;
  /** Ceiling on a request's `timeoutMs` and `queueTimeoutMs`; above it → `INVALID_LIMITS`. @defaultValue 600000 (10 min) */
  maxTimeoutMs?: number;
  /** Memory cap of a run when the request's limits have none. @defaultValue per backend */
  defaultMemoryBytes?: number;
  /** Ceiling on a request's `limits.memoryBytes`; above it → `INVALID_LIMITS`. @defaultValue per backend */
  maxMemoryBytes?: number;
  /** stdout + stderr cap when the request's limits have none. @defaultValue 1 MiB */
  defaultMaxOutputBytes?: number;
  /** Largest snippet source, in UTF-8 bytes (`LIMIT_EXCEEDED`, `limit: 'sourceBytes'`). @defaultValue 1 MiB */
  maxSourceBytes?: number;
  /** Largest message between host and sandbox (a tool-call request or result, the snippet's value). @defaultValue 8 MiB */
  maxMessageBytes?: number;
  /** How long a cancelled run may take to stop before its sandbox is killed and replaced, in milliseconds. @defaultValue per backend */
  killGraceMs?: number;
}
