import { describe, expect, it } from 'vitest';
import { ToolexecError } from '../../../src/model/index.js';
import { ChainError, ToolError, type ChainResult, type ChainStep, type RunResult } from '../../../src/run/index.js';
import { createContractFixture } from '../../../src/testing/gateway-contract.js';
import { createDirectGateway, createTracingGateway, type ToolGateway } from '../../../src/runtime/index.js';
import { emptyChainResult } from '../../../src/runtime/internal.js';

const local = { kind: 'local', local: { name: 'x' } } as const;
const mcp = { kind: 'mcp', mcp: { serverName: 's' } } as const;

/** A gateway double (what a user would inject) whose run methods follow a script. */
function scriptedGateway(script: {
  runTool?: (id: string, args?: Record<string, unknown>) => Promise<RunResult>;
  runChain?: (steps: readonly ChainStep[]) => Promise<ChainResult>;
}): ToolGateway & { runs: number; chains: number } {
  const gateway = {
    runs: 0,
    chains: 0,
    searchTools: async () => [],
    listNamespaces: async () => ['ns'],
    describeTool: async () => ({ summary: 's' }),
    listToolExamples: async () => [],
    runTool: async (id: string, args?: Record<string, unknown>) => {
      gateway.runs += 1;
      return (
        script.runTool ?? (async () => ({ tool: { name: id, inputSchema: { type: 'object' as const } }, backend: local, structured: 'ok' }))
      )(id, args);
    },
    runChain: async (steps: readonly ChainStep[]) => {
      gateway.chains += 1;
      if (script.runChain !== undefined) return script.runChain(steps);
      return emptyChainResult();
    },
  };
  return gateway;
}

const ok = (structured: unknown, backend: RunResult['backend'] = local): RunResult => ({
  tool: { name: 't', inputSchema: { type: 'object' } },
  backend,
  structured,
});

describe('tracing gateway', () => {
  it('checks the limit before the call and records nothing for a refused call (168, 169)', async () => {
    const inner = scriptedGateway({});
    const traced = createTracingGateway(inner, { maxToolCalls: 2 });
    await traced.runTool('a');
    await traced.runTool('b');
    await expect(traced.runTool('c')).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: 'limit exceeded: max 2 tool calls exceeded',
      details: { limit: 'maxToolCalls', max: 2 },
    });
    expect(inner.runs).toBe(2);
    expect(traced.toolCalls.map((c) => c.toolId)).toEqual(['a', 'b']);
    const unlimited = createTracingGateway(scriptedGateway({}), { maxToolCalls: 0 });
    for (let i = 0; i < 100; i += 1) await unlimited.runTool('t');
    expect(unlimited.callCount).toBe(100);
  });

  it("keeps the first budget error as limitError, its own or a nested gateway's, until reset", async () => {
    const traced = createTracingGateway(scriptedGateway({}), { maxToolCalls: 1, maxChainSteps: 1 });
    expect(traced.limitError).toBeUndefined();
    await traced.runTool('a');
    const first = await traced.runTool('b').catch((err: unknown) => err);
    await traced.runChain([{ toolId: 'a' }, { toolId: 'b' }]).catch(() => undefined);
    expect(traced.limitError).toBe(first);
    traced.reset();
    expect(traced.limitError).toBeUndefined();

    const nested = createTracingGateway(createTracingGateway(scriptedGateway({}), { maxChainSteps: 1 }));
    const inner = await nested.runChain([{ toolId: 'a' }, { toolId: 'b' }]).catch((err: unknown) => err);
    expect(nested.limitError).toBe(inner);
    expect(nested.limitError).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 'maxChainSteps' } });

    // a tool's own failure, even LIMIT_EXCEEDED without a budget limit, is not a budget error
    const other = new ToolexecError('LIMIT_EXCEEDED', 'rate limited', { details: { limit: 'rate' } });
    const plain = createTracingGateway(scriptedGateway({ runTool: () => Promise.reject(other) }));
    await plain.runTool('a').catch(() => undefined);
    expect(plain.limitError).toBeUndefined();
  });

  it('refuses a chain longer than maxChainSteps without calling anything (170)', async () => {
    const inner = scriptedGateway({});
    const traced = createTracingGateway(inner, { maxChainSteps: 1 });
    await expect(traced.runChain([{ toolId: 'a' }, { toolId: 'b' }])).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: 'limit exceeded: max 1 chain steps exceeded (got 2)',
    });
    expect(inner.chains).toBe(0);
  });

  it('counts chain steps against maxToolCalls (171)', async () => {
    const inner = scriptedGateway({
      runChain: async (steps) => ({
        result: ok('last'),
        steps: steps.map((s) => ({ toolId: s.toolId, backend: local, result: ok(s.toolId) })),
      }),
    });
    const traced = createTracingGateway(inner, { maxToolCalls: 3 });
    await traced.runChain([{ toolId: 'a' }, { toolId: 'b' }]);
    await expect(traced.runChain([{ toolId: 'c' }, { toolId: 'd' }])).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: 'limit exceeded: max 3 tool calls exceeded (need 2, have 1 remaining)',
    });
    expect(inner.chains).toBe(1);
  });

  it('refunds steps that did not execute (172)', async () => {
    const failing = new ToolError({ code: 'EXECUTION', op: 'execute', toolId: 'a', backend: local, reason: 'boom' });
    const inner = scriptedGateway({
      runChain: async () => {
        throw new ChainError(failing, [{ toolId: 'a', backend: local, error: failing }], 0);
      },
    });
    const traced = createTracingGateway(inner, { maxToolCalls: 4 });
    await expect(traced.runChain([{ toolId: 'a' }, { toolId: 'b' }, { toolId: 'c' }])).rejects.toBeInstanceOf(ChainError);
    expect(traced.callCount).toBe(1);
    for (let i = 0; i < 3; i += 1) await traced.runTool('x');
    await expect(traced.runTool('x')).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
  });

  it('records id, a copy of the args, the structured result, the backend kind and a duration (173, 175, 176)', async () => {
    const seen: unknown[] = [];
    const inner = scriptedGateway({
      runTool: async (_id, args) => {
        seen.push(args);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return ok({ sum: 3 }, mcp);
      },
    });
    const traced = createTracingGateway(inner);
    const args = { x: 1, nested: { y: [1] } };
    await traced.runTool('t', args);
    await traced.runTool('u');
    args.nested.y.push(2);
    const [first, second] = traced.toolCalls;
    expect(first).toMatchObject({ toolId: 't', args: { x: 1, nested: { y: [1] } }, structured: { sum: 3 }, backendKind: 'mcp' });
    expect(first?.durationMs).toBeGreaterThanOrEqual(4);
    expect(seen[0]).toBe(args);
    expect(seen[1]).toBeUndefined();
    expect(second?.args).toBeUndefined();
  });

  it("records a failure's message, code, op and backend kind (174)", async () => {
    const inner = scriptedGateway({
      runTool: async () => {
        throw new ToolError({ code: 'EXECUTION', op: 'execute', toolId: 't', backend: mcp, reason: 'server down' });
      },
    });
    const traced = createTracingGateway(inner);
    await expect(traced.runTool('t', { a: 1 })).rejects.toMatchObject({ code: 'EXECUTION' });
    expect(traced.toolCalls[0]).toMatchObject({
      toolId: 't',
      args: { a: 1 },
      backendKind: 'mcp',
      errorOp: 'run',
      errorCode: 'EXECUTION',
      error: 'run: execute t [mcp]: server down',
    });
    const plain = createTracingGateway(scriptedGateway({ runTool: () => Promise.reject(new Error('plain')) }));
    await expect(plain.runTool('p')).rejects.toThrow('plain');
    expect(plain.toolCalls[0]).toMatchObject({ error: 'plain', errorOp: 'run' });
    expect(plain.toolCalls[0]).not.toHaveProperty('errorCode');
  });

  it('records chain steps with effective args, deep-copied, and backend kinds from either place (177-179)', async () => {
    const step2Args = { b: 2, previous: 'bad' };
    const inner = scriptedGateway({
      runChain: async () => ({
        result: ok('two'),
        steps: [
          { toolId: 'one', result: ok({ v: 1 }, mcp) },
          { toolId: 'two', backend: local, result: ok('two') },
        ],
      }),
    });
    const traced = createTracingGateway(inner);
    await traced.runChain([
      { toolId: 'one', args: { a: 1 } },
      { toolId: 'two', args: step2Args, usePrevious: true },
    ]);
    const [one, two] = traced.toolCalls;
    expect(one).toMatchObject({ toolId: 'one', args: { a: 1 }, backendKind: 'mcp', structured: { v: 1 } });
    expect(two).toMatchObject({ toolId: 'two', args: { b: 2, previous: { v: 1 } }, backendKind: 'local' });
    step2Args.b = 99;
    expect(traced.toolCalls[1]?.args).toEqual({ b: 2, previous: { v: 1 } });
  });

  it('records a failed chain step with its error and backend (178)', async () => {
    const direct = createDirectGateway(createContractFixture());
    const traced = createTracingGateway(direct);
    await expect(traced.runChain([{ toolId: 'test:add', args: { a: 1, b: 2 } }, { toolId: 'test:fail' }])).rejects.toMatchObject({
      code: 'EXECUTION',
    });
    // the direct gateway records too; the tracing wrapper has its own records
    expect(traced.toolCalls).toHaveLength(2);
    expect(traced.toolCalls[1]).toMatchObject({ toolId: 'test:fail', backendKind: 'local', errorOp: 'chain', errorCode: 'EXECUTION' });
    expect(traced.toolCalls[1]?.error).toContain('tool failed on purpose');
  });

  it('passes an empty chain through and counts nothing', async () => {
    const inner = scriptedGateway({});
    const traced = createTracingGateway(inner, { maxToolCalls: 1, maxChainSteps: 1 });
    await expect(traced.runChain([])).resolves.toMatchObject({ steps: [] });
    expect(traced.callCount).toBe(0);
    expect(traced.toolCalls).toEqual([]);
  });

  it('fails every method on an aborted signal first (180)', async () => {
    const inner = scriptedGateway({});
    const traced = createTracingGateway(inner, { maxToolCalls: 1 });
    const controller = new AbortController();
    controller.abort();
    const signal = controller.signal;
    for (const call of [
      traced.searchTools('', 1, { signal }),
      traced.listNamespaces({ signal }),
      traced.describeTool('a', 'summary', { signal }),
      traced.listToolExamples('a', 1, { signal }),
      traced.runTool('a', {}, { signal }),
      traced.runChain([{ toolId: 'a' }], { signal }),
    ]) {
      await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    }
    expect(inner.runs + inner.chains).toBe(0);
  });

  it('reserves budget synchronously under concurrency', async () => {
    const inner = scriptedGateway({ runTool: async () => new Promise((resolve) => setTimeout(() => resolve(ok(1)), 5)) });
    const traced = createTracingGateway(inner, { maxToolCalls: 3, maxChainSteps: 5 });
    const outcomes = await Promise.allSettled([
      traced.runTool('a'),
      traced.runChain([{ toolId: 'b' }, { toolId: 'c' }]),
      traced.runTool('d'),
      traced.runTool('e'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
  });

  it('rejects invalid limits and can be reset', async () => {
    expect(() => createTracingGateway(scriptedGateway({}), { maxToolCalls: -1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_LIMITS' }),
    );
    expect(() => createTracingGateway(scriptedGateway({}), { maxChainSteps: 1.5 })).toThrow(ToolexecError);
    const traced = createTracingGateway(scriptedGateway({}), { maxToolCalls: 1 });
    await traced.runTool('a');
    traced.reset();
    expect(traced.toolCalls).toEqual([]);
    await expect(traced.runTool('b')).resolves.toBeDefined();
  });

  it('passes discovery calls through', async () => {
    const traced = createTracingGateway(scriptedGateway({}));
    await expect(traced.listNamespaces()).resolves.toEqual(['ns']);
    await expect(traced.describeTool('x', 'summary')).resolves.toEqual({ summary: 's' });
    expect(traced.toolCalls).toEqual([]);
  });
});
