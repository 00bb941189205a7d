/**
 * A bounded pool of started sandbox containers whose guests wait for a program on stdin. Each
 * container serves exactly one run and is then removed, so nothing a run leaves behind (files in
 * `/tmp`, processes, memory) can reach the next one; the pool only moves the container start out
 * of the run's latency.
 */
import type { SandboxContainer } from './sandbox-container.js';

/** The largest warm pool a backend may keep. */
export const MAX_WARM_POOL_SIZE = 16;

/** What a warm pool has done so far. */
export interface WarmPoolStats {
  /** The target number of idle containers. */
  size: number;
  /** Containers started and waiting. */
  idle: number;
  /** Containers being started now (0 or 1: the pool refills one at a time). */
  starting: number;
  /** Containers handed to runs. */
  taken: number;
  /** Containers started by the pool in total. */
  started: number;
  /** Idle containers found dead and discarded. */
  discarded: number;
  /** Starts that failed. */
  failures: number;
  /** The last start failure, if the pool is not full because of it. */
  lastError?: unknown;
}

/**
 * Keeps up to `size` containers started. {@link take} hands one out (never twice); {@link fill}
 * refills in the background, one container at a time (to leave CPU to the runs); a failed start
 * stops the refill until the next {@link fill}. {@link close} removes every idle container.
 */
export class WarmPool {
  readonly #size: number;
  readonly #start: () => Promise<SandboxContainer>;
  readonly #track: (cleanup: Promise<void>) => void;
  readonly #idle: SandboxContainer[] = [];
  #refill: Promise<void> | undefined;
  #starting = 0;
  #closed = false;
  #taken = 0;
  #started = 0;
  #discarded = 0;
  #failures = 0;
  #lastError: unknown;

  /**
   * @param size Idle containers to keep (1..{@link MAX_WARM_POOL_SIZE}).
   * @param start Starts one container with the pool's fixed settings.
   * @param track Receives background cleanups (the owner awaits them on close).
   */
  constructor(size: number, start: () => Promise<SandboxContainer>, track: (cleanup: Promise<void>) => void) {
    this.#size = Math.min(MAX_WARM_POOL_SIZE, Math.max(1, Math.floor(size)));
    this.#start = start;
    this.#track = track;
  }

  /**
   * An idle, live container (removed from the pool), or undefined when none is ready. The caller
   * refills with {@link fill} once its run is over, so the refill does not compete with the run.
   */
  take(): SandboxContainer | undefined {
    let found: SandboxContainer | undefined;
    while (found === undefined && this.#idle.length > 0) {
      const next = this.#idle.shift() as SandboxContainer;
      if (next.alive) found = next;
      else {
        this.#discarded += 1;
        this.#track(next.dispose());
      }
    }
    if (found !== undefined) this.#taken += 1;
    return found;
  }

  /** Starts containers until the pool is full; settles when it is (or a start failed). Never rejects. */
  fill(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#refill ??= this.#fillLoop().finally(() => {
      this.#refill = undefined;
    });
    return this.#refill;
  }

  async #fillLoop(): Promise<void> {
    this.#lastError = undefined;
    while (!this.#closed && this.#idle.length < this.#size) {
      this.#starting = 1;
      try {
        const container = await this.#start();
        this.#started += 1;
        if (this.#closed) {
          this.#track(container.dispose());
          return;
        }
        this.#idle.push(container);
      } catch (err) {
        this.#failures += 1;
        this.#lastError = err;
        return;
      } finally {
        this.#starting = 0;
      }
    }
  }

  /** The pool's counters. */
  stats(): WarmPoolStats {
    return {
      size: this.#size,
      idle: this.#idle.length,
      starting: this.#starting,
      taken: this.#taken,
      started: this.#started,
      discarded: this.#discarded,
      failures: this.#failures,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
    };
  }

  /** Stops refilling and removes every idle container. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#refill;
    const idle = this.#idle.splice(0);
    await Promise.all(idle.map((container) => container.dispose()));
  }
}
