import { describe, expect, it } from 'vitest';
import { createToolsEnvironment, formatPrintArgs, type ToolsEnvironmentOptions } from '../../src/code/index.js';
import { ToolError, type CallToolResult, type McpExecutor } from '../../src/run/index.js';
import { fixture, rejection, type Fixture } from './helpers.js';

function env(options: Partial<ToolsEnvironmentOptions> = {}, f: Fixture = fixture()) {
  return { f, tools: createToolsEnvironment({ index: f.index, docs: f.docs, runner: f.runner, ...options }) };
}

describe('tools environment: budgets (cases 168–172)', () => {
  it('fails the 3rd call with LIMIT_EXCEEDED when max is 2, and does not record it (168)', async () => {
    const { tools, f } = env({ maxToolCalls: 2 });
    await tools.runTool('math:add', { a: 1, b: 2 });
    await tools.runTool('math:add', { a: 2, b: 2 });
    const error = await rejection(tools.runTool('math:add', { a: 3, b: 2 }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(tools.toolCalls).toHaveLength(2);
    expect(f.received.add).toHaveLength(2);
  });

  it('lets 100 calls through when max is 0 (169)', async () => {
    const { tools } = env({ maxToolCalls: 0 });
    for (let i = 0; i < 100; i++) await tools.runTool('math:add', { a: i, b: 0 });
    expect(tools.toolCalls).toHaveLength(100);
  });

  it('refuses a chain longer than maxChainSteps before running anything (170)', async () => {
    const { tools, f } = env({ maxChainSteps: 1 });
    const error = await rejection(
      tools.runChain([
        { toolId: 'demo:echo', args: { text: 'a' } },
        { toolId: 'demo:echo', args: { text: 'b' } },
      ]),
    );
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toContain('max 1 chain steps exceeded (got 2)');
    expect(f.received.echo).toBeUndefined();
    expect(tools.toolCalls).toEqual([]);
  });

  it('counts chain steps against maxToolCalls (171)', async () => {
    const { tools } = env({ maxToolCalls: 3 });
    const steps = [
      { toolId: 'demo:echo', args: { text: 'a' } },
      { toolId: 'demo:echo', args: { text: 'b' } },
    ];
    await tools.runChain(steps);
    const error = await rejection(tools.runChain(steps));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toContain('need 2, have 1 remaining');
  });

  it('counts only the executed steps of a failed chain (172)', async () => {
    const { tools } = env({ maxToolCalls: 4 });
    await rejection(
      tools.runChain([
        { toolId: 'demo:fail' },
        { toolId: 'demo:echo', args: { text: 'never' } },
        { toolId: 'demo:echo', args: { text: 'never' } },
      ]),
    );
    for (let i = 0; i < 3; i++) await tools.runTool('demo:echo', { text: String(i) });
    expect(tools.toolCalls).toHaveLength(4);
    await expect(tools.runTool('demo:echo', { text: 'over' })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
  });
});

describe('tools environment: the trace (cases 173–179)', () => {
  it('records tool ID, args, structured and duration (173)', async () => {
    const { tools } = env();
    await tools.runTool('math:add', { a: 1, b: 2 });
    expect(tools.toolCalls[0]).toMatchObject({ toolId: 'math:add', args: { a: 1, b: 2 }, structured: 3, backendKind: 'local' });
    expect(tools.toolCalls[0]?.durationMs).toBeGreaterThanOrEqual(0);
    expect(tools.getToolCalls()).toEqual(tools.toolCalls);
  });

  it('records the backend kind of a failed MCP call (174) and of successful mcp / provider / local calls (175)', async () => {
    const mcp: McpExecutor = {
      calls: 0,
      async callTool(): Promise<CallToolResult> {
        this.calls++;
        if (this.calls === 1) throw new Error('server down');
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    } as McpExecutor & { calls: number };
    const provider = { callTool: async () => ({ hosted: true }) };
    const { tools } = env({}, fixture({ mcp, provider }));
    const error = await rejection(tools.runTool('srv:remote', {}));
    expect(ToolError.isToolError(error)).toBe(true);
    await tools.runTool('srv:remote', {});
    await tools.runTool('prov:hosted', {});
    await tools.runTool('demo:echo', { text: 'x' });
    expect(tools.toolCalls.map((c) => [c.backendKind, c.errorOp])).toEqual([
      ['mcp', 'run'],
      ['mcp', undefined],
      ['provider', undefined],
      ['local', undefined],
    ]);
  });

  it('passes absent args through as absent (the handler sees {}) and records no args (176)', async () => {
    const { tools, f } = env();
    await tools.runTool('demo:echo');
    expect(f.received.echo).toEqual([{}]);
    expect(tools.toolCalls[0]).not.toHaveProperty('args');
  });

  it('records each chain step with its effective args, previous injected, deep-copied (177)', async () => {
    const { tools } = env();
    const first = { text: 'one', nested: { deep: [1, 2] } };
    const second = { b: 2, previous: 'bad' };
    await tools.runChain([
      { toolId: 'demo:echo', args: first },
      { toolId: 'demo:echo', args: second, usePrevious: true },
    ]);
    first.nested.deep.push(3);
    second.b = 99;
    const calls = tools.toolCalls;
    expect(calls[0]?.args).toEqual({ text: 'one', nested: { deep: [1, 2] } });
    expect(calls[1]?.args).toEqual({ b: 2, previous: { echoed: 'one' } });
    expect(calls.map((c) => c.errorOp)).toEqual([undefined, undefined]);
  });

  it('records a failed chain step with its backend kind and error (178, 179)', async () => {
    const { tools } = env();
    await rejection(tools.runChain([{ toolId: 'demo:echo', args: { text: 'a' } }, { toolId: 'demo:fail' }]));
    expect(tools.toolCalls).toHaveLength(2);
    expect(tools.toolCalls[0]).toMatchObject({ toolId: 'demo:echo', backendKind: 'local', structured: { echoed: 'a' } });
    expect(tools.toolCalls[1]).toMatchObject({ toolId: 'demo:fail', backendKind: 'local', errorOp: 'chain' });
    expect(tools.toolCalls[1]?.error).toContain('boom');
  });

  it('deep-copies class instances in args into plain data (182)', async () => {
    class Point {
      constructor(
        public x: number,
        public y: number,
      ) {}
    }
    const { tools } = env();
    await tools.runTool('demo:echo', { text: 'p', point: new Point(1, 2) as unknown as Record<string, unknown> });
    const recorded = tools.toolCalls[0]?.args?.point;
    expect(recorded).toEqual({ x: 1, y: 2 });
    expect(recorded).not.toBeInstanceOf(Point);
  });
});

describe('tools environment: signal, discovery and println (cases 180, 181)', () => {
  it('fails every method with ABORTED once the execution signal aborts (180)', async () => {
    const controller = new AbortController();
    const { tools, f } = env({ signal: controller.signal });
    expect(await tools.listNamespaces()).toEqual(['demo', 'math']);
    controller.abort(new Error('stop'));
    for (const call of [
      tools.searchTools('add', 5),
      tools.listNamespaces(),
      tools.describeTool('math:add', 'summary'),
      tools.listToolExamples('math:add', 1),
      tools.runTool('math:add', { a: 1, b: 1 }),
      tools.runChain([{ toolId: 'math:add', args: { a: 1, b: 1 } }]),
    ]) {
      const error = await rejection(call);
      expect(error.code).toBe('ABORTED');
    }
    expect(f.received.add).toBeUndefined();
  });

  it('aborts a tool call in flight when the execution signal aborts, and combines it with a per-call signal', async () => {
    const controller = new AbortController();
    const { tools } = env({ signal: controller.signal });
    const pending = tools.runTool('demo:wait', { ms: 5_000 });
    setTimeout(() => controller.abort(new Error('deadline')), 10);
    expect((await rejection(pending)).code).toBe('ABORTED');

    const { tools: tools2 } = env({ signal: new AbortController().signal });
    const perCall = new AbortController();
    const pending2 = tools2.runTool('demo:wait', { ms: 5_000 }, { signal: perCall.signal });
    setTimeout(() => perCall.abort(new Error('sandbox closed')), 10);
    expect((await rejection(pending2)).code).toBe('ABORTED');
  });

  it('answers discovery from the index and the doc store', async () => {
    const { tools } = env();
    expect((await tools.searchTools('add', 5))[0]?.id).toBe('math:add');
    expect((await tools.describeTool('math:add', 'full')).summary).toBe('Adds a and b');
    expect(await tools.listToolExamples('math:add', 5)).toHaveLength(1);
    await expect(tools.describeTool('nope:nope', 'summary')).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
  });

  it('println joins operands with spaces, strings as is, the rest as JSON (181)', () => {
    const { tools } = env();
    tools.println('hello', 'world', 42);
    tools.println({ a: 1 }, [1, 'x'], true, null, undefined);
    tools.println();
    expect(tools.stdout).toBe('hello world 42\n{"a":1} [1,"x"] true null undefined\n\n');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(formatPrintArgs([cyclic, 10n])).toBe('[object Object] 10');
  });

  it('println stops at the output cap with RESOURCE_LIMIT', () => {
    const { tools } = env({ maxOutputBytes: 10 });
    tools.println('12345');
    expect(() => tools.println('123456')).toThrow(expect.objectContaining({ code: 'RESOURCE_LIMIT' }));
    expect(tools.stdout).toBe('12345\n');
  });
});
