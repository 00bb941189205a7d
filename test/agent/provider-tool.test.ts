import { describe, expect, it } from 'vitest';
import { ToolexecError, toolId, type Tool } from '../../src/model/index.js';
import { PROVIDER_FORMATS, fromProviderTool, toProviderTool, type AdapterWarning } from '../../src/agent/index.js';
import { GEMINI_NAME, MCP_NAME, OPENAI_NAME, expectStrictSchema } from './provider-rules.js';

const RICH: Tool = {
  name: 'create_issue',
  namespace: 'github',
  version: '2.1.0',
  title: 'Create an issue',
  description: 'Creates an issue in a repository.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 256, pattern: '^\\S' },
      body: { type: 'string', default: '' },
      labels: { type: 'array', items: { type: 'string' }, uniqueItems: true, minItems: 2 },
      priority: { type: 'integer', minimum: 1, maximum: 5, multipleOf: 1 },
      kind: { const: 'bug' },
      assignee: { $ref: '#/$defs/user' },
      target: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    },
    required: ['title'],
    additionalProperties: false,
    $defs: { user: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] } },
  },
  outputSchema: { type: 'object', properties: { number: { type: 'integer' } } },
  annotations: { destructiveHint: false },
  tags: ['github'],
};

const RECURSIVE: Tool = {
  name: 'tree',
  inputSchema: {
    type: 'object',
    properties: { root: { $ref: '#/$defs/node' } },
    required: ['root'],
    $defs: {
      node: { type: 'object', properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } },
    },
  },
};

const OPEN: Tool = {
  name: 'put',
  namespace: 'kv',
  inputSchema: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'object' } }, required: ['key'] },
};

function features(warnings: readonly AdapterWarning[]): string[] {
  return warnings.map((warning) => `${warning.feature} ${warning.pointer}`);
}

describe('toProviderTool', () => {
  it('names every format legally, and each format has its shape', () => {
    const name = 'github--create_issue--2-d1-d0';
    const chat = toProviderTool(RICH, 'openai-chat').tool as { type: string; function: { name: string; strict: boolean } };
    expect(chat.type).toBe('function');
    expect(chat.function.name).toBe(name);
    expect(chat.function.strict).toBe(false);
    const responses = toProviderTool(RICH, 'openai-responses').tool as Record<string, unknown>;
    expect(responses).toMatchObject({ type: 'function', name, strict: false, output_schema: RICH.outputSchema });
    expect(toProviderTool(RICH, 'anthropic').tool).toMatchObject({ name, description: 'Creates an issue in a repository.' });
    expect(toProviderTool(RICH, 'gemini').tool).toMatchObject({ name, responseJsonSchema: RICH.outputSchema });
    expect(toProviderTool(RICH, 'mcp').tool).toMatchObject({ name, title: 'Create an issue', annotations: { destructiveHint: false } });
    for (const format of PROVIDER_FORMATS) {
      const tool = toProviderTool(RICH, format).tool as { name?: string; function?: { name: string } };
      const emitted = tool.name ?? tool.function?.name ?? '';
      expect(emitted).toMatch(OPENAI_NAME);
      expect(emitted).toMatch(GEMINI_NAME);
      expect(emitted).toMatch(MCP_NAME);
    }
  });

  it('removes $schema for providers and keeps it for MCP; keeps $ref where the provider resolves it', () => {
    const chat = toProviderTool(RICH, 'openai-chat').tool as { function: { parameters: Record<string, unknown> } };
    const { $schema: _dialect, ...withoutDialect } = RICH.inputSchema;
    expect(chat.function.parameters).toEqual(withoutDialect);
    expect((toProviderTool(RICH, 'mcp').tool as Tool).inputSchema).toEqual(RICH.inputSchema);
    expect((toProviderTool(RICH, 'anthropic').tool as { input_schema: unknown }).input_schema).toEqual(withoutDialect);
  });

  it('names each tool field a provider lacks, with its pointer', () => {
    expect(features(toProviderTool(RICH, 'openai-chat').warnings)).toEqual([
      'title /title',
      'outputSchema /outputSchema',
      'annotations /annotations',
    ]);
    expect(features(toProviderTool(RICH, 'openai-responses').warnings)).toEqual(['title /title', 'annotations /annotations']);
    expect(features(toProviderTool(RICH, 'mcp').warnings)).toEqual([]);
    const [first] = toProviderTool(RICH, 'openai-chat').warnings;
    expect(first).toEqual({
      format: 'openai-chat',
      feature: 'title',
      pointer: '/title',
      message: 'feature "title" lost converting to openai-chat at /title',
    });
  });

  it('OpenAI strict: closes every object, requires every property, makes optional ones nullable, drops what strict lacks', () => {
    const { tool, warnings } = toProviderTool(RICH, 'openai-chat', { strict: true });
    const fn = (tool as { function: { parameters: Record<string, unknown>; strict: boolean } }).function;
    expect(fn.strict).toBe(true);
    expectStrictSchema(fn.parameters, 'openai');
    const properties = fn.parameters.properties as Record<string, Record<string, unknown>>;
    expect(properties.title).toEqual({ type: 'string', pattern: '^\\S' });
    expect(properties.body).toEqual({ type: ['string', 'null'] });
    expect(properties.assignee).toEqual({ anyOf: [{ $ref: '#/$defs/user' }, { type: 'null' }] });
    expect(properties.target).toEqual({ anyOf: [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, { type: 'null' }] });
    expect(features(warnings)).toEqual(
      expect.arrayContaining([
        'minLength /inputSchema/properties/title/minLength',
        'maxLength /inputSchema/properties/title/maxLength',
        'default /inputSchema/properties/body/default',
        'uniqueItems /inputSchema/properties/labels/uniqueItems',
        'oneOf /inputSchema/properties/target/oneOf',
      ]),
    );
    expect(features(warnings)).not.toContain('multipleOf /inputSchema/properties/priority/multipleOf');
  });

  it('reports a schema that cannot be strict and sends it as it is', () => {
    for (const format of ['openai-chat', 'openai-responses', 'anthropic'] as const) {
      const { tool, warnings } = toProviderTool(OPEN, format, { strict: true });
      expect(JSON.stringify(tool)).not.toMatch(/"strict":true/u);
      expect(warnings).toEqual([
        {
          format,
          feature: 'strict',
          pointer: '/inputSchema/properties/value',
          message: `feature "strict" lost converting to ${format} at /inputSchema/properties/value: a free-form object (no properties listed); the tool is sent without strict mode`,
        },
      ]);
    }
    const open = { ...OPEN, inputSchema: { type: 'object' as const, properties: { key: { type: 'string' } }, additionalProperties: true } };
    expect(features(toProviderTool(open, 'openai-responses', { strict: true }).warnings)).toEqual([
      'strict /inputSchema/additionalProperties',
    ]);
  });

  it('Anthropic strict: its own subset, and recursive schemas refused (OpenAI strict takes them)', () => {
    const { tool, warnings } = toProviderTool(RICH, 'anthropic', { strict: true });
    expect((tool as { strict?: boolean }).strict).toBe(true);
    expectStrictSchema((tool as { input_schema: unknown }).input_schema, 'anthropic');
    expect(features(warnings)).toEqual(
      expect.arrayContaining([
        'minimum /inputSchema/properties/priority/minimum',
        'multipleOf /inputSchema/properties/priority/multipleOf',
        'minItems /inputSchema/properties/labels/minItems',
      ]),
    );
    const recursive = toProviderTool(RECURSIVE, 'anthropic', { strict: true });
    expect((recursive.tool as { strict?: boolean }).strict).toBeUndefined();
    expect(features(recursive.warnings)).toContain('strict /inputSchema');
    const openai = toProviderTool(RECURSIVE, 'openai-responses', { strict: true });
    expect((openai.tool as { strict: boolean }).strict).toBe(true);
    expectStrictSchema((openai.tool as { parameters: unknown }).parameters, 'openai');
  });

  it('Anthropic: a root of alternatives becomes one object', () => {
    const tool: Tool = {
      name: 'either',
      inputSchema: {
        type: 'object',
        anyOf: [
          { properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'string' } }, required: ['b'] },
        ],
      },
    };
    const converted = toProviderTool(tool, 'anthropic');
    expect((converted.tool as { input_schema: unknown }).input_schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
    });
    expect(features(converted.warnings)).toEqual(['anyOf /inputSchema/anyOf']);
  });

  it('Gemini (JSON Schema): const as enum, oneOf as anyOf, argument order kept, the rest reported', () => {
    const { tool, warnings } = toProviderTool(RICH, 'gemini');
    const parameters = (tool as { parametersJsonSchema: Record<string, unknown> }).parametersJsonSchema;
    const properties = parameters.properties as Record<string, Record<string, unknown>>;
    expect(properties.kind).toEqual({ enum: ['bug'] });
    expect(properties.target).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer' }] });
    expect(properties.assignee).toEqual({ $ref: '#/$defs/user' });
    expect(parameters.propertyOrdering).toEqual(['title', 'body', 'labels', 'priority', 'kind', 'assignee', 'target']);
    expect(features(warnings)).toEqual([
      'title /title',
      'annotations /annotations',
      'uniqueItems /inputSchema/properties/labels/uniqueItems',
      'multipleOf /inputSchema/properties/priority/multipleOf',
      'oneOf /inputSchema/properties/target/oneOf',
    ]);
  });

  it('Gemini (OpenAPI): references inlined, capital types, nullable; cycles refused with INVALID_SCHEMA', () => {
    const { tool } = toProviderTool(RICH, 'gemini', { geminiSchema: 'openapi' });
    const parameters = (tool as { parameters: Record<string, unknown> }).parameters;
    expect(parameters).not.toHaveProperty('$defs');
    expect((parameters.properties as Record<string, unknown>).assignee).toEqual({
      type: 'OBJECT',
      properties: { login: { type: 'STRING' } },
      required: ['login'],
    });
    expect(parameters.type).toBe('OBJECT');
    const nullable: Tool = { name: 'n', inputSchema: { type: 'object', properties: { x: { type: ['string', 'null'] } } } };
    expect((toProviderTool(nullable, 'gemini', { geminiSchema: 'openapi' }).tool as { parameters: unknown }).parameters).toEqual({
      type: 'OBJECT',
      properties: { x: { type: 'STRING', nullable: true } },
    });
    let error: unknown;
    try {
      toProviderTool(RECURSIVE, 'gemini', { geminiSchema: 'openapi' });
    } catch (err) {
      error = err;
    }
    expect(ToolexecError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INVALID_SCHEMA', details: { ref: '#/$defs/node', format: 'gemini' } });
    expect((error as Error).message).toMatch(/schema of tool "tree" is recursive/u);
  });

  it('inlines references on request, and marks deferred tools where the provider has them', () => {
    const chat = toProviderTool(RICH, 'openai-chat', { inlineRefs: true }).tool as { function: { parameters: Record<string, unknown> } };
    expect(JSON.stringify(chat.function.parameters)).not.toMatch(/\$ref|\$defs/u);
    expect(toProviderTool(RICH, 'openai-responses', { deferLoading: true }).tool).toMatchObject({ defer_loading: true });
    expect(toProviderTool(RICH, 'anthropic', { deferLoading: true }).tool).toMatchObject({ defer_loading: true });
    expect(features(toProviderTool(RICH, 'openai-chat', { deferLoading: true }).warnings)).toContain('defer_loading ');
  });

  it('refuses bad input with ToolexecErrors', () => {
    expect(() => toProviderTool(RICH, 'cohere' as 'mcp')).toThrow(/format must be one of openai-chat/u);
    expect(() => toProviderTool(RICH, 'gemini', { strict: 'yes' as unknown as boolean })).toThrow(/option strict must be a boolean/u);
    expect(() => toProviderTool(null as unknown as Tool, 'mcp')).toThrow(/tool must be a tool with a name/u);
  });
});

describe('fromProviderTool', () => {
  it('brings every format back to the same tool ID and schema', () => {
    for (const format of PROVIDER_FORMATS) {
      const { tool } = fromProviderTool(toProviderTool(RICH, format).tool, format);
      expect(toolId(tool), format).toBe('github:create_issue:2.1.0');
      expect(tool.description).toBe(RICH.description);
    }
    const { $schema: _dialect, ...schema } = RICH.inputSchema;
    expect(fromProviderTool(toProviderTool(RICH, 'openai-chat').tool, 'openai-chat').tool.inputSchema).toEqual(schema);
    expect(fromProviderTool(toProviderTool(RICH, 'mcp').tool, 'mcp').tool).toMatchObject({
      inputSchema: RICH.inputSchema,
      title: RICH.title,
    });
    expect(fromProviderTool(toProviderTool(RICH, 'openai-responses').tool, 'openai-responses').tool.outputSchema).toEqual(
      RICH.outputSchema,
    );
  });

  it("reads Gemini's OpenAPI parameters as JSON Schema", () => {
    const { tool } = fromProviderTool(
      {
        name: 'weather',
        parameters: { type: 'OBJECT', properties: { city: { type: 'STRING', nullable: true, example: 'Oslo' } }, required: ['city'] },
      },
      'gemini',
    );
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { city: { type: ['string', 'null'], examples: ['Oslo'] } },
      required: ['city'],
    });
  });

  it('keeps foreign names as they are, and reports provider fields a tool cannot hold', () => {
    const { tool, warnings } = fromProviderTool(
      { name: 'get_weather', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' }, defer_loading: true },
      'anthropic',
    );
    expect(tool).toEqual({ name: 'get_weather', inputSchema: { type: 'object' } });
    expect(features(warnings)).toEqual(['cache_control /cache_control', 'defer_loading /defer_loading']);
    expect(fromProviderTool({ type: 'function', function: { name: 'f' } }, 'openai-chat').tool.inputSchema).toEqual({ type: 'object' });
    expect(() => fromProviderTool('f', 'openai-chat')).toThrow(/providerTool must be a openai-chat tool object/u);
    expect(() => fromProviderTool({ name: 'a b', parameters: {} }, 'openai-responses')).toThrow(/does not make a valid tool/u);
  });
});
