/**
 * One `abort` listener per caller signal, however many calls listen to it.
 *
 * @remarks
 * Node warns once an AbortSignal has more than 10 listeners (`MaxListenersExceededWarning:
 * Possible EventTarget memory leak detected`), and a caller may well share one signal across
 * thousands of concurrent calls. Each call registers here instead; the signal itself carries one
 * listener while any call listens, and none once the last has unsubscribed.
 */
const fanouts = new WeakMap<AbortSignal, AbortFanout>();

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
 *
 * @internal
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
