import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hasErrorCode } from '../../src/model/index.js';
import { createRunner, type LocalHandler, type RunWarning, type ToolError } from '../../src/run/index.js';
import {
  FakeMcpExecutor,
  FakeProviderExecutor,
  activeTimers,
  echoTool,
  indexWith,
  localBackend,
  mcpBackend,
  providerBackend,
  rejectionOf,
  sleep,
  tool,
} from './helpers.js';
import { listenerWarningsDuring } from '../listener-warnings.js';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
process.on('unhandledRejection', onUnhandled);
afterEach(() => {
  expect(unhandled).toEqual([]);
});

function runnerWith(handler: LocalHandler) {
  return createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: { h: handler } });
}

describe('abort and timeout', () => {
  it('an abort mid-call rejects ABORTED (op execute, backend set, cause = reason) and aborts the handler signal', async () => {
    let handlerSignal: AbortSignal | undefined;
    const runner = runnerWith(
      (_args, ctx) =>
        new Promise((_resolve, reject) => {
          handlerSignal = ctx.signal;
          ctx.signal.addEventListener('abort', () => reject(new Error('handler saw the abort')), { once: true });
        }),
    );
    const controller = new AbortController();
    const pending = runner.run('t', {}, { signal: controller.signal });
    await sleep(1);
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    const err = (await rejectionOf(pending)) as ToolError;
    expect(err.code).toBe('ABORTED');
    expect(err.op).toBe('execute');
    expect(err.backend).toEqual(localBackend('h'));
    expect(err.cause).toBe(reason);
    expect(handlerSignal?.aborted).toBe(true);
    expect(handlerSignal?.reason).toBe(reason);
  });

  it('timeoutMs rejects TIMEOUT with a TimeoutError cause and aborts the handler signal', async () => {
    let handlerSignal: AbortSignal | undefined;
    const runner = runnerWith((_args, ctx) => {
      handlerSignal = ctx.signal;
      return new Promise(() => {});
    });
    const started = Date.now();
    const err = (await rejectionOf(runner.run('t', {}, { timeoutMs: 25 }))) as ToolError;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(err.code).toBe('TIMEOUT');
    expect(err.op).toBe('execute');
    expect((err.cause as DOMException).name).toBe('TimeoutError');
    expect(handlerSignal?.aborted).toBe(true);
    expect(hasErrorCode(err, 'ABORTED')).toBe(false);
  });

  it('a deadline already past fails at once with TIMEOUT before the handler runs; timeoutMs <= 0 is INVALID_ARGUMENT', async () => {
    let called = false;
    const runner = runnerWith(() => {
      called = true;
      return 1;
    });
    const err = await rejectionOf(runner.run('t', {}, { deadline: Date.now() - 1 }));
    expect(err.code).toBe('TIMEOUT');
    for (const timeoutMs of [0, -1, Number.NaN])
      expect((await rejectionOf(runner.run('t', {}, { timeoutMs }))).code).toBe('INVALID_ARGUMENT');
    expect(called).toBe(false);
  });

  it('a caller signal that times out (AbortSignal.timeout) reports TIMEOUT', async () => {
    const err = await rejectionOf(runnerWith(() => new Promise(() => {})).run('t', {}, { signal: AbortSignal.timeout(10) }));
    expect(err.code).toBe('TIMEOUT');
  });

  it('a handler that ignores its signal: the runner rejects at once; its late result and rejection are dropped', async () => {
    let settleLate: ((fail: boolean) => void) | undefined;
    const runner = runnerWith(
      () =>
        new Promise((resolve, reject) => {
          settleLate = (fail) => (fail ? reject(new Error('late failure')) : resolve('late value'));
        }),
    );
    for (const fail of [false, true]) {
      const controller = new AbortController();
      const pending = runner.run('t', {}, { signal: controller.signal });
      await sleep(1);
      controller.abort();
      const started = Date.now();
      expect((await rejectionOf(pending)).code).toBe('ABORTED');
      expect(Date.now() - started).toBeLessThan(1_000); // the handler is still pending here
      settleLate?.(fail);
      await sleep(5);
    }
  });

  it('MCP and provider executors get the signal and are told to stop', async () => {
    const mcp = new FakeMcpExecutor();
    let mcpSignal: AbortSignal | undefined;
    mcp.result = (call) => {
      mcpSignal = call.options?.signal;
      return new Promise(() => {});
    };
    const provider = new FakeProviderExecutor();
    provider.callTool = (_p, _t, _a, options) => {
      provider.calls.push({ providerId: _p, toolId: _t, args: _a, options });
      return new Promise(() => {});
    };
    const runner = createRunner({
      index: indexWith([tool('m'), mcpBackend('s')], [tool('p'), providerBackend('pp', 'pt')]),
      mcp,
      provider,
    });
    const controller = new AbortController();
    const a = runner.run('m', {}, { signal: controller.signal });
    const b = runner.run('p', {}, { signal: controller.signal });
    await sleep(1);
    controller.abort();
    expect((await rejectionOf(a)).code).toBe('ABORTED');
    expect((await rejectionOf(b)).code).toBe('ABORTED');
    expect(mcpSignal?.aborted).toBe(true);
    expect(provider.calls[0]?.options?.signal?.aborted).toBe(true);
  });

  it('a handler finishing before the abort keeps its result', async () => {
    const controller = new AbortController();
    const result = await runnerWith(async () => 'quick').run('t', {}, { signal: controller.signal, timeoutMs: 1_000 });
    expect(result.structured).toBe('quick');
  });

  it('an AsyncIterable handler is stopped on abort: its signal aborts and its return() runs', async () => {
    let finalized = false;
    let yieldedAfterAbort = false;
    const runner = runnerWith(async function* (_args, ctx) {
      try {
        yield 1;
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        yield 2;
        yieldedAfterAbort = true;
        yield 3;
      } finally {
        finalized = true;
      }
    });
    const err = await rejectionOf(runner.run('t', {}, { timeoutMs: 20 }));
    expect(err.code).toBe('TIMEOUT');
    // return() runs after the rejection; on a loaded machine it may take a few turns
    await vi.waitFor(() => expect(finalized).toBe(true), { timeout: 2_000, interval: 5 });
    expect(yieldedAfterAbort).toBe(false);
  });
});

describe('no leaks', () => {
  it('no listener stays on the caller signal and no timer stays, whatever the outcome', async () => {
    const controller = new AbortController();
    const signal = controller.signal;
    await sleep(250); // let timers of earlier tests run out
    const timersBefore = activeTimers();
    const ok = runnerWith(async () => 'v');
    const sync = runnerWith(() => 'v');
    const fails = runnerWith(async () => {
      throw new Error('x');
    });
    const slow = runnerWith(() => new Promise((resolve) => setTimeout(() => resolve('late'), 200)));
    await ok.run('t', {}, { signal, timeoutMs: 5_000 });
    await sync.run('t', {}, { signal, timeoutMs: 5_000 });
    await rejectionOf(fails.run('t', {}, { signal, timeoutMs: 5_000 }));
    await rejectionOf(ok.run('missing', {}, { signal, timeoutMs: 5_000 }));
    await rejectionOf(slow.run('t', {}, { signal, timeoutMs: 10 }));
    await ok.runChain([{ toolId: 't' }, { toolId: 't' }], { signal, timeoutMs: 5_000 });
    for await (const _event of ok.runStream('t', {}, { signal, timeoutMs: 5_000 })) {
      // drain
    }
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    await sleep(250); // the slow handler's own 200 ms timer
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it('a call without signal or timeout adds nothing to the caller and creates no signal unless read', async () => {
    let signalRead = false;
    const runner = runnerWith((_args, ctx) => {
      signalRead = ctx.signal instanceof AbortSignal;
      return 1;
    });
    const timersBefore = activeTimers();
    await runner.run('t', {});
    expect(signalRead).toBe(true);
    expect(activeTimers()).toBe(timersBefore);
  });
});

describe('concurrency', () => {
  it('5,000 concurrent calls (sync, async, failing, aborted) all settle correctly', async () => {
    const runner = createRunner({
      index: indexWith([echoTool, localBackend('echo')], [tool('slow'), localBackend('slow')]),
      local: {
        echo: (args) => ({ echoed: args.message }),
        slow: async (args) => {
          await sleep(Number(args.ms));
          return args.i;
        },
      },
    });
    const controller = new AbortController();
    const calls: Array<Promise<unknown>> = [];
    for (let i = 0; i < 5_000; i++) {
      switch (i % 4) {
        case 0:
          calls.push(runner.run('demo:echo', { message: `m${i}` }).then((r) => expect(r.structured).toEqual({ echoed: `m${i}` })));
          break;
        case 1:
          calls.push(runner.run('slow', { ms: i % 7, i }, { timeoutMs: 10_000 }).then((r) => expect(r.structured).toBe(i)));
          break;
        case 2:
          calls.push(rejectionOf(runner.run('demo:echo', { message: i })).then((e) => expect(e.code).toBe('VALIDATION')));
          break;
        default:
          calls.push(
            rejectionOf(runner.run('slow', { ms: 1_000, i }, { signal: controller.signal })).then((e) => expect(e.code).toBe('ABORTED')),
          );
      }
    }
    await sleep(20);
    // 1,250 calls wait on the shared signal, through one listener (Node warns past 10).
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    await Promise.all(calls);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('keeps one listener on a signal shared by many calls, none after they settle, and no MaxListenersExceededWarning', async () => {
    const warnings = await listenerWarningsDuring(async () => {
      const runner = runnerWith(async (args) => {
        await sleep(Number(args.ms));
        return args.ms;
      });
      const shared = new AbortController().signal;
      const calls = Array.from({ length: 200 }, (_, i) => runner.run('t', { ms: i % 5 }, { signal: shared, timeoutMs: 5_000 }));
      expect(getEventListeners(shared, 'abort')).toHaveLength(1);
      expect((await Promise.all(calls)).map((r) => r.structured)).toEqual(Array.from({ length: 200 }, (_, i) => i % 5));
      expect(getEventListeners(shared, 'abort')).toHaveLength(0);
      // A signal listened to again after all its calls settled works the same.
      const controller = new AbortController();
      const first = rejectionOf(runner.run('t', { ms: 1_000 }, { signal: controller.signal }));
      await runner.run('t', { ms: 0 }, { signal: controller.signal });
      const second = rejectionOf(runner.run('t', { ms: 1_000 }, { signal: controller.signal }));
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      controller.abort(new Error('stop'));
      for (const error of await Promise.all([first, second])) expect(error.code).toBe('ABORTED');
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });
    expect(warnings).toEqual([]);
  });
});

describe("validateOutput: 'warn'", () => {
  it('keeps the result and reports an OUTPUT_VALIDATION warning', async () => {
    const warnings: RunWarning[] = [];
    const runner = createRunner({
      index: indexWith([echoTool, localBackend('echo')]),
      local: { echo: () => ({ echoed: 42 }) },
      validateOutput: 'warn',
      onWarning: (w) => warnings.push(w),
    });
    const result = await runner.run('demo:echo', { message: 'x' });
    expect(result.structured).toEqual({ echoed: 42 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.toolId).toBe('demo:echo');
    expect(warnings[0]?.backend).toEqual(localBackend('echo'));
    expect(warnings[0]?.error.code).toBe('OUTPUT_VALIDATION');
    expect((warnings[0]?.error as ToolError).op).toBe('validate_output');
    expect(warnings[0]?.error.details?.violations).toEqual([expect.objectContaining({ field: '/echoed', code: 'InvalidType' })]);
  });

  it('valid output gives no warning; a throwing warning listener does not fail the call; no listener is fine', async () => {
    const warnings: RunWarning[] = [];
    const good = createRunner({
      index: indexWith([echoTool, localBackend('echo')]),
      local: { echo: (a) => ({ echoed: a.message }) },
      validateOutput: 'warn',
      onWarning: (w) => warnings.push(w),
    });
    await good.run('demo:echo', { message: 'x' });
    expect(warnings).toEqual([]);
    const throwing = createRunner({
      index: indexWith([echoTool, localBackend('echo')]),
      local: { echo: () => ({}) },
      validateOutput: 'warn',
      onWarning: () => {
        throw new Error('listener bug');
      },
    });
    expect((await throwing.run('demo:echo', { message: 'x' })).structured).toEqual({});
    const silent = createRunner({
      index: indexWith([echoTool, localBackend('echo')]),
      local: { echo: () => ({}) },
      validateOutput: 'warn',
    });
    expect((await silent.run('demo:echo', { message: 'x' })).structured).toEqual({});
  });
});
