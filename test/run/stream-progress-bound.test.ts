/**
 * A local handler that reports progress faster than the stream's consumer reads: the reports
 * waiting unread are bounded (the newest kept), chunks and the result are never dropped.
 */
import { describe, expect, it } from 'vitest';
import { createRunner, type LocalHandler, type StreamEvent } from '../../src/run/index.js';
import { MAX_QUEUED_PROGRESS } from '../../src/run/progress.js';
import { indexWith, localBackend, sleep, tool } from './helpers.js';

const REPORTS = 200_000;

function runnerWith(handler: LocalHandler) {
  return createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: { h: handler } });
}

describe('progress reports waiting unread on a local stream', () => {
  it(`${REPORTS} reports against a consumer that reads slowly: at most ${MAX_QUEUED_PROGRESS} wait, the newest are kept, done still arrives`, async () => {
    const runner = runnerWith(async (_args, ctx) => {
      await sleep(1);
      for (let i = 0; i < REPORTS; i++) ctx.onProgress?.({ progress: i, total: REPORTS, message: `step ${i}` });
      return 'finished';
    });
    const iterator = runner.runStream('t')[Symbol.asyncIterator]();
    // the first report goes straight to the consumer waiting for it; then it stops reading a while
    const first = await iterator.next();
    expect(first.value).toEqual({ kind: 'progress', toolId: 't', data: { progress: 0, total: REPORTS, message: 'step 0' } });
    await sleep(20);
    const rest: StreamEvent[] = [];
    for (let step = await iterator.next(); step.done !== true; step = await iterator.next()) rest.push(step.value);

    const progress = rest.filter((event) => event.kind === 'progress').map((event) => event.data.progress);
    // nothing more than the bound waited while the consumer did not read
    expect(progress.length).toBeLessThanOrEqual(MAX_QUEUED_PROGRESS);
    // the newest reports, in order, the last one included
    expect(progress).toEqual(Array.from({ length: MAX_QUEUED_PROGRESS }, (_, i) => REPORTS - MAX_QUEUED_PROGRESS + i));
    expect(rest.at(-1)).toEqual({ kind: 'done', toolId: 't', data: 'finished' });
  });

  it('only progress is dropped: every chunk arrives, in order, and no report overtakes a chunk', async () => {
    const batches = 4;
    const perBatch = 5_000;
    const runner = runnerWith(async function* (_args, ctx) {
      for (let batch = 0; batch < batches; batch++) {
        for (let i = 0; i < perBatch; i++) ctx.onProgress?.({ progress: batch * perBatch + i });
        yield batch;
      }
    });
    const events: StreamEvent[] = [];
    for await (const event of runner.runStream('t')) {
      events.push(event);
      // a consumer slower than the handler: every chunk waits for it behind a flood of reports
      if (event.kind === 'chunk') await sleep(5);
    }
    const chunks = events.filter((event) => event.kind === 'chunk').map((event) => event.data);
    expect(chunks).toEqual([0, 1, 2, 3]);
    expect(events.at(-1)).toEqual({ kind: 'done', toolId: 't', data: 3 });
    // between two chunks: reports of that batch only, at most the bound of them, ending with its last
    let batch = 0;
    let seen: number[] = [];
    for (const event of events) {
      if (event.kind === 'progress') {
        seen.push(event.data.progress);
      } else if (event.kind === 'chunk') {
        expect(seen.length).toBeLessThanOrEqual(MAX_QUEUED_PROGRESS);
        expect(seen.every((value) => Math.floor(value / perBatch) === batch)).toBe(true);
        expect(seen.at(-1)).toBe(batch * perBatch + perBatch - 1);
        batch++;
        seen = [];
      }
    }
  });
});
