import { onAbort } from '../run/index.js';

/** Longest delay `setTimeout` honours; longer budgets mean "no deadline". */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * One signal for one operation: aborted when the caller's signal aborts (same reason) or when the
 * budget runs out (a `TimeoutError` DOMException, so `abortError` and the runner report TIMEOUT).
 *
 * @remarks
 * Exactly one controller, one listener on the caller's signal (shared with every other call listening
 * to it, so a signal shared by many calls carries one) and one timer; {@link dispose}
 * (call it in `finally`) removes the listener and clears the timer. The signal keeps its state
 * after disposal. Used by the code executor for a snippet's deadline and by the exec facade for a
 * chain's budget; usable for any operation of your own that needs the same semantics.
 */
export class LinkedDeadline {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopListening: (() => void) | undefined;
  #timedOut = false;

  /**
   * @param parent - the caller's signal, if any
   * @param timeoutMs - the budget in milliseconds; `undefined` or above the timer limit: none;
   *   `<= 0`: already expired
   */
  constructor(parent: AbortSignal | undefined, timeoutMs: number | undefined) {
    this.#timeoutMs = timeoutMs;
    if (parent !== undefined) {
      if (parent.aborted) {
        this.#controller.abort(parent.reason);
        return;
      }
      this.#stopListening = onAbort(parent, () => this.#controller.abort(parent.reason));
    }
    if (timeoutMs === undefined || timeoutMs > MAX_TIMER_MS) return;
    if (timeoutMs <= 0) {
      this.#expire();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#expire();
    }, timeoutMs);
  }

  /** Aborted at the deadline or when the caller aborts. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when the budget (not the caller) aborted the signal. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** The budget this deadline was created with. */
  get timeoutMs(): number | undefined {
    return this.#timeoutMs;
  }

  /** Clears the timer and detaches from the caller's signal. Idempotent. */
  dispose(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#stopListening !== undefined) {
      this.#stopListening();
      this.#stopListening = undefined;
    }
  }

  #expire(): void {
    if (this.#controller.signal.aborted) return;
    this.#timedOut = true;
    this.#controller.abort(new DOMException(`the operation timed out after ${this.#timeoutMs ?? 0} ms`, 'TimeoutError'));
    this.dispose();
  }
}
