/**
 * A run's output inside the worker: capped at `maxBytes` (UTF-8), batched, and flushed to the
 * run's port every 64 KiB, every 10 ms of running, and before any other message.
 */
import type { MessagePort } from 'node:worker_threads';
import type { GuestOutcomeMessage, GuestOutputMessage, WireMessage } from '../../gateway/codec.js';

const FLUSH_BYTES = 64 * 1024;
const FLUSH_INTERVAL_MS = 10;

const encoder = new TextEncoder();

/** The UTF-8 size of `text`. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  const target = new Uint8Array(maxBytes);
  const { read } = encoder.encodeInto(text, target);
  return text.slice(0, read);
}

/** Posts `message` on a run's port; a port the host already closed is ignored. */
export function post(port: MessagePort, message: GuestOutputMessage | GuestOutcomeMessage | WireMessage | string): void {
  try {
    port.postMessage(message);
  } catch {
    // the host closed the run's port: nobody is listening any more
  }
}

/** The output of one run. */
export class Output {
  readonly #port: MessagePort;
  /** The cap on stdout + stderr, in bytes. */
  readonly maxBytes: number;
  #bytes = 0;
  #chunks: GuestOutputMessage[] = [];
  #pendingBytes = 0;
  #lastFlush = Date.now();

  constructor(port: MessagePort, maxBytes: number) {
    this.#port = port;
    this.maxBytes = maxBytes;
  }

  /** Adds text; returns false (after keeping what fits) when the cap is exceeded. */
  add(stream: GuestOutputMessage['type'], text: string): boolean {
    const bytes = byteLength(text);
    const room = this.maxBytes - this.#bytes;
    if (bytes > room) {
      const kept = truncateUtf8(text, room);
      if (kept !== '') this.#push(stream, kept, byteLength(kept));
      this.#bytes = this.maxBytes;
      this.flush();
      return false;
    }
    this.#bytes += bytes;
    this.#push(stream, text, bytes);
    if (this.#pendingBytes >= FLUSH_BYTES) this.flush();
    return true;
  }

  #push(stream: GuestOutputMessage['type'], data: string, bytes: number): void {
    const last = this.#chunks[this.#chunks.length - 1];
    if (last !== undefined && last.type === stream) last.data += data;
    else this.#chunks.push({ type: stream, data });
    this.#pendingBytes += bytes;
  }

  /** Flushes when output is waiting and the last flush is 10 ms old (`nowMs` from `Date.now()`). */
  maybeFlush(nowMs: number): void {
    if (this.#pendingBytes > 0 && nowMs - this.#lastFlush >= FLUSH_INTERVAL_MS) this.flush();
  }

  /** Posts the waiting output now. */
  flush(): void {
    this.#lastFlush = Date.now();
    if (this.#chunks.length === 0) return;
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#pendingBytes = 0;
    for (const chunk of chunks) post(this.#port, chunk);
  }
}
