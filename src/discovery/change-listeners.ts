/**
 * The change listeners of an in-memory index and the delivery of its events to them.
 *
 * @internal
 * @module
 */
import { callListener } from '../model/internal.js';
import { warnListenerError } from './index-options.js';
import type { ChangeEvent } from './types.js';

interface ListenerEntry {
  readonly listener: (event: ChangeEvent) => void;
}

/**
 * Listeners, called synchronously from a snapshot of the list (one added during a delivery misses
 * it, one removed during it still gets it). An event raised while listeners are being called (a
 * listener that registers a tool) is queued and delivered once the current event has reached
 * every listener, so each listener sees events in increasing version order. A listener's failure
 * (a throw, a rejected promise) goes to `onListenerError`.
 */
export class ChangeListeners {
  readonly #onListenerError: (error: unknown, event: ChangeEvent) => void;
  #listeners: readonly ListenerEntry[] = [];
  /** Events raised but not yet delivered, each with the listeners subscribed when it was raised. */
  readonly #pending: { event: ChangeEvent; listeners: readonly ListenerEntry[] }[] = [];
  /** True while listeners are being called (an event raised then is queued, not delivered in place). */
  #delivering = false;

  constructor(onListenerError: (error: unknown, event: ChangeEvent) => void) {
    this.#onListenerError = onListenerError;
  }

  /** Whether anyone listens (an event need not be made otherwise). */
  get any(): boolean {
    return this.#listeners.length > 0;
  }

  /** Adds a listener; returns the function that removes it. A non-function is ignored. */
  add(listener: (event: ChangeEvent) => void): () => void {
    if (typeof listener !== 'function') return () => {};
    const entry: ListenerEntry = { listener };
    this.#listeners = [...this.#listeners, entry];
    return () => {
      if (this.#listeners.includes(entry)) this.#listeners = this.#listeners.filter((other) => other !== entry);
    };
  }

  /** Delivers `event` to the current listeners (after those raised before it, see the class). */
  deliver(event: ChangeEvent): void {
    this.#pending.push({ event, listeners: this.#listeners });
    if (!this.#delivering) this.#drain();
  }

  /**
   * Runs `changes` with delivery held: the events they raise are delivered, in order, once they
   * all are made, so no listener runs (and changes the index) between two of them.
   */
  batch(changes: () => void): void {
    if (this.#delivering) {
      changes();
      return;
    }
    this.#delivering = true;
    try {
      changes();
    } finally {
      this.#delivering = false;
      if (this.#pending.length > 0) this.#drain();
    }
  }

  #drain(): void {
    this.#delivering = true;
    try {
      for (let next = this.#pending.shift(); next !== undefined; next = this.#pending.shift()) {
        const current = next.event;
        for (const { listener } of next.listeners) callListener(listener, current, (error) => this.#report(error, current));
      }
    } finally {
      this.#delivering = false;
      this.#pending.length = 0;
    }
  }

  #report(error: unknown, event: ChangeEvent): void {
    try {
      this.#onListenerError(error, event);
    } catch (reporterError) {
      warnListenerError(new AggregateError([error, reporterError], 'onListenerError threw while reporting a listener error'), event);
    }
  }
}
