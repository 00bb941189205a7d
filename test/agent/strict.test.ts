import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/model/index.js';
import { dropStrictNulls, toProviderTool } from '../../src/agent/index.js';
import { expectStrictSchema } from './provider-rules.js';

/** Random JSON Schemas of the shapes tools use: scalars, enums, arrays, nested objects, unions, open objects. */
const schemaArb: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom({ type: 'string' }, { type: 'integer', minimum: 0 }, { type: 'boolean' }, { type: 'number', multipleOf: 0.5 }),
    fc.constant({ type: 'string', minLength: 1, pattern: '^a', default: 'a' }),
    fc.constant({ enum: ['x', 'y'] }),
    fc.constant({ type: ['string', 'null'] }),
    fc.constant({ type: 'object' }),
    tie('schema').map((items) => ({ type: 'array', items, minItems: 2, uniqueItems: true })),
    fc.tuple(tie('schema'), tie('schema')).map(([a, b]) => ({ oneOf: [a, b] })),
    fc
      .dictionary(fc.stringMatching(/^[a-z]{1,6}$/u), tie('schema'), { minKeys: 0, maxKeys: 4 })
      .chain((properties) =>
        fc.record({
          type: fc.constant('object'),
          properties: fc.constant(properties),
          required: fc.subarray(Object.keys(properties)),
          additionalProperties: fc.constantFrom(false, true, undefined),
        }),
      )
      .map((node) => Object.fromEntries(Object.entries(node).filter(([, value]) => value !== undefined))),
  ),
})).schema;

const toolOf = (properties: Record<string, unknown>, required: string[]): Tool => ({
  name: 'gen',
  inputSchema: { type: 'object', properties: properties as Record<string, object>, required },
});

describe('strict mode over generated schemas', () => {
  it('either meets the strict rules or says why it is not strict', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/u), schemaArb, { maxKeys: 5 }), fc.boolean(), (properties, requireAll) => {
        const tool = toolOf(properties, requireAll ? Object.keys(properties) : []);
        for (const [format, provider] of [
          ['openai-chat', 'openai'],
          ['anthropic', 'anthropic'],
        ] as const) {
          const { tool: converted, warnings } = toProviderTool(tool, format, { strict: true });
          const strict =
            format === 'openai-chat'
              ? (converted as { function: { strict: boolean } }).function.strict
              : (converted as { strict?: boolean }).strict === true;
          const schema =
            format === 'openai-chat'
              ? (converted as { function: { parameters: unknown } }).function.parameters
              : (converted as { input_schema: unknown }).input_schema;
          if (strict) {
            expectStrictSchema(schema, provider);
            expect(warnings.some((warning) => warning.feature === 'strict')).toBe(false);
          } else {
            expect(warnings.some((warning) => warning.feature === 'strict')).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('dropStrictNulls', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      note: { type: ['string', 'null'] },
      owner: { $ref: '#/$defs/user' },
      items: { type: 'array', items: { $ref: '#/$defs/user' } },
    },
    required: ['name'],
    $defs: { user: { type: 'object', properties: { login: { type: 'string' }, email: { type: 'string' } }, required: ['login'] } },
  };

  it('removes the nulls strict mode sends for absent optional properties, at any depth', () => {
    const args = {
      name: 'a',
      note: null,
      owner: { login: 'x', email: null },
      items: [
        { login: 'y', email: null },
        { login: 'z', email: 'z@x' },
      ],
    };
    expect(dropStrictNulls(schema, args)).toEqual({
      name: 'a',
      note: null,
      owner: { login: 'x' },
      items: [{ login: 'y' }, { login: 'z', email: 'z@x' }],
    });
    expect(args.owner.email).toBeNull();
  });

  it('keeps nulls a required property or a nullable schema asks for, and returns the same object when nothing changes', () => {
    const args = { name: null, note: null };
    expect(dropStrictNulls(schema, args)).toBe(args);
    expect(dropStrictNulls(schema, { owner: null })).toEqual({});
  });

  it('round-trips with strict conversion: what the strict schema accepts, the tool schema accepts after dropping nulls', () => {
    const tool: Tool = { name: 't', inputSchema: schema as Tool['inputSchema'] };
    const parameters = (toProviderTool(tool, 'openai-chat', { strict: true }).tool as { function: { parameters: Record<string, unknown> } })
      .function.parameters;
    expect((parameters.properties as Record<string, unknown>).owner).toEqual({ anyOf: [{ $ref: '#/$defs/user' }, { type: 'null' }] });
    expect(dropStrictNulls(schema, { name: 'n', note: null, owner: null, items: null })).toEqual({ name: 'n', note: null });
  });
});
