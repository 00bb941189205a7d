import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import type { FunctionDeclaration } from '@google/genai';
import { ToolSchema as McpToolSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolexecError, toMcpTool, toolId, type Tool } from '../../src/model/index.js';
import { createExec } from '../../src/exec/index.js';
import {
  PROVIDER_FORMATS,
  encodeToolName,
  fromProviderTool,
  restorePropertyKeys,
  toProviderTool,
  type AdapterWarning,
  type ProviderFormat,
} from '../../src/agent/index.js';
import {
  ANTHROPIC_PROPERTY_KEY,
  GEMINI_NAME,
  GEMINI_PROPERTY_KEY,
  MCP_NAME,
  OPENAI_NAME,
  expectOpenAIPlainSchema,
  expectPropertyKeys,
  expectStrictSchema,
} from './provider-rules.js';

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

/** The argument schema of a converted tool, whatever its format. */
function schemaOf(converted: unknown): Record<string, unknown> {
  const tool = converted as {
    function?: { parameters: Record<string, unknown> };
    parameters?: Record<string, unknown>;
    input_schema?: Record<string, unknown>;
    parametersJsonSchema?: Record<string, unknown>;
    inputSchema?: Record<string, unknown>;
  };
  return (tool.function?.parameters ?? tool.parameters ?? tool.input_schema ?? tool.parametersJsonSchema ?? tool.inputSchema) as Record<
    string,
    unknown
  >;
}

/** Whether a converted tool went out in strict mode. */
function isStrict(converted: unknown): boolean {
  const tool = converted as { strict?: unknown; function?: { strict?: unknown } };
  return tool.strict === true || tool.function?.strict === true;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
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

  it("Gemini (OpenAPI): boolean subschemas, which the SDK's Schema has none of, as {} or left out, each with a warning; JSON Schema keeps them", () => {
    const tool: Tool = {
      name: 't',
      inputSchema: {
        type: 'object',
        properties: {
          anything: true,
          never: false,
          s: { type: 'string' },
          list: { type: 'array', items: true },
          empty: { type: 'array', items: false },
          either: { anyOf: [true, false, { type: 'string' }] },
          ref: { $ref: '#/$defs/any' },
        },
        required: ['never', 's'],
        $defs: { any: true },
      } as unknown as Tool['inputSchema'],
    };
    const { tool: converted, warnings } = toProviderTool(tool, 'gemini', { geminiSchema: 'openapi' });
    // what the SDK's Schema types (properties: Record<string, Schema>): no boolean anywhere
    const declaration = converted as FunctionDeclaration;
    expect(declaration.parameters).toEqual({
      type: 'OBJECT',
      properties: {
        anything: {},
        s: { type: 'STRING' },
        list: { type: 'ARRAY', items: {} },
        empty: { type: 'ARRAY', maxItems: 0 },
        either: { anyOf: [{}, { type: 'STRING' }] },
        ref: {},
      },
      required: ['s'],
      propertyOrdering: ['anything', 's', 'list', 'empty', 'either', 'ref'],
    });
    expect(JSON.stringify(declaration.parameters)).not.toMatch(/:(true|false)[,}\]]/u);
    expect(features(warnings)).toEqual([
      'boolean schema /inputSchema/properties/anything',
      'boolean schema /inputSchema/properties/never',
      'boolean schema /inputSchema/properties/ref',
      'boolean schema /inputSchema/properties/list/items',
      'boolean schema /inputSchema/properties/empty/items',
      'boolean schema /inputSchema/properties/either/anyOf/0',
      'boolean schema /inputSchema/properties/either/anyOf/1',
    ]);
    expect(warnings.map((warning) => warning.message).slice(0, 2)).toEqual([
      'feature "boolean schema" changed converting to gemini at /inputSchema/properties/anything: the OpenAPI schema has no boolean subschemas; true sent as {} (any value)',
      'feature "boolean schema" lost converting to gemini at /inputSchema/properties/never: the OpenAPI schema has no boolean subschemas; the property is never allowed (false), so it is left out',
    ]);
    // read back, it is a schema the validator compiles, taking what the tool took
    const back = fromProviderTool(declaration, 'gemini').tool;
    expect(back.inputSchema).toMatchObject({ properties: { anything: {}, list: { items: {} } }, required: ['s'] });
    // JSON Schema has boolean subschemas: parametersJsonSchema keeps them, with no warning
    const json = toProviderTool(tool, 'gemini');
    const parameters = (json.tool as { parametersJsonSchema: { properties: Record<string, unknown>; $defs: unknown } })
      .parametersJsonSchema;
    expect(parameters.properties).toMatchObject({ anything: true, never: false, list: { items: true }, empty: { items: false } });
    expect(parameters.$defs).toEqual({ any: true });
    expect(json.warnings).toEqual([]);
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

  it("checks options.name against the format's name rule", () => {
    const refused: [ProviderFormat, string][] = [
      ['openai-chat', 'mcp:github/create issue'],
      ['openai-responses', 'fs.read'],
      ['anthropic', 'x'.repeat(65)],
      ['gemini', '9lives'],
      ['mcp', 'fs:read'],
    ];
    for (const [format, name] of refused) {
      const error = thrown(() => toProviderTool(RICH, format, { name }));
      expect(ToolexecError.isInstance(error), `${format} ${name}`).toBe(true);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { name, format } });
      expect((error as Error).message).toContain(`is not a tool name ${format} takes`);
    }
    const taken: [ProviderFormat, string, RegExp][] = [
      ['openai-chat', 'create_issue', OPENAI_NAME],
      ['anthropic', 'x'.repeat(64), OPENAI_NAME],
      ['gemini', 'github:create_issue.v2', GEMINI_NAME],
      ['mcp', 'github.create_issue', MCP_NAME],
    ];
    for (const [format, name, rule] of taken) {
      const tool = toProviderTool(RICH, format, { name }).tool as { name?: string; function?: { name: string } };
      expect(tool.name ?? tool.function?.name).toBe(name);
      expect(name).toMatch(rule);
    }
  });
});

describe('toProviderTool: OpenAI without strict mode takes what its function validator takes', () => {
  const roots: Tool[] = [
    {
      name: 'either',
      inputSchema: {
        type: 'object',
        oneOf: [{ required: ['a'] }, { required: ['b'] }],
        properties: { a: { type: 'string' }, b: { type: 'string' } },
      },
    },
    {
      name: 'bare',
      inputSchema: {
        anyOf: [
          { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
        ],
      } as unknown as Tool['inputSchema'],
    },
    {
      name: 'both',
      inputSchema: {
        allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { ids: { type: 'array' } } }],
      } as unknown as Tool['inputSchema'],
    },
  ];

  it('makes a root of alternatives, or one without type object, one object, and gives arrays items', () => {
    for (const format of ['openai-chat', 'openai-responses'] as const) {
      for (const tool of roots) expectOpenAIPlainSchema(schemaOf(toProviderTool(tool, format).tool));
      const bare = toProviderTool(roots[1] as Tool, format);
      expect(schemaOf(bare.tool)).toEqual({ type: 'object', properties: { id: { type: 'string' }, email: { type: 'string' } } });
      expect(features(bare.warnings)).toEqual(['anyOf /inputSchema/anyOf']);
      const both = toProviderTool(roots[2] as Tool, format);
      expect(schemaOf(both.tool)).toEqual({
        type: 'object',
        properties: { a: { type: 'string' }, ids: { type: 'array', items: {} } },
        required: ['a'],
      });
      expect(features(both.warnings)).toEqual(['allOf /inputSchema/allOf', 'items /inputSchema/properties/ids/items']);
      expect(both.warnings[1]?.message).toBe(
        `feature "items" changed converting to ${format} at /inputSchema/properties/ids/items: ${format} requires items on every array; sent as items: {} (any value)`,
      );
    }
    // the rich tool already fits: nothing changes
    expectOpenAIPlainSchema(schemaOf(toProviderTool(RICH, 'openai-chat').tool));
  });

  it('strict mode: a subschema without a type or an array without items keeps the tool plain, with a warning', () => {
    const untyped: Tool = {
      name: 'set',
      namespace: 'kv',
      inputSchema: {
        type: 'object',
        properties: { key: { type: 'string' }, value: { description: 'any JSON value' } },
        required: ['key', 'value'],
      },
    };
    const wrapped: Tool = {
      name: 'create',
      namespace: 'pets',
      inputSchema: {
        type: 'object',
        $defs: { Pet: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false } },
        properties: { pet: { allOf: [{ $ref: '#/$defs/Pet' }], description: 'The pet' } },
        required: ['pet'],
      },
    };
    // examples/shared/shop.ts's shop:quote: `previous.items` is any array
    const quote: Tool = {
      name: 'quote',
      namespace: 'shop',
      inputSchema: {
        type: 'object',
        properties: {
          skus: { type: 'array', items: { type: 'string' } },
          previous: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] },
        },
      },
    };
    for (const format of ['openai-chat', 'openai-responses'] as const) {
      const cases: [Tool, string[]][] = [
        [untyped, ['strict /inputSchema/properties/value']],
        [wrapped, ['strict /inputSchema/properties/pet']],
        [
          quote,
          ['strict /inputSchema/properties/previous/properties/items', 'items /inputSchema/properties/previous/properties/items/items'],
        ],
      ];
      for (const [tool, expected] of cases) {
        const { tool: converted, warnings } = toProviderTool(tool, format, { strict: true });
        expect(isStrict(converted), `${format} ${tool.name}`).toBe(false);
        expect(features(warnings)).toEqual(expected);
        expectOpenAIPlainSchema(schemaOf(converted));
      }
    }
    expect(toProviderTool(untyped, 'openai-chat', { strict: true }).warnings[0]?.message).toBe(
      'feature "strict" lost converting to openai-chat at /inputSchema/properties/value: a subschema without a type (any JSON value); the tool is sent without strict mode',
    );
    // the same tools typed: strict
    const typedQuote: Tool = {
      ...quote,
      inputSchema: {
        type: 'object',
        properties: {
          skus: { type: 'array', items: { type: 'string' } },
          previous: {
            type: 'object',
            properties: { items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } } },
            required: ['items'],
          },
        },
      },
    };
    const strict = toProviderTool(typedQuote, 'openai-chat', { strict: true });
    expect(isStrict(strict.tool)).toBe(true);
    expectStrictSchema(schemaOf(strict.tool), 'openai');
  });

  it("Anthropic strict: a subschema without a type keeps the tool plain (the SDK's own transform refuses it); arrays need no items", () => {
    const untyped: Tool = {
      name: 'set',
      inputSchema: { type: 'object', properties: { key: { type: 'string' }, value: { description: 'any JSON value' } }, required: ['key'] },
    };
    expect(() => transformJSONSchema(untyped.inputSchema)).toThrow(/must have a type defined/u);
    const plain = toProviderTool(untyped, 'anthropic', { strict: true });
    expect(isStrict(plain.tool)).toBe(false);
    expect(features(plain.warnings)).toEqual(['strict /inputSchema/properties/value']);
    const list: Tool = { name: 'sum', inputSchema: { type: 'object', properties: { xs: { type: 'array' } }, required: ['xs'] } };
    const strict = toProviderTool(list, 'anthropic', { strict: true });
    expect(isStrict(strict.tool)).toBe(true);
    expect(() => transformJSONSchema(schemaOf(strict.tool))).not.toThrow();
    expectStrictSchema(schemaOf(toProviderTool(RICH, 'anthropic', { strict: true }).tool), 'anthropic');
    expect(() => transformJSONSchema(schemaOf(toProviderTool(RICH, 'anthropic', { strict: true }).tool))).not.toThrow();
  });
});

describe('toProviderTool: MCP always gets an object root', () => {
  it("adds type: 'object' (alternatives stay under it) so the SDK takes the tool, with a warning", () => {
    const bare: Tool = {
      name: 'find',
      namespace: 'u',
      inputSchema: {
        anyOf: [{ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }],
      } as unknown as Tool['inputSchema'],
      outputSchema: { properties: { id: { type: 'string' } } } as unknown as Tool['outputSchema'],
    };
    // what the SDK's client refuses (tools/list fails as a whole)
    expect(McpToolSchema.safeParse({ ...toMcpTool(bare), name: 'u--find' }).success).toBe(false);
    const { tool, warnings } = toProviderTool(bare, 'mcp');
    expect(McpToolSchema.safeParse(tool).success).toBe(true);
    expect((tool as Tool).inputSchema).toEqual({ type: 'object', anyOf: (bare.inputSchema as unknown as { anyOf: unknown }).anyOf });
    expect((tool as Tool).outputSchema).toEqual({ type: 'object', properties: { id: { type: 'string' } } });
    expect(features(warnings)).toEqual(['type /inputSchema/type', 'type /outputSchema/type']);
    expect(warnings[0]?.message).toBe(
      'feature "type" changed converting to mcp at /inputSchema/type: MCP requires type: \'object\' at the root; added',
    );
    const nullable: Tool = {
      name: 'n',
      inputSchema: { type: ['object', 'null'], properties: { flag: true } } as unknown as Tool['inputSchema'],
      outputSchema: { type: 'array', items: { type: 'string' } } as unknown as Tool['outputSchema'],
    };
    const converted = toProviderTool(nullable, 'mcp');
    expect(McpToolSchema.safeParse(converted.tool).success).toBe(true);
    expect((converted.tool as Tool).inputSchema).toEqual({ type: 'object', properties: { flag: {} } });
    expect((converted.tool as Tool).outputSchema).toBeUndefined();
    expect(features(converted.warnings)).toEqual([
      'type /inputSchema/type',
      'properties /inputSchema/properties/flag',
      'outputSchema /outputSchema',
    ]);
    // a tool that already fits is sent as it is
    expect(toProviderTool(RICH, 'mcp').warnings).toEqual([]);
  });
});

describe('toProviderTool: property keys a provider refuses', () => {
  const long = `k${'x'.repeat(69)}`;
  const KEYS: Tool = {
    name: 'list_apps',
    namespace: 'asc',
    inputSchema: {
      type: 'object',
      properties: {
        'filter[bundleId]': { type: 'string' },
        $top: { type: 'integer' },
        'user name': { type: 'string' },
        user_name: { type: 'string' },
        [long]: { type: 'string' },
        'sort.by': { type: 'string' },
        page: {
          type: 'object',
          properties: { 'page-size': { type: 'integer' }, 'x y': { type: 'array', items: { type: 'string' } } },
          required: ['page-size'],
        },
        rows: { type: 'array', items: { $ref: '#/$defs/row' } },
        target: { anyOf: [{ type: 'string' }, { type: 'object', properties: { 'app id': { type: 'string' } }, required: ['app id'] }] },
      },
      required: ['$top', 'user name'],
      $defs: { row: { type: 'object', properties: { 'cell#1': { type: 'string' } } } },
    },
  };
  const ARGS_BY_ORIGINAL_KEY = {
    'filter[bundleId]': 'com.example',
    $top: 5,
    'user name': 'ada',
    user_name: 'lovelace',
    [long]: 'long',
    'sort.by': 'name',
    page: { 'page-size': 10, 'x y': ['a'] },
    rows: [{ 'cell#1': 'c1' }, { 'cell#1': 'c2' }],
    target: { 'app id': 'a1' },
  };

  /** The arguments as a model sends them for each format: under the keys the converted schema shows. */
  const SENT: Record<'anthropic' | 'gemini', Record<string, unknown>> = {
    anthropic: {
      filter_bundleId_: 'com.example',
      _top: 5,
      user_name_7935f4: 'ada',
      user_name: 'lovelace',
      [long.slice(0, 64)]: 'long',
      'sort.by': 'name',
      page: { 'page-size': 10, x_y: ['a'] },
      rows: [{ cell_1: 'c1' }, { cell_1: 'c2' }],
      target: { app_id: 'a1' },
    },
    gemini: {
      filter_bundleId_: 'com.example',
      _top: 5,
      user_name_7935f4: 'ada',
      user_name: 'lovelace',
      [long.slice(0, 64)]: 'long',
      sort_by: 'name',
      page: { page_size: 10, x_y: ['a'] },
      rows: [{ cell_1: 'c1' }, { cell_1: 'c2' }],
      target: { app_id: 'a1' },
    },
  };
  const RENAMED = {
    anthropic: ['filter[bundleId]', '$top', 'user name', long, 'page/properties/x y', 'target/anyOf/1/properties/app id', 'cell#1'],
    gemini: [
      'filter[bundleId]',
      '$top',
      'user name',
      long,
      'sort.by',
      'page/properties/page-size',
      'page/properties/x y',
      'target/anyOf/1/properties/app id',
      'cell#1',
    ],
  };

  it('Anthropic and Gemini get legal keys, a warning naming each; restorePropertyKeys puts them back', () => {
    const cases: ['anthropic' | 'gemini', RegExp, Parameters<typeof toProviderTool>[2]][] = [
      ['anthropic', ANTHROPIC_PROPERTY_KEY, {}],
      ['anthropic', ANTHROPIC_PROPERTY_KEY, { strict: true }],
      ['gemini', GEMINI_PROPERTY_KEY, {}],
      ['gemini', GEMINI_PROPERTY_KEY, { geminiSchema: 'openapi' }],
    ];
    for (const [format, rule, options] of cases) {
      const label = `${format} ${JSON.stringify(options)}`;
      const { tool, warnings } = toProviderTool(KEYS, format, options);
      const schema = schemaOf(tool);
      expectPropertyKeys(schema, rule);
      expect(Object.keys(schema.properties as object), label).toEqual(Object.keys(SENT[format]));
      const pointers = warnings.filter((warning) => warning.feature === 'property name').map((warning) => warning.pointer);
      for (const key of RENAMED[format]) {
        const at = key === 'cell#1' ? '/inputSchema/$defs/row/properties/cell#1' : `/inputSchema/properties/${key}`;
        expect(pointers, label).toContain(at);
      }
      expect(restorePropertyKeys(KEYS.inputSchema, SENT[format], format), label).toEqual(ARGS_BY_ORIGINAL_KEY);
    }
    const anthropic = schemaOf(toProviderTool(KEYS, 'anthropic').tool);
    expect(anthropic.required).toEqual(['_top', 'user_name_7935f4']);
    expect((anthropic.properties as Record<string, { required?: string[] }>).page?.required).toEqual(['page-size']);
    const gemini = toProviderTool(KEYS, 'gemini');
    expect(gemini.warnings.find((warning) => warning.pointer === '/inputSchema/properties/sort.by')?.message).toBe(
      'feature "property name" changed converting to gemini at /inputSchema/properties/sort.by: "sort.by" is sent as "sort_by" (gemini property names are ^[A-Za-z_][A-Za-z0-9_]{0,63}$); agentTools\' call (or restorePropertyKeys) puts the key back',
    );
    expect(schemaOf(gemini.tool).propertyOrdering).toEqual(Object.keys(SENT.gemini));
    expect((schemaOf(gemini.tool).properties as Record<string, { required?: string[] }>).page?.required).toEqual(['page_size']);
    // keys the tool declares win over a renamed key that happens to match; undeclared keys stay
    expect(restorePropertyKeys(KEYS.inputSchema, { user_name: 'x', other: 1, _top: 2, $top: 3 }, 'anthropic')).toEqual({
      user_name: 'x',
      other: 1,
      _top: 2,
      $top: 3,
    });
  });

  it('OpenAI and MCP take any key: sent and read back as they are', () => {
    for (const format of ['openai-chat', 'openai-responses', 'mcp'] as const) {
      const { tool, warnings } = toProviderTool(KEYS, format);
      expect(Object.keys(schemaOf(tool).properties as object)).toEqual(Object.keys(KEYS.inputSchema.properties as object));
      expect(warnings.filter((warning) => warning.feature === 'property name')).toEqual([]);
      expect(restorePropertyKeys(KEYS.inputSchema, ARGS_BY_ORIGINAL_KEY, format)).toBe(ARGS_BY_ORIGINAL_KEY);
    }
  });

  it('round-trips any keys (fast-check): legal once sent, the originals once restored', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 80, unit: 'binary' }), { maxLength: 8 }), (keys) => {
        const properties = Object.fromEntries(keys.map((key) => [key, { type: 'string' }]));
        const tool: Tool = { name: 'gen', inputSchema: { type: 'object', properties } };
        for (const [format, rule] of [
          ['anthropic', ANTHROPIC_PROPERTY_KEY],
          ['gemini', GEMINI_PROPERTY_KEY],
        ] as const) {
          const sent = Object.keys(schemaOf(toProviderTool(tool, format).tool).properties as object);
          expect(sent.length).toBe(keys.length);
          for (const key of sent) expect(key).toMatch(rule);
          const args = Object.fromEntries(sent.map((key, i) => [key, keys[i]]));
          expect(restorePropertyKeys(tool.inputSchema, args, format)).toEqual(Object.fromEntries(keys.map((key) => [key, key])));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('fromProviderTool', () => {
  it('brings every format back to the same tool ID and schema', () => {
    for (const format of PROVIDER_FORMATS) {
      const { tool } = fromProviderTool(toProviderTool(RICH, format).tool, format);
      expect(toolId(tool), format).toBe('github:create_issue:2.1.0');
      expect(tool.description).toBe(RICH.description);
      // decodeName: false keeps the provider name as the tool's name
      expect(fromProviderTool(toProviderTool(RICH, format).tool, format, { decodeName: false }).tool.name).toBe(
        'github--create_issue--2-d1-d0',
      );
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

  it("reads the Gemini SDK's int64 string bounds as numbers, and refuses bounds that are no number", async () => {
    // written with the SDK's own types: maxLength, minItems... are int64 strings there
    const { Type } = await import('@google/genai');
    const declaration: FunctionDeclaration = {
      name: 'lookup',
      parameters: {
        type: Type.OBJECT,
        properties: {
          code: { type: Type.STRING, minLength: '1', maxLength: '5' },
          tags: { type: Type.ARRAY, items: { type: Type.STRING }, minItems: '1', maxItems: '3' },
          extra: {
            type: Type.OBJECT,
            properties: { a: { type: Type.INTEGER, minimum: 0, maximum: 9 } },
            minProperties: '0',
            maxProperties: '2',
          },
        },
        required: ['code'],
      },
      response: { type: Type.OBJECT, properties: { codes: { type: Type.ARRAY, items: { type: Type.STRING }, maxItems: '10' } } },
    };
    const { tool } = fromProviderTool(declaration, 'gemini');
    expect(tool.inputSchema.properties).toEqual({
      code: { type: 'string', minLength: 1, maxLength: 5 },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
      extra: { type: 'object', properties: { a: { type: 'integer', minimum: 0, maximum: 9 } }, minProperties: 0, maxProperties: 2 },
    });
    expect(tool.outputSchema?.properties).toEqual({ codes: { type: 'array', items: { type: 'string' }, maxItems: 10 } });
    // the tool validates with those bounds
    const exec = createExec({ tools: [{ tool, handler: (args) => args }] });
    try {
      await expect(exec.runTool('lookup', { code: 'abc', tags: ['x'] })).resolves.toMatchObject({ value: { code: 'abc' } });
      await expect(exec.runTool('lookup', { code: 'abcdefghij', tags: [] })).rejects.toMatchObject({ code: 'VALIDATION' });
    } finally {
      await exec.close();
    }
    // a JSON text may carry a minimum as a string too
    const fromJson = fromProviderTool(
      { name: 'n', parameters: { type: 'OBJECT', properties: { n: { type: 'NUMBER', minimum: '-1.5' } } } },
      'gemini',
    );
    expect(fromJson.tool.inputSchema.properties).toEqual({ n: { type: 'number', minimum: -1.5 } });
    for (const [bound, value] of [
      ['maxLength', 'five'],
      ['minItems', '-1'],
      ['maxProperties', 1.5],
      ['maximum', 'ten'],
    ] as const) {
      const bad = { name: 'bad', parameters: { type: 'OBJECT', properties: { p: { type: 'STRING', [bound]: value } } } };
      let error: unknown;
      try {
        fromProviderTool(bad, 'gemini');
      } catch (err) {
        error = err;
      }
      expect(ToolexecError.isInstance(error)).toBe(true);
      // a schema that cannot compile, as the same bound in parametersJsonSchema cannot
      expect(error).toMatchObject({ code: 'INVALID_SCHEMA', details: { format: 'gemini', pointer: '/parameters' } });
      expect((error as Error).message).toContain(
        `providerTool's schema at /parameters does not compile: ${bound} ${JSON.stringify(value)} at /properties/p/${bound}`,
      );
    }
  });

  it('keeps foreign names as they are, and reports provider fields a tool cannot hold', () => {
    const { tool, warnings } = fromProviderTool(
      { name: 'get_weather', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' }, defer_loading: true },
      'anthropic',
    );
    expect(tool).toEqual({ name: 'get_weather', inputSchema: { type: 'object' } });
    expect(features(warnings)).toEqual(['cache_control /cache_control', 'defer_loading /defer_loading']);
    expect(fromProviderTool({ type: 'function', function: { name: 'f' } }, 'openai-chat').tool.inputSchema).toEqual({ type: 'object' });
    expect(() => fromProviderTool('f', 'openai-chat')).toThrow(/providerTool must be a tool object of the openai-chat format/u);
    expect(() => fromProviderTool({ name: 'a b', parameters: {} }, 'openai-responses')).toThrow(/does not make a valid tool/u);
  });
});

describe('fromProviderTool: names and tool types', () => {
  const HYPHENATED = ['get-weather', 'web-search', 'search-docs', 'list-tools', 'get-price', 'read-file', 'get-address'];

  /** One function tool named `name` in each format's shape. */
  function shapes(name: string): [ProviderFormat, unknown][] {
    const parameters = { type: 'object', properties: { q: { type: 'string' } } };
    return [
      ['openai-chat', { type: 'function', function: { name, parameters } }],
      ['openai-responses', { type: 'function', name, parameters, strict: false }],
      ['anthropic', { name, input_schema: parameters }],
      ['gemini', { name, parametersJsonSchema: parameters }],
      ['mcp', { name, inputSchema: parameters }],
    ];
  }

  it('keeps an ordinary name as it is, hyphens and all', () => {
    for (const name of HYPHENATED) {
      for (const [format, providerTool] of shapes(name)) {
        const { tool } = fromProviderTool(providerTool, format);
        expect({ name: tool.name, namespace: tool.namespace, version: tool.version }, `${format} ${name}`).toEqual({
          name,
          namespace: undefined,
          version: undefined,
        });
      }
    }
  });

  it('a name with the namespace separator is decoded by default; decodeName: false keeps it, true decodes any name', () => {
    const read = (name: string, decodeName?: boolean) =>
      fromProviderTool({ name, input_schema: { type: 'object' } }, 'anthropic', decodeName === undefined ? {} : { decodeName }).tool;
    expect(read('fs--read_text_file')).toMatchObject({ namespace: 'fs', name: 'read_text_file' });
    expect(read('my_tool--v2')).toMatchObject({ namespace: 'my_tool', name: 'v2' });
    expect(read('my_tool--v2', false)).toEqual({ name: 'my_tool--v2', inputSchema: { type: 'object' } });
    // no separator: kept by default, decoded on request
    expect(read('search-docs')).toEqual({ name: 'search-docs', inputSchema: { type: 'object' } });
    expect(read('search-docs', true)).toMatchObject({ name: 'search.ocs' });
  });

  it('decodes with decodeName when the name is an encoding of a valid tool ID, and keeps it otherwise', () => {
    const decoded = (name: string) => fromProviderTool({ name, input_schema: { type: 'object' } }, 'anthropic', { decodeName: true }).tool;
    expect(decoded('fs--read_text_file')).toMatchObject({ namespace: 'fs', name: 'read_text_file' });
    expect(decoded('math--add--1-d0-d0')).toMatchObject({ namespace: 'math', name: 'add', version: '1.0.0' });
    expect(decoded(encodeToolName('github:create-issue'))).toMatchObject({ namespace: 'github', name: 'create-issue' });
    // "get eather" is no valid tool name; a shortened name has no ID of its own
    expect(decoded('get-weather')).toEqual({ name: 'get-weather', inputSchema: { type: 'object' } });
    const shortened = encodeToolName(`acme:${'x'.repeat(80)}`);
    expect(decoded(shortened).name).toBe(shortened);
    // a Gemini name may hold ':', which a tool name may not: read as a tool ID
    expect(fromProviderTool({ name: 'fs:read' }, 'gemini').tool).toMatchObject({ namespace: 'fs', name: 'read' });
    expect(() => fromProviderTool({ name: 'f' }, 'gemini', { decodeName: 'yes' as unknown as boolean })).toThrow(
      /option decodeName must be a boolean/u,
    );
  });

  it('refuses the tools a provider runs itself, naming their type', () => {
    const refused: [ProviderFormat, unknown, string][] = [
      ['anthropic', { type: 'web_search_20250305', name: 'web_search', max_uses: 3 }, 'web_search_20250305'],
      ['anthropic', { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' }, 'tool_search_tool_bm25_20251119'],
      ['openai-responses', { type: 'web_search' }, 'web_search'],
      ['openai-responses', { type: 'custom', name: 'grammar_tool' }, 'custom'],
      ['openai-chat', { type: 'custom', custom: { name: 'grammar_tool', format: { type: 'text' } } }, 'custom'],
    ];
    for (const [format, providerTool, type] of refused) {
      const error = thrown(() => fromProviderTool(providerTool, format));
      expect(ToolexecError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { format, type } });
      expect((error as Error).message).toContain(`has type "${type}": only`);
    }
    expect(() => fromProviderTool({ functionDeclarations: [{ name: 'f' }] }, 'gemini')).toThrow(
      /is a Gemini Tool \(functionDeclarations\), not a function declaration: convert each of its functionDeclarations/u,
    );
    expect(() => fromProviderTool({ googleSearch: {} }, 'gemini')).toThrow(/Gemini runs that tool itself/u);
    // the function tools of each format still convert
    expect(fromProviderTool({ type: 'custom', name: 'get_weather', input_schema: { type: 'object' } }, 'anthropic').tool.name).toBe(
      'get_weather',
    );
    expect(fromProviderTool({ name: 'f', parameters: { type: 'object' } }, 'openai-chat').tool.name).toBe('f');
  });
});
