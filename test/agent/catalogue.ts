/** A generated catalogue of many local tools, and a small one with real handlers, for the agent tests. */
import { createExec, type DefaultExec, type ExecOptions, type LocalToolDefinition } from '../../src/exec/index.js';

const VERBS = ['read', 'write', 'list', 'delete', 'convert', 'search', 'create', 'update', 'fetch', 'sync'];
const NOUNS = ['file', 'invoice', 'ticket', 'user', 'repo', 'image', 'order', 'calendar', 'message', 'report'];

/** `count` tools over `count / 100` namespaces (`svc0` … ), each echoing its arguments. */
export function generatedTools(count: number): LocalToolDefinition[] {
  const tools: LocalToolDefinition[] = [];
  for (let i = 0; i < count; i++) {
    const verb = VERBS[i % VERBS.length] as string;
    const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length] as string;
    tools.push({
      tool: {
        name: `${verb}_${noun}_${i}`,
        namespace: `svc${Math.floor(i / 100)}`,
        description: `${verb[0]?.toUpperCase()}${verb.slice(1)} a ${noun} (generated tool number ${i}).`,
        inputSchema: {
          type: 'object',
          properties: { target: { type: 'string' }, count: { type: 'integer', minimum: 0 } },
          required: ['target'],
        },
        tags: [verb, noun],
      },
      handler: (args) => ({ tool: i, ...args }),
    });
  }
  return tools;
}

/** The hand-written tools most agent tests use. */
export const SMALL_TOOLS: LocalToolDefinition[] = [
  {
    tool: {
      name: 'add',
      namespace: 'math',
      version: '1.0.0',
      description: 'Adds two numbers.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    },
    handler: ({ a, b }) => (a as number) + (b as number),
  },
  {
    tool: {
      name: 'read_text_file',
      namespace: 'fs',
      description: 'Reads a text file.',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string', minLength: 1 }, head: { type: 'integer', minimum: 1 } },
        required: ['path'],
        additionalProperties: false,
      },
    },
    handler: ({ path, head }) => ({ path, text: head === undefined ? 'line 1\nline 2' : 'line 1' }),
  },
  {
    tool: {
      name: 'fail',
      namespace: 'util',
      description: 'Always fails.',
      inputSchema: { type: 'object', properties: {} },
    },
    handler: () => {
      throw new Error('the disk is on fire');
    },
  },
];

/** A facade over the given tools (the WASM sandbox for snippets). */
export function execWith(tools: LocalToolDefinition[], options: ExecOptions = {}): DefaultExec {
  return createExec({ tools, ...options });
}
