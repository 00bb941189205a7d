/**
 * A small least-recently-used map: a `Map` keeps insertion order, so a hit is re-inserted at the
 * end and the first key is always the oldest.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #maxEntries: number;
  readonly #onEvict: ((key: K, value: V) => void) | undefined;

  /**
   * @param maxEntries - Most entries kept; the least recently used one is dropped beyond it.
   * @param onEvict - Called with each dropped entry (to release what it holds).
   */
  constructor(maxEntries: number, onEvict?: (key: K, value: V) => void) {
    this.#maxEntries = maxEntries;
    this.#onEvict = onEvict;
  }

  /** The number of entries held. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value under `key`, marked as most recently used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  /** Stores `value` under `key` as most recently used, dropping the oldest entries beyond the bound. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      const dropped = this.#entries.get(oldest.value) as V;
      this.#entries.delete(oldest.value);
      this.#onEvict?.(oldest.value, dropped);
    }
  }

  /** Removes the entry under `key` (without calling the eviction callback). */
  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** Removes every entry (without calling the eviction callback). */
  clear(): void {
    this.#entries.clear();
  }
}
