/**
 * `runner.runStream` closed while a `next()` waits, as a consumer that races `next()` against a
 * timer does: `return()` does not wait for the work, the waiting `next()` ends, and the work is
 * stopped: its signal aborted and its source closed.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createRunner } from '../../src/run/index.js';
import { closeWhileWaiting, stalledSource, type StalledSeen } from '../streams.js';
import { indexWith, localBackend, sleep, tool } from './helpers.js';

describe('runner.runStream: return() while a next() waits', () => {
  for (const honoursSignal of [true, false]) {
    it(`settles at once, ends the waiting next() and stops the work (a source that ${honoursSignal ? 'honours' : 'ignores'} its signal)`, async () => {
      const seen: StalledSeen = { closed: 0 };
      const runner = createRunner({
        index: indexWith([tool('t'), localBackend('h')]),
        local: { h: stalledSource(honoursSignal, seen) },
      });
      const controller = new AbortController();
      const iterator = runner.runStream('t', {}, { signal: controller.signal })[Symbol.asyncIterator]();
      await closeWhileWaiting(iterator);

      await sleep(10);
      expect(seen.signal?.aborted).toBe(true);
      expect(seen.closed).toBe(1);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(controller.signal.aborted).toBe(false);
    });
  }

  it('return() with no next() waiting closes the stream as leaving a for-await loop does', async () => {
    let finalized = false;
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: async function* () {
          try {
            for (let i = 0; ; i++) yield i;
          } finally {
            finalized = true;
          }
        },
      },
    });
    const chunks: unknown[] = [];
    for await (const event of runner.runStream('t')) {
      if (event.kind === 'chunk') chunks.push(event.data);
      if (chunks.length === 3) break;
    }
    expect(chunks).toEqual([0, 1, 2]);
    await sleep(1);
    expect(finalized).toBe(true);
  });
});
