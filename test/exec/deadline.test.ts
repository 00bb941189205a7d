import { afterEach, describe, expect, it } from 'vitest';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { providerBackend, type ToolexecError } from '../../src/model/index.js';
import type { LocalHandler, RunOptions, StreamEvent } from '../../src/run/index.js';

const open: DefaultExec[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((exec) => exec.close()));
});

/** A handler that answers after `ms` unless its signal aborts first. */
const after =
  (ms: number): LocalHandler =>
  (_args, ctx) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ waitedMs: ms }), ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(ctx.signal.reason as Error);
      });
    });

function execWith(handler: LocalHandler, defaultTimeoutMs?: number): DefaultExec {
  const exec = createExec({
    tools: [
      { tool: { name: 'wait', namespace: 't', inputSchema: { type: 'object' } }, handler },
      { tool: { name: 'wait2', namespace: 't', inputSchema: { type: 'object' } }, handler },
    ],
    ...(defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs }),
  });
  open.push(exec);
  return exec;
}

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

describe('absolute deadlines through the facade', () => {
  it('runTool, runChain and runToolStream stop at the deadline (TIMEOUT)', async () => {
    const exec = execWith(after(60_000));
    const started = Date.now();
    expect((await rejection(exec.runTool('t:wait', {}, { deadline: Date.now() + 150 }))).code).toBe('TIMEOUT');
    expect(
      (await rejection(exec.runChain([{ toolId: 't:wait' }, { toolId: 't:wait2' }], { deadline: new Date(Date.now() + 150) }))).code,
    ).toBe('TIMEOUT');
    expect((await rejection(drain(exec.runToolStream('t:wait', {}, { deadline: Date.now() + 150 })))).code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('a deadline replaces the default deadline: a call longer than defaultTimeoutMs finishes within its own deadline', async () => {
    const exec = execWith(after(300), 100);
    expect((await rejection(exec.runTool('t:wait'))).code).toBe('TIMEOUT');
    expect((await exec.runTool('t:wait', {}, { deadline: Date.now() + 10_000 })).value).toEqual({ waitedMs: 300 });
    // With both, the earlier wins.
    expect((await rejection(exec.runTool('t:wait', {}, { deadline: Date.now() + 10_000, timeoutMs: 100 }))).code).toBe('TIMEOUT');
  });

  it('a deadline already past is refused with TIMEOUT before any work, on every call', async () => {
    let calls = 0;
    const exec = execWith(() => {
      calls++;
      return 1;
    });
    const past = { deadline: Date.now() - 5 };
    expect((await rejection(exec.runTool('t:wait', {}, past))).code).toBe('TIMEOUT');
    expect((await rejection(exec.runChain([{ toolId: 't:wait' }], past))).code).toBe('TIMEOUT');
    expect((await rejection(drain(exec.runToolStream('t:wait', {}, past)))).code).toBe('TIMEOUT');
    const code = await rejection(exec.executeCode({ code: 'return await tools.runTool("t:wait", {})', ...past }));
    expect(code.code).toBe('TIMEOUT');
    expect(calls).toBe(0);
  });

  it('executeCode: the deadline is the sandbox wall clock (LIMIT_EXCEEDED with the TIMEOUT as cause)', async () => {
    const exec = execWith(() => 1);
    const started = Date.now();
    const err = await rejection(exec.executeCode({ code: 'while (true) {}', deadline: Date.now() + 400, timeoutMs: 20_000 }));
    expect(err.code).toBe('LIMIT_EXCEEDED');
    expect((err.cause as ToolexecError).code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a snippet's tool calls carry the snippet's deadline to the executor (the time left)", async () => {
    const seen: Array<number | undefined> = [];
    const exec = createExec({
      provider: {
        callTool: async (_provider: string, _tool: string, _args: Record<string, unknown>, options?: RunOptions) => {
          seen.push(options?.deadline as number | undefined);
          return 'ok';
        },
      },
    });
    open.push(exec);
    exec.index.registerTool({ name: 'ping', namespace: 'p', inputSchema: { type: 'object' } }, providerBackend('prov', 'ping'));
    const deadline = Date.now() + 8_000;
    const result = await exec.executeCode({ code: 'return (await tools.runTool("p:ping", {})).structured', deadline });
    expect(result.value).toBe('ok');
    expect(seen).toHaveLength(1);
    expect(Math.abs((seen[0] as number) - deadline)).toBeLessThan(1_000);
  });
});
