/**
 * A stream left open for a long time (a tail, heartbeats, progress) holds nothing for the events
 * already read: its memory stays flat however many events pass through it.
 */
import { describe, expect, it } from 'vitest';
import { createRunner } from '../../src/run/index.js';
import { endlessTicks, growthOverEvents, MAX_STREAM_GROWTH_BYTES } from '../streams.js';
import { indexWith, localBackend, tool } from './helpers.js';

describe('runner.runStream: an open stream holds nothing per event read', () => {
  it('the heap stays flat over 100,000 events', async () => {
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('ticks')]), local: { ticks: endlessTicks } });
    const iterator = runner.runStream('t')[Symbol.asyncIterator]();
    expect(await growthOverEvents(iterator)).toBeLessThan(MAX_STREAM_GROWTH_BYTES);
    await iterator.return?.();
  });
});
