/**
 * The facade's stream, left open for a long time, holds nothing for the events already read.
 */
import { describe, expect, it } from 'vitest';
import { createExec } from '../../src/exec/index.js';
import { endlessTicks, growthOverEvents, MAX_STREAM_GROWTH_BYTES } from '../streams.js';

describe('exec.runToolStream: an open stream holds nothing per event read', () => {
  it('the heap stays flat over 100,000 events', async () => {
    const exec = createExec({
      tools: [{ tool: { name: 'ticks', namespace: 't', inputSchema: { type: 'object' } }, handler: endlessTicks }],
    });
    try {
      const iterator = exec.runToolStream('t:ticks', {})[Symbol.asyncIterator]();
      expect(await growthOverEvents(iterator)).toBeLessThan(MAX_STREAM_GROWTH_BYTES);
      await iterator.return?.();
    } finally {
      await exec.close();
    }
  });
});
