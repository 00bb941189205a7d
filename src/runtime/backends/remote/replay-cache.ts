/**
 * A bounded cache of the nonces seen within the replay window.
 */

/** What {@link ReplayCache.remember} decided. */
export type ReplayVerdict = 'fresh' | 'replayed' | 'full';

/**
 * Remembers each accepted nonce for twice the replay window (a request stamped at the far edge of
 * the window stays replayable that long), in insertion order, pruning expired entries as it goes.
 * An entry lives through its expiry millisecond inclusive: the handler accepts a timestamp exactly
 * one window away, so a request stamped `now + window` is still valid at `now + 2 × window`.
 * When full of live entries it refuses new ones (`full`) rather than forget a live nonce.
 */
export class ReplayCache {
  readonly #expiries = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(windowMs: number, maxEntries: number) {
    this.#ttlMs = windowMs * 2;
    this.#maxEntries = maxEntries;
  }

  /** Entries currently held. */
  get size(): number {
    return this.#expiries.size;
  }

  /** Records `nonce` at `nowMs`: `fresh` the first time, `replayed` while it is remembered. */
  remember(nonce: string, nowMs: number): ReplayVerdict {
    this.#prune(nowMs);
    const expiry = this.#expiries.get(nonce);
    if (expiry !== undefined && expiry >= nowMs) return 'replayed';
    if (this.#expiries.size >= this.#maxEntries) return 'full';
    this.#expiries.set(nonce, nowMs + this.#ttlMs);
    return 'fresh';
  }

  #prune(nowMs: number): void {
    for (const [nonce, expiry] of this.#expiries) {
      if (expiry >= nowMs) break;
      this.#expiries.delete(nonce);
    }
  }
}
