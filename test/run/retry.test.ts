import { describe, expect, it } from 'vitest';
import { ToolexecError, hasErrorCode, type Tool, type ToolBackend } from '../../src/model/index.js';
import {
  ToolError,
  createRunner,
  type AttemptEvent,
  type LocalHandler,
  type ProviderExecutor,
  type RunOptions,
} from '../../src/run/index.js';
import { indexWith, localBackend, providerBackend, tool } from './helpers.js';

/** A runner over one local tool `t` (annotations as given) served by `handler`. */
function runnerFor(handler: LocalHandler, annotations?: Tool['annotations'], events?: AttemptEvent[]) {
  const t = tool('t', annotations === undefined ? {} : { annotations });
  return createRunner({
    index: indexWith([t, localBackend('h')]),
    local: { h: handler },
    ...(events === undefined ? {} : { onAttempt: (event: AttemptEvent) => events.push(event) }),
  });
}

/** A handler that fails `times` times with `error()` (synchronously or not), then answers its call count. */
function failing(times: number, error: () => unknown, async = false): { handler: LocalHandler; calls: () => number } {
  let calls = 0;
  const handler: LocalHandler = () => {
    calls++;
    if (calls <= times) {
      if (async) {
        const failure = error();
        return (async () => {
          throw failure;
        })();
      }
      throw error();
    }
    return { calls };
  };
  return { handler, calls: () => calls };
}

const unavailable = (): ToolexecError => new ToolexecError('SERVER_UNAVAILABLE', 'backend down for a moment');
const fast: RunOptions['retry'] = { initialDelayMs: 1, maxDelayMs: 5 };

async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (err) {
    return err as ToolError;
  }
  throw new Error('expected a rejection');
}

describe('retries of transient failures', () => {
  it('retries a readOnlyHint tool (sync and async failures), records each attempt and reports it to onAttempt', async () => {
    for (const async of [false, true]) {
      const events: AttemptEvent[] = [];
      const { handler, calls } = failing(2, unavailable, async);
      const runner = runnerFor(handler, { readOnlyHint: true }, events);
      const result = await runner.run('t', {}, { idempotencyKey: 'k-1' });
      expect(result.structured).toEqual({ calls: 3 });
      expect(calls()).toBe(3);
      // The runner reports a handler's failure as EXECUTION; the SERVER_UNAVAILABLE is its cause.
      expect(result.attempts?.map((a) => [a.attempt, a.code, a.message.includes('backend down')])).toEqual([
        [1, 'EXECUTION', true],
        [2, 'EXECUTION', true],
      ]);
      expect(result.attempts?.every((a) => typeof a.delayMs === 'number' && a.delayMs >= 0 && a.durationMs >= 0)).toBe(true);
      expect(events.map((e) => [e.attempt, e.willRetry, e.toolId, e.idempotencyKey])).toEqual([
        [1, true, 't', 'k-1'],
        [2, true, 't', 'k-1'],
      ]);
      expect(ToolexecError.isInstance(events[0]?.error)).toBe(true);
    }
  });

  it('retries an idempotentHint tool; a TIMEOUT of the tool itself is transient', async () => {
    const { handler, calls } = failing(1, () => new ToolexecError('TIMEOUT', 'the upstream request timed out'));
    const result = await runnerFor(handler, { idempotentHint: true }).run('t');
    expect(result.structured).toEqual({ calls: 2 });
    expect(calls()).toBe(1 + 1);
  });

  it('never retries a tool without those hints, unless the call opts in with a policy', async () => {
    const plain = failing(1, unavailable);
    const err = await rejection(runnerFor(plain.handler, { destructiveHint: true }).run('t'));
    expect(hasErrorCode(err, 'SERVER_UNAVAILABLE')).toBe(true);
    expect(plain.calls()).toBe(1);
    expect(err.details?.attempts).toBeUndefined();

    const optedIn = failing(1, unavailable);
    const result = await runnerFor(optedIn.handler).run('t', {}, { retry: fast });
    expect(result.structured).toEqual({ calls: 2 });
  });

  it('retry: false turns retries off for a read-only tool; the runner option false too', async () => {
    const off = failing(1, unavailable);
    expect(
      hasErrorCode(await rejection(runnerFor(off.handler, { readOnlyHint: true }).run('t', {}, { retry: false })), 'SERVER_UNAVAILABLE'),
    ).toBe(true);
    expect(off.calls()).toBe(1);
    const runnerOff = failing(1, unavailable);
    const runner = createRunner({
      index: indexWith([tool('t', { annotations: { readOnlyHint: true } }), localBackend('h')]),
      local: { h: runnerOff.handler },
      retry: false,
    });
    expect(hasErrorCode(await rejection(runner.run('t')), 'SERVER_UNAVAILABLE')).toBe(true);
    expect(runnerOff.calls()).toBe(1);
  });

  it('does not retry what is not transient: a handler bug, a validation error, an isError-like EXECUTION', async () => {
    const bug = failing(1, () => new TypeError('undefined is not a function'));
    const events: AttemptEvent[] = [];
    const err = await rejection(runnerFor(bug.handler, { readOnlyHint: true }, events).run('t'));
    expect(err.code).toBe('EXECUTION');
    expect(bug.calls()).toBe(1);
    expect(events.map((e) => e.willRetry)).toEqual([false]);

    const strict = createRunner({
      index: indexWith([
        tool('v', { annotations: { readOnlyHint: true }, inputSchema: { type: 'object', required: ['x'] } }),
        localBackend('h'),
      ]),
      local: { h: () => 1 },
    });
    expect((await rejection(strict.run('v', {}))).code).toBe('VALIDATION');
  });

  it('gives up after maxAttempts with every attempt in details.attempts (the last error kept as cause chain)', async () => {
    const always = failing(99, unavailable);
    const err = await rejection(runnerFor(always.handler).run('t', {}, { retry: { maxAttempts: 4, initialDelayMs: 1, maxDelayMs: 2 } }));
    expect(always.calls()).toBe(4);
    expect(err).toBeInstanceOf(ToolError);
    expect(err.code).toBe('EXECUTION');
    expect(hasErrorCode(err, 'SERVER_UNAVAILABLE')).toBe(true);
    expect(err.op).toBe('execute');
    expect(err.message).toContain('after 4 attempts');
    const attempts = err.details?.attempts as Array<{ attempt: number; delayMs?: number }>;
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(attempts[3]?.delayMs).toBeUndefined();
    expect(JSON.parse(JSON.stringify(err.details))).toEqual(err.details);
  });

  it('the deadline bounds all attempts together: no wait starts that would end past it', async () => {
    const always = failing(1_000, unavailable, true);
    const started = Date.now();
    const err = await rejection(
      runnerFor(always.handler).run('t', {}, { timeoutMs: 400, retry: { maxAttempts: 100, initialDelayMs: 60, maxDelayMs: 60 } }),
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(1_500);
    expect(hasErrorCode(err, 'SERVER_UNAVAILABLE') || err.code === 'TIMEOUT').toBe(true);
    expect(always.calls()).toBeGreaterThan(1);
    expect(always.calls()).toBeLessThan(100);
  });

  it('an abort during the wait between attempts stops the call with ABORTED', async () => {
    const always = failing(1_000, unavailable, true);
    const controller = new AbortController();
    const pending = runnerFor(always.handler).run(
      't',
      {},
      { signal: controller.signal, retry: { initialDelayMs: 5_000, maxDelayMs: 5_000 } },
    );
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const err = await rejection(pending);
    expect(err.code).toBe('ABORTED');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(always.calls()).toBe(1);
  });

  it('a chain retries each step by the same rules', async () => {
    const flaky = failing(1, unavailable);
    const runner = createRunner({
      index: indexWith([tool('r', { annotations: { readOnlyHint: true } }), localBackend('r')], [tool('w'), localBackend('w')]),
      local: { r: flaky.handler, w: () => 'written' },
    });
    const chain = await runner.runChain([{ toolId: 'r' }, { toolId: 'w' }]);
    expect(chain.steps.map((s) => s.result?.structured)).toEqual([{ calls: 2 }, 'written']);
  });

  it('rejects a malformed policy with INVALID_ARGUMENT (and a runner option with CONFIGURATION)', async () => {
    const runner = runnerFor(() => 1, { readOnlyHint: true });
    for (const retry of [true, 3, 'yes', { maxAttempts: 0 }, { maxAttempts: 1.5 }, { initialDelayMs: -1 }, { retryOn: 'TIMEOUT' }]) {
      expect((await rejection(runner.run('t', {}, { retry } as never))).code).toBe('INVALID_ARGUMENT');
    }
    expect(() => createRunner({ retry: { maxAttempts: -2 } })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }) as Error);
    // A misspelt code would silently turn retries off for it: refused, named.
    const misspelt = await rejection(runner.run('t', {}, { retry: { retryOn: ['TIMEOUT', 'TIMEOUTS'] } } as never));
    expect(misspelt.code).toBe('INVALID_ARGUMENT');
    expect(misspelt.message).toContain('unknown error code: "TIMEOUTS"');
    expect((await runner.run('t', {}, { retry: { retryOn: ['CONNECTION_LOST', 'EXECUTION'] } })).structured).toBe(1);
    // An initial delay above the cap given beside it is refused, not a silently raised cap; alone, it raises the default cap.
    const crossed = await rejection(runner.run('t', {}, { retry: { initialDelayMs: 500, maxDelayMs: 100 } }));
    expect(crossed.code).toBe('INVALID_ARGUMENT');
    expect(crossed.message).toContain('retry.initialDelayMs (500) must not exceed retry.maxDelayMs (100)');
    expect((await runner.run('t', {}, { retry: { initialDelayMs: 5_000 } })).structured).toBe(1);
  });

  it('passes the idempotency key and the deadline to a provider executor on every attempt', async () => {
    const seen: Array<RunOptions & { deadline?: number }> = [];
    let calls = 0;
    const provider: ProviderExecutor = {
      callTool: async (_provider, _tool, _args, options) => {
        seen.push({ ...options } as RunOptions & { deadline?: number });
        calls++;
        if (calls === 1) throw new ToolexecError('SERVER_UNAVAILABLE', 'provider is restarting');
        return 'paid';
      },
    };
    const backend: ToolBackend = providerBackend('pay', 'send');
    const runner = createRunner({ index: indexWith([tool('send'), backend]), provider });
    const before = Date.now();
    const result = await runner.run('send', {}, { idempotencyKey: 'pay-42', retry: fast, timeoutMs: 5_000 });
    expect(result.structured).toBe('paid');
    expect(seen.map((o) => o.idempotencyKey)).toEqual(['pay-42', 'pay-42']);
    for (const options of seen) {
      expect(options.deadline).toBeGreaterThan(before);
      // The wall-clock form is a little late (HANDOFF_SLACK_MS): the runner's own deadline decides.
      expect(options.deadline).toBeLessThanOrEqual(Date.now() + 5_000 + 100);
      expect(options.signal).toBeInstanceOf(AbortSignal);
    }
  });

  it('a chain gives each step its own idempotency key (<key>:<index>), repeated by every attempt of that step', async () => {
    const seen: Array<[string, string | undefined]> = [];
    const attempts = new Map<string, number>();
    const provider: ProviderExecutor = {
      callTool: async (_provider, name, _args, options) => {
        seen.push([name, options?.idempotencyKey]);
        const n = (attempts.get(name) ?? 0) + 1;
        attempts.set(name, n);
        if (n === 1) throw new ToolexecError('SERVER_UNAVAILABLE', 'provider is restarting');
        return `did ${name}`;
      },
    };
    const runner = createRunner({
      index: indexWith([tool('create'), providerBackend('shop', 'create')], [tool('charge'), providerBackend('shop', 'charge')]),
      provider,
    });
    const chain = await runner.runChain([{ toolId: 'create' }, { toolId: 'charge' }], { idempotencyKey: 'order-7', retry: fast });
    expect(chain.steps.map((step) => step.result?.structured)).toEqual(['did create', 'did charge']);
    expect(seen).toEqual([
      ['create', 'order-7:0'],
      ['create', 'order-7:0'],
      ['charge', 'order-7:1'],
      ['charge', 'order-7:1'],
    ]);
    // A key with no room for the suffix: its SHA-256 stands in, still within 256 characters.
    seen.length = 0;
    attempts.clear();
    const long = 'k'.repeat(256);
    await runner.runChain([{ toolId: 'create' }, { toolId: 'charge' }], { idempotencyKey: long, retry: fast });
    const keys = seen.map(([, key]) => key as string);
    expect(keys.every((key) => key.length <= 256 && !key.startsWith('kkk'))).toBe(true);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys[2]?.endsWith(':1')).toBe(true);
  });
});
