import { describe, expect, it } from 'vitest';
import { ToolexecError } from '../../src/model/index.js';
import { ToolError, createRunner, type ProviderExecutor, type StreamEvent } from '../../src/run/index.js';
import { collect, indexWith, providerBackend, tool } from './helpers.js';

function runnerStreaming(events: unknown[]): ReturnType<typeof createRunner> {
  const provider: ProviderExecutor = {
    callTool: async () => 1,
    async *callToolStream(): AsyncIterable<StreamEvent> {
      for (const event of events) yield event as StreamEvent;
    },
  };
  return createRunner({ index: indexWith([tool('s', { namespace: 'p' }), providerBackend('p', 's')]), provider });
}

describe("a stream source's events are checked like run's progress", () => {
  it('progress data goes through progressReport: a bad report is dropped, a good one copied', async () => {
    const { events, error } = await collect(
      runnerStreaming([
        { kind: 'progress', data: 'halfway' },
        { kind: 'progress', data: { progress: Number.NaN } },
        { kind: 'progress', data: { progress: 0.5, total: 'x', message: 3, extra: true } },
        { kind: 'done', data: 1 },
      ]).runStream('p:s', {}),
    );
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { kind: 'progress', toolId: 'p:s', data: { progress: 0.5 } },
      { kind: 'done', toolId: 'p:s', data: 1 },
    ]);
  });

  it('an error event with a plain Error carries an EXECUTION ToolError (op stream) with it as cause', async () => {
    const upstream = new Error('upstream 500');
    const library = new ToolexecError('TIMEOUT', 'slow');
    const { events } = await collect(
      runnerStreaming([{ kind: 'error', error: upstream }, { kind: 'error', error: library }, { kind: 'error' }]).runStream('p:s', {}),
    );
    expect(events).toHaveLength(3);
    const [first, second, third] = events.map((e) => (e as { error: ToolexecError }).error);
    expect(first).toBeInstanceOf(ToolError);
    expect(first?.code).toBe('EXECUTION');
    expect((first as ToolError).op).toBe('stream');
    expect(first?.cause).toBe(upstream);
    expect(second).toBe(library);
    expect(third?.code).toBe('EXECUTION');
  });

  it('events of unknown kinds are dropped', async () => {
    const { events } = await collect(
      runnerStreaming([{ kind: 'bogus', data: 1 }, { data: 2 }, { kind: 'chunk', data: 3 }, { kind: 'done' }]).runStream('p:s', {}),
    );
    expect(events.map((e) => e.kind)).toEqual(['chunk', 'done']);
  });

  it('an event whose toolId getter throws fails the stream with EXECUTION, its error as cause', async () => {
    const boom = new Error('toolId getter');
    const event = {
      kind: 'chunk',
      data: 1,
      get toolId(): never {
        throw boom;
      },
    };
    const { error } = await collect(runnerStreaming([event]).runStream('p:s', {}));
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('EXECUTION');
    expect((error as ToolError).op).toBe('stream');
    expect((error as ToolError).cause).toBe(boom);
  });
});
