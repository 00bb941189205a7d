/**
 * A context manager of the service's own that throws (its `with`, `active` or `bind`) costs the
 * trace context, never the call: `run`, `runChain` and `runStream` return what they return without
 * tracing, each tool runs once, and a failure is still the call's own. The real OpenTelemetry SDK.
 */
import { ROOT_CONTEXT, context, trace, type Context, type ContextManager } from '@opentelemetry/api';
import { TracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { defineTool, localBackend } from '../../src/model/index.js';
import { createRunner, type LocalHandler, type StreamEvent } from '../../src/run/index.js';

type Broken = 'with' | 'with after running' | 'active' | 'all';

/** A context manager whose `broken` part throws; the rest answers as a manager without storage would. */
function brokenManager(broken: Broken): ContextManager {
  const exploded = (): never => {
    throw new Error('context manager exploded');
  };
  return {
    active: (): Context => (broken === 'active' || broken === 'all' ? exploded() : ROOT_CONTEXT),
    with: <A extends unknown[], F extends (...args: A) => ReturnType<F>>(
      _ctx: Context,
      fn: F,
      thisArg?: ThisParameterType<F>,
      ...args: A
    ) => {
      if (broken === 'with' || broken === 'all') exploded();
      const result = fn.call(thisArg, ...args);
      // restoring the previous context fails once the work has run
      if (broken === 'with after running') exploded();
      return result;
    },
    bind: <T>(_ctx: Context, target: T): T => (broken === 'all' ? exploded() : target),
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  };
}

function runner(calls: Record<string, number>) {
  const counted =
    (name: string, handler: LocalHandler): LocalHandler =>
    (args, ctx) => {
      calls[name] = (calls[name] ?? 0) + 1;
      return handler(args, ctx);
    };
  const index = createToolIndex();
  index.registerTool(defineTool({ namespace: 'm', name: 'add', inputSchema: { type: 'object' } }), localBackend('add'));
  index.registerTool(defineTool({ namespace: 'm', name: 'slow', inputSchema: { type: 'object' } }), localBackend('slow'));
  index.registerTool(defineTool({ namespace: 'm', name: 'gen', inputSchema: { type: 'object' } }), localBackend('gen'));
  return createRunner({
    index,
    local: {
      add: counted('add', ({ a, b }) => (a as number) + (b as number)),
      slow: counted('slow', async ({ a }) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return (a as number) * 2;
      }),
      gen: counted('gen', async function* () {
        yield 1;
        yield 2;
      }),
    },
  });
}

async function drain(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

let provider: TracerProvider | undefined;
/** The spans ended (the SDK's own exporting processors run the context manager, so a plain list). */
const ended: ReadableSpan[] = [];
const recorder: SpanProcessor = {
  onStart: () => undefined,
  onEnd: (span) => void ended.push(span),
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

function install(broken: Broken): void {
  ended.length = 0;
  provider = new TracerProvider({ spanProcessors: [recorder] });
  context.setGlobalContextManager(brokenManager(broken));
  trace.setGlobalTracerProvider(provider);
}

afterEach(async () => {
  await provider?.shutdown();
  trace.disable();
  context.disable();
});

describe.each(['with', 'with after running', 'active', 'all'] as const)('a context manager whose %s throws', (broken) => {
  it('fails no call: run, runChain and runStream return their results, each tool running once', async () => {
    install(broken);
    const calls: Record<string, number> = {};
    const r = runner(calls);
    await expect(r.run('m:add', { a: 1, b: 2 })).resolves.toMatchObject({ structured: 3 });
    await expect(r.run('m:slow', { a: 4 })).resolves.toMatchObject({ structured: 8 });
    const chain = await r.runChain([
      { toolId: 'm:add', args: { a: 2, b: 2 } },
      { toolId: 'm:slow', argsFrom: (previous) => ({ a: previous }) },
    ]);
    expect(chain.result?.structured).toBe(8);
    const events = await drain(r.runStream('m:gen', {}));
    expect(events.filter((event) => event.kind === 'chunk').map((event) => event.data)).toEqual([1, 2]);
    expect(calls).toEqual({ add: 2, slow: 2, gen: 1 });
  });

  it("a failure is the call's own, never the context manager's", async () => {
    install(broken);
    const r = runner({});
    await expect(r.run('m:nope', {})).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
    await expect(r.runChain([{ toolId: 'm:nope' }])).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
    await expect(drain(r.runStream('m:nope', {}))).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
  });

  it('keeps the spans: only their nesting is lost', async () => {
    install(broken);
    await runner({}).run('m:add', { a: 1, b: 2 });
    await runner({}).runChain([{ toolId: 'm:add', args: { a: 1, b: 2 } }]);
    expect(ended.map((span) => [span.name, span.status.code])).toEqual([
      ['execute_tool m:add', 1],
      ['execute_tool m:add', 1],
      ['run_chain', 1],
    ]);
  });
});
