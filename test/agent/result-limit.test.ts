/**
 * `maxResultChars`: a model is sent at most that many characters of a tool result (100,000 by
 * default), cut with a note saying how much was cut, through every adapter — the AI SDK tools,
 * each provider format of `agentTools`, the MCP server, the code-mode tool. What the app's own
 * code gets (the AI SDK tool's `output`) stays whole.
 */
import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { Part } from '@google/genai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_RESULT_CHARS,
  PROVIDER_FORMATS,
  agentTools,
  aiSdkTools,
  codeTool,
  createMcpServer,
  metaTool,
  type ProviderFormat,
} from '../../src/agent/index.js';
import { limitText, limitTexts, truncationNote } from '../../src/agent/result-limit.js';
import { createExec, type DefaultExec, type LocalToolDefinition } from '../../src/exec/index.js';
import { hasErrorCode } from '../../src/model/index.js';
import { scriptedToolStep } from './scripted-step.js';

const FIVE_MB = 5 * 1024 * 1024;
const BIG_TEXT = 'x'.repeat(FIVE_MB);
/** About 5 MB of rows as JSON. */
const BIG_ROWS = { rows: Array.from({ length: 57_000 }, (_, i) => ({ id: i, name: `row-${i}`, note: 'y'.repeat(50) })) };
const BIG_ROWS_JSON = JSON.stringify(BIG_ROWS);

function tool(name: string, handler: () => unknown, extra: Partial<LocalToolDefinition['tool']> = {}): LocalToolDefinition {
  return { tool: { name, namespace: 'big', inputSchema: { type: 'object' }, ...extra }, handler };
}

const open: DefaultExec[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

function execWithResults(): DefaultExec {
  const exec = createExec({
    tools: [
      tool('text', () => BIG_TEXT),
      tool('rows', () => BIG_ROWS),
      tool('typed_rows', () => BIG_ROWS, { outputSchema: { type: 'object' } }),
      tool('small', () => 'small result'),
      tool('small_rows', () => ({ rows: [1, 2] })),
      tool('fail', () => {
        throw new Error('the tool broke on purpose');
      }),
    ],
  });
  open.push(exec);
  return exec;
}

/**
 * Checks `actual` deep-equals `expected` (both JSON), reporting only the lengths and the first
 * difference: a failure must not print megabytes.
 */
function expectSame(actual: unknown, expected: unknown): void {
  const a = JSON.stringify(actual) ?? 'undefined';
  const b = JSON.stringify(expected) ?? 'undefined';
  if (a === b) return;
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  const around = (text: string): string => JSON.stringify(text.slice(Math.max(0, at - 40), at + 120));
  expect.fail(`${a.length} characters, expected ${b.length}; first difference at ${at}: ${around(a)} vs ${around(b)}`);
}

/** `text` cut at `max` characters with the note, as the model must read it. */
function cut(text: string, max = DEFAULT_MAX_RESULT_CHARS): string {
  return `${text.slice(0, max)}${truncationNote(max, text.length)}`;
}

/** The one text of a provider result, read through the provider SDK's own type. */
function providerText(format: ProviderFormat, result: unknown): string {
  switch (format) {
    case 'openai-chat':
      return (result as ChatCompletionToolMessageParam).content as string;
    case 'openai-responses':
      return (result as ResponseInputItem.FunctionCallOutput).output as string;
    case 'anthropic': {
      const blocks = (result as ToolResultBlockParam).content as { type: string; text: string }[];
      expect(blocks).toHaveLength(1);
      return blocks[0]?.text ?? '';
    }
    case 'gemini':
      return (result as Part).functionResponse?.response?.output as string;
    case 'mcp': {
      const parsed = CallToolResultSchema.parse(result);
      expect(parsed.content).toHaveLength(1);
      return (parsed.content[0] as { text: string }).text;
    }
  }
}

describe('maxResultChars: what a model reads of a 5 MB result', () => {
  it('the AI SDK tools send the model 100,000 characters and the note; the output the app gets stays whole', async () => {
    const tools = await aiSdkTools(execWithResults());
    const text = await scriptedToolStep(tools, 'big--text');
    expectSame(text.sent, { type: 'text', value: cut(BIG_TEXT) });
    expect((text.sent as { value: string }).value.slice(100_000 - 1)).toMatch(
      /^x\n\n\[Result truncated: showing the first 100,000 of 5,242,880 characters; 5,142,880 were cut\. To see the rest, ask for less at a time/u,
    );
    expect((text.output as { value: string }).value.length).toBe(FIVE_MB);
    // a JSON value over the limit is sent as its JSON text, cut
    const rows = await scriptedToolStep(tools, 'big--rows');
    expectSame(rows.sent, { type: 'text', value: cut(BIG_ROWS_JSON) });
    expect((rows.output as { value: unknown }).value).toBe(BIG_ROWS);
    // with a provider too
    const anthropic = await aiSdkTools(execWithResults(), { provider: 'anthropic' });
    expectSame((await scriptedToolStep(anthropic, 'big--text')).sent, { type: 'text', value: cut(BIG_TEXT) });
  });

  it.each(PROVIDER_FORMATS)('agentTools %s: the result arrives cut with the note, in the SDK type', async (format) => {
    const agent = await agentTools(execWithResults(), { format });
    expectSame(providerText(format, await agent.call('big--text', {}, { callId: 'c1' })), cut(BIG_TEXT));
    const rows = await agent.call('big--rows', {}, { callId: 'c1' });
    expectSame(providerText(format, rows), cut(BIG_ROWS_JSON));
    // the object is not sent whole beside its cut text (the JSON of the result escapes the text's quotes)
    expect(JSON.stringify(rows).length).toBeLessThan(2 * DEFAULT_MAX_RESULT_CHARS);
  });

  it('the meta-tool run_tool is cut the same way', async () => {
    const agent = await agentTools(execWithResults(), { format: 'openai-chat', meta: true });
    expectSame((await agent.call('run_tool', { id: 'big:text' })).content, cut(BIG_TEXT));
  });

  it('createMcpServer: the client gets the text cut; structuredContent only where the listed output schema requires it', async () => {
    const server = createMcpServer(execWithResults());
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      await client.listTools();
      const text = (await client.callTool({ name: 'big--text', arguments: {} })) as CallToolResult;
      expectSame(text.content, [{ type: 'text', text: cut(BIG_TEXT) }]);
      const rows = (await client.callTool({ name: 'big--rows', arguments: {} })) as CallToolResult;
      expectSame(rows.content, [{ type: 'text', text: cut(BIG_ROWS_JSON) }]);
      expect(rows.structuredContent).toBeUndefined();
      // the client checks structuredContent against the output schema: it must come, whole
      const typed = (await client.callTool({ name: 'big--typed_rows', arguments: {} })) as CallToolResult;
      expect(typed.isError).toBeUndefined();
      expectSame(typed.content, [{ type: 'text', text: cut(BIG_ROWS_JSON) }]);
      expectSame(typed.structuredContent, BIG_ROWS);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('codeTool: the run the model reads is cut; the output stays whole', async () => {
    const tools = { execute_code: await codeTool(execWithResults(), { ids: [], maxResultChars: 1_000 }) };
    const { sent, output } = await scriptedToolStep(tools, 'execute_code', { code: "return 'z'.repeat(200000);" });
    const json = JSON.stringify({ toolCalls: [], value: 'z'.repeat(200_000) });
    expectSame(sent, { type: 'text', value: cut(json, 1_000) });
    expect((output as { value: string }).value.length).toBe(200_000);
  });
});

describe('code mode: the cut keeps what the snippet did', () => {
  /** A snippet that calls three tools (one failing, caught), prints a line and returns 5 MB. */
  const BUSY_SNIPPET = [
    "await tools.runTool('big:small', {});",
    "await tools.runTool('big:small', {});",
    "await tools.runTool('big:small_rows', {});",
    "try { await tools.runTool('big:fail', {}); } catch {}",
    "console.log('called three tools');",
    `return 'v'.repeat(${FIVE_MB});`,
  ].join('\n');
  const TOOL_CALLS = [
    { id: 'big:small', count: 2 },
    { id: 'big:small_rows', count: 1 },
    { id: 'big:fail', count: 1, failed: 1 },
  ];
  /** What the model must read of it, before the cut: the tool calls, the short print, then the value. */
  const BUSY_JSON = JSON.stringify({ toolCalls: TOOL_CALLS, stdout: 'called three tools\n', value: 'v'.repeat(FIVE_MB) });

  it('codeTool: a 5 MB value is cut after every tool call record and the print; the output stays whole', async () => {
    const tools = await aiSdkTools(execWithResults(), { ids: [], code: true });
    const { sent, output } = await scriptedToolStep(tools, 'execute_code', { code: BUSY_SNIPPET });
    expectSame(sent, { type: 'text', value: cut(BUSY_JSON) });
    // what the snippet did, read before the value (booleans: a failure must not print megabytes)
    const text = (sent as { value: string }).value;
    for (const call of TOOL_CALLS) expect(text.indexOf(JSON.stringify(call)), JSON.stringify(call)).toBeGreaterThan(0);
    expect(text.includes('"stdout":"called three tools\\n"')).toBe(true);
    expect(text.indexOf('"value":"vvv')).toBeGreaterThan(text.indexOf('"stdout"'));
    expect(text.endsWith(truncationNote(DEFAULT_MAX_RESULT_CHARS, BUSY_JSON.length))).toBe(true);
    // the app's output: whole, in its documented shape
    const { value, ...rest } = output as { value: string };
    expect(value).toBe('v'.repeat(FIVE_MB));
    expect(rest).toEqual({ toolCalls: TOOL_CALLS, stdout: 'called three tools\n' });
  }, 60_000);

  it.each(PROVIDER_FORMATS)(
    'the meta-tool execute_code, agentTools %s: the same text',
    async (format) => {
      const agent = await agentTools(execWithResults(), { format, meta: true });
      const result = await agent.call('execute_code', { code: BUSY_SNIPPET }, { callId: 'c1' });
      expectSame(providerText(format, result), cut(BUSY_JSON));
    },
    60_000,
  );

  it('the meta-tool as a SelectedTool: the run stays whole', async () => {
    const { value } = await metaTool(execWithResults(), 'execute_code').run({ code: BUSY_SNIPPET });
    const { value: returned, ...rest } = value as { value: string };
    expect(returned.length).toBe(FIVE_MB);
    expect(rest).toEqual({ toolCalls: TOOL_CALLS, stdout: 'called three tools\n' });
  }, 60_000);

  it('a warning (a call left pending) is kept whole before a 5 MB value', async () => {
    const code = `tools.runTool('big:small', {});\nreturn 'v'.repeat(${FIVE_MB});`;
    const warning = "tools.runTool('big:small') was still pending when the snippet returned: a missing await?";
    const agent = await agentTools(execWithResults(), { format: 'openai-chat', meta: true });
    const text = (await agent.call('execute_code', { code })).content;
    expect(text.startsWith('{"toolCalls":[')).toBe(true);
    expect(text.includes(`"warnings":[${JSON.stringify(warning)}],"value":"vvv`)).toBe(true);
    expect(text.length).toBeLessThan(DEFAULT_MAX_RESULT_CHARS + 500);
    expect(text.slice(-300)).toMatch(
      /\n\n\[Result truncated: showing the first 100,000 of 5,24\d,\d{3} characters; [\d,]+ were cut\. [^[\]]+\]$/u,
    );
  }, 60_000);

  it('a long print (the sandbox keeps up to 1 MB) is cut after the tool calls, the value and a short stderr', async () => {
    const code = [
      "await tools.runTool('big:small_rows', {});",
      "console.error('careful');",
      "console.log('w'.repeat(500000));",
      'return { rows: 2 };',
    ].join('\n');
    const json = JSON.stringify({
      toolCalls: [{ id: 'big:small_rows', count: 1 }],
      value: { rows: 2 },
      stderr: 'careful\n',
      stdout: `${'w'.repeat(500_000)}\n`,
    });
    const agent = await agentTools(execWithResults(), { format: 'openai-chat', meta: true });
    expectSame((await agent.call('execute_code', { code })).content, cut(json));
    const tools = { execute_code: await codeTool(execWithResults(), { ids: [], maxResultChars: 1_000 }) };
    const { sent, output } = await scriptedToolStep(tools, 'execute_code', { code });
    expectSame(sent, { type: 'text', value: cut(json, 1_000) });
    expect((output as { stdout: string }).stdout.length).toBe(500_001);
  }, 60_000);

  it('a run within the limit is JSON as before, the tool calls first', async () => {
    const code = "await tools.runTool('big:small', {});\nconsole.log('hi');\nreturn { rows: [1, 2, 3] };";
    const tools = await aiSdkTools(execWithResults(), { ids: [], code: true });
    const { sent } = await scriptedToolStep(tools, 'execute_code', { code });
    expect(sent).toEqual({
      type: 'json',
      value: { toolCalls: [{ id: 'big:small', count: 1 }], stdout: 'hi\n', value: { rows: [1, 2, 3] } },
    });
    expect(Object.keys((sent as { value: object }).value)).toEqual(['toolCalls', 'stdout', 'value']);
  }, 60_000);
});

describe('maxResultChars: small results, other limits, bad values', () => {
  it('a small result is sent as it was', async () => {
    const exec = execWithResults();
    const chat = await agentTools(exec, { format: 'openai-chat' });
    expect((await chat.call('big--small', {})).content).toBe('small result');
    const gemini = await agentTools(exec, { format: 'gemini' });
    expect(await gemini.call('big--small_rows', {})).toEqual({
      functionResponse: { name: 'big--small_rows', response: { output: { rows: [1, 2] } } },
    });
    const mcp = await agentTools(exec, { format: 'mcp' });
    expect(await mcp.call('big--small_rows', {})).toEqual({
      content: [{ type: 'text', text: '{"rows":[1,2]}' }],
      structuredContent: { rows: [1, 2] },
    });
    const tools = await aiSdkTools(exec);
    expect((await scriptedToolStep(tools, 'big--small_rows')).sent).toEqual({ type: 'json', value: { rows: [1, 2] } });
    // exactly at the limit: whole; one character over: cut
    const twelve = await agentTools(exec, { format: 'openai-chat', maxResultChars: 12 });
    expect((await twelve.call('big--small', {})).content).toBe('small result');
    const eleven = await agentTools(exec, { format: 'openai-chat', maxResultChars: 11 });
    expect((await eleven.call('big--small', {})).content).toBe(cut('small result', 11));
  });

  it('the limit can be lowered, raised, or disabled with Infinity', async () => {
    const exec = execWithResults();
    const low = await agentTools(exec, { format: 'anthropic', maxResultChars: 1_000 });
    expect(providerText('anthropic', await low.call('big--text', {}))).toMatch(
      /^x{1000}\n\n\[Result truncated: showing the first 1,000 of 5,242,880 characters; 5,241,880 were cut\./u,
    );
    for (const maxResultChars of [6_000_000, Infinity]) {
      const agent = await agentTools(exec, { format: 'openai-chat', maxResultChars });
      expectSame((await agent.call('big--text', {})).content, BIG_TEXT);
      const tools = await aiSdkTools(exec, { maxResultChars });
      expectSame((await scriptedToolStep(tools, 'big--rows')).sent, { type: 'json', value: BIG_ROWS });
    }
  });

  it("a failure's text is cut too", async () => {
    const exec = execWithResults();
    const whole = (await (await agentTools(exec, { format: 'openai-chat' })).call('big--fail', {})).content;
    expect(whole).toMatch(/^Error \(EXECUTION\): .*the tool broke on purpose$/u);
    const gemini = await agentTools(exec, { format: 'gemini', maxResultChars: 20 });
    expect(((await gemini.call('big--fail', {})) as Part).functionResponse?.response).toEqual({ error: cut(whole, 20) });
    const tools = await aiSdkTools(exec, { maxResultChars: 20 });
    expect((await scriptedToolStep(tools, 'big--fail')).sent).toEqual({ type: 'error-text', value: cut(whole, 20) });
  });

  it('a bad value is CONFIGURATION when the adapter is made, on every adapter', async () => {
    const exec = execWithResults();
    const makers: Record<string, (maxResultChars: unknown) => unknown> = {
      agentTools: (maxResultChars) => agentTools(exec, { format: 'openai-chat', maxResultChars: maxResultChars as number }),
      aiSdkTools: (maxResultChars) => aiSdkTools(exec, { maxResultChars: maxResultChars as number }),
      codeTool: (maxResultChars) => codeTool(exec, { ids: [], maxResultChars: maxResultChars as number }),
      createMcpServer: (maxResultChars) => createMcpServer(exec, { maxResultChars: maxResultChars as number }),
    };
    for (const [name, make] of Object.entries(makers)) {
      for (const bad of [0, -1, 1.5, Number.NaN, -Infinity, '1000', null]) {
        const err: unknown = await Promise.resolve()
          .then(() => make(bad))
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(hasErrorCode(err, 'CONFIGURATION'), `${name} ${String(bad)}: ${String(err)}`).toBe(true);
        expect((err as Error).message).toMatch(/^agent: option maxResultChars must be a positive integer or Infinity, got /u);
      }
    }
  });
});

describe('the cut itself', () => {
  it('keeps whole texts while they fit, cuts the one that crosses the limit, drops the texts after it, keeps media', () => {
    type Item = { text?: string; media?: string };
    const items: Item[] = [{ text: 'abc' }, { media: 'png' }, { text: 'defgh' }, { text: 'ij' }, { media: 'pdf' }];
    const out = limitTexts(
      items,
      5,
      (item) => item.text,
      (item, text) => ({ ...item, text }),
    );
    expect(out).toEqual([{ text: 'abc' }, { media: 'png' }, { text: `de${truncationNote(5, 10)}` }, { media: 'pdf' }]);
    // nothing cut: the very same array
    expect(
      limitTexts(
        items,
        10,
        (item) => item.text,
        (item) => item,
      ),
    ).toBe(items);
  });

  it('never splits a surrogate pair', () => {
    expect(limitText('a😀b', 2)).toBe(`a${truncationNote(1, 4)}`);
    expect(limitText('a😀b', 3)).toBe(`a😀${truncationNote(3, 4)}`);
  });
});
