/**
 * Human output: one-line messages, aligned columns and readable values. JSON output needs none of
 * this (`writeJson`).
 */
import { inspect } from 'node:util';
import type { CliOutput } from './io.js';

/** `text` on one line: every run of whitespace (newlines included) becomes one space, trimmed. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The facade's backoff hint in a `SERVER_UNAVAILABLE` message (`... is unavailable (next attempt in
 * 912 ms); last error: ...`): meaningful to a program that retries, not to a command that exits.
 */
const RETRY_HINT = / \(next attempt in \d+ ms\)/g;

/**
 * An error message as the command prints it: on one line ({@link oneLine}), without the facade's
 * backoff hint. The error itself (and `--json`'s error shape) keeps its message as it is.
 */
export function failureText(message: string): string {
  return oneLine(message.replace(RETRY_HINT, ''));
}

/** Rows in aligned columns (two spaces apart; the last column is not padded), one line each. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** A value for people to read (Node's `util.inspect`, every level, colours on a terminal). */
export function pretty(value: unknown, stream: CliOutput): string {
  return inspect(value, { depth: null, colors: stream.isTTY === true, breakLength: 100, maxStringLength: null, maxArrayLength: null });
}

/** A duration such as `12.3 ms` or `2.41 s`. */
export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}
