import type { LocalToolDefinition } from '../../src/exec/index.js';

/**
 * The tools the value-depth tests of every guest language call: `t:echo` (its arguments back,
 * counting the calls that reached it) and `t:nest` (`{ o: ... }` nested `levels` deep around
 * `{ leaf: true }`).
 */
export function depthTools(): { tools: LocalToolDefinition[]; calls: { count: number } } {
  const calls = { count: 0 };
  const tools: LocalToolDefinition[] = [
    {
      tool: { name: 'echo', namespace: 't', inputSchema: { type: 'object' } },
      handler: (args) => {
        calls.count += 1;
        return args;
      },
    },
    {
      tool: { name: 'nest', namespace: 't', inputSchema: { type: 'object', properties: { levels: { type: 'number' } } } },
      handler: (args) => {
        let value: Record<string, unknown> = { leaf: true };
        for (let i = 1; i < (args.levels as number); i += 1) value = { o: value };
        return value;
      },
    },
  ];
  return { tools, calls };
}
