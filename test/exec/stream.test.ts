/**
 * The facade's stream (`exec.runToolStream`) against consumers that do not keep up: one that
 * reads slowly while a handler floods it with progress, and one that stops waiting for a `next()`
 * and closes the stream.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { LocalHandler, StreamEvent } from '../../src/run/index.js';
import { MAX_QUEUED_PROGRESS } from '../../src/run/progress.js';
import { trackedExecs } from './helpers.js';
import { closeWhileWaiting, stalledSource, type StalledSeen } from '../streams.js';

const exec = trackedExecs();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}

/** A facade with one local tool `t:stream` served by `handler`. */
function execWith(handler: LocalHandler) {
  return exec({ tools: [{ tool: { name: 'stream', namespace: 't', inputSchema: { type: 'object' } }, handler }] });
}

const STARTED = { progress: 0, total: 1, message: 'started' };
const COMPLETED = { progress: 1, total: 1, message: 'completed' };

describe('runToolStream: a handler that reports faster than the consumer reads', () => {
  it('keeps at most the bound of unread reports, the newest; the last report, completed and done arrive', async () => {
    const reports = 200_000;
    const e = execWith(async (_args, ctx) => {
      await sleep(1);
      for (let i = 0; i < reports; i++) ctx.onProgress?.({ progress: i, total: reports });
      return 'finished';
    });
    const iterator = e.runToolStream('t:stream')[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ kind: 'progress', toolId: 't:stream', data: STARTED });
    // the handler's first report reaches the waiting consumer, which then stops reading a while
    expect((await iterator.next()).value).toEqual({ kind: 'progress', toolId: 't:stream', data: { progress: 0, total: reports } });
    await sleep(20);
    const rest: StreamEvent[] = [];
    for (let step = await iterator.next(); step.done !== true; step = await iterator.next()) rest.push(step.value);
    const progress = rest.filter((event) => event.kind === 'progress').map((event) => event.data);
    expect(progress.length).toBeLessThanOrEqual(MAX_QUEUED_PROGRESS + 1);
    expect(progress.at(-2)).toEqual({ progress: reports - 1, total: reports });
    expect(progress.at(-1)).toEqual(COMPLETED);
    expect(rest.at(-1)).toEqual({ kind: 'done', toolId: 't:stream', data: 'finished' });
  });
});

describe('runToolStream: return() while a next() waits', () => {
  /**
   * Reads `started`, then waits for the next event at most 50 ms (the handler sends none) and
   * closes the stream, as a consumer with a timeout does; checks that return() and the waiting
   * next() settle at once, and that nothing is left behind.
   */
  async function closeFacadeStream(handler: LocalHandler, after: () => void): Promise<void> {
    await sleep(30); // let the timers of earlier tests run out
    const timersBefore = activeTimers();
    const e = execWith(handler);
    const controller = new AbortController();
    const iterator = e.runToolStream('t:stream', {}, { signal: controller.signal })[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ kind: 'progress', toolId: 't:stream', data: STARTED });
    await closeWhileWaiting(iterator);

    await sleep(10); // the work winds down in the background
    after();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(controller.signal.aborted).toBe(false);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  }

  for (const honoursSignal of [true, false]) {
    it(`a handler whose iterable never yields (and ${honoursSignal ? 'honours' : 'ignores'} its signal): its signal aborts and its source is closed`, async () => {
      const seen: StalledSeen = { closed: 0 };
      await closeFacadeStream(stalledSource(honoursSignal, seen), () => {
        expect(seen.signal?.aborted).toBe(true);
        expect(seen.closed).toBe(1);
      });
    });
  }

  it('return() without a next() waiting still closes the stream as leaving the loop does', async () => {
    let signal: AbortSignal | undefined;
    let finalized = false;
    const e = execWith(async function* (_args, ctx) {
      signal = ctx.signal;
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        finalized = true;
      }
    });
    const kinds: string[] = [];
    for await (const event of e.runToolStream('t:stream')) {
      kinds.push(event.kind);
      if (event.kind === 'chunk' && event.data === 2) break;
    }
    expect(kinds).toEqual(['progress', 'chunk', 'chunk', 'chunk']);
    await sleep(1);
    expect(signal?.aborted).toBe(true);
    expect(finalized).toBe(true);
  });
});
