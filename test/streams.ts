/**
 * Helpers of the stream tests (the runner's and the facade's): closing a stream while a `next()`
 * waits, and the memory an open stream holds.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

/** Events one open stream is read for in the memory tests. */
export const MEMORY_EVENTS = 100_000;
/** Most the heap may grow over {@link MEMORY_EVENTS} events (before the fix: ~40 MB, ~75 MB for the facade). */
export const MAX_STREAM_GROWTH_BYTES = 8 * 1024 * 1024;

let collectGarbage: (() => void) | undefined;

/** Heap used after a full collection, in bytes. */
export function heapUsedAfterGc(): number {
  if (collectGarbage === undefined) {
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as () => void;
  }
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Reads `count` events of `iterator`, keeping none. */
export async function readEvents(iterator: AsyncIterator<unknown>, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const step = await iterator.next();
    if (step.done === true) throw new Error(`the stream ended after ${i} events`);
  }
}

/** A local handler whose stream never ends. */
export async function* endlessTicks(): AsyncGenerator<number> {
  for (let i = 0; ; i++) yield i;
}

/** How much the heap grows while `iterator` is read for {@link MEMORY_EVENTS} events (after 10,000 to warm up). */
export async function growthOverEvents(iterator: AsyncIterator<unknown>): Promise<number> {
  await readEvents(iterator, 10_000);
  const before = heapUsedAfterGc();
  await readEvents(iterator, MEMORY_EVENTS);
  return heapUsedAfterGc() - before;
}
