/**
 * Telemetry that must not change what a call does or leak what it redacted: a span processor that
 * throws fails no call; a stream's span, events and metrics name the backend it ran on; an MCP
 * server's JSON-RPC error quoting a redacted argument does not reach the `tools/call` client span.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { TracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { createExec, type ExecEvent } from '../../src/exec/index.js';
import { defineTool, localBackend } from '../../src/model/index.js';
import { createRunner, type LocalHandler } from '../../src/run/index.js';
import { installMetrics, installTracing, spanNamed, spanText } from './otel-helpers.js';

const handlers: Record<string, LocalHandler> = {
  add: ({ a, b }) => (a as number) + (b as number),
  gen: async function* () {
    yield 1;
    yield 2;
  },
};

function runner() {
  const index = createToolIndex();
  index.registerTool(defineTool({ namespace: 'm', name: 'add', inputSchema: { type: 'object' } }), localBackend('add'));
  index.registerTool(defineTool({ namespace: 'm', name: 'gen', inputSchema: { type: 'object' } }), localBackend('gen'));
  return createRunner({ index, local: handlers });
}

describe.each(['onStart', 'onEnd'] as const)('a span processor whose %s throws', (hook) => {
  const processor: SpanProcessor = {
    onStart: () => {
      if (hook === 'onStart') throw new Error('onStart exploded');
    },
    onEnd: () => {
      if (hook === 'onEnd') throw new Error('onEnd exploded');
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [processor] }));
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });

  it('fails no call: run, chain and stream return what they return without tracing', async () => {
    const r = runner();
    await expect(r.run('m:add', { a: 1, b: 2 })).resolves.toMatchObject({ structured: 3 });
    await expect(r.runChain([{ toolId: 'm:add', args: { a: 2, b: 2 } }])).resolves.toMatchObject({ result: { structured: 4 } });
    const kinds: string[] = [];
    for await (const event of r.runStream('m:gen', {})) kinds.push(event.kind);
    expect(kinds).toContain('done');
    // a failure is still the call's own failure, not the processor's
    await expect(r.run('m:nope', {})).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
  });
});

describe('a stream in telemetry', () => {
  let tracing: ReturnType<typeof installTracing>;
  let metrics: ReturnType<typeof installMetrics>;
  beforeAll(() => {
    tracing = installTracing();
    metrics = installMetrics();
  });
  afterAll(async () => {
    await metrics.uninstall();
    await tracing.uninstall();
  });

  it('names the backend it ran on: span (gen_ai.tool.type, phases), call.finished and the metrics', async () => {
    const events: ExecEvent[] = [];
    const exec = createExec({
      tools: [
        { tool: defineTool({ namespace: 'm', name: 'gen', inputSchema: { type: 'object' } }), handler: handlers.gen as LocalHandler },
      ],
      onEvent: (event) => events.push(event),
    });
    try {
      for await (const event of exec.runToolStream('m:gen', {})) void event;
    } finally {
      await exec.close();
    }
    const span = spanNamed(await tracing.finished(), 'execute_tool m:gen');
    expect(span.attributes).toMatchObject({
      'toolexec.backend.kind': 'local',
      'gen_ai.tool.type': 'function',
      'toolexec.stream.chunks': 2,
    });
    expect(span.attributes['toolexec.phase.execute_ms']).toBeTypeOf('number');
    expect(events.find((event) => event.type === 'call.finished')).toMatchObject({ mode: 'stream', backendKind: 'local' });
    const exported = await metrics.collect();
    const calls = exported
      .getMetrics()
      .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics))
      .find((metric) => metric.descriptor.name === 'toolexec.tool.calls');
    expect(calls?.dataPoints.map((point) => point.attributes)).toContainEqual({
      'gen_ai.tool.name': 'm:gen',
      'toolexec.backend.kind': 'local',
    });
  });
});

/** An MCP server over stdio whose `fail` tool answers with a JSON-RPC error quoting its `password`. */
const THROWING_SERVER = `
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const server = new Server({ name: 'throwing', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'fail', inputSchema: { type: 'object', properties: { password: { type: 'string' } } } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  throw new Error('upstream refused password ' + request.params.arguments?.password);
});
await server.connect(new StdioServerTransport());
`;

describe('an MCP error quoting a redacted argument', () => {
  let tracing: ReturnType<typeof installTracing>;
  beforeAll(() => {
    tracing = installTracing();
  });
  afterAll(async () => {
    await tracing.uninstall();
  });

  it('is scrubbed from the tools/call client span as from the execute_tool span', async () => {
    const secret = 'pw-9f8e7d6c5b';
    const exec = createExec({
      mcpServers: { thr: { command: process.execPath, args: ['--input-type=module', '-e', THROWING_SERVER], cwd: process.cwd() } },
    });
    try {
      await exec.connect();
      const err = await exec.runTool('thr:fail', { password: secret }).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(err?.message).toContain('[REDACTED]');
      expect(err?.message).not.toContain(secret);
    } finally {
      await exec.close();
    }
    const spans = await tracing.finished();
    const rpc = spanNamed(spans, 'tools/call fail');
    expect(rpc.status.code).toBe(2);
    expect(spanText([rpc])).toContain('[REDACTED]');
    expect(spanText(spans)).not.toContain(secret);
  });
});
