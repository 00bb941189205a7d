/**
 * What the host and the Pyodide child say to each other besides the gateway requests (see
 * `main.ts`).
 */

/** The child's configuration: one JSON argument on its command line. */
export interface PythonChildConfig {
  /** The Pyodide package's directory (absolute, without a trailing slash). */
  pyodideDir: string;
  /** The Python prelude's file. */
  preludePath: string;
  /** A copy of `pyodide.asm.wasm` whose memory maximum is the run's memory cap. */
  wasmPath?: string;
  /** A memory snapshot to start from (made by a child with `makeSnapshot`). */
  snapshotPath?: string;
  /** Write a memory snapshot to stdout and exit, instead of serving runs. */
  makeSnapshot?: boolean;
}

/** Host → child: run this snippet. */
export interface PythonStartMessage {
  type: 'start';
  /** The Python source. */
  code: string;
  /** Wall-clock limit in milliseconds; the interrupt buffer raises KeyboardInterrupt past it. */
  timeoutMs: number;
  /** Cap on stdout + stderr bytes; past it the run is interrupted. */
  maxOutputBytes: number;
  /** The largest value, in bytes of JSON. */
  maxResultBytes: number;
}

/** Child → host: Pyodide is loaded and the prelude evaluated. */
export interface PythonReadyMessage {
  type: 'ready';
  /** How long loading took, in milliseconds. */
  bootMs: number;
}
