/**
 * The timers of one JavaScript run: the VM's `setTimeout` / `setInterval` ids, each backed by a
 * host timer that fires it back into the VM.
 */
import { MAX_TIMER_MS } from '../../../model/internal.js';

/** The most timers a run may have armed at once. */
export const MAX_TIMERS = 10_000;

/** A run's armed timers, by the VM's timer id. */
export class RunTimers {
  readonly #timers = new Map<number, NodeJS.Timeout>();

  /** How many timers are armed. */
  get size(): number {
    return this.#timers.size;
  }

  /** Clears timer `id`, if it is armed. */
  clear(id: number): void {
    const existing = this.#timers.get(id);
    if (existing !== undefined) clearTimeout(existing);
    this.#timers.delete(id);
  }

  /** Arms timer `id` to call `fire(id)` after `ms`; false (nothing armed) when {@link MAX_TIMERS} are. */
  arm(id: number, ms: number, fire: (id: number) => void): boolean {
    if (this.#timers.size >= MAX_TIMERS) return false;
    // clamped to the longest delay setTimeout honours (a longer one would fire at once)
    const delay = Math.min(Math.max(1, ms), MAX_TIMER_MS);
    this.#timers.set(
      id,
      setTimeout(() => {
        this.#timers.delete(id);
        fire(id);
      }, delay),
    );
    return true;
  }

  /** Clears every timer (the run is over). */
  clearAll(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
