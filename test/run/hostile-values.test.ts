/**
 * Values that throw when the runner reads them — a handler's result whose `then` or
 * `Symbol.asyncIterator` getter throws, an iterator step whose `done` getter throws, a signal-like
 * object whose `reason` getter throws — still fail the call with a library error at the step it
 * belongs to, never with the raw error.
 */
import { describe, expect, it } from 'vitest';
import { createRunner, type ProviderExecutor, type RunOptions, type StreamEvent } from '../../src/run/index.js';
import { ToolexecError } from '../../src/model/index.js';
import { collect, indexWith, localBackend, providerBackend, rejectionOf, tool } from './helpers.js';

const boom = (what: string) => () => {
  throw new Error(`${what} getter`);
};

function runnerWith(handler: (args: Record<string, unknown>) => unknown) {
  return createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: { h: handler } });
}

describe('a handler value that throws when read', () => {
  it('a result whose `then` getter throws: EXECUTION at execute, with the backend', async () => {
    const runner = runnerWith(() => Object.defineProperty({}, 'then', { get: boom('then') }));
    const error = await rejectionOf(runner.run('t'));
    expect(error).toMatchObject({ code: 'EXECUTION', op: 'execute', backend: { kind: 'local' } });
    expect((error.cause as Error).message).toBe('then getter');
  });

  it('a result whose `Symbol.asyncIterator` getter throws: EXECUTION at execute', async () => {
    const runner = runnerWith(() => Object.defineProperty({}, Symbol.asyncIterator, { get: boom('iterator') }));
    expect(await rejectionOf(runner.run('t'))).toMatchObject({ code: 'EXECUTION', op: 'execute', backend: { kind: 'local' } });
  });

  it('an awaited value whose `Symbol.asyncIterator` getter throws: EXECUTION at execute', async () => {
    const runner = runnerWith(async () => Object.defineProperty({}, Symbol.asyncIterator, { get: boom('iterator') }));
    expect(await rejectionOf(runner.run('t', {}, { timeoutMs: 5_000 }))).toMatchObject({ code: 'EXECUTION', op: 'execute' });
  });

  it('an iterator step whose `done` getter throws: EXECUTION at execute, and the iterator is closed', async () => {
    let closed = 0;
    const runner = runnerWith(() => ({
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.resolve(Object.defineProperty({ value: 1 }, 'done', { get: boom('done') })),
        return: () => {
          closed++;
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    }));
    for (const options of [undefined, { timeoutMs: 5_000 }]) {
      const error = await rejectionOf(runner.run('t', {}, options));
      expect(error).toMatchObject({ code: 'EXECUTION', op: 'execute', backend: { kind: 'local' } });
      expect((error.cause as Error).message).toBe('done getter');
    }
    expect(closed).toBe(2);
  });

  it("a provider stream's step whose `done` getter throws: the stream fails with EXECUTION at stream", async () => {
    const provider: ProviderExecutor = {
      callTool: () => Promise.resolve(null),
      callToolStream: () =>
        ({
          [Symbol.asyncIterator]: () => ({
            next: () => Promise.resolve(Object.defineProperty({ value: 1 }, 'done', { get: boom('done') })),
          }),
        }) as unknown as AsyncIterable<StreamEvent>,
    };
    const runner = createRunner({ index: indexWith([tool('p'), providerBackend('acme', 'p')]), provider });
    const { error } = await collect(runner.runStream('p'));
    expect(ToolexecError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'EXECUTION', op: 'stream' });
  });
});

describe('a signal-like object, aborted, whose `reason` getter throws', () => {
  const signal = {
    aborted: true,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    get reason(): unknown {
      throw new Error('reason getter');
    },
  } as unknown as AbortSignal;
  const options: RunOptions = { signal };

  it('run, runChain and runStream fail with ABORTED, what the getter threw as the cause', async () => {
    const runner = runnerWith((args) => args);
    const run = await rejectionOf(runner.run('t', {}, options));
    expect(run).toMatchObject({ code: 'ABORTED' });
    expect((run.cause as Error).message).toBe('reason getter');
    const chain = await rejectionOf(runner.runChain([{ toolId: 't' }], options));
    expect(chain.code).toBe('ABORTED');
    const { error } = await collect(runner.runStream('t', {}, options));
    expect(error).toMatchObject({ code: 'ABORTED' });
  });
});
