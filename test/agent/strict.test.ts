import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSchemaValidator, type Tool } from '../../src/model/index.js';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { agentTools, dropStrictNulls, toProviderTool } from '../../src/agent/index.js';
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
    // what strict mode cannot take: a value of any type, an array of anything
    fc.constant({ description: 'any JSON value' }),
    fc.constant({ type: 'array' }),
    tie('schema').map((items) => ({ type: 'array', items, minItems: 2, uniqueItems: true })),
    tie('schema').map((inner) => ({ allOf: [inner], description: 'wrapped' })),
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

describe('dropStrictNulls in unions', () => {
  const union = {
    type: 'object',
    additionalProperties: false,
    required: ['to'],
    properties: {
      to: {
        anyOf: [
          { type: 'string' },
          {
            type: 'object',
            additionalProperties: false,
            required: ['address'],
            properties: { address: { type: 'string' }, name: { type: 'string' } },
          },
        ],
      },
      cc: { type: 'array', items: { oneOf: [{ type: 'string' }, { $ref: '#/$defs/person' }] } },
      pet: { allOf: [{ $ref: '#/$defs/person' }], description: 'allOf-wrapped, as pydantic writes a model field' },
    },
    $defs: { person: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] } },
  };
  const rootUnion = {
    type: 'object',
    oneOf: [
      { additionalProperties: false, required: ['id'], properties: { id: { type: 'string' } } },
      { additionalProperties: false, required: ['email'], properties: { email: { type: 'string' }, verified: { type: 'boolean' } } },
    ],
  };

  it("removes the nulls strict mode sends inside a union's branches, allOf members and array items", () => {
    expect(
      dropStrictNulls(union, {
        to: { address: 'a@b.c', name: null },
        cc: ['x@y.z', { name: 'Bo', age: null }],
        pet: { name: 'Rex', age: null },
      }),
    ).toEqual({ to: { address: 'a@b.c' }, cc: ['x@y.z', { name: 'Bo' }], pet: { name: 'Rex' } });
    expect(dropStrictNulls(union, { to: 'a@b.c', cc: null, pet: null })).toEqual({ to: 'a@b.c' });
  });

  it('removes the nulls of the other alternatives of a root union merged into one object', () => {
    expect(dropStrictNulls(rootUnion, { id: 'u1', email: null, verified: null })).toEqual({ id: 'u1' });
    expect(dropStrictNulls(rootUnion, { id: null, email: 'a@b.c', verified: null })).toEqual({ email: 'a@b.c' });
  });

  it('keeps a null a branch accepts, or one every branch requires', () => {
    const nullable = {
      type: 'object',
      properties: { v: { anyOf: [{ type: 'object', properties: { note: { type: ['string', 'null'] } } }, { type: 'integer' }] } },
    };
    const args = { v: { note: null } };
    expect(dropStrictNulls(nullable, args)).toBe(args);
    const everyBranch = { type: 'object', anyOf: [{ required: ['k'], properties: { k: { type: 'string' } } }, { required: ['k'] }] };
    const required = { k: null };
    expect(dropStrictNulls(everyBranch, required)).toBe(required);
  });

  it('ends with a self-referring union instead of looping', () => {
    const cyclic = {
      type: 'object',
      properties: { n: { $ref: '#/$defs/n' } },
      $defs: { n: { anyOf: [{ $ref: '#/$defs/n' }, { type: 'object', properties: { x: { type: 'string' } } }] } },
    };
    expect(dropStrictNulls(cyclic, { n: { x: null } })).toEqual({ n: {} });
  });
});

/** The most null answer a strict model can give: `null` wherever the strict schema allows it, else the least value. */
function nullestAnswer(node: unknown, root: Record<string, unknown>): unknown {
  if (node === null || typeof node !== 'object') return null;
  let schema = node as Record<string, unknown>;
  while (typeof schema.$ref === 'string')
    schema = (root.$defs as Record<string, Record<string, unknown>>)[schema.$ref.split('/').pop() as string] ?? {};
  const nullable = (s: Record<string, unknown>): boolean =>
    (Array.isArray(s.type) && s.type.includes('null')) ||
    s.type === 'null' ||
    (Array.isArray(s.enum) && s.enum.includes(null)) ||
    (Array.isArray(s.anyOf) && (s.anyOf as Record<string, unknown>[]).some(nullable));
  if (nullable(schema)) return null;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.anyOf)) return nullestAnswer(schema.anyOf[0], root);
  if (Array.isArray(schema.allOf)) return nullestAnswer(schema.allOf[0], root);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object') {
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, child]) => [key, nullestAnswer(child, root)]));
  }
  if (type === 'array')
    return Array.from({ length: (schema.minItems as number | undefined) ?? 0 }, () => nullestAnswer(schema.items, root));
  return { string: 'a', integer: 1, number: 1, boolean: true }[type as string] ?? null;
}

/** Tool schemas of what strict mode keeps: scalars, enums, nullable types, arrays, objects, unions of objects, allOf wrappers. */
const roundTripArb: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ schema: Record<string, unknown>; object: Record<string, unknown> }>(
  (tie) => {
    const leaf = fc.constantFrom<Record<string, unknown>>(
      { type: 'string' },
      { type: 'integer', minimum: 0 },
      { type: 'boolean' },
      { type: 'number', multipleOf: 0.5 },
      { type: 'string', minLength: 1, pattern: '^a', default: 'a' },
      { enum: ['x', 'y'] },
      { type: ['string', 'null'] },
    );
    // each branch of a union names its own properties (a key two branches type differently leaves a
    // null answer ambiguous; see the notes of strict-nulls.ts)
    const prefixed = (node: Record<string, unknown>, prefix: string): Record<string, unknown> => ({
      ...node,
      properties: Object.fromEntries(Object.entries(node.properties as object).map(([key, child]) => [`${prefix}${key}`, child])),
      required: (node.required as string[]).map((key) => `${prefix}${key}`),
    });
    return {
      schema: fc.oneof(
        { depthSize: 'xsmall', withCrossShrink: true },
        leaf,
        tie('schema').map((items) => ({ type: 'array', items, minItems: 1 })),
        tie('object'),
        fc.tuple(tie('object'), tie('object')).map(([a, b]) => ({ anyOf: [prefixed(a, 'l_'), prefixed(b, 'r_')] })),
        fc.tuple(leaf, tie('object')).map(([a, b]) => ({ anyOf: [a, b] })),
        tie('object').map((inner) => ({ allOf: [inner], description: 'wrapped' })),
      ),
      object: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/u), tie('schema'), { minKeys: 1, maxKeys: 3 }).chain((properties) =>
        fc.record({
          type: fc.constant('object'),
          properties: fc.constant(properties),
          required: fc.subarray(Object.keys(properties)),
          additionalProperties: fc.constant(false),
        }),
      ),
    };
  },
).object;

describe('strict mode and dropStrictNulls over generated schemas', () => {
  it("what a strict model sends (null for every optional), the tool's own schema accepts once the nulls are dropped", () => {
    const validator = createSchemaValidator();
    let strictCount = 0;
    fc.assert(
      // each schema is compiled afresh by the validator (~10 ms): fewer runs than the other properties
      fc.property(roundTripArb, (inputSchema) => {
        const tool: Tool = { name: 'gen', inputSchema: inputSchema as Tool['inputSchema'] };
        for (const format of ['openai-chat', 'anthropic'] as const) {
          const { tool: converted } = toProviderTool(tool, format, { strict: true });
          const strict =
            format === 'openai-chat'
              ? (converted as { function: { strict: boolean } }).function.strict
              : (converted as { strict?: boolean }).strict === true;
          if (!strict) continue;
          strictCount++;
          const schema =
            format === 'openai-chat'
              ? (converted as { function: { parameters: Record<string, unknown> } }).function.parameters
              : (converted as { input_schema: Record<string, unknown> }).input_schema;
          const answer = nullestAnswer(schema, schema) as Record<string, unknown>;
          validator.validate(schema, answer);
          validator.validate(inputSchema, dropStrictNulls(inputSchema, answer));
        }
      }),
      { numRuns: 200 },
    );
    expect(strictCount).toBeGreaterThan(100);
  }, 120_000);
});

describe('agentTools in strict mode: unions end to end', () => {
  let exec: DefaultExec;
  beforeAll(() => {
    exec = createExec({
      tools: [
        {
          tool: {
            namespace: 'mail',
            name: 'send',
            description: 'send mail',
            inputSchema: {
              type: 'object',
              additionalProperties: false,
              required: ['to'],
              properties: {
                to: {
                  anyOf: [
                    { type: 'string' },
                    {
                      type: 'object',
                      additionalProperties: false,
                      required: ['address'],
                      properties: { address: { type: 'string' }, name: { type: 'string' } },
                    },
                  ],
                },
              },
            },
          },
          handler: (args) => args,
        },
        {
          tool: {
            namespace: 'mail',
            name: 'find',
            description: 'a root oneOf',
            inputSchema: {
              type: 'object',
              oneOf: [
                { additionalProperties: false, required: ['id'], properties: { id: { type: 'string' } } },
                { additionalProperties: false, required: ['email'], properties: { email: { type: 'string' } } },
              ],
            },
          },
          handler: (args) => args,
        },
      ],
    });
  });
  afterAll(() => exec.close());

  it('OpenAI and Anthropic: the answers strict mode makes the model send run, the nulls dropped', async () => {
    for (const format of ['openai-chat', 'anthropic'] as const) {
      const agent = await agentTools(exec, { format, strict: true });
      for (const tool of agent.tools) expect(JSON.stringify(tool), format).toMatch(/"strict":true/u);
      const send = await agent.call('mail--send', { to: { address: 'a@b.c', name: null } }, { callId: 'c1' });
      const find = await agent.call('mail--find', '{"id":"u1","email":null}', { callId: 'c2' });
      const texts = [send, find].map((result) =>
        'content' in result && typeof result.content === 'string'
          ? result.content
          : (result as { content: { text: string }[] }).content.map((block) => block.text).join(''),
      );
      expect(texts, format).toEqual(['{"to":{"address":"a@b.c"}}', '{"id":"u1"}']);
    }
  });
});

/** Every `$ref` of a schema, with where it is. */
function refsOf(schema: unknown, at = ''): [string, string][] {
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const own: [string, string][] = typeof node.$ref === 'string' ? [[at, node.$ref]] : [];
  return [...own, ...Object.entries(node).flatMap(([key, child]) => refsOf(child, `${at}/${key}`))];
}

/** What a provider resolves a `$ref` to: a JSON pointer into the schema it was sent; undefined for anything else. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let target: unknown = root;
  for (const token of ref.slice(2).split('/')) {
    const key = token.replace(/~1/gu, '/').replace(/~0/gu, '~');
    target = target !== null && typeof target === 'object' ? (target as Record<string, unknown>)[key] : undefined;
  }
  return target;
}

describe('strict mode: references that resolve to nothing', () => {
  const schemas: Record<string, Record<string, unknown>> = {
    // strict mode drops $anchor / $id: the references relying on them would point nowhere
    anchor: { type: 'object', properties: { s: { $ref: '#foo' } }, required: ['s'], $defs: { F: { $anchor: 'foo', type: 'string' } } },
    id: { type: 'object', properties: { s: { $ref: 'urn:x' } }, required: ['s'], $defs: { F: { $id: 'urn:x', type: 'string' } } },
    missing: { type: 'object', properties: { s: { $ref: '#/$defs/Nope' } }, required: ['s'] },
    external: { type: 'object', properties: { s: { $ref: 'https://example.com/s.json' } }, required: ['s'] },
    // `#/$defs/G` inside F is F's own G (F has an $id): resolved from the root it would be the integer
    scoped: {
      type: 'object',
      properties: { s: { $ref: '#/$defs/F' } },
      required: ['s'],
      $defs: {
        G: { type: 'integer' },
        F: {
          $id: 'https://example.com/f.json',
          type: 'object',
          properties: { g: { $ref: '#/$defs/G' } },
          required: ['g'],
          $defs: { G: { type: 'string' } },
        },
      },
    },
  };
  const expected: Record<string, string> = {
    anchor: 'strict /inputSchema/properties/s/$ref',
    id: 'strict /inputSchema/properties/s/$ref',
    missing: 'strict /inputSchema/properties/s/$ref',
    external: 'strict /inputSchema/properties/s/$ref',
    scoped: 'strict /inputSchema/$defs/F/$id',
  };

  it('OpenAI and Anthropic: sent without strict mode, with a strict warning naming the reference', () => {
    for (const [label, inputSchema] of Object.entries(schemas)) {
      for (const format of ['openai-chat', 'openai-responses', 'anthropic'] as const) {
        const { tool, warnings } = toProviderTool({ name: 't', inputSchema: inputSchema as Tool['inputSchema'] }, format, { strict: true });
        expect(JSON.stringify(tool), `${label} ${format}`).not.toMatch(/"strict":true/u);
        const strictWarnings = warnings.filter((warning) => warning.feature === 'strict');
        expect(
          strictWarnings.map((warning) => `${warning.feature} ${warning.pointer}`),
          `${label} ${format}`,
        ).toEqual([expected[label]]);
        expect(strictWarnings[0]?.message, `${label} ${format}`).toMatch(/the tool is sent without strict mode$/u);
      }
    }
    const { warnings } = toProviderTool({ name: 't', inputSchema: schemas.anchor as Tool['inputSchema'] }, 'openai-chat', { strict: true });
    expect(warnings[0]?.message).toBe(
      'feature "strict" lost converting to openai-chat at /inputSchema/properties/s/$ref: the reference "#foo" resolves to no subschema of the schema sent (strict mode resolves JSON pointers inside it only, not an $anchor, an $id or another document); the tool is sent without strict mode',
    );
  });

  it('the plain form keeps $anchor and $id, so the references the tool relies on still resolve', () => {
    const validator = createSchemaValidator();
    for (const label of ['anchor', 'id'] as const) {
      for (const format of ['openai-chat', 'anthropic'] as const) {
        const { tool } = toProviderTool({ name: 't', inputSchema: schemas[label] as Tool['inputSchema'] }, format, { strict: true });
        const sent =
          (tool as { function?: { parameters: Tool['inputSchema'] }; input_schema?: Tool['inputSchema'] }).function?.parameters ??
          (tool as { input_schema: Tool['inputSchema'] }).input_schema;
        const checked: Tool = { name: 't', inputSchema: sent };
        expect(() => validator.validateInput(checked, { s: 'x' }), `${label} ${format}`).not.toThrow();
        expect(() => validator.validateInput(checked, { s: 1 }), `${label} ${format}`).toThrow();
      }
    }
  });

  it('a strict tool has every reference resolve to a subschema of what is sent (recursion, definitions, the root)', () => {
    const inputSchema = {
      type: 'object',
      properties: {
        user: { $ref: '#/$defs/user' },
        legacy: { $ref: '#/definitions/legacy' },
        tree: { $ref: '#/$defs/node' },
        odd: { $ref: '#/$defs/a~1b' },
      },
      required: ['user', 'legacy', 'tree', 'odd'],
      $defs: {
        user: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] },
        node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['children'] },
        'a/b': { type: 'string' },
      },
      definitions: { legacy: { type: 'integer' } },
    };
    const { tool, warnings } = toProviderTool({ name: 't', inputSchema: inputSchema as Tool['inputSchema'] }, 'openai-responses', {
      strict: true,
    });
    expect(warnings).toEqual([]);
    expect((tool as { strict: boolean }).strict).toBe(true);
    const sent = (tool as { parameters: unknown }).parameters;
    expectStrictSchema(sent, 'openai');
    const refs = refsOf(sent);
    expect(refs.map(([, ref]) => ref).sort()).toEqual([
      '#/$defs/a~1b',
      '#/$defs/node',
      '#/$defs/node',
      '#/$defs/user',
      '#/definitions/legacy',
    ]);
    for (const [at, ref] of refs) expect(resolvePointer(sent, ref), `${at}: ${ref}`).toEqual(expect.any(Object));
  });
});
