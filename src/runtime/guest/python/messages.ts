/**
 * What the host and the Pyodide child say to each other besides the gateway requests (see
 * `main.ts`).
 */
import type { GuestFailureReport } from '../../gateway/codec.js';

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
  /** The host's cap on one line from the child, in bytes: a larger value arrives in parts ({@link PythonResultMessage}). */
  maxMessageBytes: number;
}

/**
 * Child → host: the snippet's value as JSON text, in order: the `result_part`s, then the `result`
 * with the rest. A line carries the text escaped as a JSON string, so a value as large as the
 * host's message cap is sent in parts that each fit on a line; a small one is a lone `result`.
 * A `result` without `json` is a run without a value.
 */
export interface PythonResultMessage {
  type: 'result_part' | 'result';
  /** The next piece of the value's JSON text. */
  json?: string;
}

/** Child → host: Pyodide is loaded and the prelude evaluated. */
export interface PythonReadyMessage {
  type: 'ready';
  /** How long loading took, in milliseconds. */
  bootMs: number;
}

/**
 * The failure of a value whose JSON is larger than `maxResultBytes`: the message of the result
 * limit on every guest (`resource limit exceeded: result (the result is larger than N bytes)`).
 */
export function resultLimitReport(maxResultBytes: number): GuestFailureReport {
  return { name: 'RangeError', message: `the result is larger than ${maxResultBytes} bytes`, limit: 'result' };
}
