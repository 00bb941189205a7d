import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../src/model/index.js';
import { createExec, type DefaultExec, type LocalToolDefinition } from '../../src/exec/index.js';
import { agentTools, toProviderTool, type AnthropicTool, type OpenAIChatTool } from '../../src/agent/index.js';
import { expectStrictSchema } from './provider-rules.js';

const open: DefaultExec[] = [];
function execWith(tools: LocalToolDefinition[]): DefaultExec {
  const exec = createExec({ tools });
  open.push(exec);
  return exec;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

/** The schema each format sends, and whether it is strict. */
function sent(tool: Tool, format: 'openai-chat' | 'anthropic', strict: boolean) {
  const { tool: converted, warnings } = toProviderTool(tool, format, { strict });
  if (format === 'openai-chat') {
    const fn = (converted as OpenAIChatTool).function;
    return { schema: fn.parameters as Record<string, unknown>, strict: fn.strict === true, warnings };
  }
  const anthropic = converted as AnthropicTool;
  return { schema: anthropic.input_schema as Record<string, unknown>, strict: anthropic.strict === true, warnings };
}

function accepts(schema: Record<string, unknown>, value: unknown): boolean {
  return new Ajv2020({ strict: false }).compile(schema)(value);
}

// zod's discriminated union, as z.toJSONSchema writes it (a root oneOf of closed objects)
const shapes = z.toJSONSchema(
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('circle'), radius: z.number() }),
    z.object({ kind: z.literal('square'), side: z.number() }),
  ]),
) as Record<string, unknown>;
const draw: Tool = { namespace: 'gfx', name: 'draw', description: 'Draw a shape.', inputSchema: shapes as Tool['inputSchema'] };

describe('a root union merged into one object', () => {
  it('keeps every branch’s discriminator value (an enum), requires only what every branch requires', () => {
    for (const format of ['openai-chat', 'anthropic'] as const) {
      for (const strict of [false, true]) {
        const { schema, strict: isStrict, warnings } = sent(draw, format, strict);
        expect(isStrict).toBe(strict);
        const properties = schema.properties as Record<string, Record<string, unknown>>;
        expect(properties.kind).toEqual({ type: 'string', enum: ['circle', 'square'] });
        expect(warnings.map((w) => w.feature)).toContain('oneOf');
        if (strict) {
          expectStrictSchema(schema, format === 'openai-chat' ? 'openai' : 'anthropic');
          expect(accepts(schema, { kind: 'circle', radius: 2, side: null })).toBe(true);
          expect(accepts(schema, { kind: 'square', radius: null, side: 3 })).toBe(true);
        } else {
          expect(schema.required).toEqual(['kind']);
          expect(schema.additionalProperties).toBe(false);
          expect(accepts(schema, { kind: 'circle', radius: 2 })).toBe(true);
          expect(accepts(schema, { kind: 'square', side: 3 })).toBe(true);
        }
      }
    }
  });

  it('lets the model call the first variant through agentTools, strict or not', async () => {
    const exec = execWith([{ tool: draw, handler: (args) => args }]);
    for (const strict of [false, true]) {
      const agent = await agentTools(exec, { format: 'anthropic', strict });
      const args = strict ? { kind: 'circle', radius: 2, side: null } : { kind: 'circle', radius: 2 };
      const result = await agent.call('gfx--draw', args, { callId: 't1' });
      expect(result).toEqual({ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '{"kind":"circle","radius":2}' }] });
    }
  });

  it('merges differing schemas of one property as anyOf, and follows branch references', () => {
    const tool: Tool = {
      name: 'find',
      inputSchema: {
        type: 'object',
        anyOf: [{ $ref: '#/$defs/ById' }, { $ref: '#/$defs/ByName' }],
        $defs: {
          ById: { type: 'object', properties: { key: { type: 'integer' }, exact: { type: 'boolean' } }, required: ['key'] },
          ByName: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
        },
      },
    };
    const { schema, strict } = sent(tool, 'openai-chat', true);
    expect(strict).toBe(true);
    const properties = schema.properties as Record<string, unknown>;
    expect(properties.key).toEqual({ anyOf: [{ type: 'integer' }, { type: 'string' }] });
    expect(schema.required).toEqual(['key', 'exact']);
    expect(accepts(schema, { key: 'ada', exact: null })).toBe(true);
    expect(accepts(schema, { key: 7, exact: true })).toBe(true);
  });

  it('falls back to plain mode with a strict warning when a branch cannot be read', () => {
    const tool: Tool = {
      name: 'odd',
      inputSchema: {
        anyOf: [{ $ref: 'https://example.com/a.json' }, { type: 'object', properties: { a: { type: 'string' } } }],
      } as unknown as Tool['inputSchema'],
    };
    for (const format of ['openai-chat', 'anthropic'] as const) {
      const { strict, warnings } = sent(tool, format, true);
      expect(strict).toBe(false);
      expect(warnings).toContainEqual(expect.objectContaining({ feature: 'strict', pointer: '/inputSchema/anyOf/0' }));
    }
  });
});

describe('a root $ref', () => {
  const search: Tool = {
    namespace: 'docs',
    name: 'search',
    inputSchema: {
      $ref: '#/$defs/Query',
      $defs: {
        Query: { type: 'object', properties: { q: { type: 'string' }, near: { $ref: '#/$defs/Point' } }, required: ['q'] },
        Point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
      },
    } as unknown as Tool['inputSchema'],
  };

  it('is inlined (its $defs kept for the references inside), so the strict schema accepts the arguments', () => {
    for (const format of ['openai-chat', 'anthropic'] as const) {
      const { schema, strict, warnings } = sent(search, format, true);
      expect(strict).toBe(true);
      expect(warnings.filter((w) => w.feature === 'strict')).toEqual([]);
      expect(schema.$ref).toBeUndefined();
      expect(schema.required).toEqual(['q', 'near']);
      expectStrictSchema(schema, format === 'openai-chat' ? 'openai' : 'anthropic');
      expect(accepts(schema, { q: 'x', near: null })).toBe(true);
      expect(accepts(schema, { q: 'x', near: { x: 1 } })).toBe(true);
      expect(accepts(schema, {})).toBe(false);
    }
  });

  it('is inlined without strict mode too', () => {
    const { schema } = sent(search, 'openai-chat', false);
    expect(schema).toMatchObject({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
    expect(schema.$defs).toBeDefined();
  });

  it('to no local definition makes the tool plain, with a strict warning', () => {
    const tool: Tool = { name: 'remote', inputSchema: { $ref: 'https://example.com/query.json' } as unknown as Tool['inputSchema'] };
    for (const format of ['openai-chat', 'anthropic'] as const) {
      const { schema, strict, warnings } = sent(tool, format, true);
      expect(strict).toBe(false);
      expect(warnings).toContainEqual(expect.objectContaining({ feature: 'strict', pointer: '/inputSchema/$ref' }));
      expect(schema).toEqual({ type: 'object' });
    }
  });
});

describe("OpenAI strict mode's size limits", () => {
  const strictOf = (inputSchema: Record<string, unknown>) =>
    sent({ name: 'big', inputSchema: inputSchema as Tool['inputSchema'] }, 'openai-chat', true);
  const nested = (levels: number): Record<string, unknown> =>
    levels === 0 ? { type: 'string' } : { type: 'object', properties: { c: nested(levels - 1) }, required: ['c'] };
  const enumOf = (count: number, width = 2) => ({
    type: 'string',
    enum: Array.from({ length: count }, (_, i) => `v${String(i).padStart(width, '0')}`),
  });

  it('10 levels of objects are strict, 11 are sent plain with a strict warning', () => {
    expect(strictOf(nested(10)).strict).toBe(true);
    const deep = strictOf(nested(11));
    expect(deep.strict).toBe(false);
    expect(deep.warnings).toContainEqual(expect.objectContaining({ feature: 'strict', message: expect.stringContaining('11 levels') }));
  });

  it('counts nesting through references, and takes recursion', () => {
    const tree = {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['name', 'children'],
    };
    expect(strictOf(tree).strict).toBe(true);
    const viaDefs = { type: 'object', properties: { a: { $ref: '#/$defs/Deep' } }, required: ['a'], $defs: { Deep: nested(10) } };
    expect(strictOf(viaDefs).strict).toBe(false);
  });

  it('more than 1,000 enum values in all are sent plain', () => {
    expect(strictOf({ type: 'object', properties: { e: enumOf(1000) }, required: ['e'] }).strict).toBe(true);
    const many = strictOf({ type: 'object', properties: { e: enumOf(600), f: enumOf(600) }, required: ['e', 'f'] });
    expect(many.strict).toBe(false);
    expect(many.warnings).toContainEqual(
      expect.objectContaining({ feature: 'strict', message: expect.stringContaining('1200 enum values') }),
    );
  });

  it('a string enum of more than 250 values longer than 15,000 characters is sent plain', () => {
    const long = strictOf({ type: 'object', properties: { e: enumOf(300, 60) }, required: ['e'] });
    expect(long.strict).toBe(false);
    expect(long.warnings).toContainEqual(expect.objectContaining({ feature: 'strict', pointer: '/inputSchema/properties/e/enum' }));
  });

  it('more than 5,000 properties in all are sent plain', () => {
    const wide = (n: number, prefix: string) => ({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { type: 'boolean' }])),
      required: Array.from({ length: n }, (_, i) => `${prefix}${i}`),
    });
    expect(strictOf({ type: 'object', properties: { a: wide(2500, 'a'), b: wide(2498, 'b') }, required: ['a', 'b'] }).strict).toBe(true);
    expect(strictOf({ type: 'object', properties: { a: wide(2500, 'a'), b: wide(2500, 'b') }, required: ['a', 'b'] }).strict).toBe(false);
  });

  it('a draft-07 tuple (items: [...]) is sent plain', () => {
    const tuple = strictOf({
      type: 'object',
      properties: { t: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
      required: ['t'],
    });
    expect(tuple.strict).toBe(false);
    expect(tuple.warnings).toContainEqual(expect.objectContaining({ feature: 'strict', pointer: '/inputSchema/properties/t/items' }));
  });
});
