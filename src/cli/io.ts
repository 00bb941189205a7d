/**
 * What the command reads and writes: its streams, working directory and environment, passed in
 * once (by `main.ts`: the process's own) so that nothing below reaches for `process` directly.
 */
import { text } from 'node:stream/consumers';
import { errorMessage } from '../model/index.js';
import { ABORTED, Deadline } from '../model/internal.js';
import { cliErrors } from './errors.js';

/** A stream the command writes to (`isTTY` and `columns` as a terminal's `tty.WriteStream` has them). */
export type CliOutput = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** The command's surroundings. */
export interface CliIO {
  /** Results (JSON, tables). */
  stdout: CliOutput;
  /** Errors, warnings, progress, `--verbose` logs. */
  stderr: CliOutput;
  /** Read for `--args -` and `exec -`. */
  stdin: NodeJS.ReadableStream;
  /** Where relative paths (`--config`, `--tools`, a snippet file) are resolved. */
  cwd: string;
  /** Expanded into `${VAR}` references in the config. */
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted when the user interrupts the command (SIGINT, SIGTERM); its reason is the `ABORTED` error to report. */
  signal: AbortSignal;
}

/** Writes one line (a newline is added). */
export function writeLine(stream: CliOutput, line: string): void {
  stream.write(`${line}\n`);
}

/**
 * Writes `value` as JSON (two-space indentation) and a newline; nothing when it has no JSON form.
 *
 * @throws `EXECUTION` for a value with no JSON form (a BigInt, a cycle, a function, a `toJSON` or
 * getter that throws): what a tool answered cannot be printed, so stdout stays clean JSON.
 */
export function writeJson(stream: CliOutput, value: unknown): void {
  // `undefined` for a function or a symbol, whatever the declared type says
  let text: unknown;
  try {
    text = JSON.stringify(value ?? null, null, 2);
  } catch (err) {
    throw cliErrors('EXECUTION', `the value has no JSON form, so it cannot be printed (${errorMessage(err)})`, { cause: err });
  }
  if (typeof text !== 'string') throw cliErrors('EXECUTION', `the value has no JSON form, so it cannot be printed (${typeof value})`);
  stream.write(`${text}\n`);
}

/**
 * `work`'s outcome, or a rejection with the signal's reason as soon as `signal` aborts (the user
 * interrupted the command), whichever comes first: the model's deadline race (a late rejection of
 * `work` is observed, the listener removed either way).
 */
export async function untilInterrupted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  const stop = new Deadline(signal, undefined);
  try {
    const outcome = await stop.race(work);
    if (outcome === ABORTED) throw signal.reason;
    return outcome;
  } finally {
    stop.dispose();
  }
}

/**
 * Everything on stdin, as UTF-8 text; rejects with the `ABORTED` error of `io.signal` when the
 * user interrupts the command while it waits for stdin (which may never end).
 */
export function readStdin(io: CliIO): Promise<string> {
  return untilInterrupted(io.signal, text(io.stdin));
}
