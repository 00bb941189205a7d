/**
 * Spin slots for workers waiting on a tool call's reply.
 *
 * A worker whose snippet awaits a tool call blocks on a shared counter until the host posts the
 * reply. Sleeping there (`Atomics.wait`) costs a futex wake-up per call, which on a VM can be tens
 * of microseconds. So the worker first busy-waits for a short while (`replySpinMs`), then sleeps.
 * Spinning takes a core, so only a bounded number of workers may spin at once: one fewer than the
 * machine's cores (the host's event loop, which answers the call, keeps one). A worker holds a slot
 * only while it spins; the slot records its thread id, so a worker terminated mid-spin gives its
 * slot back through {@link ReplySpinSlots.release}.
 *
 * @internal
 */
import { availableParallelism } from 'node:os';

export class ReplySpinSlots {
  /** The cells shared with the workers: 0 when free, else the spinning worker's thread id. */
  readonly buffer: SharedArrayBuffer;
  readonly #cells: Int32Array;

  /** `slots` cells (at least one); see {@link defaultSpinSlots}. */
  constructor(slots: number) {
    this.buffer = new SharedArrayBuffer(4 * Math.max(1, slots));
    this.#cells = new Int32Array(this.buffer);
  }

  /** Frees every slot a gone worker still holds. */
  release(threadId: number): void {
    for (let i = 0; i < this.#cells.length; i++) Atomics.compareExchange(this.#cells, i, threadId, 0);
  }

  /** Slots held right now. */
  get held(): number {
    let held = 0;
    for (let i = 0; i < this.#cells.length; i++) if (Atomics.load(this.#cells, i) !== 0) held += 1;
    return held;
  }
}

/** Workers allowed to spin at once: the cores the host's event loop leaves, at most `poolSize`. */
export function defaultSpinSlots(poolSize: number): number {
  return Math.max(0, Math.min(poolSize, availableParallelism() - 1));
}
