/**
 * The one timer every armed deadline (deadline.ts) shares.
 *
 * @internal
 * @module
 */

/** One armed deadline in the {@link DeadlineTimer}: when it is due and what to do then. */
export interface DueEntry {
  /** On the `performance.now()` clock. */
  readonly dueMs: number;
  readonly expire: () => void;
}

export const clock = performance;

/**
 * One timer for every armed deadline: arming is a clock read and a set insertion instead of a
 * `setTimeout` per call (which costs several times more than a whole call), and the timer is set
 * for the earliest due deadline only. It holds the process open while any deadline is armed, as a
 * timer per deadline would. When the last armed deadline is removed, the timer is not cleared but
 * only unreferenced: sequential calls with the same budget then re-reference one timer instead of
 * setting and clearing one each (what made an awaiting call ~1 µs dearer); when it fires with
 * nothing due, it is dropped.
 */
class DeadlineTimer {
  readonly #entries = new Set<DueEntry>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerDueMs = Infinity;
  /** Whether the timer holds the process open (it does while any deadline is armed). */
  #holding = false;
  #expiring = false;

  add(entry: DueEntry): void {
    this.#entries.add(entry);
    if (this.#expiring) return;
    if (entry.dueMs < this.#timerDueMs) this.#schedule(entry.dueMs);
    else if (!this.#holding) {
      this.#holding = true;
      this.#timer?.ref();
    }
  }

  delete(entry: DueEntry): void {
    if (!this.#entries.delete(entry) || this.#entries.size > 0 || !this.#holding) return;
    this.#holding = false;
    this.#timer?.unref();
  }

  #schedule(dueMs: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerDueMs = dueMs;
    this.#holding = true;
    // A timer may fire a little early by this clock: what is not due yet is rescheduled.
    this.#timer = setTimeout(this.#onTimer, Math.max(1, Math.ceil(dueMs - clock.now())));
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#timerDueMs = Infinity;
    this.#holding = false;
    this.#expiring = true;
    const nowMs = clock.now();
    for (const entry of this.#entries) {
      if (entry.dueMs > nowMs) continue;
      this.#entries.delete(entry);
      try {
        entry.expire();
      } catch (error) {
        // One deadline's failure does not keep the others from expiring; it surfaces.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.#expiring = false;
    let nextMs = Infinity;
    for (const entry of this.#entries) if (entry.dueMs < nextMs) nextMs = entry.dueMs;
    if (nextMs !== Infinity) this.#schedule(nextMs);
  };
}

export const deadlineTimer = new DeadlineTimer();
