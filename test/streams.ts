/**
 * Helpers of the tests that close streams while a `next()` waits (the runner's and the facade's).
 */
import { expect } from 'vitest';
import type { LocalHandler, LocalHandlerContext } from '../src/run/index.js';

/** How `promise` settles within `ms`: its value, or `'still waiting'` (the timer is cleared either way). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still waiting'>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a {@link stalledSource} saw: the handler's signal, and how many times its source was closed. */
export interface StalledSeen {
  signal?: AbortSignal;
  closed: number;
}

/**
 * A local handler whose iterable's first value never comes; `honoursSignal`: its `next()` ends
 * (`done`) when the handler's signal aborts, else it never settles.
 */
export function stalledSource(honoursSignal: boolean, seen: StalledSeen): LocalHandler {
  return (_args, ctx: LocalHandlerContext) => {
    seen.signal = ctx.signal;
    return {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          new Promise<IteratorResult<number>>((resolve) => {
            if (honoursSignal) ctx.signal.addEventListener('abort', () => resolve({ value: undefined, done: true }));
          }),
        return: async () => {
          seen.closed++;
          return { value: undefined, done: true as const };
        },
      }),
    };
  };
}

/**
 * Closes `iterator` as a consumer with a timeout does: a `next()` that waits 50 ms in vain, then
 * `return()`. Checks that `return()` and the waiting `next()` settle with `done` within 500 ms, and
 * that later calls are done at once.
 */
export async function closeWhileWaiting(iterator: AsyncIterator<unknown>): Promise<void> {
  const waiting = iterator.next();
  expect(await within(waiting, 50)).toBe('still waiting');
  const started = performance.now();
  expect(await within(iterator.return!(), 500)).toEqual({ value: undefined, done: true });
  expect(await within(waiting, 500)).toEqual({ value: undefined, done: true });
  expect(performance.now() - started).toBeLessThan(500);
  expect(await iterator.next()).toEqual({ value: undefined, done: true });
}
