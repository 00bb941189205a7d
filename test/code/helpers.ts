import { expect } from 'vitest';
import { createDocStore, createToolIndex, type DocStore, type ToolIndex } from '../../src/discovery/index.js';
import { ToolexecError, localBackend, mcpBackend, providerBackend, type Tool } from '../../src/model/index.js';
import { createRunner, type LocalHandler, type McpExecutor, type ProviderExecutor, type Runner } from '../../src/run/index.js';

/** A real index, doc store and runner with a few local tools (and optional mcp / provider ones). */
export interface Fixture {
  index: ToolIndex;
  docs: DocStore;
  runner: Runner;
  /** Arguments each local handler received, by tool name. */
  received: Record<string, unknown[]>;
}

const objectSchema = (properties: Record<string, unknown> = {}, required: string[] = []): Tool['inputSchema'] => ({
  type: 'object',
  properties: properties as Record<string, object>,
  ...(required.length > 0 ? { required } : {}),
});

export function fixture(options: { mcp?: McpExecutor; provider?: ProviderExecutor } = {}): Fixture {
  const index = createToolIndex();
  const received: Record<string, unknown[]> = {};
  const record =
    (name: string, handler: LocalHandler): LocalHandler =>
    (args, ctx) => {
      (received[name] ??= []).push(args);
      return handler(args, ctx);
    };
  const local: Record<string, LocalHandler> = {
    echo: record('echo', (args) => ({ echoed: args.text })),
    add: record('add', (args) => (args.a as number) + (args.b as number)),
    fail: record('fail', () => {
      throw new Error('boom');
    }),
    wait: record(
      'wait',
      (args, ctx) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve('waited'), args.ms as number);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(ctx.signal.reason as Error);
          });
        }),
    ),
  };
  index.registerTool(
    { name: 'echo', namespace: 'demo', description: 'Echo the text back', inputSchema: objectSchema({ text: { type: 'string' } }) },
    localBackend('echo'),
  );
  index.registerTool(
    {
      name: 'add',
      namespace: 'math',
      description: 'Add two numbers',
      inputSchema: objectSchema({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
    },
    localBackend('add'),
  );
  index.registerTool({ name: 'fail', namespace: 'demo', description: 'Always fails', inputSchema: objectSchema() }, localBackend('fail'));
  index.registerTool(
    { name: 'wait', namespace: 'demo', description: 'Waits ms milliseconds', inputSchema: objectSchema({ ms: { type: 'number' } }) },
    localBackend('wait'),
  );
  if (options.mcp !== undefined) {
    index.registerTool({ name: 'remote', namespace: 'srv', description: 'An MCP tool', inputSchema: objectSchema() }, mcpBackend('srv'));
  }
  if (options.provider !== undefined) {
    index.registerTool(
      { name: 'hosted', namespace: 'prov', description: 'A provider tool', inputSchema: objectSchema() },
      providerBackend('p1', 'hosted'),
    );
  }
  const docs = createDocStore({ index });
  docs.registerDoc('math:add', {
    summary: 'Adds a and b',
    notes: 'Numbers only',
    examples: [{ title: 'one plus two', description: 'adds', args: { a: 1, b: 2 } }],
  });
  const runner = createRunner({
    index,
    local,
    ...(options.mcp === undefined ? {} : { mcp: options.mcp }),
    ...(options.provider === undefined ? {} : { provider: options.provider }),
  });
  return { index, docs, runner, received };
}

/** The rejection of `promise`, which must be a ToolexecError. */
export async function rejection(promise: Promise<unknown>): Promise<ToolexecError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(ToolexecError.isInstance(error), String(error)).toBe(true);
  return error as ToolexecError;
}
