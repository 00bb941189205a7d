import { afterEach, expect } from 'vitest';
import { createExec, type DefaultExec, type ExecOptions, type LocalToolDefinition } from '../../src/exec/index.js';
import { ToolexecError } from '../../src/model/index.js';

/** Local tools used across the exec tests. `calls` counts handler invocations by tool name. */
export function localTools(): { tools: LocalToolDefinition[]; calls: Record<string, number>; aborted: string[] } {
  const calls: Record<string, number> = {};
  const aborted: string[] = [];
  const count = (name: string): void => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  const tools: LocalToolDefinition[] = [
    {
      tool: {
        name: 'greet',
        namespace: 'test',
        description: 'Greets someone by name',
        inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        outputSchema: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
      },
      handler: (args) => {
        count('greet');
        return { greeting: `Hello, ${String(args.name)}!` };
      },
      doc: {
        summary: 'Says hello',
        notes: 'Be nice',
        examples: [{ title: 'World', description: 'greets the world', args: { name: 'World' } }],
      },
    },
    {
      tool: {
        name: 'add',
        namespace: 'math',
        description: 'Adds two numbers',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      },
      handler: (args) => {
        count('add');
        return (args.a as number) + (args.b as number);
      },
    },
    {
      tool: {
        name: 'double',
        namespace: 'math',
        description: 'Doubles the previous value',
        inputSchema: { type: 'object', properties: { previous: {} } },
      },
      handler: (args) => {
        count('double');
        return typeof args.previous === 'number' ? args.previous * 2 : null;
      },
    },
    {
      tool: { name: 'fail', namespace: 'test', description: 'Always fails', inputSchema: { type: 'object' } },
      handler: () => {
        count('fail');
        throw new Error('handler exploded');
      },
    },
    {
      tool: { name: 'hang', namespace: 'test', description: 'Never answers (but hears its signal)', inputSchema: { type: 'object' } },
      handler: (_args, ctx) => {
        count('hang');
        return new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted.push('hang');
            reject(ctx.signal.reason as Error);
          });
        });
      },
    },
    {
      tool: {
        name: 'ticker',
        namespace: 'test',
        description: 'Streams n numbers',
        inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
      },
      handler: async function* (args) {
        count('ticker');
        for (let i = 1; i <= ((args.n as number | undefined) ?? 3); i++) yield i;
      },
    },
  ];
  return { tools, calls, aborted };
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

/** Collects a stream, or the error it throws. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<{ items: T[]; error?: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of stream) items.push(item);
    return { items };
  } catch (error) {
    return { items, error };
  }
}

/**
 * A `createExec` (with {@link localTools} unless `options.tools` says otherwise) whose facades the
 * calling test file closes after each test. Call once at the top level of a test file.
 */
export function trackedExecs(): (options: ExecOptions) => DefaultExec {
  const open: DefaultExec[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((e) => e.close()));
  });
  return (options) => {
    const instance = createExec({ tools: localTools().tools, ...options });
    open.push(instance);
    return instance;
  };
}
