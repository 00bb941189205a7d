/**
 * `fromProviderTool` compiles the schemas it reads with the facade's validator: a schema that does
 * not compile is refused at once (`INVALID_SCHEMA`, the code the facade gives it on a call), naming
 * where it sits in the provider's object, instead of a tool whose every call fails — wherever the
 * schema is broken, its root included; `INVALID_ARGUMENT` is left for the provider's object itself.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { Type, type FunctionDeclaration } from '@google/genai';
import type { Tool as McpSdkTool } from '@modelcontextprotocol/sdk/types.js';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { FunctionTool } from 'openai/resources/responses/responses';
import type { FunctionDefinition } from 'openai/resources/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { fromProviderTool, type ProviderFormat } from '../../src/agent/index.js';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { ToolexecError, createSchemaValidator } from '../../src/model/index.js';

const NULL_DESCRIPTION = { type: 'object' as const, properties: { a: { description: null } } };
const MISSPELLED_TYPE = { type: 'object', properties: { unit: { type: 'strng' } } };

/** Each format's tool with a schema that does not compile, where it sits, and what the validator says. */
const CASES: { format: ProviderFormat; tool: unknown; pointer: string; reason: string }[] = [
  {
    format: 'openai-chat',
    tool: { type: 'function', function: { name: 'get_weather', parameters: NULL_DESCRIPTION } } satisfies ChatCompletionTool,
    pointer: '/function/parameters',
    reason: '/properties/a/description must be string',
  },
  {
    format: 'openai-chat',
    tool: { name: 'get_weather', parameters: MISSPELLED_TYPE } satisfies FunctionDefinition,
    pointer: '/parameters',
    reason: '/properties/unit/type must be equal to one of the allowed values',
  },
  {
    format: 'openai-responses',
    tool: { type: 'function', name: 'get_weather', parameters: MISSPELLED_TYPE, strict: null } satisfies FunctionTool,
    pointer: '/parameters',
    reason: '/properties/unit/type',
  },
  {
    format: 'openai-responses',
    tool: {
      type: 'function',
      name: 'get_weather',
      parameters: { type: 'object' },
      strict: null,
      output_schema: { type: 'object', properties: { t: { minLength: -1 } } },
    } satisfies FunctionTool,
    pointer: '/output_schema',
    reason: '/properties/t/minLength must be >= 0',
  },
  {
    format: 'anthropic',
    tool: { name: 'get_weather', input_schema: NULL_DESCRIPTION as Anthropic.Tool.InputSchema } satisfies Anthropic.Tool,
    pointer: '/input_schema',
    reason: '/properties/a/description must be string',
  },
  {
    format: 'gemini',
    tool: { name: 'get_weather', parametersJsonSchema: MISSPELLED_TYPE } satisfies FunctionDeclaration,
    pointer: '/parametersJsonSchema',
    reason: '/properties/unit/type',
  },
  {
    format: 'gemini',
    tool: {
      name: 'get_weather',
      parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING, pattern: '(' } } },
    } satisfies FunctionDeclaration,
    pointer: '/parameters',
    reason: 'Invalid regular expression',
  },
  {
    format: 'gemini',
    tool: { name: 'get_weather', responseJsonSchema: { type: 'object', required: 'temp' } } satisfies FunctionDeclaration,
    pointer: '/responseJsonSchema',
    reason: '/required must be array',
  },
  {
    format: 'mcp',
    tool: {
      name: 'get_weather',
      inputSchema: { type: 'object', properties: { city: { $ref: '#/$defs/City' } } },
    } satisfies McpSdkTool,
    pointer: '/inputSchema',
    reason: 'cannot resolve $ref #/$defs/City',
  },
  {
    format: 'mcp',
    tool: {
      name: 'get_weather',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { t: { type: 'strng' } } },
    } satisfies McpSdkTool,
    pointer: '/outputSchema',
    reason: '/properties/t/type',
  },
];

const open: DefaultExec[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

describe('fromProviderTool refuses a schema that does not compile', () => {
  it.each(CASES.map((c) => [`${c.format} ${c.pointer}`, c] as const))('%s', (_label, { format, tool, pointer, reason }) => {
    let thrown: unknown;
    try {
      fromProviderTool(tool, format);
    } catch (err) {
      thrown = err;
    }
    expect(ToolexecError.isInstance(thrown), 'refused').toBe(true);
    const err = thrown as ToolexecError;
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toContain(`providerTool's schema at ${pointer} does not compile: `);
    expect(err.message).toContain(reason);
    expect(err.details).toMatchObject({ format, pointer });
  });

  it('with the code the facade gives the same schema (when made, for its own tools)', () => {
    const onCall = (() => {
      try {
        return createExec({ tools: [{ tool: { name: 'get_weather', inputSchema: NULL_DESCRIPTION }, handler: () => 'sunny' }] });
      } catch (err) {
        return err;
      }
    })();
    expect((onCall as ToolexecError).code).toBe('INVALID_SCHEMA');
    const upFront = (() => {
      try {
        return fromProviderTool({ name: 'get_weather', input_schema: NULL_DESCRIPTION }, 'anthropic');
      } catch (err) {
        return err;
      }
    })();
    expect((upFront as ToolexecError).code).toBe((onCall as ToolexecError).code);
  });

  it('schemas that compile still convert: a draft-07 MCP schema keeps its $schema, nullable strict properties stay', () => {
    const mcp = fromProviderTool(
      {
        name: 'get_weather',
        inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { city: { type: 'string' } } },
      },
      'mcp',
    );
    expect(mcp.tool.inputSchema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const strict = fromProviderTool(
      {
        type: 'function',
        name: 'get_weather',
        strict: true,
        parameters: { type: 'object', properties: { unit: { type: ['string', 'null'] } }, required: ['unit'], additionalProperties: false },
      } satisfies FunctionTool,
      'openai-responses',
    );
    expect(strict.tool.inputSchema.properties).toEqual({ unit: { type: ['string', 'null'] } });
  });
});

/** A schema broken at its root, and the same mistake one level down. */
const ROOT_BROKEN = { type: 'strng' };
const NESTED_BROKEN = { type: 'object' as const, properties: { unit: { type: 'strng' } } };

/** Each format's function tool with `schema` as its argument schema, and where that sits. */
const ARGUMENT_SLOTS: { label: string; format: ProviderFormat; pointer: string; tool: (schema: Record<string, unknown>) => unknown }[] = [
  {
    label: 'openai-chat tool',
    format: 'openai-chat',
    pointer: '/function/parameters',
    tool: (parameters) => ({ type: 'function', function: { name: 'get_weather', parameters } }) satisfies ChatCompletionTool,
  },
  {
    label: 'openai-chat function definition',
    format: 'openai-chat',
    pointer: '/parameters',
    tool: (parameters) => ({ name: 'get_weather', parameters }) satisfies FunctionDefinition,
  },
  {
    label: 'openai-responses',
    format: 'openai-responses',
    pointer: '/parameters',
    tool: (parameters) => ({ type: 'function', name: 'get_weather', parameters, strict: false }) satisfies FunctionTool,
  },
  {
    label: 'anthropic',
    format: 'anthropic',
    pointer: '/input_schema',
    tool: (schema) => ({ name: 'get_weather', input_schema: schema as Anthropic.Tool.InputSchema }) satisfies Anthropic.Tool,
  },
  {
    label: 'gemini JSON Schema',
    format: 'gemini',
    pointer: '/parametersJsonSchema',
    tool: (parametersJsonSchema) => ({ name: 'get_weather', parametersJsonSchema }) satisfies FunctionDeclaration,
  },
  {
    label: 'gemini OpenAPI',
    format: 'gemini',
    pointer: '/parameters',
    tool: (parameters) => ({ name: 'get_weather', parameters }) satisfies FunctionDeclaration,
  },
  {
    label: 'mcp',
    format: 'mcp',
    pointer: '/inputSchema',
    tool: (inputSchema) => ({ name: 'get_weather', inputSchema: inputSchema as McpSdkTool['inputSchema'] }) satisfies McpSdkTool,
  },
];

/** What `fromProviderTool` threw (undefined when it converted). */
function refusal(tool: unknown, format: ProviderFormat): ToolexecError | undefined {
  try {
    fromProviderTool(tool, format);
  } catch (err) {
    expect(ToolexecError.isInstance(err), 'a library error').toBe(true);
    return err as ToolexecError;
  }
  return undefined;
}

describe('fromProviderTool: one code for a broken schema, at its root or further down', () => {
  it.each(ARGUMENT_SLOTS.map((s) => [s.label, s] as const))('%s', (_label, { format, pointer, tool }) => {
    const root = refusal(tool(ROOT_BROKEN), format);
    const nested = refusal(tool(NESTED_BROKEN), format);
    // before: the root case was INVALID_ARGUMENT ("does not make a valid tool: ... got type \"strng\"")
    expect(root?.code).toBe('INVALID_SCHEMA');
    expect(nested?.code).toBe('INVALID_SCHEMA');
    for (const [err, inner] of [
      [root, '/type'],
      [nested, '/properties/unit/type'],
    ] as const) {
      expect(err?.message).toContain(`providerTool's schema at ${pointer} does not compile: schema is invalid: ${inner} must be`);
      expect(err?.details).toMatchObject({ format, pointer, reason: expect.stringContaining(`${inner} must be`) });
    }
  });

  it("the validator's code for both, which the facade gives a nested one when made", () => {
    const validator = createSchemaValidator();
    for (const schema of [ROOT_BROKEN, NESTED_BROKEN]) {
      const compiled = (() => {
        try {
          return validator.compile(schema);
        } catch (err) {
          return err;
        }
      })();
      expect((compiled as ToolexecError).code).toBe(refusal({ name: 'get_weather', input_schema: schema }, 'anthropic')?.code);
    }
    expect(() => createExec({ tools: [{ tool: { name: 'get_weather', inputSchema: NESTED_BROKEN }, handler: () => 'sunny' }] })).toThrow(
      expect.objectContaining({ code: 'INVALID_SCHEMA' }),
    );
  });

  it('a Gemini OpenAPI bound that is no number is INVALID_SCHEMA, as the same bound in JSON Schema', () => {
    const openApi = refusal(
      {
        name: 'get_weather',
        parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING, maxLength: 'five' } } },
      } satisfies FunctionDeclaration,
      'gemini',
    );
    const jsonSchema = refusal(
      { name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string', maxLength: 'five' } } } },
      'gemini',
    );
    // before: INVALID_ARGUMENT with details.pointer /parameters/properties/city/maxLength
    expect(openApi).toMatchObject({ code: 'INVALID_SCHEMA', details: { format: 'gemini', pointer: '/parameters' } });
    expect(openApi?.message).toContain(
      `providerTool's schema at /parameters does not compile: maxLength "five" at /properties/city/maxLength is not a non-negative integer`,
    );
    expect(jsonSchema).toMatchObject({ code: openApi?.code, details: { pointer: '/parametersJsonSchema' } });
  });

  it.each(ARGUMENT_SLOTS.map((s) => [s.label, s] as const))(
    '%s: a valid schema that describes no object stays INVALID_ARGUMENT (the model refuses the tool)',
    (_label, { format, tool }) => {
      const err = refusal(tool({ type: 'string' }), format);
      expect(err?.code).toBe('INVALID_ARGUMENT');
      expect(err?.message).toContain('does not make a valid tool: invalid tool: inputSchema of tool "get_weather" must describe an object');
      expect((err?.cause as ToolexecError | undefined)?.code).toBe('INVALID_TOOL');
    },
  );

  it('a result schema that is no JSON object is refused like such an argument schema, not dropped unsaid', () => {
    const cases: [ProviderFormat, unknown][] = [
      [
        'openai-responses',
        {
          type: 'function',
          name: 'get_weather',
          parameters: { type: 'object' },
          strict: false,
          output_schema: 42 as unknown as FunctionTool['output_schema'],
        } satisfies FunctionTool,
      ],
      ['gemini', { name: 'get_weather', responseJsonSchema: 'temperature' } satisfies FunctionDeclaration],
      [
        'mcp',
        {
          name: 'get_weather',
          inputSchema: { type: 'object' },
          outputSchema: [] as unknown as McpSdkTool['outputSchema'],
        } satisfies McpSdkTool,
      ],
    ];
    for (const [format, tool] of cases) {
      // before: converted, the result schema silently gone
      expect(refusal(tool, format)).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(refusal(tool, format)?.message).toContain(`has a result schema that is not a JSON object (${format} tool "get_weather")`);
    }
  });
});
