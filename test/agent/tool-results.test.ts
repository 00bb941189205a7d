/**
 * A tool result with no JSON form (a cycle, a BigInt, a throwing `toJSON` or getter): every adapter
 * answers with its error form, saying so, instead of `[object Object]` or a value the provider
 * SDK's own `JSON.stringify` throws on later.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import {
  agentTools,
  aiSdkTools,
  createMcpServer,
  encodeToolName,
  type AnthropicToolResult,
  type OpenAIChatToolMessage,
  type OpenAIResponsesToolOutput,
} from '../../src/agent/index.js';
import { successResult } from '../../src/agent/tool-results.js';
import { createExec, type ContentBlock, type DefaultExec, type LocalToolDefinition } from '../../src/exec/index.js';

const open: DefaultExec[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { a: 1 };
  value.self = value;
  return value;
}

/** A handler's value of each kind JSON cannot carry, by tool name. */
const NOT_JSON: Record<string, () => unknown> = {
  cyclic,
  bigint: () => ({ total: 10n }),
  to_json_throws: () => ({
    toJSON(): never {
      throw new Error('toJSON exploded');
    },
  }),
  getter_throws: () => ({
    get broken(): never {
      throw new Error('getter exploded');
    },
  }),
  function: () => () => 1,
};

function tool(name: string, handler: () => unknown): LocalToolDefinition {
  return { tool: { name, namespace: 'res', inputSchema: { type: 'object' } }, handler };
}

function execWithResults(): DefaultExec {
  const exec = createExec({
    tools: [...Object.entries(NOT_JSON).map(([name, handler]) => tool(name, handler)), tool('plain', () => ({ a: [1, 'x', null] }))],
  });
  open.push(exec);
  return exec;
}

const NOT_JSON_TEXT =
  /^Error \(EXECUTION\): agent: tool "res:\w+" ran, but its result could not be serialised as JSON \(.+\), so it cannot be shown$/u;

/** The one text of an error result, in whichever form the format carries it. */
function errorTextOf(result: unknown): string {
  const r = result as {
    content?: string | { text: string }[];
    output?: string;
    functionResponse?: { response: { error?: string } };
  };
  if (typeof r.content === 'string') return r.content;
  if (Array.isArray(r.content)) return r.content.map((block) => block.text).join('');
  if (typeof r.output === 'string') return r.output;
  return r.functionResponse?.response.error ?? '';
}

describe('a tool result that cannot be serialised as JSON', () => {
  it('agentTools: every format answers with its error form, saying so; the answer serialises', async () => {
    const exec = execWithResults();
    for (const format of ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const) {
      const agent = await agentTools(exec, { format });
      for (const name of Object.keys(NOT_JSON)) {
        const result = await agent.call(encodeToolName(`res:${name}`), {}, { callId: 'c1' });
        const json = JSON.stringify(result);
        expect(json, `${format} ${name}`).not.toContain('[object Object]');
        expect(errorTextOf(result), `${format} ${name}`).toMatch(NOT_JSON_TEXT);
        if (format === 'anthropic') expect(result).toMatchObject({ is_error: true });
        if (format === 'mcp') expect(CallToolResultSchema.parse(JSON.parse(json))).toMatchObject({ isError: true });
        if (format === 'gemini')
          expect(result).toEqual({
            functionResponse: { id: 'c1', name: 'res--' + name, response: { error: expect.any(String) as unknown } },
          });
      }
    }
  });

  it('names the reason: the cycle, the BigInt, the throwing toJSON or getter', async () => {
    const agent = await agentTools(execWithResults(), { format: 'openai-chat' });
    const text = async (name: string): Promise<string> => (await agent.call(encodeToolName(`res:${name}`), {})).content;
    expect(await text('cyclic')).toContain('(Converting circular structure to JSON)');
    expect(await text('bigint')).toContain('BigInt');
    expect(await text('to_json_throws')).toContain('(toJSON exploded)');
    expect(await text('getter_throws')).toContain('(getter exploded)');
    expect(await text('function')).toContain('(a function)');
  });

  it('a JSON value is sent as it was', async () => {
    const exec = execWithResults();
    const chat = await agentTools(exec, { format: 'openai-chat' });
    expect((await chat.call('res--plain', {})).content).toBe('{"a":[1,"x",null]}');
    const gemini = await agentTools(exec, { format: 'gemini' });
    expect(await gemini.call('res--plain', {})).toEqual({
      functionResponse: { name: 'res--plain', response: { output: { a: [1, 'x', null] } } },
    });
    const mcp = await agentTools(exec, { format: 'mcp' });
    expect(await mcp.call('res--plain', {})).toEqual({
      content: [{ type: 'text', text: '{"a":[1,"x",null]}' }],
      structuredContent: { a: [1, 'x', null] },
    });
  });

  it('createMcpServer: the MCP client gets an isError result, not a failed request', async () => {
    const server = createMcpServer(execWithResults());
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      for (const name of Object.keys(NOT_JSON)) {
        const result = await client.callTool({ name: `res--${name}`, arguments: {} });
        expect(result.isError, name).toBe(true);
        expect(result.structuredContent).toBeUndefined();
        expect(errorTextOf(result)).toMatch(NOT_JSON_TEXT);
      }
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('aiSdkTools: execute rejects with EXECUTION, and the model gets it as the tool error', async () => {
    const tools = await aiSdkTools(execWithResults(), { ids: ['res:cyclic', 'res:bigint'] });
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const turns: LanguageModelV4GenerateResult[] = [
      {
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'res--cyclic', input: '{}' },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'res--bigint', input: '{}' },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
    ];
    let turn = 0;
    const model = new MockLanguageModelV4({ doGenerate: async () => turns[turn++] as LanguageModelV4GenerateResult });
    const result = await generateText({ model, tools, prompt: 'Run them', stopWhen: stepCountIs(3) });
    expect(result.text).toBe('done');
    const sent = model.doGenerateCalls[1] as LanguageModelV4CallOptions;
    const prompt: LanguageModelV4Prompt = sent.prompt;
    const outputs = prompt.flatMap((m) => (m.role === 'tool' ? m.content.filter((p) => p.type === 'tool-result') : []));
    expect(outputs).toHaveLength(2);
    for (const part of outputs) {
      expect(part.output.type).toBe('error-text');
      expect((part.output as { value: string }).value).toMatch(/tool "res:\w+" ran, but its result could not be serialised as JSON/u);
    }
    expect(() => JSON.stringify(result.steps)).not.toThrow();
  });
});

describe('Anthropic: no empty text blocks (the API refuses them)', () => {
  it('a tool that returns an empty or blank string answers "(no output)"; the other formats send it as it is', async () => {
    const exec = createExec({ tools: [tool('empty', () => ''), tool('blank', () => ' \n '), tool('word', () => 'ok')] });
    open.push(exec);
    const anthropic = await agentTools(exec, { format: 'anthropic' });
    for (const name of ['empty', 'blank']) {
      expect(await anthropic.call(`res--${name}`, {}, { callId: 'u1' }), name).toEqual({
        type: 'tool_result',
        tool_use_id: 'u1',
        content: [{ type: 'text', text: '(no output)' }],
      });
    }
    expect((await anthropic.call('res--word', {})).content).toEqual([{ type: 'text', text: 'ok' }]);
    const chat = await agentTools(exec, { format: 'openai-chat' });
    expect((await chat.call('res--empty', {})).content).toBe('');
    const mcp = await agentTools(exec, { format: 'mcp' });
    expect(await mcp.call('res--empty', {})).toEqual({ content: [{ type: 'text', text: '' }] });
  });

  it('MCP content: empty text blocks are left out, the rest kept', () => {
    const result = successResult(
      'anthropic',
      {
        toolId: 'fx:pic',
        durationMs: 1,
        content: [
          { type: 'text', text: '' },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          { type: 'text', text: '   ' },
        ],
      },
      'fx--pic',
      'u2',
    ) as AnthropicToolResult;
    expect(result.content).toEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }]);
    for (const block of result.content) if (block.type === 'text') expect(block.text.trim()).not.toBe('');
  });

  it('images a provider cannot take (SVG, BMP) become a text note for OpenAI Responses, as for Anthropic; PNG, JPEG, WebP, GIF go as images', () => {
    const content: ContentBlock[] = [
      { type: 'image', data: 'PHN2Zz48L3N2Zz4=', mimeType: 'image/svg+xml' },
      { type: 'image', data: 'Qk0=', mimeType: 'image/bmp' },
      ...['image/png', 'image/jpeg', 'image/webp', 'image/gif'].map((mimeType) => ({ type: 'image' as const, data: 'AAAA', mimeType })),
    ];
    const responses = successResult(
      'openai-responses',
      { toolId: 'up:chart', durationMs: 1, content },
      'up--chart',
      'call_1',
    ) as OpenAIResponsesToolOutput;
    // the SDK's own type takes it
    const item: ResponseInputItem = responses;
    expect(item.type).toBe('function_call_output');
    expect(responses.output).toEqual([
      {
        type: 'input_text',
        text: '[image (image/svg+xml, 12 bytes) not shown: the Responses API takes PNG, JPEG, WebP and GIF images and PDF files only]',
      },
      {
        type: 'input_text',
        text: '[image (image/bmp, 3 bytes) not shown: the Responses API takes PNG, JPEG, WebP and GIF images and PDF files only]',
      },
      ...['image/png', 'image/jpeg', 'image/webp', 'image/gif'].map((mimeType) => ({
        type: 'input_image',
        image_url: `data:${mimeType};base64,AAAA`,
        detail: 'auto',
      })),
    ]);
    const anthropic = successResult('anthropic', { toolId: 'up:chart', durationMs: 1, content }, 'up--chart', 'u1') as AnthropicToolResult;
    expect(anthropic.content.map((block) => block.type)).toEqual(['text', 'text', 'image', 'image', 'image', 'image']);
    // a Chat Completions tool message carries text only: every image is a note
    const chat = successResult('openai-chat', { toolId: 'up:chart', durationMs: 1, content }, 'up--chart', 'c1') as OpenAIChatToolMessage;
    expect(chat.content.split('\n')).toHaveLength(6);
    expect(chat.content).toContain('[image (image/png, 3 bytes) not shown: a tool message carries text only]');
  });

  it('media types are read case-insensitively and without parameters (RFC 6838, RFC 2045)', () => {
    const content: ContentBlock[] = [
      { type: 'image', data: 'AAAA', mimeType: 'IMAGE/PNG' },
      { type: 'image', data: 'AAAA', mimeType: ' image/jpeg; charset=binary' },
      { type: 'resource', resource: { uri: 'file:///r.pdf', mimeType: 'Application/PDF; name=r', blob: 'AAAA' } },
    ];
    const anthropic = successResult('anthropic', { toolId: 'up:chart', durationMs: 1, content }, 'up--chart', 'u1') as AnthropicToolResult;
    expect(anthropic.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
      expect.objectContaining({ type: 'document', source: expect.objectContaining({ media_type: 'application/pdf' }) }),
    ]);
    const responses = successResult(
      'openai-responses',
      { toolId: 'up:chart', durationMs: 1, content },
      'up--chart',
      'c1',
    ) as OpenAIResponsesToolOutput;
    expect((responses.output as { type: string }[]).map((part) => part.type)).toEqual(['input_image', 'input_image', 'input_file']);
  });
});
