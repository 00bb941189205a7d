/**
 * The options of the Python backend, as a type only: `core/types.ts` names them in
 * `RuntimeOptions.python` without importing the backend's code.
 */
import type { PooledSandboxOptions } from '../../core/pooled-sandbox-options.js';

/**
 * Options of {@link createPythonBackend}: the pooled sandbox options, with the Python backend's
 * defaults — memory 512 MiB per run (the interpreter's linear memory maximum), a 2 GiB ceiling, a
 * 1,000 ms kill grace — and its own.
 */
export interface PythonBackendOptions extends PooledSandboxOptions {
  /** Child processes kept warm, each running one snippet at a time (at most 16). @defaultValue half the cores, 1 to 4 */
  poolSize?: number;
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
