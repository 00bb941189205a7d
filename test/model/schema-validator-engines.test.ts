/**
 * The validator's two engines: Ajv for ordinary schemas (the hot path), the spec engine
 * (@exodus/schemasafe) for the constructs Ajv gets wrong, chosen once per schema by the router.
 * Properties: ordinary schemas stay on Ajv, a construct from the routing table sends a schema to
 * the spec engine wherever it sits, and on ordinary schemas both engines give the same verdict
 * with violations in the same shape.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SchemaValidationError, ToolexecError, createSchemaValidator, type ContractViolation, type Tool } from '../../src/model/index.js';
import { SchemaCompiler } from '../../src/model/schema-compiler.js';
import { KnownDocuments, routeSchema } from '../../src/model/schema-router.js';
import { SchemaProblem, type SchemaDocument } from '../../src/model/schema-source.js';
import { SpecCompiled } from '../../src/model/schema-spec-engine.js';
import { toViolations } from '../../src/model/violations.js';
import { VIOLATION_CODES } from '../../src/model/internal.js';

function thrown(fn: () => void): ToolexecError {
  try {
    fn();
  } catch (err) {
    expect(ToolexecError.isInstance(err)).toBe(true);
    return err as ToolexecError;
  }
  throw new Error('expected a throw');
}

function violationsOf(fn: () => void): ContractViolation[] {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(SchemaValidationError);
  return (err as SchemaValidationError).violations;
}

const sharedCompiler = new SchemaCompiler({ formats: 'annotate', schemas: new Map() });

/** Ordinary schemas: the keywords tool schemas use, none of the constructs the router sends away. */
const names = fc.constantFrom('a', 'b', 'c', 'x y', 'a/b', 'id');
const scalar = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('a', 'b', '', 'ab'), fc.boolean(), fc.constant(null));
const typeName = fc.constantFrom('string', 'number', 'integer', 'boolean', 'object', 'array', 'null');
const ordinarySchema: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: typeName }, { requiredKeys: [] }),
    fc.record({ enum: fc.uniqueArray(scalar, { minLength: 1, maxLength: 3, selector: (v) => JSON.stringify(v) }) }),
    fc.record({ const: scalar }),
    fc.record(
      { type: fc.constantFrom('number', 'integer'), minimum: fc.integer({ min: -3, max: 3 }), maximum: fc.integer({ min: 0, max: 6 }) },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constant('string'),
        minLength: fc.nat(3),
        maxLength: fc.integer({ min: 1, max: 4 }),
        pattern: fc.constantFrom('^a', 'b$'),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(names, tie('schema'), { maxKeys: 3 }),
        required: fc.uniqueArray(names, { maxLength: 2 }),
        additionalProperties: fc.oneof(fc.boolean(), tie('schema')),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constant('array'),
        items: tie('schema'),
        prefixItems: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }),
        minItems: fc.nat(2),
        maxItems: fc.integer({ min: 1, max: 4 }),
        uniqueItems: fc.boolean(),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ not: tie('schema') }),
    fc.record({ if: tie('schema'), then: tie('schema'), else: tie('schema') }, { requiredKeys: ['if'] }),
  ),
})).schema;

/** Values shaped like what the schemas above talk about. */
const instance = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.double({ min: -4, max: 4, noNaN: true }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(names, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Constructs that send a schema to the spec engine (each a fresh JSON object). */
const TRIGGERS: Record<string, () => Record<string, unknown>> = {
  unevaluatedProperties: () => ({ unevaluatedProperties: false }),
  unevaluatedItems: () => ({ unevaluatedItems: false }),
  emptyEnum: () => ({ allOf: [{ enum: [] }] }),
  protoName: () => JSON.parse('{"properties":{"__proto__":{"type":"string"}}}') as Record<string, unknown>,
  emptyRequiredName: () => ({ required: [''] }),
  emptyDependentRequiredName: () => ({ dependentRequired: { a: [''] } }),
  nestedId: () => ({ $defs: { inner: { $id: 'https://example.com/inner.json', type: 'string' } } }),
  dynamicAnchor: () => ({ $defs: { meta: { $dynamicAnchor: 'meta', type: 'object' } } }),
};

/** `schema` with `extra`'s keywords merged in at the root or into its first subschema under `properties`. */
function inject(schema: Record<string, unknown>, extra: Record<string, unknown>, deep: boolean): Record<string, unknown> {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  const first = properties === undefined ? undefined : Object.keys(properties)[0];
  if (deep && properties !== undefined && first !== undefined && typeof properties[first] === 'object') {
    const nested = { ...properties };
    Object.defineProperty(nested, first, { value: inject(properties[first], extra, false), enumerable: true });
    return { ...schema, properties: nested };
  }
  const out = { ...schema };
  for (const key of Object.keys(extra)) Object.defineProperty(out, key, { value: extra[key], enumerable: true, writable: true });
  return out;
}

describe('the router', () => {
  it('keeps every ordinary schema on Ajv (the hot path)', () => {
    fc.assert(
      fc.property(ordinarySchema, (schema) => {
        expect(routeSchema(schema as SchemaDocument, '2020-12').engine).toBe('ajv');
        expect(sharedCompiler.compile(schema as SchemaDocument, '2020-12', true).engine).toBe('ajv');
      }),
      { numRuns: 300 },
    );
  });

  it('sends a schema to the spec engine when it uses a construct of the routing table, wherever it sits', () => {
    fc.assert(
      fc.property(ordinarySchema, fc.constantFrom(...Object.keys(TRIGGERS)), fc.boolean(), (schema, trigger, deep) => {
        const routed = inject(schema, (TRIGGERS[trigger] as () => Record<string, unknown>)(), deep);
        const route = routeSchema(routed as SchemaDocument, '2020-12');
        expect(route.engine).toBe('spec');
        expect(route.because).not.toBe('');
      }),
      { numRuns: 300 },
    );
  });

  it('lets a schema follow the known document it refers to: to the spec engine, or refused', () => {
    const closed = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      properties: { a: { type: 'string' } },
      unevaluatedProperties: false,
    };
    const tangled = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $dynamicAnchor: 'x',
      unevaluatedProperties: false,
      allOf: [{ $dynamicRef: '#x' }],
    };
    const documents = new Map<string, SchemaDocument>([
      ['https://example.com/closed.json', closed],
      ['https://example.com/tangled.json', tangled],
    ]);
    const known = new KnownDocuments(documents);
    expect(routeSchema({ $ref: 'https://example.com/closed.json' }, '2020-12', known).engine).toBe('spec');
    expect(routeSchema({ $ref: '#/$defs/a', $defs: { a: { type: 'string' } } }, '2020-12', known).engine).toBe('ajv');
    const v = createSchemaValidator({ schemas: Object.fromEntries(documents) });
    v.validate({ $ref: 'https://example.com/closed.json' }, { a: 'x' });
    expect(violationsOf(() => v.validate({ $ref: 'https://example.com/closed.json' }, { a: 'x', b: 1 }))[0]).toMatchObject({ field: '/b' });
    const err = thrown(() => v.validate({ $ref: 'https://example.com/tangled.json' }, {}));
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toContain(
      'a $ref to https://example.com/tangled.json, which is refused: unevaluatedProperties depends on a $dynamicRef',
    );
  });

  it("routes '' as a required name to the spec engine, and gets the verdict right in each dialect", () => {
    const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
    const cases: [string, Record<string, unknown>, unknown, unknown][] = [
      // [label, schema, an instance that lacks '', the same instance with it]
      ['2020-12 required', { type: 'object', required: [''] }, {}, { '': 1 }],
      ['2020-12 dependentRequired', { type: 'object', dependentRequired: { a: [''] } }, { a: 1 }, { a: 1, '': 2 }],
      ['draft-07 required', { $schema: DRAFT_07, type: 'object', required: [''] }, {}, { '': 1 }],
      ['draft-07 dependencies', { $schema: DRAFT_07, type: 'object', dependencies: { a: [''] } }, { a: 1 }, { a: 1, '': 2 }],
    ];
    const v = createSchemaValidator();
    for (const [label, schema, missing, present] of cases) {
      const { $schema, ...document } = schema;
      const route = routeSchema(document as SchemaDocument, $schema === undefined ? '2020-12' : 'draft-07');
      expect(route.engine, label).toBe('spec');
      expect(route.because, label).toContain("'' as a required name");
      const [violation] = violationsOf(() => v.validate(schema, missing));
      expect(violation, label).toMatchObject({ code: 'RequiredMissing', field: '/' });
      expect(() => v.validate(schema, present), label).not.toThrow();
    }
    // A name other than '' stays on Ajv.
    expect(routeSchema({ type: 'object', required: ['a'], dependentRequired: { a: ['b'] } }, '2020-12').engine).toBe('ajv');
  });

  it('routes draft-07 $id beside $ref to the spec engine only in draft-07', () => {
    const schema = { $id: 'https://example.com/root.json', $ref: '#/definitions/a', definitions: { a: { type: 'integer' } } };
    expect(routeSchema(schema, 'draft-07').engine).toBe('spec');
    expect(routeSchema(schema, '2020-12').engine).toBe('ajv');
  });

  it('refuses up front, naming the construct, what neither engine evaluates correctly', () => {
    const dependent = {
      $id: 'https://example.com/derived',
      $ref: './base',
      $defs: {
        derived: { $dynamicAnchor: 'addons', prefixItems: [true, { type: 'string' }] },
        base: {
          $id: './base',
          unevaluatedItems: false,
          prefixItems: [{ type: 'string' }],
          $dynamicRef: '#addons',
          $defs: { d: { $dynamicAnchor: 'addons' } },
        },
      },
    };
    expect(() => routeSchema(dependent, '2020-12')).toThrow(SchemaProblem);
    const v = createSchemaValidator();
    const err = thrown(() => v.validate(dependent, ['a', 'b']));
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toContain('unevaluatedItems that depends on a $dynamicRef is not supported');
    const pointer = { $id: 'https://example.com/a', $ref: 'b#/$defs/x', $defs: { b: { $id: 'b', $defs: { x: { $dynamicRef: '#n' } } } } };
    expect(thrown(() => v.validate(pointer, 1)).message).toContain('$dynamicRef with a $ref into the middle of another schema resource');
    // An unevaluated keyword that does not depend on the dynamic reference goes to the spec engine.
    const independent = {
      $id: 'https://example.com/tree',
      $dynamicAnchor: 'node',
      type: 'object',
      properties: { children: { type: 'array', items: { $dynamicRef: '#node' } } },
      unevaluatedProperties: false,
    };
    expect(routeSchema(independent, '2020-12').engine).toBe('spec');
    v.validate(independent, { children: [{ children: [] }] });
    expect(violationsOf(() => v.validate(independent, { children: [{ chidlren: [] }] }))[0]).toMatchObject({
      field: '/children/0/chidlren',
      keyword: 'unevaluatedProperties',
    });
  });
});

describe('the two engines', () => {
  it('give the same verdict on ordinary schemas, and the spec engine explains its failures in the taxonomy', () => {
    const v = createSchemaValidator();
    let compared = 0;
    fc.assert(
      fc.property(ordinarySchema, instance, (schema, data) => {
        let spec: SpecCompiled;
        try {
          spec = new SpecCompiled(schema as SchemaDocument, '2020-12', { formats: 'annotate', schemas: new Map() }, new Set());
        } catch (err) {
          // The spec engine refuses some unsatisfiable combinations (allOf of two types); Ajv takes them.
          expect(err).toBeInstanceOf(SchemaProblem);
          return;
        }
        let ajv = true;
        try {
          v.validate(schema, data);
        } catch (err) {
          expect(err).toBeInstanceOf(SchemaValidationError);
          ajv = false;
        }
        expect(spec.check(data)).toBe(ajv);
        compared++;
        if (!ajv) {
          const { violations } = toViolations(spec.errors(data), schema as SchemaDocument, data, 50);
          expect(violations.length).toBeGreaterThan(0);
          for (const violation of violations) {
            expect(VIOLATION_CODES).toContain(violation.code);
            expect(violation.message).toMatch(/^Field '/);
            expect(violation.field === '' || violation.field.startsWith('/')).toBe(true);
          }
        }
      }),
      { numRuns: 250 },
    );
    expect(compared).toBeGreaterThan(120);
  });

  it('report the same violations for the same failure (additionalProperties on Ajv, unevaluatedProperties on the spec engine)', () => {
    const body = {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1 },
        'a/b': { type: 'string' },
        encoding: { enum: ['utf8', 'base64'] },
        timeoutMs: { type: 'integer', minimum: 1 },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3, uniqueItems: true },
        list: { type: 'array', items: { type: 'string' }, maxItems: 1 },
        source: {
          type: 'object',
          oneOf: [
            { required: ['type'], properties: { type: { const: 'file' } } },
            { required: ['type'], properties: { type: { const: 'url' } } },
          ],
        },
      },
      required: ['path', 'content'],
      dependentRequired: { timeoutMs: ['encoding'] },
    };
    const data = {
      path: '',
      'a/b': 1,
      encoding: 'latin1',
      timeoutMs: 0,
      tags: ['a', 'a'],
      list: ['x', 1],
      source: { type: 'ftp' },
      extra: 1,
    };
    const v = createSchemaValidator();
    const ajv = violationsOf(() => v.validate({ ...body, additionalProperties: false }, data));
    const spec = violationsOf(() => v.validate({ ...body, unevaluatedProperties: false }, data));
    const key = (x: ContractViolation) => `${x.code} ${x.field} ${x.message.replace('unevaluatedProperties', 'additionalProperties')}`;
    expect(spec.map(key).sort()).toEqual(ajv.map(key).sort());
    expect(spec.find((x) => x.field === '/extra')).toMatchObject({
      keyword: 'unevaluatedProperties',
      expected: 'unevaluatedProperties false',
    });
    expect(spec.find((x) => x.field === '/a~1b')).toMatchObject({ code: 'InvalidType', expected: 'string', actual: 'integer' });
  });

  it('evaluate __proto__ as an ordinary property name', () => {
    const v = createSchemaValidator();
    const schema = JSON.parse('{"properties":{"__proto__":{"type":"number"}},"required":["__proto__"]}') as unknown;
    v.validate(schema, JSON.parse('{"__proto__":1}'));
    expect(violationsOf(() => v.validate(schema, JSON.parse('{"__proto__":"x"}')))).toEqual([
      {
        code: 'InvalidType',
        field: '/__proto__',
        message: "Field '/__proto__' must be number, got string.",
        expected: 'number',
        actual: 'string',
        keyword: 'type',
      },
    ]);
    expect(violationsOf(() => v.validate(schema, {}))[0]).toMatchObject({ code: 'RequiredMissing', field: '/__proto__' });
    // The caller's schema is left as it was (no prototype was set through it).
    expect(Object.getPrototypeOf((schema as { properties: object }).properties)).toBe(Object.prototype);
  });

  it('reject every value of an empty enum, with a violation that says so', () => {
    const v = createSchemaValidator();
    const tool = { name: 't', inputSchema: { type: 'object', properties: { mode: { enum: [] } } } } as unknown as Tool;
    v.validateInput(tool, {});
    expect(violationsOf(() => v.validateInput(tool, { mode: 'x' }))).toEqual([
      {
        code: 'InvalidEnumValue',
        field: '/mode',
        message: `Field '/mode' cannot take any value (its enum is empty), got "x".`,
        actual: 'x',
        allowed: [],
        keyword: 'enum',
      },
    ]);
  });

  it("run behind forTool's bound checks like behind the methods", () => {
    const v = createSchemaValidator();
    const schema = { type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false };
    const tool = { name: 't', inputSchema: schema, outputSchema: schema } as unknown as Tool;
    const checks = v.forTool(tool);
    checks.validateInput({ a: 'x' });
    expect(thrown(() => checks.validateInput({ a: 'x', b: 1 })).code).toBe('VALIDATION');
    expect(thrown(() => checks.validateOutput({ b: 1 })).code).toBe('OUTPUT_VALIDATION');
  });

  it('check a routed schema against its meta-schema first (the same INVALID_SCHEMA as on Ajv)', () => {
    const v = createSchemaValidator();
    const err = thrown(() => v.validate({ unevaluatedProperties: false, properties: { a: { type: 'strung' } } }, {}));
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toContain('schema is invalid');
    // A keyword that cannot apply under the schema's own type is no reason to refuse it.
    v.validate({ type: 'string', minimum: 3, unevaluatedProperties: false }, 'x');
  });

  it('assert formats on the spec engine as on Ajv (formats: "assert")', () => {
    const v = createSchemaValidator({ formats: 'assert' });
    for (const extra of [{}, { unevaluatedProperties: false }]) {
      const schema = { type: 'object', properties: { when: { type: 'string', format: 'date-time' }, who: { format: 'my-own' } }, ...extra };
      v.validate(schema, { when: '2024-01-01T00:00:00Z', who: 'anything' });
      expect(violationsOf(() => v.validate(schema, { when: 'yesterday' }))[0]).toMatchObject({ code: 'InvalidFormat', field: '/when' });
    }
    createSchemaValidator().validate({ format: 'date-time', unevaluatedItems: false }, 'yesterday');
  });

  it('evaluate a custom 2020-12 meta-schema with its vocabularies, and refuse an unknown required one', () => {
    const core = 'https://json-schema.org/draft/2020-12/vocab/core';
    const applicator = 'https://json-schema.org/draft/2020-12/vocab/applicator';
    const v = createSchemaValidator({
      schemas: {
        'https://example.com/no-validation': {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $vocabulary: { [core]: true, [applicator]: true },
        },
        'https://example.com/custom': {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $vocabulary: { [core]: true, 'https://example.com/vocab/x': true },
        },
      },
    });
    const schema = { $schema: 'https://example.com/no-validation', properties: { n: { minimum: 10 }, bad: false } };
    v.validate(schema, { n: 1 });
    expect(thrown(() => v.validate(schema, { bad: 1 })).code).toBe('VALIDATION');
    const err = thrown(() => v.validate({ $schema: 'https://example.com/custom', type: 'string' }, 'x'));
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toContain('unsupported $vocabulary');
    expect(thrown(() => v.validate({ $schema: 'https://example.com/unknown', type: 'string' }, 'x')).message).toContain(
      'unsupported JSON Schema dialect',
    );
  });
});

describe('the spec engine quotes the schema an error was found through, however it was referenced', () => {
  const validator = createSchemaValidator();
  const check = (inputSchema: Record<string, unknown>, args: Record<string, unknown>): string =>
    thrown(() => validator.validateInput({ name: 't', inputSchema } as Tool, args)).message;

  it('through a $dynamicRef to a $dynamicAnchor (a recursive tree)', () => {
    const tree = {
      $id: 'https://example.com/tree',
      $dynamicAnchor: 'node',
      type: 'object',
      properties: { name: { type: 'string' }, kind: { enum: ['a', 'b'] }, children: { type: 'array', items: { $dynamicRef: '#node' } } },
    };
    expect(check(tree, { children: [{ name: 5 }] })).toContain("Field '/children/0/name' must be string, got integer");
    expect(check(tree, { children: [{ kind: 'z' }] })).toContain(`Field '/children/0/kind' must be one of "a", "b", got "z"`);
  });

  it('through a $ref relative to an $id, and through an $anchor', () => {
    const relative = {
      $id: 'https://example.com/root',
      type: 'object',
      $defs: { A: { $id: 'a.json', type: 'string', enum: ['p', 'q'] }, B: { $anchor: 'bee', type: 'integer' } },
      properties: { a: { $ref: 'a.json' }, b: { $ref: '#bee' }, c: { $ref: 'a.json#' } },
    };
    expect(check(relative, { a: 'x' })).toContain(`Field '/a' must be one of "p", "q", got "x"`);
    expect(check(relative, { b: 'x' })).toContain("Field '/b' must be integer, got string");
    expect(check(relative, { c: 'y' })).toContain(`Field '/c' must be one of "p", "q", got "y"`);
  });
});

describe('the spec engine explains a failure even where schemasafe cannot list every error', () => {
  it('an if whose else is an anyOf of empty schemas (found by the property above): the first error is reported', () => {
    const schema = { if: { not: { type: 'string' } }, then: { type: 'string' }, else: { anyOf: [{}, {}] } };
    const spec = new SpecCompiled(schema, '2020-12', { formats: 'annotate', schemas: new Map() }, new Set());
    expect(spec.check(0)).toBe(false);
    const { violations } = toViolations(spec.errors(0), schema, 0, 50);
    expect(violations).toEqual([expect.objectContaining({ code: 'InvalidType', field: '', expected: 'string', actual: 'integer' })]);
  });
});
