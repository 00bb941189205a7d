import { describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { createToolIndex } from '../../src/discovery/index.js';
import { localBackend, type Tool } from '../../src/model/index.js';
import { createRunner } from '../../src/run/index.js';
import { createExec } from '../../src/exec/index.js';
import { installMetrics, useTracing, isChildOf, spanNamed } from './otel-helpers.js';

const echoTool: Tool = {
  name: 'echo',
  namespace: 'demo',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  outputSchema: { type: 'object', properties: { echoed: { type: 'string' } }, required: ['echoed'] },
};
const failTool: Tool = { name: 'fail', namespace: 'demo', inputSchema: { type: 'object' } };

function runner() {
  const index = createToolIndex();
  index.registerTool(echoTool, localBackend('echo'));
  index.registerTool(failTool, localBackend('fail'));
  return createRunner({
    index,
    local: {
      echo: async (args) => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        return { echoed: args.message };
      },
      fail: () => {
        throw new Error('the handler failed');
      },
    },
  });
}

const tracing = useTracing();

describe('spans of the runner', () => {
  it('runner.run: one execute_tool span with the GenAI attributes, the backend kind and the phases, child of the caller', async () => {
    const r = runner();
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('request', async (parent) => {
      await r.run('demo:echo', { message: 'hi' });
      parent.end();
    });
    const spans = await tracing.finished();
    const call = spanNamed(spans, 'execute_tool demo:echo');
    expect(isChildOf(call, spanNamed(spans, 'request'))).toBe(true);
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'demo:echo',
      'gen_ai.tool.type': 'function',
      'toolexec.tool.id': 'demo:echo',
      'toolexec.tool.name': 'echo',
      'toolexec.backend.kind': 'local',
      'toolexec.call.mode': 'run',
      'gen_ai.tool.call.arguments': '{"message":"hi"}',
    });
    expect(call.attributes['gen_ai.tool.call.id']).toMatch(/^call_/);
    expect(call.attributes['toolexec.phase.execute_ms']).toBeGreaterThan(1);
    expect(call.attributes['toolexec.phase.prepare_ms']).toBeGreaterThanOrEqual(0);
    expect(call.status.code).toBe(1);
  });

  it('a failure sets status ERROR with the ToolexecError code, error.type and an exception event', async () => {
    await expect(runner().run('demo:fail', {})).rejects.toMatchObject({ code: 'EXECUTION' });
    await expect(runner().run('demo:missing', {})).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
    const spans = await tracing.finished();
    const failed = spanNamed(spans, 'execute_tool demo:fail');
    expect(failed.status).toEqual({ code: 2, message: 'EXECUTION' });
    expect(failed.attributes).toMatchObject({
      'error.type': 'EXECUTION',
      'toolexec.error.code': 'EXECUTION',
      'toolexec.backend.kind': 'local',
    });
    expect(failed.events.map((e) => e.name)).toEqual(['exception']);
    expect(String(failed.events[0]?.attributes?.['exception.message'])).toContain('the handler failed');
    expect(spanNamed(spans, 'execute_tool demo:missing').status).toEqual({ code: 2, message: 'TOOL_NOT_FOUND' });
  });

  it('runner.runChain: a run_chain span whose children are its steps, in order', async () => {
    await runner().runChain([
      { toolId: 'demo:echo', args: { message: 'a' } },
      { toolId: 'demo:echo', args: { message: 'b' } },
    ]);
    const spans = await tracing.finished();
    const chain = spanNamed(spans, 'run_chain');
    const steps = spans.filter((span) => span.name === 'execute_tool demo:echo');
    expect(steps).toHaveLength(2);
    for (const step of steps) {
      expect(isChildOf(step, chain)).toBe(true);
      expect(step.attributes['toolexec.call.mode']).toBe('chain_step');
    }
    expect(chain.attributes['toolexec.chain.steps']).toBe(2);
  });

  it('runner.runStream: one span from the first event to the end, counting chunks', async () => {
    const index = createToolIndex();
    index.registerTool({ name: 'count', namespace: 'demo', inputSchema: { type: 'object' } }, localBackend('count'));
    const r = createRunner({
      index,
      local: {
        count: async function* () {
          yield 1;
          yield 2;
        },
      },
    });
    const kinds: string[] = [];
    for await (const event of r.runStream('demo:count', {})) kinds.push(event.kind);
    expect(kinds).toEqual(['chunk', 'chunk', 'done']);
    const span = spanNamed(await tracing.finished(), 'execute_tool demo:count');
    expect(span.attributes).toMatchObject({ 'toolexec.call.mode': 'stream', 'toolexec.stream.chunks': 2 });
  });

  it('exec.runTool and exec.runChain: the facade adds no span of its own around the runner’s', async () => {
    const exec = createExec({ tools: [{ tool: echoTool, handler: (args) => ({ echoed: args.message }) }] });
    try {
      await exec.runTool('demo:echo', { message: 'x' });
      await exec.runChain([{ toolId: 'demo:echo', args: { message: 'y' } }]);
      const spans = await tracing.finished();
      expect(spans.map((s) => s.name).sort()).toEqual(['execute_tool demo:echo', 'execute_tool demo:echo', 'run_chain']);
      const chain = spanNamed(spans, 'run_chain');
      expect(spans.filter((s) => isChildOf(s, chain))).toHaveLength(1);
    } finally {
      await exec.close();
    }
  });
});

describe('metrics', () => {
  it('counts calls, durations and errors by tool, backend kind and error code', async () => {
    const installed = installMetrics();
    try {
      const r = runner();
      await r.run('demo:echo', { message: 'a' });
      await r.run('demo:echo', { message: 'b' });
      await expect(r.run('demo:fail', {})).rejects.toThrow();
      const exporter = await installed.collect();
      const metrics = exporter.getMetrics().flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics));
      type Point = { value: unknown; attributes: Record<string, unknown> };
      const byName = (name: string): Point[] =>
        metrics.filter((m) => m.descriptor.name === name).flatMap((m) => m.dataPoints as readonly Point[]);
      const calls = byName('toolexec.tool.calls');
      expect(calls.find((p) => p.attributes['gen_ai.tool.name'] === 'demo:echo')).toMatchObject({
        value: 2,
        attributes: { 'toolexec.backend.kind': 'local' },
      });
      expect(byName('toolexec.tool.errors')).toEqual([
        expect.objectContaining({
          value: 1,
          attributes: { 'gen_ai.tool.name': 'demo:fail', 'toolexec.backend.kind': 'local', 'error.type': 'EXECUTION' },
        }),
      ]);
      const duration = byName('toolexec.tool.duration').find((p) => p.attributes['gen_ai.tool.name'] === 'demo:echo');
      expect((duration?.value as { count: number; sum: number }).count).toBe(2);
      expect((duration?.value as { count: number; sum: number }).sum).toBeGreaterThan(0.002);
    } finally {
      await installed.uninstall();
    }
  });
});
