import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { ToolexecError, hasErrorCode } from '../../src/model/index.js';
import { createRunner, type StreamEvent, type ToolError } from '../../src/run/index.js';
import {
  FakeMcpExecutor,
  FakeProviderExecutor,
  RecordingValidator,
  activeTimers,
  collect,
  echoTool,
  indexWith,
  localBackend,
  mcpBackend,
  providerBackend,
  sleep,
  tool,
} from './helpers.js';

async function firstError(stream: AsyncIterable<StreamEvent>): Promise<ToolError> {
  const { error } = await collect(stream);
  if (!ToolexecError.isInstance(error)) throw new Error(`expected a ToolexecError, got ${String(error)}`);
  return error as ToolError;
}

describe('runStream before dispatch (cases 79–81, 87, 88, 92)', () => {
  const mcp = new FakeMcpExecutor();
  const index = indexWith([echoTool, mcpBackend('srv')]);

  it('case 79: failing input validation rejects the first iteration with VALIDATION', async () => {
    const validator = new RecordingValidator();
    validator.inputError = new Error('bad');
    const err = await firstError(createRunner({ index, mcp, validator }).runStream('demo:echo', {}));
    expect(err.code).toBe('VALIDATION');
    expect(err.op).toBe('validate_input');
  });

  it('case 80: an empty tool ID → INVALID_TOOL_ID', async () => {
    expect((await firstError(createRunner().runStream(''))).code).toBe('INVALID_TOOL_ID');
  });

  it('case 81: an aborted signal → ABORTED and the executor is not called', async () => {
    const fresh = new FakeMcpExecutor();
    const controller = new AbortController();
    controller.abort();
    const err = await firstError(
      createRunner({ index, mcp: fresh }).runStream('demo:echo', { message: 'x' }, { signal: controller.signal }),
    );
    expect(err.code).toBe('ABORTED');
    expect(fresh.streamCalls).toHaveLength(0);
  });

  it('is lazy: nothing runs until iteration starts', async () => {
    const fresh = new FakeMcpExecutor();
    const stream = createRunner({ index, mcp: fresh }).runStream('demo:echo', { message: 'x' });
    await sleep(1);
    expect(fresh.streamCalls).toHaveLength(0);
    await collect(stream);
    expect(fresh.streamCalls).toHaveLength(1);
  });

  it('case 87: no executor → EXECUTION, op stream', async () => {
    const err = await firstError(createRunner({ index }).runStream('demo:echo', { message: 'x' }));
    expect(err.op).toBe('stream');
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toContain('MCP executor not configured');
  });

  it('case 88: an executor returning no stream, or without callToolStream → STREAM_NOT_SUPPORTED', async () => {
    const nullStream = { callTool: mcp.callTool.bind(mcp), callToolStream: () => null as unknown as AsyncIterable<StreamEvent> };
    const err = await firstError(createRunner({ index, mcp: nullStream }).runStream('demo:echo', { message: 'x' }));
    expect(err.code).toBe('STREAM_NOT_SUPPORTED');
    expect(err.op).toBe('stream');
    const noStream = { callTool: mcp.callTool.bind(mcp) };
    const err2 = await firstError(createRunner({ index, mcp: noStream }).runStream('demo:echo', { message: 'x' }));
    expect(err2.code).toBe('STREAM_NOT_SUPPORTED');
    expect(hasErrorCode(err2, 'STREAM_NOT_SUPPORTED')).toBe(true);
  });

  it('case 92: callToolStream throwing X → op stream wrapping X (its code kept when it has one)', async () => {
    const failing = new FakeMcpExecutor();
    const plain = new Error('cannot open');
    failing.streamError = plain;
    const err = await firstError(createRunner({ index, mcp: failing }).runStream('demo:echo', { message: 'x' }));
    expect(err.op).toBe('stream');
    expect(err.cause).toBe(plain);
    expect(err.code).toBe('EXECUTION');
    const coded = new ToolexecError('CONNECTION_CLOSED', 'gone');
    failing.streamError = coded;
    const err2 = await firstError(createRunner({ index, mcp: failing }).runStream('demo:echo', { message: 'x' }));
    expect(err2.code).toBe('CONNECTION_CLOSED');
    expect(err2.cause).toBe(coded);
  });
});

describe('runStream forwarding (cases 82, 83, 85, 86, 89, 91)', () => {
  it('case 82: an MCP stream yielding done delivers it; the executor gets tool.name and the server', async () => {
    const mcp = new FakeMcpExecutor();
    mcp.events = [{ kind: 'done', data: { ok: true } }];
    const { events } = await collect(
      createRunner({ index: indexWith([echoTool, mcpBackend('srv')]), mcp }).runStream('demo:echo', { message: 'x' }),
    );
    expect(events).toEqual([{ kind: 'done', toolId: 'demo:echo', data: { ok: true } }]);
    expect(mcp.streamCalls[0]).toMatchObject({ serverName: 'srv', params: { name: 'echo', arguments: { message: 'x' } } });
    expect(mcp.streamCalls[0]?.options?.signal).toBeInstanceOf(AbortSignal);
  });

  it('case 83: a provider stream chunk is received', async () => {
    const provider = new FakeProviderExecutor();
    provider.events = [{ kind: 'chunk', data: 'partial' }];
    const { events } = await collect(createRunner({ index: indexWith([tool('p'), providerBackend('pp', 'pt')]), provider }).runStream('p'));
    expect(events).toEqual([{ kind: 'chunk', toolId: 'p', data: 'partial' }]);
  });

  it('cases 85–86: a missing toolId is stamped, an existing one kept', async () => {
    const mcp = new FakeMcpExecutor();
    const original: StreamEvent = { kind: 'progress', data: { progress: 1 } };
    mcp.events = [original, { kind: 'chunk', toolId: 'original-id', data: 1 }];
    const { events } = await collect(createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp }).runStream('m'));
    expect(events.map((e) => e.toolId)).toEqual(['m', 'original-id']);
    expect(original.toolId).toBeUndefined();
  });

  it('cases 89 & 91: the stream ends with the source, and done does not end forwarding', async () => {
    const mcp = new FakeMcpExecutor();
    mcp.events = [
      { kind: 'done', data: 1 },
      { kind: 'chunk', data: 2 },
      { kind: 'error', error: new ToolexecError('EXECUTION', 'x') },
    ];
    const { events, error } = await collect(createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp }).runStream('m'));
    expect(error).toBeUndefined();
    expect(events.map((e) => e.kind)).toEqual(['done', 'chunk', 'error']);
  });

  it('a source that throws mid-stream makes the iterator throw EXECUTION (op stream) after the events before it', async () => {
    const boom = new Error('socket closed');
    const mcp = {
      callTool: async () => ({ content: [] }),
      callToolStream: async function* () {
        yield { kind: 'chunk' as const, data: 1 };
        throw boom;
      },
    };
    const { events, error } = await collect(createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp }).runStream('m'));
    expect(events).toHaveLength(1);
    expect((error as ToolError).code).toBe('EXECUTION');
    expect((error as ToolError).op).toBe('stream');
    expect((error as ToolError).cause).toBe(boom);
  });

  it('non-object events are skipped', async () => {
    const mcp = {
      callTool: async () => ({ content: [] }),
      callToolStream: async function* () {
        yield null as unknown as StreamEvent;
        yield { kind: 'done' as const };
      },
    };
    const { events } = await collect(createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp }).runStream('m'));
    expect(events).toEqual([{ kind: 'done', toolId: 'm' }]);
  });

  it('no output validation or normalization runs on streams', async () => {
    const validator = new RecordingValidator();
    const mcp = new FakeMcpExecutor();
    mcp.events = [{ kind: 'done', data: { content: [{ type: 'text', text: '1' }] } }];
    const { events } = await collect(createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp, validator }).runStream('m'));
    expect(validator.outputCalls).toBe(0);
    expect(validator.inputCalls).toBe(1);
    expect(events[0]?.data).toEqual({ content: [{ type: 'text', text: '1' }] });
  });
});

describe('runStream on local handlers (case 84, changed)', () => {
  it('case 84 (TS, differs from Go): a handler returning a plain value gives one done event with it', async () => {
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: { h: (args) => ({ got: args }) } });
    const { events } = await collect(runner.runStream('t', { a: 1 }));
    expect(events).toEqual([{ kind: 'done', toolId: 't', data: { got: { a: 1 } } }]);
  });

  it('a handler returning an AsyncIterable streams chunks then done with the last chunk', async () => {
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: async function* () {
          yield 'a';
          yield 'b';
        },
      },
    });
    const { events } = await collect(runner.runStream('t'));
    expect(events).toEqual([
      { kind: 'chunk', toolId: 't', data: 'a' },
      { kind: 'chunk', toolId: 't', data: 'b' },
      { kind: 'done', toolId: 't', data: 'b' },
    ]);
  });

  it('ctx.onProgress becomes progress events, in order with chunks', async () => {
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: async function* (_args, ctx) {
          ctx.onProgress?.({ progress: 0, total: 2 });
          yield 'first';
          ctx.onProgress?.({ progress: 1, total: 2 });
          await sleep(1);
          yield 'second';
        },
      },
    });
    const { events } = await collect(runner.runStream('t'));
    expect(events.map((e) => e.kind)).toEqual(['progress', 'chunk', 'progress', 'chunk', 'done']);
    expect(events[0]?.data).toEqual({ progress: 0, total: 2 });
  });

  it('an async handler reporting progress before resolving gives progress then done', async () => {
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: async (_args, ctx) => {
          ctx.onProgress?.({ progress: 0.5, message: 'halfway' });
          await sleep(2);
          return 'value';
        },
      },
    });
    const { events } = await collect(runner.runStream('t'));
    expect(events).toEqual([
      { kind: 'progress', toolId: 't', data: { progress: 0.5, message: 'halfway' } },
      { kind: 'done', toolId: 't', data: 'value' },
    ]);
  });

  it('a failing handler makes the iterator throw EXECUTION (op stream) with its error as cause', async () => {
    const boom = new Error('handler failed');
    for (const h of [
      () => {
        throw boom;
      },
      async () => {
        throw boom;
      },
      async function* () {
        yield 1;
        throw boom;
      },
    ]) {
      const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: { h } });
      const err = await firstError(runner.runStream('t'));
      expect(err.code).toBe('EXECUTION');
      expect(err.op).toBe('stream');
      expect(err.cause).toBe(boom);
    }
  });

  it('a missing handler rejects the first iteration (op stream)', async () => {
    const err = await firstError(createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: {} }).runStream('t'));
    expect(err.op).toBe('stream');
    expect(err.message).toContain('local handler "h" not found');
  });

  it('pulls chunks one at a time (backpressure)', async () => {
    let produced = 0;
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: async function* () {
          for (let i = 0; i < 100; i++) {
            produced++;
            yield i;
          }
        },
      },
    });
    const iterator = runner.runStream('t')[Symbol.asyncIterator]();
    await iterator.next();
    await sleep(5);
    expect(produced).toBeLessThanOrEqual(2);
    await iterator.return?.();
  });
});

describe('runStream cancellation', () => {
  it('case 90: an abort while the source is open ends the stream without an error event', async () => {
    const controller = new AbortController();
    const mcp = {
      callTool: async () => ({ content: [] }),
      callToolStream: async function* () {
        yield { kind: 'chunk' as const, data: 1 };
        await new Promise(() => {});
      },
    };
    const stream = createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp }).runStream('m', {}, { signal: controller.signal });
    const events: StreamEvent[] = [];
    setTimeout(() => controller.abort(new Error('user cancelled')), 10);
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.kind)).toEqual(['chunk']);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an abort tells the local handler to stop (its signal aborts)', async () => {
    const controller = new AbortController();
    let handlerSignal: AbortSignal | undefined;
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: (_args, ctx) => {
          handlerSignal = ctx.signal;
          return new Promise(() => {});
        },
      },
    });
    setTimeout(() => controller.abort(), 5);
    const { events, error } = await collect(runner.runStream('t', {}, { signal: controller.signal }));
    expect(events).toEqual([]);
    expect(error).toBeUndefined();
    expect(handlerSignal?.aborted).toBe(true);
  });

  it('timeoutMs ends the stream with a TIMEOUT error (op stream) and aborts the source', async () => {
    let sourceSignal: AbortSignal | undefined;
    const mcp = {
      callTool: async () => ({ content: [] }),
      callToolStream: (_s: string, _p: unknown, options?: { signal?: AbortSignal }) => {
        sourceSignal = options?.signal;
        return (async function* () {
          yield { kind: 'progress' as const, data: { progress: 0 } };
          await new Promise(() => {});
        })();
      },
    };
    await sleep(30); // let timers of earlier tests run out
    const timersBefore = activeTimers();
    const { events, error } = await collect(
      createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp }).runStream('m', {}, { timeoutMs: 50 }),
    );
    expect(events).toEqual([{ kind: 'progress', toolId: 'm', data: { progress: 0 } }]);
    expect((error as ToolError).code).toBe('TIMEOUT');
    expect((error as ToolError).op).toBe('stream');
    expect(sourceSignal?.aborted).toBe(true);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it('breaking out of the loop aborts the handler signal and returns the source iterator', async () => {
    let handlerSignal: AbortSignal | undefined;
    let finalized = false;
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: async function* (_args, ctx) {
          handlerSignal = ctx.signal;
          try {
            for (let i = 0; ; i++) yield i;
          } finally {
            finalized = true;
          }
        },
      },
    });
    for await (const event of runner.runStream('t')) {
      if (event.kind === 'chunk' && event.data === 2) break;
    }
    await sleep(1);
    expect(handlerSignal?.aborted).toBe(true);
    expect(finalized).toBe(true);
  });

  it('breaking out calls return() on an executor source and aborts its signal', async () => {
    const returned = vi.fn();
    let sourceSignal: AbortSignal | undefined;
    const mcp = {
      callTool: async () => ({ content: [] }),
      callToolStream: (_s: string, _p: unknown, options?: { signal?: AbortSignal }): AsyncIterable<StreamEvent> => {
        sourceSignal = options?.signal;
        let i = 0;
        return {
          [Symbol.asyncIterator]: () => ({
            next: async () => ({ value: { kind: 'chunk' as const, data: i++ }, done: false }),
            return: async () => {
              returned();
              return { value: undefined, done: true };
            },
          }),
        };
      },
    };
    const controller = new AbortController();
    for await (const event of createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp }).runStream(
      'm',
      {},
      { signal: controller.signal },
    )) {
      if (event.data === 3) break;
    }
    expect(returned).toHaveBeenCalledTimes(1);
    expect(sourceSignal?.aborted).toBe(true);
    expect(controller.signal.aborted).toBe(false);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a normal end does not abort the source signal', async () => {
    let sourceSignal: AbortSignal | undefined;
    const mcp = {
      callTool: async () => ({ content: [] }),
      callToolStream: async function* (_s: string, _p: unknown, options?: { signal?: AbortSignal }) {
        sourceSignal = options?.signal;
        yield { kind: 'done' as const };
      },
    };
    await collect(createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp }).runStream('m'));
    expect(sourceSignal?.aborted).toBe(false);
  });
});
