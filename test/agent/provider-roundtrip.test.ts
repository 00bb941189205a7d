/**
 * The trip a demanding agent app makes: tools out in a provider's format, the model's call back in
 * under the names and keys the provider was given, the result (or the failure) back out — and
 * provider definitions read in as tools that then run.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { LanguageModelV4GenerateResult, LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { FunctionDeclaration } from '@google/genai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolSchema as McpToolSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTools, aiSdkTools, createMcpServer, fromProviderTool, toProviderTool } from '../../src/agent/index.js';
import { createExec, type DefaultExec, type ExecOptions, type LocalToolDefinition } from '../../src/exec/index.js';
import type { Tool } from '../../src/model/index.js';

const open: DefaultExec[] = [];
function execWith(tools: LocalToolDefinition[], options: Omit<ExecOptions, 'tools'> = {}): DefaultExec {
  const exec = createExec({ ...options, tools });
  open.push(exec);
  return exec;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((exec) => exec.close()));
});

/** A tool whose keys Anthropic and Gemini refuse: `user name`, `filter[brand]` (nested `$top`). */
const KEYED: LocalToolDefinition = {
  tool: {
    name: 'list',
    namespace: 'shop',
    inputSchema: {
      type: 'object',
      properties: {
        'user name': { type: 'string' },
        'filter[brand]': { type: 'object', properties: { $top: { type: 'integer' } }, additionalProperties: false },
      },
      required: ['user name'],
      additionalProperties: false,
    },
  },
  handler: (args) => args,
};

describe('a validation message names the keys the model was given', () => {
  it('agentTools: Anthropic and Gemini read their renamed keys, not the tool’s own', async () => {
    const exec = execWith([KEYED]);
    const anthropic = await agentTools(exec, { format: 'anthropic' });
    const schema = (anthropic.tools[0] as Anthropic.Tool).input_schema;
    expect(Object.keys(schema.properties as object)).toEqual(['user_name', 'filter_brand_']);
    // the model leaves out the required key and sends a string for the nested integer
    const failed = await anthropic.call('shop--list', { filter_brand_: { _top: 'ten' } }, { callId: 'toolu_1' });
    expect(failed.is_error).toBe(true);
    const text = (failed.content[0] as { text: string }).text;
    expect(text).toContain("Field '/user_name' is required");
    expect(text).toContain("Field '/filter_brand_/_top' must be integer");
    expect(text).not.toMatch(/user name|filter\[brand\]|\$top/u);
    // the same call, corrected with the message's names, runs
    const ok = await anthropic.call('shop--list', { user_name: 'ann', filter_brand_: { _top: 10 } });
    expect(ok.content).toEqual([{ type: 'text', text: '{"user name":"ann","filter[brand]":{"$top":10}}' }]);

    const gemini = await agentTools(exec, { format: 'gemini' });
    const declared = gemini.tools[0] as FunctionDeclaration;
    expect(Object.keys((declared.parametersJsonSchema as { properties: object }).properties)).toEqual(['user_name', 'filter_brand_']);
    const geminiFailed = await gemini.call('shop--list', { user_name: 'ann', filter_brand_: { _top: 1, x: 1 } });
    expect(geminiFailed.functionResponse.response).toEqual({
      error: expect.stringContaining("Field '/filter_brand_/x' is not allowed") as unknown,
    });
    // OpenAI and MCP were sent the tool's own keys: the message keeps them
    const chat = await agentTools(exec, { format: 'openai-chat' });
    expect((await chat.call('shop--list', '{}')).content).toContain("Field '/user name' is required");
  });

  it('aiSdkTools with a provider: the error the model reads names the renamed keys', async () => {
    const exec = execWith([KEYED]);
    const tools = await aiSdkTools(exec, { provider: 'anthropic' });
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const turns: LanguageModelV4GenerateResult[] = [
      {
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'shop--list', input: '{"filter_brand_":{"_top":"ten"}}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        usage,
        warnings: [],
      },
      { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: 'end_turn' }, usage, warnings: [] },
    ];
    let turn = 0;
    const model = new MockLanguageModelV4({ doGenerate: async () => turns[turn++] as LanguageModelV4GenerateResult });
    await generateText({ model, tools, prompt: 'list', stopWhen: stepCountIs(3) });
    const prompt: LanguageModelV4Prompt = model.doGenerateCalls[1]?.prompt ?? [];
    const [sent] = prompt.flatMap((m) => (m.role === 'tool' ? m.content : []));
    const output = (sent as { output: { type: string; value: string } }).output;
    expect(output.type).toBe('error-text');
    expect(output.value).toContain("Field '/user_name' is required");
    expect(output.value).toContain("Field '/filter_brand_/_top' must be integer");
  });
});

describe('MCP: an output schema is listed only when every result can be structuredContent', () => {
  const lookup: LocalToolDefinition = {
    tool: {
      name: 'lookup',
      namespace: 'crm',
      description: 'A customer, or null when there is none.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      // what z.object({ name: z.string() }).nullable() writes
      outputSchema: {
        anyOf: [{ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, { type: 'null' }],
      } as unknown as Tool['outputSchema'],
    },
    handler: ({ id }) => (id === 'c1' ? { name: 'Ann' } : null),
  };

  it('toProviderTool drops one that allows other results, with a warning; one about objects stays', () => {
    const converted = toProviderTool(lookup.tool, 'mcp');
    expect(McpToolSchema.safeParse(converted.tool).success).toBe(true);
    expect((converted.tool as Tool).outputSchema).toBeUndefined();
    expect(converted.warnings.map((w) => `${w.feature} ${w.pointer}`)).toEqual(['outputSchema /outputSchema']);
    const anyValue: Tool = { name: 'any', inputSchema: { type: 'object' }, outputSchema: {} as Tool['outputSchema'] };
    expect((toProviderTool(anyValue, 'mcp').tool as Tool).outputSchema).toBeUndefined();
    const objects: Tool = {
      name: 'objects',
      inputSchema: { type: 'object' },
      outputSchema: { $ref: '#/$defs/Out', $defs: { Out: { type: 'object' } } } as unknown as Tool['outputSchema'],
    };
    expect((toProviderTool(objects, 'mcp').tool as Tool).outputSchema).toEqual({ ...objects.outputSchema, type: 'object' });
  });

  it('createMcpServer: an SDK client gets a null result instead of failing the call', async () => {
    const exec = execWith([lookup]);
    const server = createMcpServer(exec);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'app', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      // the client checks results against the output schemas it listed
      expect((await client.listTools()).tools[0]?.outputSchema).toBeUndefined();
      // before: "MCP error -32600: Tool crm--lookup has an output schema but did not return structured content"
      expect(await client.callTool({ name: 'crm--lookup', arguments: { id: 'nobody' } })).toEqual({
        content: [{ type: 'text', text: 'null' }],
      });
      expect(await client.callTool({ name: 'crm--lookup', arguments: { id: 'c1' } })).toEqual({
        content: [{ type: 'text', text: '{"name":"Ann"}' }],
        structuredContent: { name: 'Ann' },
      });
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('fromProviderTool: the tool it makes runs', () => {
  it("keeps a result schema that is not about objects as it is (no type: 'object' every result would fail)", async () => {
    const declaration: FunctionDeclaration = {
      name: 'now',
      description: 'The time, as text or epoch seconds.',
      responseJsonSchema: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    };
    const { tool } = fromProviderTool(declaration, 'gemini');
    expect(tool.outputSchema).toEqual(declaration.responseJsonSchema);
    const responses: FunctionTool = {
      type: 'function',
      name: 'echo',
      parameters: null,
      strict: null,
      // the Responses API's output_schema, as an app writes it
      ...({ output_schema: { description: 'anything' } } as object),
    };
    expect(fromProviderTool(responses, 'openai-responses').tool.outputSchema).toEqual({ description: 'anything' });
    // a schema about objects still gets its type
    expect(
      fromProviderTool({ ...declaration, responseJsonSchema: { properties: { t: { type: 'string' } } } }, 'gemini').tool.outputSchema,
    ).toEqual({ type: 'object', properties: { t: { type: 'string' } } });
    const exec = execWith([{ tool, handler: () => '12:00' }]);
    expect((await exec.runTool('now', {})).value).toBe('12:00');
  });

  it("reads Anthropic's nullable properties and required (the SDK's InputSchema) as absent", async () => {
    const anthropicTool: Anthropic.Tool = { name: 'ping', input_schema: { type: 'object', properties: null, required: null } };
    const { tool } = fromProviderTool(anthropicTool, 'anthropic');
    expect(tool.inputSchema).toEqual({ type: 'object' });
    const exec = execWith([{ tool, handler: () => 'pong' }]);
    // before: INVALID_SCHEMA "/properties must be object" on every call
    expect((await exec.runTool('ping', {})).value).toBe('pong');
  });
});

describe('aiSdkTools: code: true beside a tool named execute_code', () => {
  it('refuses with CONFIGURATION (the option code against the selection) rather than drop the tool unsaid', async () => {
    const exec = execWith([{ tool: { name: 'execute_code', inputSchema: { type: 'object' } }, handler: () => 'mine' }]);
    await expect(aiSdkTools(exec, { code: true })).rejects.toMatchObject({
      code: 'CONFIGURATION',
      details: { field: 'code', name: 'execute_code' },
    });
    expect(Object.keys(await aiSdkTools(exec))).toEqual(['execute_code']);
    expect(Object.keys(await aiSdkTools(exec, { meta: true, code: true }))).toContain('execute_code');
  });
});

describe('a failed MCP tool call keeps the blocks it sent beside its text', () => {
  const PNG = 'iVBORw0KGgo=';
  /** An upstream MCP server whose `shot` fails with its message, a screenshot and a link to the log. */
  function upstream(): ExecOptions['mcpServers'] {
    const server = new McpServer({ name: 'browser', version: '1.0.0' });
    server.registerTool('shot', { description: 'Clicks, and shows the page.', inputSchema: {} }, () => ({
      isError: true,
      content: [
        { type: 'text', text: 'no element matches #buy' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///tmp/console.log', name: 'console.log' },
      ],
    }));
    return {
      browser: {
        transport: 'custom',
        createTransport: async () => {
          const [client, serverSide] = InMemoryTransport.createLinkedPair();
          await server.connect(serverSide);
          return client;
        },
      },
    };
  }

  it('each format answers with the error text, then the screenshot and the link, marked failed', async () => {
    const exec = execWith([], { mcpServers: upstream() });
    await exec.connect();
    const anthropic = await agentTools(exec, { format: 'anthropic' });
    const failed = await anthropic.call('browser--shot', {}, { callId: 'toolu_1' });
    expect(failed).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      is_error: true,
      content: [
        { type: 'text', text: expect.stringMatching(/^Error \(EXECUTION\): .*no element matches #buy$/u) as unknown },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'text', text: '[resource file:///tmp/console.log: console.log]' },
      ],
    });
    const gemini = (await (await agentTools(exec, { format: 'gemini' })).call('browser--shot', {})).functionResponse;
    expect(gemini.response).toEqual({ error: expect.stringContaining('[resource file:///tmp/console.log: console.log]') as unknown });
    expect(gemini.parts).toEqual([{ inlineData: { mimeType: 'image/png', data: PNG } }]);
    const mcp = await (await agentTools(exec, { format: 'mcp' })).call('browser--shot', {});
    expect(mcp.isError).toBe(true);
    expect(mcp.content.map((block) => block.type)).toEqual(['text', 'image', 'resource_link']);
    const chat = await (await agentTools(exec, { format: 'openai-chat' })).call('browser--shot', '{}');
    expect(chat.content).toMatch(
      /no element matches #buy\n\[image \(image\/png, 9 bytes\) not shown: .*\]\n\[resource file:\/\/\/tmp\/console.log: console.log\]$/u,
    );
  });
});

describe('hostile model input', () => {
  it('a made-up tool name of a megabyte is quoted cut, not echoed whole into the conversation', async () => {
    const exec = execWith([KEYED]);
    const agent = await agentTools(exec, { format: 'openai-chat' });
    const answer = await agent.call('x'.repeat(1_000_000), '{}', { callId: 'call_1' });
    expect(answer.content.length).toBeLessThan(500);
    expect(answer.content).toMatch(
      /^Error \(TOOL_NOT_FOUND\): agent: there is no tool named "x{200}… \(1000000 characters\)"; call one of the tools you were given \(shop--list\)$/u,
    );
  });
});
