/**
 * What a local handler's stream leaves behind once the stream is over: whatever the handler opened
 * is closed, even when it arrives after the consumer left (a slow handler that resolves with a
 * cursor, a file stream, ...).
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRunner, type LocalHandler, type ToolError } from '../../src/run/index.js';
import { collect, indexWith, localBackend, sleep, tool } from './helpers.js';

/** A Node stream (what a handler opening a file or a cursor resolves with) that has to be closed. */
function openedStream(): Readable {
  let i = 0;
  return new Readable({
    objectMode: true,
    read() {
      this.push(i++);
    },
  });
}

function runnerWith(handler: LocalHandler) {
  return createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: { h: handler } });
}

describe('a local handler whose iterable arrives after the stream ended', () => {
  it('timeoutMs ran out while the handler was still opening its source: the source is closed when it arrives', async () => {
    let source: Readable | undefined;
    const runner = runnerWith(async () => {
      await sleep(60);
      source = openedStream();
      return source;
    });
    const { events, error } = await collect(runner.runStream('t', {}, { timeoutMs: 20 }));
    expect(events).toEqual([]);
    expect((error as ToolError).code).toBe('TIMEOUT');
    await sleep(80);
    expect(source?.destroyed).toBe(true);
  });

  it('the consumer left (break) while the handler was still opening its source: the source is closed when it arrives', async () => {
    let source: Readable | undefined;
    const runner = runnerWith(async (_args, ctx) => {
      ctx.onProgress?.({ progress: 0, message: 'opening' });
      await sleep(40);
      source = openedStream();
      return source;
    });
    for await (const event of runner.runStream('t')) {
      expect(event.kind).toBe('progress');
      break;
    }
    await sleep(60);
    expect(source?.destroyed).toBe(true);
  });

  it('a caller abort while the handler was still opening its source: the source is closed when it arrives', async () => {
    let source: Readable | undefined;
    const controller = new AbortController();
    const runner = runnerWith(async () => {
      await sleep(40);
      source = openedStream();
      return source;
    });
    setTimeout(() => controller.abort(), 10);
    const { events, error } = await collect(runner.runStream('t', {}, { signal: controller.signal }));
    expect(events).toEqual([]);
    expect(error).toBeUndefined();
    await sleep(60);
    expect(source?.destroyed).toBe(true);
  });
});

describe('a source of its own (an iterator with return()) that arrives after the stream ended', () => {
  it("is told to close through its iterator's return(), as leaving a for await over it would", async () => {
    let closed = 0;
    const cursor: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => ({ value: 1, done: false }),
        return: async () => {
          closed++;
          return { value: undefined, done: true };
        },
      }),
    };
    const runner = runnerWith(async () => {
      await sleep(40);
      return cursor;
    });
    const { error } = await collect(runner.runStream('t', {}, { timeoutMs: 10 }));
    expect((error as ToolError).code).toBe('TIMEOUT');
    await sleep(60);
    expect(closed).toBe(1);
  });
});
