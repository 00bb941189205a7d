/**
 * The first step of a remote runtime exchange on the server: reading the signed `execute` message
 * (the body's first line) within a size and time budget, while holding one of the places of the
 * requests being authenticated.
 */
import type { IncomingMessage } from 'node:http';
import { noop } from '../../../model/internal.js';
import { watchDeadline } from '../../core/stopping.js';

/** How reading the first line ended. */
export type FirstLine =
  | { kind: 'line'; line: Buffer; rest: Buffer; ended: boolean }
  | { kind: 'too_large' }
  | { kind: 'timeout' }
  | { kind: 'closed' }
  | { kind: 'evicted' };

/**
 * The requests still being authenticated, oldest first. When all `max` places are taken, the one
 * waiting longest is dropped for the newcomer: a signed client sends its execute message at once
 * and is through in milliseconds, while connections that trickle bytes and never sign only push
 * each other out.
 */
export class PendingAuth {
  readonly #entries = new Set<{ evict: () => void }>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Drops every request still being authenticated (the handler is closing). */
  evictAll(): void {
    const entries = [...this.#entries];
    this.#entries.clear();
    for (const entry of entries) entry.evict();
  }

  /** Takes a place (dropping the oldest when full); returns the function that gives it back. */
  enter(evict: () => void): () => void {
    if (this.#entries.size >= this.#max) {
      const oldest = this.#entries.values().next().value;
      if (oldest !== undefined) {
        this.#entries.delete(oldest);
        oldest.evict();
      }
    }
    const entry = { evict };
    this.#entries.add(entry);
    return () => this.#entries.delete(entry);
  }
}

/**
 * Reads the first line of the body (at most `maxBytes`), leaving the stream paused after it.
 * `onEvict` receives the function that ends the wait early (`evicted`).
 */
export function readFirstLine(
  req: IncomingMessage,
  maxBytes: number,
  timeoutMs: number,
  onEvict: (evict: () => void) => void,
): Promise<FirstLine> {
  return new Promise<FirstLine>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let stopClock = noop;
    const finish = (outcome: FirstLine) => {
      if (done) return;
      done = true;
      stopClock();
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onClose);
      req.off('close', onClose);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      const newline = chunk.indexOf(10);
      const taken = newline === -1 ? chunk.length : newline;
      if (size + taken > maxBytes) {
        finish({ kind: 'too_large' });
        return;
      }
      size += taken;
      if (newline === -1) {
        chunks.push(chunk);
        return;
      }
      chunks.push(chunk.subarray(0, newline));
      req.pause();
      finish({ kind: 'line', line: Buffer.concat(chunks), rest: chunk.subarray(newline + 1), ended: false });
    };
    const onEnd = () =>
      finish(size === 0 ? { kind: 'closed' } : { kind: 'line', line: Buffer.concat(chunks), rest: Buffer.alloc(0), ended: true });
    const onClose = () => finish({ kind: 'closed' });
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onClose);
    req.once('close', onClose);
    stopClock = watchDeadline(undefined, timeoutMs, () => finish({ kind: 'timeout' }));
    onEvict(() => finish({ kind: 'evicted' }));
  });
}
