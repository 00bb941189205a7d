/** The local tools the MCP-server tests serve, and what their handlers saw. */
import type { LocalToolDefinition } from '../../src/exec/index.js';

/** What the handlers recorded: aborted calls by tool name. */
export interface ServedToolsState {
  aborted: string[];
}

/** `add` (annotated, with an output schema), `greet` (text), `steps` (reports progress), `wait` (waits for its signal). */
export function servedTools(state: ServedToolsState = { aborted: [] }): LocalToolDefinition[] {
  return [
    {
      tool: {
        name: 'add',
        namespace: 'math',
        title: 'Add',
        description: 'Adds two numbers.',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
          additionalProperties: false,
        },
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      handler: ({ a, b }) => ({ sum: (a as number) + (b as number) }),
    },
    {
      tool: {
        name: 'greet',
        namespace: 'text',
        description: 'Greets someone.',
        inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      handler: ({ name }) => `Hello, ${String(name)}!`,
    },
    {
      tool: {
        name: 'steps',
        namespace: 'work',
        description: 'Reports `count` steps of progress, a few milliseconds apart, then returns how many it did.',
        inputSchema: { type: 'object', properties: { count: { type: 'integer', minimum: 1 } }, required: ['count'] },
      },
      handler: async ({ count }, ctx) => {
        const total = count as number;
        for (let i = 1; i <= total; i++) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          ctx.onProgress?.({ progress: i + 1, total: total + 2, message: `step ${i}` });
        }
        return { done: total };
      },
    },
    {
      tool: {
        name: 'wait',
        namespace: 'work',
        description: 'Waits until its call is cancelled or times out.',
        inputSchema: { type: 'object', properties: {} },
      },
      handler: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          const signal = ctx.signal;
          signal.addEventListener('abort', () => {
            state.aborted.push('wait');
            reject(signal.reason as Error);
          });
        }),
    },
  ];
}
