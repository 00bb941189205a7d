import { describe, expect, it } from 'vitest';
import type { ToolexecError } from '../../src/model/index.js';
import { createRunner, type LocalHandler, type RunOptions, type StreamEvent } from '../../src/run/index.js';
import { indexWith, localBackend, mcpBackend, tool } from './helpers.js';

function runnerFor(handler: LocalHandler) {
  return createRunner({ index: indexWith([tool('t'), localBackend('h')], [tool('u'), localBackend('h')]), local: { h: handler } });
}

/** A handler that waits for its signal (or `ms`). */
const waiting =
  (ms = 60_000): LocalHandler =>
  (_args, ctx) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve('finished'), ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(ctx.signal.reason as Error);
      });
    });

async function rejection(promise: Promise<unknown>): Promise<ToolexecError> {
  try {
    await promise;
  } catch (err) {
    return err as ToolexecError;
  }
  throw new Error('expected a rejection');
}

async function drain(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('absolute deadlines', () => {
  it('a deadline as epoch milliseconds or as a Date stops the call with TIMEOUT', async () => {
    for (const make of [() => Date.now() + 150, () => new Date(Date.now() + 150)]) {
      // elapsed on the monotonic clock the deadline's timer runs on: a VM's wall clock can be
      // stepped by tens of milliseconds while the call waits
      const started = performance.now();
      const deadline = make();
      const err = await rejection(runnerFor(waiting()).run('t', {}, { deadline }));
      expect(err.code).toBe('TIMEOUT');
      expect(performance.now() - started).toBeGreaterThanOrEqual(100);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });

  it('a deadline counts from the caller, not from when the call first waits (a busy handler, a GC pause)', async () => {
    // The handler keeps the event loop busy for 600 ms before it waits: the deadline 500 ms away
    // has passed by then, so the call stops at once (~600 ms) instead of 500 ms after the wait
    // began (~1,100 ms); the gap leaves room for a loaded machine.
    const busyThenWaiting: LocalHandler = (args, ctx) => {
      const until = performance.now() + 600;
      while (performance.now() < until) {
        // busy
      }
      return waiting()(args, ctx);
    };
    const runner = runnerFor(busyThenWaiting);
    for (const call of [
      (options: RunOptions) => runner.run('t', {}, options),
      (options: RunOptions) => runner.runChain([{ toolId: 't' }], options),
      (options: RunOptions) => drain(runner.runStream('t', {}, options)),
    ]) {
      const started = performance.now();
      const err = await rejection(call({ deadline: Date.now() + 500 }));
      expect(err.code).toBe('TIMEOUT');
      expect(performance.now() - started).toBeLessThan(950);
    }
  });

  it('the earlier of timeoutMs and deadline wins', async () => {
    let started = Date.now();
    expect((await rejection(runnerFor(waiting()).run('t', {}, { timeoutMs: 10_000, deadline: Date.now() + 120 }))).code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2_000);
    started = Date.now();
    expect((await rejection(runnerFor(waiting()).run('t', {}, { timeoutMs: 120, deadline: Date.now() + 10_000 }))).code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2_000);
    // A later deadline does not shorten a call that finishes in time.
    expect((await runnerFor(waiting(30)).run('t', {}, { deadline: Date.now() + 5_000 })).structured).toBe('finished');
  });

  it('a deadline already past is refused with TIMEOUT before any work, on run, runChain and runStream', async () => {
    let calls = 0;
    const runner = runnerFor(() => {
      calls++;
      return 1;
    });
    const past: RunOptions = { deadline: new Date(Date.now() - 1_000) };
    expect((await rejection(runner.run('t', {}, past))).code).toBe('TIMEOUT');
    expect((await rejection(runner.runChain([{ toolId: 't' }, { toolId: 'u' }], past))).code).toBe('TIMEOUT');
    expect((await rejection(drain(runner.runStream('t', {}, past)))).code).toBe('TIMEOUT');
    expect(calls).toBe(0);
  });

  it('a chain shares one deadline across its steps', async () => {
    const runner = runnerFor(waiting(80));
    const started = Date.now();
    const err = await rejection(
      runner.runChain([{ toolId: 't' }, { toolId: 'u' }, { toolId: 't' }, { toolId: 'u' }], { deadline: Date.now() + 200 }),
    );
    expect(err.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses a deadline that is not a date, and timeoutMs <= 0 or NaN, with INVALID_ARGUMENT', async () => {
    const runner = runnerFor(() => 1);
    for (const options of [
      { deadline: Number.NaN },
      { deadline: Infinity },
      { deadline: 'tomorrow' },
      { deadline: new Date('not a date') },
      { deadline: {} },
      { timeoutMs: 0 },
      { timeoutMs: -1 },
      { timeoutMs: Number.NaN },
      { timeoutMs: '100' },
    ]) {
      const err = await rejection(runner.run('t', {}, options as never));
      expect(err.code, JSON.stringify(options)).toBe('INVALID_ARGUMENT');
      expect(err.message).toMatch(/option (deadline|timeoutMs) must be/);
    }
  });

  it('an MCP executor is given the call deadline as epoch milliseconds (the time left), for timeoutMs too', async () => {
    const seen: number[] = [];
    const runner = createRunner({
      index: indexWith([tool('m'), mcpBackend('srv')]),
      mcp: {
        callTool: async (_server, _params, options) => {
          seen.push(options?.deadline as number);
          return { content: [{ type: 'text', text: 'ok' }] };
        },
      },
    });
    // The deadline runs on the monotonic clock and hands on a wall-clock time: when the VM steps its
    // wall clock during the call (seen: ~80 ms), the two differ by that step, so it is measured.
    const wallOffset = (): number => Date.now() - performance.now();
    const offsetBefore = wallOffset();
    const deadline = Date.now() + 4_000;
    await runner.run('m', {}, { deadline });
    const stepMs = Math.abs(wallOffset() - offsetBefore);
    const before = Date.now();
    await runner.run('m', {}, { timeoutMs: 2_000 });
    expect(Math.abs((seen[0] as number) - deadline)).toBeLessThan(100 + stepMs);
    expect(seen[1]).toBeGreaterThanOrEqual(before + 1_850);
    expect(seen[1]).toBeLessThanOrEqual(Date.now() + 2_100 + 20);
  });
});
