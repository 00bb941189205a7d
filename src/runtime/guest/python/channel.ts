/**
 * The Pyodide child's side of its channel to the host: newline-delimited JSON, read from fd 0 and
 * written to fd 1 **synchronously**. Python runs on the child's only thread and blocks while the
 * host answers a tool call, so nothing here waits on the event loop.
 */
import { readSync, writeSync } from 'node:fs';

const STDIN_FD = 0;
const STDOUT_FD = 1;
const CHUNK_BYTES = 64 * 1024;

/** Sleeps `ms` on the calling thread (a pipe that reports EAGAIN is retried after it). */
function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Reads lines from fd 0, blocking. */
export class LineReader {
  readonly #buffer = Buffer.alloc(CHUNK_BYTES);
  #pending: Buffer[] = [];
  readonly #lines: string[] = [];
  #ended = false;

  /** The next line (without its newline), or `undefined` once the host closed the channel. */
  next(): string | undefined {
    while (this.#lines.length === 0) {
      if (this.#ended) return undefined;
      this.#fill();
    }
    return this.#lines.shift();
  }

  #fill(): void {
    let read: number;
    try {
      read = readSync(STDIN_FD, this.#buffer, 0, CHUNK_BYTES, null);
    } catch (err) {
      if ((err as { code?: unknown }).code === 'EAGAIN') {
        sleepMs(1);
        return;
      }
      if ((err as { code?: unknown }).code === 'EOF') read = 0;
      else throw err;
    }
    if (read === 0) {
      this.#ended = true;
      return;
    }
    let chunk = this.#buffer.subarray(0, read);
    let newline = chunk.indexOf(10);
    while (newline !== -1) {
      this.#pending.push(Buffer.from(chunk.subarray(0, newline)));
      this.#lines.push(Buffer.concat(this.#pending).toString('utf8'));
      this.#pending = [];
      chunk = chunk.subarray(newline + 1);
      newline = chunk.indexOf(10);
    }
    if (chunk.length > 0) this.#pending.push(Buffer.from(chunk));
  }
}

/** Writes `text` and a newline to fd 1, all of it, blocking. */
export function writeLine(text: string): void {
  const bytes = Buffer.from(`${text}\n`, 'utf8');
  writeAll(bytes);
}

/** Writes every byte of `bytes` to fd 1. */
export function writeAll(bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(STDOUT_FD, bytes, offset, Math.min(CHUNK_BYTES * 16, bytes.length - offset));
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'EAGAIN') throw err;
      sleepMs(1);
    }
  }
}

/** Sends one message. */
export function send(message: Record<string, unknown>): void {
  writeLine(JSON.stringify(message));
}
