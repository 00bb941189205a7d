import { noop } from '../model/internal.js';

/**
 * Telling promises and async iterables apart from plain values: what keeps a synchronous step
 * synchronous.
 *
 * @internal
 * @module
 */

/** True for objects and functions with a callable `then`. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function'
  );
}

/** True for objects with a callable `Symbol.asyncIterator`. */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/** Asks an iterator to stop, without waiting and without letting its failure escape. */
export function closeIterator(iterator: AsyncIterator<unknown> | undefined): void {
  if (iterator === undefined || typeof iterator.return !== 'function') return;
  try {
    const done = iterator.return();
    if (isPromiseLike(done)) done.then(undefined, noop);
  } catch {
    // The source is being abandoned; its cleanup failure has nowhere to go.
  }
}
