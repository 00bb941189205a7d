/**
 * The options of the Python backend, as a type only: `core/types.ts` names them in
 * `RuntimeOptions.python` without importing the backend's code.
 */

/** Options of {@link createPythonBackend}. */
export interface PythonBackendOptions {
  /** Child processes kept warm, each running one snippet at a time. @defaultValue half the cores, 1 to 4 */
  poolSize?: number;
  /** How long a run may wait for a free child before it fails (`TIMEOUT`, `details.phase: 'queue'`). @defaultValue 30000 */
  queueTimeoutMs?: number;
  /** Wall-clock limit of a run whose request has none, in milliseconds. @defaultValue 30000 */
  defaultTimeoutMs?: number;
  /** Highest `timeoutMs` / `queueTimeoutMs` a request may ask for (`INVALID_LIMITS` above). @defaultValue 600000 */
  maxTimeoutMs?: number;
  /** Memory cap of a run whose request has no `limits.memoryBytes`: the interpreter's linear memory maximum. @defaultValue 512 MiB */
  defaultMemoryBytes?: number;
  /** Highest `limits.memoryBytes` a request may ask for (`INVALID_LIMITS` above). @defaultValue 2 GiB */
  maxMemoryBytes?: number;
  /** stdout + stderr cap of a run whose request has none. @defaultValue 1 MiB */
  defaultMaxOutputBytes?: number;
  /** Largest snippet source, in UTF-8 bytes (`LIMIT_EXCEEDED`, `limit: 'sourceBytes'`). @defaultValue 1 MiB */
  maxSourceBytes?: number;
  /** Largest message between host and child (a tool result, the snippet's value). @defaultValue 8 MiB */
  maxMessageBytes?: number;
  /** How long after its deadline a child that did not stop itself is killed, in milliseconds. @defaultValue 1000 */
  killGraceMs?: number;
  /** How long a new child may take to load Pyodide, in milliseconds. @defaultValue 60000 */
  startupTimeoutMs?: number;
  /**
   * Runs one child serves before it is replaced by a fresh one. The prelude resets what a run leaves
   * behind by accident, not what a hostile run does to the interpreter's objects: use 1 when
   * snippets of different users or trust levels share the backend (every run gets its own child).
   * @defaultValue 100
   */
  maxRunsPerChild?: number;
  /** Start children from a memory snapshot made once per backend (false: every child starts cold). @defaultValue true */
  snapshot?: boolean;
  /** The bubblewrap binary. @defaultValue '/usr/bin/bwrap' */
  bubblewrapPath?: string;
  /** The Pyodide package's directory. @defaultValue resolved from the `pyodide` package */
  pyodideDir?: string;
}
