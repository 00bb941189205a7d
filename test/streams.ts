/**
 * Helpers of the tests that close streams while a `next()` waits (the runner's and the facade's).
 */
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
