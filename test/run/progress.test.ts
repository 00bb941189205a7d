import { describe, expect, it } from 'vitest';
import { createRunner, type ProgressEvent, type RunResult } from '../../src/run/index.js';
import {
  FakeMcpExecutor,
  FakeProviderExecutor,
  indexWith,
  localBackend,
  mcpBackend,
  providerBackend,
  rejectionOf,
  sleep,
  tool,
} from './helpers.js';

const started = { progress: 0, total: 1, message: 'started' };
const completed = { progress: 1, total: 1, message: 'completed' };
const errored = { progress: 1, total: 1, message: 'error' };

describe('progress of run (cases 73, 74, 78)', () => {
  const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: { h: () => 'ok' } });

  it('case 73: a successful run emits exactly started then completed', async () => {
    const events: ProgressEvent[] = [];
    await runner.run('t', {}, { onProgress: (p) => events.push(p) });
    expect(events).toEqual([started, completed]);
  });

  it('case 74: an empty tool ID emits started … error', async () => {
    const events: ProgressEvent[] = [];
    await rejectionOf(runner.run('', {}, { onProgress: (p) => events.push(p) }));
    expect(events).toEqual([started, errored]);
  });

  it('an aborted signal still emits started then error', async () => {
    const events: ProgressEvent[] = [];
    const controller = new AbortController();
    controller.abort();
    await rejectionOf(runner.run('t', {}, { signal: controller.signal, onProgress: (p) => events.push(p) }));
    expect(events).toEqual([started, errored]);
  });

  it('case 78: no callback is plain run', async () => {
    const result: RunResult = await runner.run('t', {}, {});
    expect(result.structured).toBe('ok');
  });

  it('a throwing progress listener does not fail the call', async () => {
    const result = await runner.run(
      't',
      {},
      {
        onProgress: () => {
          throw new Error('listener bug');
        },
      },
    );
    expect(result.structured).toBe('ok');
  });
});

describe('backend progress ordering', () => {
  it('a local handler reports between started and completed; reports after the end are dropped', async () => {
    let late: ((p: ProgressEvent) => void) | undefined;
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: async (_args, ctx) => {
          ctx.onProgress?.({ progress: 1, total: 3, message: 'one' });
          await sleep(1);
          ctx.onProgress?.({ progress: 2, total: 3, message: 'two' });
          late = ctx.onProgress;
          return 'done';
        },
      },
    });
    const events: ProgressEvent[] = [];
    await runner.run('t', {}, { onProgress: (p) => events.push(p) });
    late?.({ progress: 3, total: 3, message: 'too late' });
    expect(events).toEqual([started, { progress: 1, total: 3, message: 'one' }, { progress: 2, total: 3, message: 'two' }, completed]);
  });

  it('a handler that fails after reporting ends with error', async () => {
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: (_args, ctx) => {
          ctx.onProgress?.({ progress: 0.5 });
          throw new Error('nope');
        },
      },
    });
    const events: ProgressEvent[] = [];
    await rejectionOf(runner.run('t', {}, { onProgress: (p) => events.push(p) }));
    expect(events).toEqual([started, { progress: 0.5 }, errored]);
  });

  it('without onProgress the handler gets no ctx.onProgress', async () => {
    let had: boolean | undefined;
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: (_args, ctx) => {
          had = ctx.onProgress !== undefined;
          return 1;
        },
      },
    });
    await runner.run('t');
    expect(had).toBe(false);
  });

  it('MCP and provider executors get options.onProgress and their reports are forwarded', async () => {
    const mcp = new FakeMcpExecutor();
    mcp.result = (call) => {
      call.options?.onProgress?.({ progress: 5, total: 10, message: 'mcp half' });
      return { content: [], structuredContent: { ok: true } };
    };
    const provider = new FakeProviderExecutor();
    const index = indexWith([tool('m'), mcpBackend('s')], [tool('p'), providerBackend('pp', 'pt')]);
    const runner = createRunner({ index, mcp, provider });
    const events: ProgressEvent[] = [];
    await runner.run('m', {}, { onProgress: (p) => events.push(p) });
    expect(events).toEqual([started, { progress: 5, total: 10, message: 'mcp half' }, completed]);
    await runner.run('p', {}, { onProgress: () => {} });
    expect(typeof provider.calls[0]?.options?.onProgress).toBe('function');
  });
});

describe('progress of chains (cases 75–77)', () => {
  const runner = createRunner({
    index: indexWith([tool('ok'), localBackend('ok')], [tool('bad'), localBackend('bad')]),
    local: {
      ok: () => 1,
      bad: () => {
        throw new Error('bad step');
      },
    },
  });

  it('case 75: a 2-step chain emits progress 0, 1, 2 with total 2', async () => {
    const events: ProgressEvent[] = [];
    await runner.runChain([{ toolId: 'ok' }, { toolId: 'ok' }], { onProgress: (p) => events.push(p) });
    expect(events).toEqual([
      { progress: 0, total: 2, message: 'started' },
      { progress: 1, total: 2, message: 'step_completed' },
      { progress: 2, total: 2, message: 'step_completed' },
    ]);
  });

  it('case 76: a failing step 2 emits started, step_completed, step_error and nothing more', async () => {
    const events: ProgressEvent[] = [];
    await rejectionOf(runner.runChain([{ toolId: 'ok' }, { toolId: 'bad' }, { toolId: 'ok' }], { onProgress: (p) => events.push(p) }));
    expect(events.map((e) => e.message)).toEqual(['started', 'step_completed', 'step_error']);
    expect(events.map((e) => e.total)).toEqual([3, 3, 3]);
  });

  it('case 77: an empty chain emits nothing', async () => {
    const events: ProgressEvent[] = [];
    await runner.runChain([], { onProgress: (p) => events.push(p) });
    expect(events).toEqual([]);
  });
});

describe('what a handler reports is checked before anyone sees it', () => {
  const bad: unknown[] = [
    null,
    undefined,
    'half',
    { progress: 'x' },
    { progress: Number.NaN },
    { progress: Infinity },
    {
      get progress(): number {
        throw new Error('getter');
      },
    },
  ];
  const handler = (_args: Record<string, unknown>, ctx: { onProgress?: (p: ProgressEvent) => void }): string => {
    for (const report of bad) ctx.onProgress?.(report as ProgressEvent);
    ctx.onProgress?.({ progress: 0.5, total: Number.NaN, message: 1 } as unknown as ProgressEvent);
    ctx.onProgress?.({ progress: 2, total: 4, message: 'half', extra: true } as ProgressEvent);
    return 'ok';
  };
  const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: { h: handler } });
  const expected = [{ progress: 0.5 }, { progress: 2, total: 4, message: 'half' }];

  it('run: a report that is not an object or has no finite progress is dropped; bad total or message are left out', async () => {
    const events: ProgressEvent[] = [];
    expect((await runner.run('t', {}, { onProgress: (p) => events.push(p) })).structured).toBe('ok');
    expect(events).toEqual([started, ...expected, completed]);
  });

  it('runStream: the same reports become the same progress events', async () => {
    const data: unknown[] = [];
    for await (const event of runner.runStream('t', {})) if (event.kind === 'progress') data.push(event.data);
    expect(data).toEqual(expected);
  });
});
