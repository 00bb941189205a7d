/**
 * How a worker waiting on a tool call waits for the host's reply: spins briefly if a shared spin
 * slot is free, then sleeps on the host's reply counter, instead of a trip through its event loop.
 */
import { threadId } from 'node:worker_threads';

/** How long a worker waiting on a tool call sleeps for its reply before yielding to its event loop. */
const REPLY_WAIT_MS = 1;

/** Waits for replies; one per worker. */
export class ReplyWait {
  readonly #spinCells: Int32Array | undefined;
  readonly #spinMs: number;

  /** `replySpin`: the pool's spin slots and spin time; absent: never spin. */
  constructor(replySpin: { slots: SharedArrayBuffer; ms: number } | undefined) {
    this.#spinCells = replySpin === undefined ? undefined : new Int32Array(replySpin.slots);
    this.#spinMs = replySpin === undefined ? 0 : replySpin.ms;
  }

  /**
   * Waits until `cell` moves off `seen` (the host posted a reply) or REPLY_WAIT_MS passes; true when
   * it moved. Busy-waits first if a spin slot is free: a reply that lands meanwhile skips the futex
   * wake-up, which on a VM costs tens of microseconds per tool call.
   */
  wait(cell: Int32Array, seen: number): boolean {
    const spinCells = this.#spinCells;
    if (spinCells !== undefined) {
      for (let slot = 0; slot < spinCells.length; slot++) {
        if (Atomics.compareExchange(spinCells, slot, 0, threadId) !== 0) continue;
        try {
          const until = performance.now() + this.#spinMs;
          do {
            if (Atomics.load(cell, 0) !== seen) return true;
          } while (performance.now() < until);
        } finally {
          Atomics.store(spinCells, slot, 0);
        }
        break;
      }
    }
    return Atomics.wait(cell, 0, seen, REPLY_WAIT_MS) !== 'timed-out';
  }
}
