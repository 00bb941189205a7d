/**
 * Failed calls in telemetry: the span of a failed call names its tool, and a stream stopped by the
 * caller's signal — which ends quietly for the caller — is recorded as a failure (span, event,
 * metrics), like an aborted `run`.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { createExec, type ExecEvent } from '../../src/exec/index.js';
import { localBackend, type Tool } from '../../src/model/index.js';
import { createRunner, type LocalHandler, type StreamEvent } from '../../src/run/index.js';
import { SPAN_KIND, endSpanError, startSpan, type ActiveSpan } from '../../src/run/spans.js';
import { installMetrics, installTracing, spanNamed } from './otel-helpers.js';

const tools: Tool[] = [
  { name: 'fail', namespace: 'demo', inputSchema: { type: 'object' } },
  { name: 'strict', namespace: 'demo', inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
  { name: 'gen', namespace: 'demo', inputSchema: { type: 'object' } },
  { name: 'huge', namespace: 'demo', inputSchema: { type: 'object' } },
];

/** Yields one chunk, then waits until it is stopped (and yields nothing more). */
const gen: LocalHandler = async function* (_args, ctx) {
  yield 1;
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
};

const handlers: Record<string, LocalHandler> = {
  fail: () => {
    throw new Error('the handler failed');
  },
  strict: (args) => args.n,
  gen,
  huge: () => {
    throw new Error(`upstream said: ${'x'.repeat(1_000_000)}`);
  },
};

function runner() {
  const index = createToolIndex();
  for (const tool of tools) index.registerTool(tool, localBackend(tool.name));
  return createRunner({ index, local: handlers });
}

/** Pulls `stream` to its end, aborting `controller` with `reason` after the first chunk. */
async function abortAfterFirstChunk(stream: AsyncIterable<StreamEvent>, controller: AbortController, reason: unknown): Promise<string[]> {
  const kinds: string[] = [];
  for await (const event of stream) {
    kinds.push(event.kind);
    if (event.kind === 'chunk') controller.abort(reason);
  }
  return kinds;
}

let tracing: ReturnType<typeof installTracing>;
let metrics: ReturnType<typeof installMetrics>;
beforeAll(() => {
  tracing = installTracing();
});
afterAll(async () => {
  await tracing.uninstall();
});
beforeEach(() => {
  tracing.exporter.reset();
  metrics = installMetrics();
});
afterEach(async () => {
  await metrics.uninstall();
});

type Point = { value: unknown; attributes: Record<string, unknown> };
async function points(name: string): Promise<Point[]> {
  const exporter = await metrics.collect();
  return (exporter.getMetrics().at(-1)?.scopeMetrics ?? [])
    .flatMap((sm) => sm.metrics)
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints as readonly Point[]);
}

describe('the span of a failed call', () => {
  it('names its tool (toolexec.tool.name) when the ID resolved to one: handler failure, input validation, abort', async () => {
    const r = runner();
    await expect(r.run('demo:fail', {})).rejects.toMatchObject({ code: 'EXECUTION' });
    await expect(r.run('demo:strict', { n: 'x' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(r.run('demo:strict', { n: 1 }, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(r.run('demo:missing', {})).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
    const spans = await tracing.finished();
    expect(spanNamed(spans, 'execute_tool demo:fail').attributes).toMatchObject({
      'toolexec.tool.name': 'fail',
      'toolexec.backend.kind': 'local',
      'error.type': 'EXECUTION',
    });
    const strict = spans.filter((span) => span.name === 'execute_tool demo:strict');
    expect(strict.map((span) => [span.attributes['toolexec.tool.name'], span.attributes['error.type']])).toEqual([
      ['strict', 'VALIDATION'],
      ['strict', 'ABORTED'],
    ]);
    expect(spanNamed(spans, 'execute_tool demo:missing').attributes).not.toHaveProperty('toolexec.tool.name');
  });

  it("records a huge error message cut at 4 KiB with its length (a tool quoting a server's text)", async () => {
    const err = await runner()
      .run('demo:huge', {})
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    // the call's own message quotes the tool's text cut, with the text's length
    expect(err?.message.length).toBeLessThan(4300);
    expect(err?.message).toMatch(/… \(\d{7} characters\)$/);
    const span = spanNamed(await tracing.finished(), 'execute_tool demo:huge');
    const exception = span.events.find((event) => event.name === 'exception');
    // ... and the span records that message whole
    expect(exception?.attributes?.['exception.message']).toBe(err?.message);
    expect(span.attributes['error.type']).toBe('EXECUTION');
  });

  it("cuts an error message that is not the library's at 5 KiB with its length", async () => {
    const active = startSpan('foreign', SPAN_KIND.INTERNAL, {});
    expect(active).toBeDefined();
    endSpanError(active as ActiveSpan, new Error('m'.repeat(100_000)));
    const span = spanNamed(await tracing.finished(), 'foreign');
    const exception = span.events.find((event) => event.name === 'exception');
    expect(exception?.attributes?.['exception.message']).toBe(`${'m'.repeat(5120)}… (100000 characters)`);
  });

  it('a failed stream of a known tool names it too', async () => {
    const stream = runner().runStream('demo:strict', { n: 'x' });
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'VALIDATION' });
    const span = spanNamed(await tracing.finished(), 'execute_tool demo:strict');
    expect(span.attributes).toMatchObject({ 'toolexec.tool.name': 'strict', 'toolexec.call.mode': 'stream' });
  });
});

describe('a stream stopped by the caller’s signal', () => {
  it('runner.runStream: ends quietly, but its span is ERROR ABORTED and its metrics carry error.type', async () => {
    const controller = new AbortController();
    const kinds = await abortAfterFirstChunk(
      runner().runStream('demo:gen', {}, { signal: controller.signal }),
      controller,
      new Error('gone'),
    );
    expect(kinds).toEqual(['chunk']);
    const span = spanNamed(await tracing.finished(), 'execute_tool demo:gen');
    expect(span.status).toEqual({ code: 2, message: 'ABORTED' });
    expect(span.attributes).toMatchObject({
      'error.type': 'ABORTED',
      'toolexec.tool.name': 'gen',
      'toolexec.backend.kind': 'local',
      'toolexec.stream.chunks': 1,
    });
    const errors = await points('toolexec.tool.errors');
    expect(errors.map((p) => [p.attributes['gen_ai.tool.name'], p.attributes['error.type'], p.value])).toEqual([
      ['demo:gen', 'ABORTED', 1],
    ]);
  });

  it('TIMEOUT when the signal’s reason is a timeout', async () => {
    const controller = new AbortController();
    const reason = new DOMException('the caller’s deadline passed', 'TimeoutError');
    await abortAfterFirstChunk(runner().runStream('demo:gen', {}, { signal: controller.signal }), controller, reason);
    const span = spanNamed(await tracing.finished(), 'execute_tool demo:gen');
    expect(span.status).toEqual({ code: 2, message: 'TIMEOUT' });
  });

  it('exec.runToolStream: call.failed ABORTED (as an aborted runTool), not call.finished; a consumer’s break is still a success', async () => {
    const events: ExecEvent[] = [];
    const exec = createExec({
      onEvent: (event) => events.push(event),
      tools: tools.map((tool) => ({ tool, handler: handlers[tool.name] as LocalHandler })),
    });
    try {
      const controller = new AbortController();
      const kinds = await abortAfterFirstChunk(
        exec.runToolStream('demo:gen', {}, { signal: controller.signal }),
        controller,
        new Error('gone'),
      );
      expect(kinds).toEqual(['progress', 'chunk', 'progress']);
      for await (const event of exec.runToolStream('demo:gen', {})) if (event.kind === 'chunk') break;
    } finally {
      await exec.close();
    }
    const ends = events.filter((e) => e.type === 'call.finished' || e.type === 'call.failed');
    expect(ends).toEqual([
      expect.objectContaining({
        type: 'call.failed',
        toolId: 'demo:gen',
        mode: 'stream',
        backendKind: 'local',
        error: expect.objectContaining({ code: 'ABORTED' }),
      }),
      expect.objectContaining({ type: 'call.finished', toolId: 'demo:gen', mode: 'stream' }),
    ]);
  });
});
