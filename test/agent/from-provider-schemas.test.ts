/**
 * `fromProviderTool` compiles the schemas it reads with the facade's validator: a schema that does
 * not compile is refused at once (`INVALID_SCHEMA`, the code the facade gives it on a call), naming
 * where it sits in the provider's object, instead of a tool whose every call fails.
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
import { ToolexecError } from '../../src/model/index.js';

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

  it('with the code the facade gives the same schema on a call', async () => {
    const exec = createExec({ tools: [{ tool: { name: 'get_weather', inputSchema: NULL_DESCRIPTION }, handler: () => 'sunny' }] });
    open.push(exec);
    const onCall = await exec.runTool('get_weather', {}).catch((e: unknown) => e);
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
