/**
 * The unhandled promise rejections of one JavaScript run, as the VM reports them: each one when it
 * appears, and again if it gets a handler later.
 */
import type { JSValueHandle } from 'quickjs-wasi';

/** A run's rejections still unhandled: their reasons (kept alive here), by promise identity. */
export class UnhandledRejections {
  readonly #reasons = new Map<number, JSValueHandle>();

  /** An unhandled rejection appeared (`handled` false) or got a handler (`handled` true). */
  track(promise: JSValueHandle, reason: JSValueHandle, handled: boolean): void {
    const key = promise.identity;
    if (handled) {
      this.#reasons.get(key)?.dispose();
      this.#reasons.delete(key);
    } else if (!this.#reasons.has(key)) {
      this.#reasons.set(key, reason.dup());
    }
  }

  /** The reason of the first rejection still unhandled, other than that of the promise `exceptKey`. */
  first(exceptKey: number): JSValueHandle | undefined {
    for (const [key, reason] of this.#reasons) {
      if (key === exceptKey) continue;
      return reason;
    }
    return undefined;
  }

  /** Disposes every reason (the run is over). */
  dispose(): void {
    for (const reason of this.#reasons.values()) reason.dispose();
    this.#reasons.clear();
  }
}
