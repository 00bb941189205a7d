import { describe, expect, it } from 'vitest';
import { ToolError, createRunner, type CallToolResult, type McpExecutor } from '../../src/run/index.js';
import { createBackendRegistry, type Backend } from '../../src/backend/index.js';
import { indexWith, mcpBackend, rejectionOf, tool } from './helpers.js';

const MALFORMED: Record<string, unknown> = {
  string: 'hello',
  number: 42,
  undefined: undefined,
  contentNotArray: { content: { type: 'text', text: 'x' } },
  contentItemNull: { content: [null] },
  contentItemNumber: { content: [5] },
  contentItemString: { content: ['str'] },
  textNotString: { content: [{ type: 'text', text: 7 }] },
  isErrorString: { isError: 'true', content: [{ type: 'text', text: 'permission denied' }] },
};

function runnerAnswering(answer: unknown): ReturnType<typeof createRunner> {
  const mcp: McpExecutor = { callTool: async () => answer as CallToolResult };
  return createRunner({ index: indexWith([tool('t', { namespace: 'srv' }), mcpBackend('srv')]), mcp });
}

describe('what an injected McpExecutor resolves with is checked like a server result', () => {
  it.each(Object.keys(MALFORMED))('%s → PROTOCOL naming the server, the schema error as cause', async (name) => {
    const err = (await rejectionOf(runnerAnswering(MALFORMED[name]).run('srv:t', {}))) as ToolError;
    expect(err).toBeInstanceOf(ToolError);
    expect(err.code).toBe('PROTOCOL');
    expect(err.op).toBe('execute');
    expect(err.details?.serverName).toBe('srv');
    expect(err.message).toContain('invalid result');
    expect(err.cause).toBeDefined();
  });

  it('valid results still pass: plain, rich blocks, structured only, and null (no result)', async () => {
    expect((await runnerAnswering({ content: [{ type: 'text', text: '{"a":1}' }] }).run('srv:t', {})).structured).toEqual({ a: 1 });
    const image = {
      content: [
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'text', text: 'x' },
      ],
    };
    expect((await runnerAnswering(image).run('srv:t', {})).structured).toBe('x');
    expect((await runnerAnswering({ structuredContent: { s: 1 } }).run('srv:t', {})).structured).toEqual({ s: 1 });
    const none = await runnerAnswering(null).run('srv:t', {});
    expect(none.structured).toBeUndefined();
    expect(none.mcpResult).toBeUndefined();
    const flagged = await rejectionOf(runnerAnswering({ isError: true, content: [{ type: 'text', text: 'denied' }] }).run('srv:t', {}));
    expect(flagged.code).toBe('EXECUTION');
    expect(flagged.message).toContain('denied');
  });

  it('a result whose getter throws → EXECUTION with that error as cause, never the raw error', async () => {
    const boom = new Error('content not loaded');
    const result = {
      get content(): never {
        throw boom;
      },
    };
    const err = await rejectionOf(runnerAnswering(result).run('srv:t', {}));
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(boom);
  });

  it('a registry backend serving the mcp binding is checked the same way', async () => {
    const backend: Backend = {
      kind: 'mcp',
      name: 'srv',
      enabled: true,
      listTools: async () => [],
      execute: async () => 'not a result',
    };
    const registry = createBackendRegistry();
    registry.register(backend);
    const runner = createRunner({ index: indexWith([tool('t', { namespace: 'srv' }), mcpBackend('srv')]), backends: registry });
    expect((await rejectionOf(runner.run('srv:t', {}))).code).toBe('PROTOCOL');
  });
});
