/**
 * The node guest's channel to the host: newline-delimited JSON, guest → host as blocking writes
 * to fd 1, host → guest read from stdin.
 *
 * Every write blocks, so a snippet that prints in a busy loop is throttled by the host reading the
 * pipe (and killed when it exceeds the output cap).
 */
import { writeSync } from 'node:fs';
import { JSONParse, JSONStringify, indexIn, sliceOf } from '../shared/primordials.js';

/** Exit code when the host is gone (a write failed): nothing is left to report to. */
const EXIT_HOST_GONE = 70;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function writeAll(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(1, bytes, offset, bytes.length - offset);
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === 'EAGAIN') {
        Atomics.wait(sleeper, 0, 0, 1);
        continue;
      }
      process.exit(EXIT_HOST_GONE);
    }
  }
}

/** Writes one message to the host (blocking). */
export function send(message: object): void {
  writeAll(`${JSONStringify(message)}\n`);
}

/** Writes one message already encoded as JSON text (blocking). */
export function sendText(json: string): void {
  writeAll(`${json}\n`);
}

/**
 * Calls `onMessage` with every JSON object the host sends on stdin, one per line (blank and
 * undecodable lines are skipped), and `onEnd` when the host closes stdin.
 */
export function receive(onMessage: (message: Record<string, unknown>) => void, onEnd: () => void): void {
  let buffer = '';
  const onLine = (line: string) => {
    let message: unknown;
    try {
      message = JSONParse(line);
    } catch {
      return;
    }
    if (message !== null && typeof message === 'object') onMessage(message as Record<string, unknown>);
  };
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffer += chunk;
    let newline = indexIn(buffer, '\n');
    while (newline !== -1) {
      const line = sliceOf(buffer, 0, newline);
      buffer = sliceOf(buffer, newline + 1);
      onLine(line);
      newline = indexIn(buffer, '\n');
    }
  });
  process.stdin.on('end', onEnd);
  process.stdin.resume();
}
