/**
 * One `abort` listener per caller signal, however many operations share it.
 *
 * @internal
 * @module
 */

const fanouts = new WeakMap<AbortSignal, AbortFanout>();

/**
 * Node warns once an AbortSignal has more than 10 listeners, and a caller may share one signal
 * across thousands of concurrent operations: each registers here, and the signal carries one
 * listener while any does, none once the last has unsubscribed.
 */
class AbortFanout {
  readonly listeners = new Set<() => void>();
  readonly #signal: AbortSignal;
  readonly #onAbort = (): void => {
    fanouts.delete(this.#signal);
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        // As an EventTarget does: one listener's failure does not stop the others, and surfaces.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  };

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  remove(listener: () => void): void {
    if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
    this.#signal.removeEventListener('abort', this.#onAbort);
    fanouts.delete(this.#signal);
  }
}

/**
 * Calls `listener` once when `signal` aborts; the returned function unsubscribes it (idempotent).
 * The signal must not be aborted yet (check `signal.aborted` first).
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  let fanout = fanouts.get(signal);
  if (fanout === undefined) {
    fanout = new AbortFanout(signal);
    fanouts.set(signal, fanout);
  }
  const entry = (): void => listener();
  fanout.listeners.add(entry);
  const owner = fanout;
  return () => owner.remove(entry);
}
