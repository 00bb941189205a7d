/**
 * The layer's error rule (docs/architecture.md, "errors"): a bad option given when an adapter, a
 * tool or a server is made is `CONFIGURATION`, naming the option (`details.field`); a bad argument
 * of a call made later — the model's arguments, a per-call option, a snippet, a conversion's
 * input — stays `INVALID_ARGUMENT`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentTools,
  aiSdkTools,
  checkSnippet,
  codeModeApi,
  codeTool,
  createMcpServer,
  decodeToolName,
  fromProviderTool,
  selectTools,
  toProviderTool,
} from '../../src/agent/index.js';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { ToolexecError, hasErrorCode } from '../../src/model/index.js';

const open: DefaultExec[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

function exec(): DefaultExec {
  const e = createExec({
    tools: [{ tool: { name: 'add', namespace: 'math', inputSchema: { type: 'object' } }, handler: () => 'sum' }],
  });
  open.push(e);
  return e;
}

async function failure(make: () => unknown): Promise<unknown> {
  return Promise.resolve()
    .then(make)
    .then(
      () => undefined,
      (err: unknown) => err,
    );
}

describe('a bad option when something is made: CONFIGURATION', () => {
  it('on every factory, naming the option', async () => {
    const e = exec();
    const cases: [string, () => unknown, string][] = [
      ['agentTools options', () => agentTools(e, 7 as never), 'options'],
      ['agentTools format', () => agentTools(e, { format: 'llama' as never }), 'format'],
      ['agentTools deferLoading', () => agentTools(e, { format: 'anthropic', deferLoading: 'yes' as never }), 'deferLoading'],
      ['agentTools query', () => agentTools(e, { format: 'mcp', query: 1 as never }), 'query'],
      ['aiSdkTools options', () => aiSdkTools(e, null as never), 'options'],
      ['aiSdkTools provider', () => aiSdkTools(e, { provider: 'claude' as never }), 'provider'],
      ['aiSdkTools meta', () => aiSdkTools(e, { meta: 'yes' as never }), 'meta'],
      ['codeTool language', () => codeTool(e, { language: 'ruby' as never }), 'language'],
      ['codeTool maxToolCalls', () => codeTool(e, { maxToolCalls: 1.5 }), 'maxToolCalls'],
      ['codeTool typecheck', () => codeTool(e, { typecheck: 'yes' as never }), 'typecheck'],
      ['codeModeApi ids', () => codeModeApi(e, { ids: [''] }), 'ids'],
      ['createMcpServer expose', () => createMcpServer(e, { expose: 'all' as never }), 'expose'],
      ['createMcpServer version', () => createMcpServer(e, { version: '' }), 'version'],
      ['createMcpServer query', () => createMcpServer(e, { query: 3 as never }), 'query'],
      ['selectTools limit', () => selectTools(e, { limit: 0 }), 'limit'],
    ];
    for (const [what, make, field] of cases) {
      const err = await failure(make);
      expect(ToolexecError.isInstance(err) && err.code, `${what}: ${String(err)}`).toBe('CONFIGURATION');
      expect((err as ToolexecError).details?.field, what).toBe(field);
      const prefix = field === 'options' ? 'agent: options must be an object' : `agent: option ${field} `;
      expect((err as Error).message.startsWith(prefix), `${what}: ${(err as Error).message}`).toBe(true);
    }
  });
});

describe('a bad argument of a call made later: INVALID_ARGUMENT', () => {
  it("the model's arguments: an error result the model reads", async () => {
    const agent = await agentTools(exec(), { format: 'anthropic' });
    const badJson = await agent.call('math--add', '{', { callId: 't1' });
    expect(badJson).toMatchObject({ tool_use_id: 't1', is_error: true });
    expect((badJson.content[0] as { text: string }).text).toMatch(/^Error \(INVALID_ARGUMENT\): agent: arguments are not valid JSON/u);
  });

  it("the app's own call options: agent.call rejects, naming the option (the model could not fix them)", async () => {
    const ran: unknown[] = [];
    const e = createExec({
      tools: [{ tool: { name: 'echo', namespace: 't', inputSchema: { type: 'object' } }, handler: (args) => ran.push(args) }],
    });
    open.push(e);
    for (const format of ['openai-chat', 'anthropic', 'gemini', 'mcp'] as const) {
      const agent = await agentTools(e, { format });
      const cases: [string, unknown, string][] = [
        ['timeoutMs -1', { callId: 'c1', timeoutMs: -1 }, 'timeoutMs'],
        ['a signal that is no AbortSignal', { callId: 'c2', signal: 'x' }, 'signal'],
        ['a callId that is no string', { callId: 123 }, 'callId'],
        ['a bad retry policy', { retry: 'always' }, 'retry'],
        ['options that are no object', 'fast', 'options'],
      ];
      for (const [what, options, field] of cases) {
        const err = await failure(() => agent.call('t--echo', '{}', options as never));
        expect(ToolexecError.isInstance(err) && err.code, `${format} ${what}: ${String(err)}`).toBe('INVALID_ARGUMENT');
        expect((err as ToolexecError).details?.field, `${format} ${what}`).toBe(field);
        expect((err as Error).message, `${format} ${what}`).toContain(field);
      }
    }
    expect(ran).toEqual([]);
    // good options still run, and the model's own failures still resolve
    const agent = await agentTools(e, { format: 'openai-chat' });
    expect(await agent.call('t--echo', '{}', { callId: 'ok', timeoutMs: 1000 })).toMatchObject({ role: 'tool', tool_call_id: 'ok' });
    expect(await agent.call('t--echo', '{}')).toMatchObject({ role: 'tool', tool_call_id: '' });
    expect(ran).toHaveLength(2);
    const unknown = await agent.call('t--nope', '{}', { callId: 'c3' });
    expect(unknown).toMatchObject({ tool_call_id: 'c3', content: expect.stringMatching(/^Error \(TOOL_NOT_FOUND\)/u) as unknown });
  });

  it("the model's empty snippet to execute_code", async () => {
    const tool = (await codeTool(exec(), { ids: [] })) as { execute: (input: { code: string }, options: object) => Promise<unknown> };
    const err = await tool.execute({ code: '  ' }, { toolCallId: 'x', messages: [] }).catch((e: unknown) => e);
    expect(hasErrorCode(err, 'INVALID_ARGUMENT'), String(err)).toBe(true);
  });

  it('the inputs of checkSnippet, toProviderTool, fromProviderTool and decodeToolName', async () => {
    const tool = { name: 'add', namespace: 'math', inputSchema: { type: 'object' as const } };
    expect(hasErrorCode(await failure(() => checkSnippet({ declarations: '' }, 42 as never)), 'INVALID_ARGUMENT')).toBe(true);
    expect(() => toProviderTool(tool, 'cohere' as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => toProviderTool(tool, 'mcp', { strict: 1 as never })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => fromProviderTool(42, 'mcp')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => fromProviderTool({ name: 'a', inputSchema: { type: 'object' } }, 'mcp', { decodeName: 1 as never })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => decodeToolName('a-q')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    // `null` and `undefined` would read as the names "null" and "undefined" to a regular expression
    for (const name of [null, undefined, ['abc'], 5, {}]) {
      expect(() => decodeToolName(name as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
    expect(() => decodeToolName(null as never)).toThrow('agent: tool name null is not a name encodeToolName makes');
    expect(() => decodeToolName('a-q')).toThrow('agent: tool name "a-q" is not a name encodeToolName makes');
  });
});
