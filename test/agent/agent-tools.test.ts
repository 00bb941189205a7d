import type { FunctionDeclaration } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { META_TOOL_NAMES, agentTools, encodeToolName, isShortenedToolName } from '../../src/agent/index.js';
import { stdioFixture } from '../mcp/helpers.js';
import { execWith, generatedTools, SMALL_TOOLS } from './catalogue.js';
import { ANTHROPIC_PROPERTY_KEY, GEMINI_PROPERTY_KEY, OPENAI_NAME, expectPropertyKeys, expectStrictSchema } from './provider-rules.js';

describe('agentTools: call never rejects for a tool failure', () => {
  let exec: DefaultExec;
  beforeAll(() => {
    exec = execWith(SMALL_TOOLS);
  });
  afterAll(() => exec.close());

  it('answers an unknown name, bad JSON and arguments that do not fit in the provider error form', async () => {
    const chat = await agentTools(exec, { format: 'openai-chat' });
    expect(await chat.call('nope', '{}', { callId: 'c1' })).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: expect.stringMatching(
        /^Error \(TOOL_NOT_FOUND\): agent: there is no tool named "nope"; call one of the tools you were given \(fs--read_text_file, math--add--1-d0-d0, util--fail\)$/u,
      ) as unknown,
    });
    expect((await chat.call('math--ad--1-d0-d0', '{}')).content).toBe(
      'Error (TOOL_NOT_FOUND): agent: there is no tool named "math--ad--1-d0-d0"; did you mean "math--add--1-d0-d0"?',
    );
    const badJson = await chat.call(encodeToolName('math:add:1.0.0'), '{"a":1,', { callId: 'c2' });
    expect(badJson.content).toMatch(/^Error \(INVALID_ARGUMENT\): agent: arguments are not valid JSON .*Fix the arguments/u);
    const notObject = await chat.call(encodeToolName('math:add:1.0.0'), '[1,2]');
    expect(notObject.content).toMatch(/arguments must be a JSON object/u);
    const mcp = await agentTools(exec, { format: 'mcp' });
    expect(await mcp.call(encodeToolName('math:add:1.0.0'), { a: 'x', b: 1 })).toEqual({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/^Error \(VALIDATION\): .*Field '\/a' must be number/u) as unknown }],
    });
    expect(await mcp.call(encodeToolName('fs:read_text_file'), '{"path":"x"}')).toEqual({
      content: [{ type: 'text', text: '{"path":"x","text":"line 1\\nline 2"}' }],
      structuredContent: { path: 'x', text: 'line 1\nline 2' },
    });
  });

  it('rejects only when the caller aborts the call', async () => {
    const agent = await agentTools(exec, { format: 'anthropic' });
    const controller = new AbortController();
    controller.abort();
    await expect(agent.call(encodeToolName('math:add:1.0.0'), { a: 1, b: 2 }, { signal: controller.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect(await agent.call(encodeToolName('math:add:1.0.0'), { a: 1, b: 2 }, { timeoutMs: 5000 })).toMatchObject({
      content: [{ type: 'text', text: '3' }],
    });
  });

  it('maps names back to IDs, shortened names included', async () => {
    const longId = `acme-enterprise-resource-planning:${'generate_quarterly_financial_report'}:12.4.1`;
    const longExec = execWith([
      {
        tool: {
          name: 'generate_quarterly_financial_report',
          namespace: 'acme-enterprise-resource-planning',
          version: '12.4.1',
          inputSchema: { type: 'object' },
        },
        handler: () => 'ok',
      },
    ]);
    try {
      const agent = await agentTools(longExec, { format: 'openai-responses' });
      const name = (agent.tools[0] as { name: string }).name;
      expect(isShortenedToolName(name)).toBe(true);
      expect(agent.toolId(name)).toBe(longId);
      expect(agent.toolId('unknown')).toBeUndefined();
      expect(await agent.call(name, '')).toEqual({ type: 'function_call_output', call_id: '', output: 'ok' });
    } finally {
      await longExec.close();
    }
  });

  it('checks its options: a bad one is CONFIGURATION, naming it', async () => {
    await expect(agentTools(exec, { format: 'llama' as 'mcp' })).rejects.toMatchObject({
      code: 'CONFIGURATION',
      message: expect.stringMatching(/^agent: option format must be one of openai-chat/u),
      details: { field: 'format' },
    });
    await expect(agentTools(exec, undefined as unknown as { format: 'mcp' })).rejects.toMatchObject({
      code: 'CONFIGURATION',
      message: 'agent: options must be an object with a format',
    });
    await expect(agentTools(exec, { format: 'mcp', strict: 1 as unknown as boolean })).rejects.toMatchObject({
      code: 'CONFIGURATION',
      message: 'agent: option strict must be a boolean',
      details: { field: 'strict' },
    });
    await expect(agentTools(exec, { format: 'mcp', limit: 0 })).rejects.toMatchObject({
      code: 'CONFIGURATION',
      details: { field: 'limit' },
    });
    await expect(agentTools(exec, { format: 'mcp', ids: ['no:such'] })).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
  });
});

describe('agentTools: property keys a provider refuses', () => {
  let exec: DefaultExec;
  beforeAll(() => {
    exec = execWith([
      {
        tool: {
          name: 'list_apps',
          namespace: 'asc',
          inputSchema: {
            type: 'object',
            properties: {
              'filter[bundleId]': { type: 'string' },
              $top: { type: 'integer', minimum: 1 },
              'fields[apps]': { type: 'array', items: { type: 'string' } },
            },
            required: ['$top'],
            additionalProperties: false,
          },
        },
        handler: (args) => args,
      },
    ]);
  });
  afterAll(() => exec.close());

  it("sends legal keys to Anthropic and Gemini, and call puts the tool's keys back before the tool validates them", async () => {
    const cases = [
      ['anthropic', false, ANTHROPIC_PROPERTY_KEY],
      ['anthropic', true, ANTHROPIC_PROPERTY_KEY],
      ['gemini', false, GEMINI_PROPERTY_KEY],
    ] as const;
    for (const [format, strict, rule] of cases) {
      const agent = await agentTools(exec, { format, strict });
      const tool = agent.tools[0] as { input_schema?: unknown; parametersJsonSchema?: unknown };
      expectPropertyKeys(tool.input_schema ?? tool.parametersJsonSchema, rule);
      expect(agent.warnings.filter((w) => w.feature === 'property name').map((w) => `${w.toolId} ${w.pointer}`)).toEqual([
        'asc:list_apps /inputSchema/properties/filter[bundleId]',
        'asc:list_apps /inputSchema/properties/$top',
        'asc:list_apps /inputSchema/properties/fields[apps]',
      ]);
      // strict mode: the model sends null for the absent optional, under its sent key
      const args = { filter_bundleId_: 'com.example', _top: 5, fields_apps_: strict ? null : ['name'] };
      const result = await agent.call('asc--list_apps', args, { callId: 'c1' });
      const ran =
        format === 'gemini'
          ? (result as unknown as { functionResponse: { response: { output: unknown } } }).functionResponse.response.output
          : JSON.parse((result as unknown as { content: { text: string }[] }).content[0]?.text ?? 'null');
      expect(ran, `${format} strict=${String(strict)}`).toEqual(
        strict ? { 'filter[bundleId]': 'com.example', $top: 5 } : { 'filter[bundleId]': 'com.example', $top: 5, 'fields[apps]': ['name'] },
      );
    }
    // OpenAI takes the keys as they are
    const chat = await agentTools(exec, { format: 'openai-chat' });
    const parameters = (chat.tools[0] as unknown as { function: { parameters: { properties: object } } }).function.parameters;
    expect(Object.keys(parameters.properties)).toEqual(['filter[bundleId]', '$top', 'fields[apps]']);
    expect((await chat.call('asc--list_apps', '{"$top":1}')).content).toBe('{"$top":1}');
  });
});

describe('agentTools: MCP content blocks in each provider form', () => {
  let exec: DefaultExec;
  beforeAll(() => {
    exec = createExec({ mcpServers: { fx: stdioFixture() } });
  });
  afterAll(() => exec.close());

  it('passes text, images, audio, embedded resources and links on as far as each provider can take them', async () => {
    const name = encodeToolName('fx:media');
    const anthropic = await agentTools(exec, { format: 'anthropic', ids: ['fx:media'] });
    expect(await anthropic.call(name, {}, { callId: 't1' })).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: [
        { type: 'text', text: 'a red pixel and friends' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'text', text: expect.stringMatching(/^\[audio \(audio\/wav, 6 bytes\) not shown: Anthropic takes/u) as unknown },
        { type: 'text', text: 'embedded notes' },
        { type: 'text', text: '[resource https://example.com/report.pdf (application/pdf): report]' },
      ],
    });
    const responses = await agentTools(exec, { format: 'openai-responses', ids: ['fx:media'] });
    const output = (await responses.call(name, '{}', { callId: 'r1' })).output;
    expect(Array.isArray(output) && output[1]).toEqual({
      type: 'input_image',
      image_url: 'data:image/png;base64,iVBORw0KGgo=',
      detail: 'auto',
    });
    const gemini = await agentTools(exec, { format: 'gemini', ids: ['fx:media', 'fx:structured'] });
    const part = await gemini.call(name, {});
    expect(part.functionResponse.parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
    ]);
    // every text part, the embedded resource's and the link's included, as the other formats send them
    expect(part.functionResponse.response).toEqual({
      output: 'a red pixel and friends\nembedded notes\n[resource https://example.com/report.pdf (application/pdf): report]',
    });
    // structured content stays an object
    expect((await gemini.call(encodeToolName('fx:structured'), { a: 2, b: 3 })).functionResponse.response).toEqual({ output: { sum: 5 } });
    const chat = await agentTools(exec, { format: 'openai-chat', ids: ['fx:media'] });
    expect((await chat.call(name, '{}')).content).toMatch(
      /^a red pixel and friends\n\[image \(image\/png, 9 bytes\) not shown: a tool message carries text only\]/u,
    );
    const mcp = await agentTools(exec, { format: 'mcp', ids: ['fx:media'] });
    expect(((await mcp.call(name, {})).content as unknown[]).length).toBe(5);
  });
});

describe('agentTools over a catalogue of 10,000 tools', () => {
  let exec: DefaultExec;
  beforeAll(() => {
    exec = execWith([...generatedTools(10_000), ...SMALL_TOOLS]);
  });
  afterAll(() => exec.close());

  it('meta: six strict tools a model drives through search, describe and run', async () => {
    const agent = await agentTools(exec, { format: 'openai-responses', meta: true, strict: true });
    expect(agent.tools.map((tool) => (tool as { name: string }).name)).toEqual([...META_TOOL_NAMES]);
    expect(agent.warnings.filter((warning) => warning.feature === 'strict')).toEqual([]);
    for (const tool of agent.tools) {
      expect(tool).toMatchObject({ strict: true });
      expectStrictSchema((tool as { parameters: unknown }).parameters, 'openai');
    }
    const found = await agent.call('search_tools', '{"query":"delete ticket","limit":null}', { callId: 's' });
    const hits = JSON.parse(found.output as string) as { tools: { id: string }[] };
    expect(hits.tools[0]!.id).toMatch(/delete_ticket/u);
    const described = JSON.parse(
      (await agent.call('describe_tool', JSON.stringify({ id: hits.tools[0]!.id, detail: null }))).output as string,
    ) as {
      inputSchema: unknown;
    };
    expect(described.inputSchema).toMatchObject({ required: ['target'] });
    const ran = await agent.call('run_tool', JSON.stringify({ id: hits.tools[0]!.id, args: '{"target":"T-1"}' }));
    expect(JSON.parse(ran.output as string)).toMatchObject({ target: 'T-1' });
  });

  it('deferLoading: every tool deferred, with the provider tool search beside them; names all legal', async () => {
    const started = performance.now();
    const responses = await agentTools(exec, { format: 'openai-responses', deferLoading: true, strict: true });
    const elapsedMs = performance.now() - started;
    expect(responses.tools).toHaveLength(10_004);
    expect(responses.tools.at(-1)).toEqual({ type: 'tool_search' });
    for (const tool of responses.tools.slice(0, -1)) {
      expect(tool).toMatchObject({ defer_loading: true, strict: true });
      expect((tool as { name: string }).name).toMatch(OPENAI_NAME);
    }
    expect(elapsedMs).toBeLessThan(20_000);
    const anthropic = await agentTools(exec, { format: 'anthropic', deferLoading: true, query: 'invoice', limit: 5 });
    expect(anthropic.tools.at(-1)).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    const chat = await agentTools(exec, { format: 'openai-chat', deferLoading: true, query: 'invoice', limit: 5 });
    expect(chat.tools).toHaveLength(5);
    expect(chat.warnings.map((warning) => warning.feature)).toEqual(['defer_loading']);
  });
});

describe('agentTools: Gemini schema forms', () => {
  it("geminiSchema: 'openapi' sends parameters / response (the SDK's Schema) and runs calls as the JSON Schema form does", async () => {
    const exec = execWith([
      {
        tool: {
          namespace: 'geo',
          name: 'near',
          description: 'Places near a point.',
          inputSchema: {
            type: 'object',
            properties: { lat: { type: 'number' }, 'max-km': { type: ['integer', 'null'] } },
            required: ['lat'],
          },
          outputSchema: { type: 'object', properties: { places: { type: 'array', items: { type: 'string' } } } },
        },
        handler: (args) => ({ places: [JSON.stringify(args)] }),
      },
    ]);
    try {
      const openapi = await agentTools(exec, { format: 'gemini', geminiSchema: 'openapi' });
      const declaration: FunctionDeclaration = openapi.tools[0]!;
      expect(declaration).toEqual({
        name: 'geo--near',
        description: 'Places near a point.',
        parameters: {
          type: 'OBJECT',
          properties: { lat: { type: 'NUMBER' }, max_km: { type: 'INTEGER', nullable: true } },
          required: ['lat'],
          propertyOrdering: ['lat', 'max_km'],
        },
        response: { type: 'OBJECT', properties: { places: { type: 'ARRAY', items: { type: 'STRING' } } } },
      });
      const part = await openapi.call('geo--near', { lat: 1, max_km: 5 }, { callId: 'g1' });
      expect(part.functionResponse).toEqual({ id: 'g1', name: 'geo--near', response: { output: { places: ['{"lat":1,"max-km":5}'] } } });
      const json = await agentTools(exec, { format: 'gemini' });
      expect(Object.keys(json.tools[0]!).sort()).toEqual(['description', 'name', 'parametersJsonSchema', 'responseJsonSchema']);
      await expect(agentTools(exec, { format: 'gemini', geminiSchema: 'yaml' as never })).rejects.toMatchObject({
        code: 'CONFIGURATION',
      });
    } finally {
      await exec.close();
    }
  });
});
