/**
 * A stream whose `return()` never waits for a `next()` in flight: what `runner.runStream` and the
 * facade's `exec.runToolStream` hand their callers.
 *
 * @internal
 * @module
 */
import { noop } from '../model/internal.js';

const DONE: IteratorResult<never, void> = Object.freeze({ value: undefined, done: true });

/**
 * The events of an async generator, closable at any time. An async generator's calls queue: its
 * `return()` waits for a `next()` in flight, so a consumer that stops waiting (a `next()` raced
 * against a timer) and closes the stream would wait as long as the work does. Here `return()` with
 * a `next()` in flight settles at once, that `next()` settles with `done: true`, and `stop` is
 * called to end the work (its signal aborted, which ends the generator soon) while the generator
 * is closed behind it. Without a `next()` in flight, `return()` closes the generator as leaving a
 * `for await` loop does, and resolves once it is closed.
 *
 * @internal
 */
export class ClosableStream<T> implements AsyncIterableIterator<T, void> {
  readonly #events: AsyncGenerator<T, unknown, undefined>;
  readonly #stop: () => void;
  #closed = false;
  /**
   * The resolvers of the `next()` calls of the events not settled yet, settled with `done: true` when the stream is closed.
   * Each call's own entry, removed when it settles: a stream that stays open for millions of events
   * holds nothing for the events already read (a race against one shared "closed" promise would
   * leave a reaction on it per call).
   */
  readonly #waiting = new Set<(result: IteratorResult<T, void>) => void>();

  /** `stop` ends the work behind `events` (it is called only when a `next()` is in flight at `return()`). */
  constructor(events: AsyncGenerator<T, unknown, undefined>, stop: () => void) {
    this.#events = events;
    this.#stop = stop;
  }

  /** The stream itself: it is iterated once, as a generator is. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next event; `done: true` once the stream has ended or was closed (a waiting call too). */
  next(): Promise<IteratorResult<T, void>> {
    if (this.#closed) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.#waiting.add(resolve);
      this.#events.next().then(
        (result) => {
          this.#waiting.delete(resolve);
          resolve(result.done === true ? DONE : result);
        },
        (err: unknown) => {
          this.#waiting.delete(resolve);
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the events' own failure, unchanged
          reject(err);
        },
      );
    });
  }

  /** Closes the stream (idempotent): at once while a `next()` waits, else once the events are closed. */
  return(): Promise<IteratorResult<T, void>> {
    if (this.#closed) return Promise.resolve(DONE);
    this.#closed = true;
    if (this.#waiting.size === 0) return this.#events.return(undefined).then(() => DONE);
    // The events are busy in a next(): their return() would wait for it. Stop the work, which
    // makes that next() end soon, and close the events behind it.
    this.#stop();
    for (const resolve of this.#waiting) resolve(DONE);
    this.#waiting.clear();
    this.#events.return(undefined).then(noop, noop);
    return Promise.resolve(DONE);
  }
}
