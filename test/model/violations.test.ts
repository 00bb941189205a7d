/**
 * What a model reads when its call does not match the schema: the seed-004 taxonomy, one
 * violation per problem, each message naming the field and what was expected.
 */
import { describe, expect, it } from 'vitest';
import { SchemaValidationError, createSchemaValidator, toErrorShape, type ContractViolation } from '../../src/model/index.js';

const validator = createSchemaValidator();
const asserting = createSchemaValidator({ formats: 'assert' });

function violationsOf(schema: unknown, data: unknown, v = validator): ContractViolation[] {
  try {
    v.validate(schema, data);
  } catch (err) {
    expect(err).toBeInstanceOf(SchemaValidationError);
    return (err as SchemaValidationError).violations;
  }
  throw new Error('expected the value to be rejected');
}

function messagesOf(schema: unknown, data: unknown, v = validator): string[] {
  return violationsOf(schema, data, v).map((violation) => violation.message);
}

describe('violations: one per problem, in the seed-004 taxonomy', () => {
  it('required → RequiredMissing with the pointer of the missing field', () => {
    const schema = {
      type: 'object',
      required: ['path'],
      properties: { user: { type: 'object', required: ['name', 'a/b~c'] } },
    };
    expect(violationsOf(schema, { user: {} })).toEqual([
      { code: 'RequiredMissing', field: '/path', message: "Field '/path' is required.", keyword: 'required' },
      { code: 'RequiredMissing', field: '/user/name', message: "Field '/user/name' is required.", keyword: 'required' },
      { code: 'RequiredMissing', field: '/user/a~1b~0c', message: "Field '/user/a~1b~0c' is required.", keyword: 'required' },
    ]);
  });

  it('dependentRequired / draft-07 dependencies → RequiredMissing naming the trigger', () => {
    expect(messagesOf({ dependentRequired: { card: ['cvv'] } }, { card: '4111' })).toEqual([
      "Field '/cvv' is required when '/card' is present.",
    ]);
    expect(messagesOf({ $schema: 'http://json-schema.org/draft-07/schema#', dependencies: { a: ['b'] } }, { a: 1 })).toEqual([
      "Field '/b' is required when '/a' is present.",
    ]);
  });

  it('type → InvalidType with expected type names and the actual JSON type', () => {
    const schema = {
      type: 'object',
      properties: { age: { type: 'integer' }, name: { type: ['string', 'null'] }, tags: { type: 'array' } },
    };
    expect(violationsOf(schema, { age: 'old', name: 5, tags: {} })).toEqual([
      {
        code: 'InvalidType',
        field: '/age',
        message: "Field '/age' must be integer, got string.",
        expected: 'integer',
        actual: 'string',
        keyword: 'type',
      },
      {
        code: 'InvalidType',
        field: '/name',
        message: "Field '/name' must be string or null, got integer.",
        expected: ['string', 'null'],
        actual: 'integer',
        keyword: 'type',
      },
      {
        code: 'InvalidType',
        field: '/tags',
        message: "Field '/tags' must be array, got object.",
        expected: 'array',
        actual: 'object',
        keyword: 'type',
      },
    ]);
    expect(messagesOf({ type: 'object' }, [1])).toEqual(["Field '(root)' must be object, got array."]);
    expect(messagesOf({ type: 'integer' }, 1.5)).toEqual(["Field '(root)' must be integer, got number."]);
    expect(messagesOf({ type: 'string' }, null)).toEqual(["Field '(root)' must be string, got null."]);
    expect(messagesOf({ type: 'number' }, true)).toEqual(["Field '(root)' must be number, got boolean."]);
  });

  it('format (assert mode) → InvalidFormat with the expected format', () => {
    expect(
      violationsOf(
        { type: 'object', properties: { createdAt: { type: 'string', format: 'date-time' } } },
        { createdAt: 'yesterday' },
        asserting,
      ),
    ).toEqual([
      {
        code: 'InvalidFormat',
        field: '/createdAt',
        message: 'Field \'/createdAt\' must be a valid date-time string (format "date-time"), got "yesterday".',
        expected: 'date-time',
        actual: 'yesterday',
        keyword: 'format',
      },
    ]);
  });

  it('enum and const → InvalidEnumValue with the allowed values', () => {
    const status = { enum: ['queued', 'running', 'succeeded', 'failed'] };
    expect(violationsOf({ properties: { status } }, { status: 'done' })).toEqual([
      {
        code: 'InvalidEnumValue',
        field: '/status',
        message: 'Field \'/status\' must be one of "queued", "running", "succeeded", "failed", got "done".',
        allowed: ['queued', 'running', 'succeeded', 'failed'],
        actual: 'done',
        keyword: 'enum',
      },
    ]);
    expect(violationsOf({ const: 'v1' }, 'v2')).toEqual([
      {
        code: 'InvalidEnumValue',
        field: '',
        message: 'Field \'(root)\' must be "v1", got "v2".',
        allowed: ['v1'],
        actual: 'v2',
        keyword: 'const',
      },
    ]);
    const long = { enum: Array.from({ length: 12 }, (_, i) => i) };
    expect(messagesOf(long, 99)).toEqual(["Field '(root)' must be one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … (12 in all), got 99."]);
    expect(violationsOf(long, 99)[0]?.allowed).toHaveLength(12);
  });

  it('caps allowed at 20 values, then says how many more there are', () => {
    const countries = { properties: { country: { enum: Array.from({ length: 500 }, (_, i) => `c${i}`) } } };
    const [violation] = violationsOf(countries, { country: 'xx' });
    expect(violation?.allowed).toEqual([...Array.from({ length: 20 }, (_, i) => `c${i}`), '… and 480 more']);
    expect(violation?.message).toContain('… (500 in all), got "xx".');
    // Exactly 20 values are listed as they are.
    const twenty = { enum: Array.from({ length: 20 }, (_, i) => i) };
    expect(violationsOf(twenty, 99)[0]?.allowed).toEqual(twenty.enum);
    // The same cap for a discriminator's values.
    const variants = {
      oneOf: Array.from({ length: 25 }, (_, i) => ({ type: 'object', required: ['kind'], properties: { kind: { const: `k${i}` } } })),
    };
    const [mismatch] = violationsOf(variants, { kind: 'nope' });
    expect(mismatch?.code).toBe('DiscriminatorMismatch');
    expect(mismatch?.allowed).toHaveLength(21);
    expect(mismatch?.allowed?.at(-1)).toBe('… and 5 more');
  });

  it('additionalProperties, unevaluatedProperties and false schemas → "is not allowed"', () => {
    expect(violationsOf({ type: 'object', properties: { a: {} }, additionalProperties: false }, { a: 1, extra: 2 })).toEqual([
      {
        code: 'ConstraintViolation',
        field: '/extra',
        message: "Field '/extra' is not allowed.",
        expected: 'additionalProperties false',
        keyword: 'additionalProperties',
      },
    ]);
    expect(messagesOf({ properties: { a: {} }, unevaluatedProperties: false }, { a: 1, b: 2 })).toEqual(["Field '/b' is not allowed."]);
    expect(messagesOf({ properties: { secret: false } }, { secret: 'x' })).toEqual(["Field '/secret' is not allowed."]);
  });

  it('bounds → ConstraintViolation with the bound as expected', () => {
    const schema = {
      properties: {
        age: { minimum: 1 },
        limit: { exclusiveMaximum: 10 },
        step: { multipleOf: 5 },
        code: { maxLength: 3 },
        slug: { pattern: '^a' },
        list: { minItems: 2 },
        set: { uniqueItems: true },
        bag: { minProperties: 1 },
      },
    };
    const violations = violationsOf(schema, { age: 0, limit: 10, step: 7, code: 'abcd', slug: 'b', list: [1], set: [1, 2, 1], bag: {} });
    expect(violations.map(({ field, message, expected }) => ({ field, message, expected }))).toEqual([
      { field: '/age', message: "Field '/age' must be >= 1, got 0.", expected: 'minimum 1' },
      { field: '/limit', message: "Field '/limit' must be < 10, got 10.", expected: 'exclusiveMaximum 10' },
      { field: '/step', message: "Field '/step' must be a multiple of 5, got 7.", expected: 'multipleOf 5' },
      { field: '/code', message: "Field '/code' must be at most 3 characters long, got 4.", expected: 'maxLength 3' },
      { field: '/slug', message: 'Field \'/slug\' must match the pattern ^a, got "b".', expected: 'pattern ^a' },
      { field: '/list', message: "Field '/list' must have at least 2 items, got 1.", expected: 'minItems 2' },
      { field: '/set', message: "Field '/set' must not contain duplicate items (items 0 and 2 are equal).", expected: 'uniqueItems' },
      { field: '/bag', message: "Field '/bag' must have at least 1 property, got 0.", expected: 'minProperties 1' },
    ]);
    expect(violations.every((violation) => violation.code === 'ConstraintViolation')).toBe(true);
    // Lengths count characters (code points), as JSON Schema does.
    expect(messagesOf({ minLength: 3 }, '😀😀')).toEqual(["Field '(root)' must be at least 3 characters long, got 2."]);
  });

  it('not, contains, propertyNames and if/then explain themselves', () => {
    expect(messagesOf({ not: { type: 'string' } }, 'x')).toEqual(["Field '(root)' must not match string."]);
    expect(messagesOf({ contains: { type: 'integer' }, minContains: 2 }, [1, 'a'])).toEqual([
      "Field '(root)' must contain at least 2 items matching integer.",
    ]);
    expect(messagesOf({ propertyNames: { pattern: '^[a-z]+$' } }, { ok: 1, Bad: 2 })).toEqual([
      'Field \'(root)\' has a property name that is not allowed: "Bad" (names must match pattern ^[a-z]+$).',
    ]);
    expect(messagesOf({ if: { properties: { a: { const: 1 } } }, then: { required: ['b'] } }, { a: 1 })).toEqual([
      "Field '/b' is required.",
    ]);
    expect(messagesOf({ prefixItems: [{ type: 'string' }], items: false }, ['a', 1])).toEqual([
      "Field '(root)' must have at most 1 item, got 2.",
    ]);
  });
});

describe('violations: oneOf / anyOf without branch noise', () => {
  const fileOrUrl = {
    type: 'object',
    oneOf: [
      { required: ['type'], properties: { type: { const: 'file' }, path: { type: 'string' } } },
      { required: ['type'], properties: { type: { const: 'url' }, href: { type: 'string', format: 'uri' } } },
    ],
  };

  it("a discriminator value selects its branch: only that branch's violations are reported", () => {
    expect(messagesOf(fileOrUrl, { type: 'file', path: 3 })).toEqual(["Field '/path' must be string, got integer."]);
    expect(messagesOf(fileOrUrl, { type: 'url', href: 'not a uri' }, asserting)).toEqual([
      'Field \'/href\' must be a valid uri string (format "uri"), got "not a uri".',
    ]);
  });

  it('a discriminator value that selects nothing → one DiscriminatorMismatch naming the field and the values', () => {
    expect(violationsOf(fileOrUrl, { type: 'dir' })).toEqual([
      {
        code: 'DiscriminatorMismatch',
        field: '/type',
        message: 'Field \'/type\' must be one of "file", "url" (it selects the variant), got "dir".',
        expected: ['object (type="file", required: type)', 'object (type="url", required: type)'],
        allowed: ['file', 'url'],
        actual: 'dir',
        keyword: 'oneOf',
      },
    ]);
    expect(messagesOf(fileOrUrl, { path: '/tmp' })).toEqual([
      'Field \'/type\' is required to select a variant; it must be one of "file", "url".',
    ]);
  });

  it('works through $ref branches, single-value enums and nested arrays', () => {
    const shapes = {
      $defs: {
        circle: {
          type: 'object',
          required: ['kind', 'radius'],
          properties: { kind: { const: 'circle' }, radius: { type: 'number', exclusiveMinimum: 0 } },
        },
        square: { type: 'object', required: ['kind', 'side'], properties: { kind: { enum: ['square'] }, side: { type: 'number' } } },
      },
      type: 'object',
      properties: { shapes: { type: 'array', items: { oneOf: [{ $ref: '#/$defs/circle' }, { $ref: '#/$defs/square' }] } } },
    };
    const data = { shapes: [{ kind: 'circle', radius: 1 }, { kind: 'circle', radius: -1 }, { kind: 'square' }, { kind: 'hexagon' }, 5] };
    expect(violationsOf(shapes, data).map(({ code, field, message }) => ({ code, field, message }))).toEqual([
      { code: 'ConstraintViolation', field: '/shapes/1/radius', message: "Field '/shapes/1/radius' must be > 0, got -1." },
      { code: 'RequiredMissing', field: '/shapes/2/side', message: "Field '/shapes/2/side' is required." },
      {
        code: 'DiscriminatorMismatch',
        field: '/shapes/3/kind',
        message: 'Field \'/shapes/3/kind\' must be one of "circle", "square" (it selects the variant), got "hexagon".',
      },
      {
        code: 'InvalidType',
        field: '/shapes/4',
        message:
          'Field \'/shapes/4\' must match exactly one of these variants: object (kind="circle", required: kind, radius) | object (kind="square", required: kind, side); got integer.',
      },
    ]);
  });

  it('branches keyed by enum values are told apart like const ones, when the value sets do not overlap', () => {
    const keyed = {
      type: 'object',
      properties: {
        p: {
          oneOf: [
            { type: 'object', properties: { t: { enum: ['a', 'b'] }, x: { type: 'string' } }, required: ['t', 'x'] },
            { type: 'object', properties: { t: { enum: ['c'] }, y: { type: 'string' } }, required: ['t', 'y'] },
          ],
        },
      },
    };
    // `b` selects the first branch: only its violation is reported.
    expect(violationsOf(keyed, { p: { t: 'b' } })).toEqual([
      { code: 'RequiredMissing', field: '/p/x', message: "Field '/p/x' is required.", keyword: 'required' },
    ]);
    expect(messagesOf(keyed, { p: { t: 'c', y: 1 } })).toEqual(["Field '/p/y' must be string, got integer."]);
    expect(violationsOf(keyed, { p: { t: 'z' } })).toEqual([
      expect.objectContaining({
        code: 'DiscriminatorMismatch',
        field: '/p/t',
        message: 'Field \'/p/t\' must be one of "a", "b", "c" (it selects the variant), got "z".',
        allowed: ['a', 'b', 'c'],
      }),
    ]);
    expect(messagesOf(keyed, { p: {} })).toEqual(['Field \'/p/t\' is required to select a variant; it must be one of "a", "b", "c".']);
    // Overlapping value sets (`b` in both) do not select a branch: no discriminator is claimed.
    const overlapping = {
      oneOf: [
        { type: 'object', properties: { t: { enum: ['a', 'b'] } }, required: ['t', 'x'] },
        { type: 'object', properties: { t: { enum: ['b', 'c'] } }, required: ['t', 'y'] },
      ],
    };
    for (const violation of violationsOf(overlapping, { t: 'z' })) expect(violation.field).not.toBe('/t');
  });

  it('without a discriminator: the only branch of the right type, else a candidate summary', () => {
    const nullable = { properties: { nickname: { anyOf: [{ type: 'string', minLength: 3 }, { type: 'null' }] } } };
    expect(messagesOf(nullable, { nickname: 'ab' })).toEqual(["Field '/nickname' must be at least 3 characters long, got 2."]);
    expect(
      violationsOf(
        {
          anyOf: [
            { type: 'object', required: ['id'] },
            { type: 'array', minItems: 1 },
          ],
        },
        'x',
      ),
    ).toEqual([
      {
        code: 'InvalidType',
        field: '',
        message: "Field '(root)' must match at least one of these variants: object (required: id) | array (minItems 1); got string.",
        expected: ['object (required: id)', 'array (minItems 1)'],
        actual: 'string',
        keyword: 'anyOf',
      },
    ]);
  });

  it('an untagged union is never a DiscriminatorMismatch: a type no variant takes is InvalidType, else ConstraintViolation', () => {
    // pydantic's Optional[int]: the same code as `type: ['integer', 'null']` gives
    const optional = { type: 'object', properties: { age: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } };
    expect(violationsOf(optional, { age: 'ten' })).toEqual([
      expect.objectContaining({ code: 'InvalidType', field: '/age', actual: 'string', keyword: 'anyOf' }),
    ]);
    expect(violationsOf({ properties: { age: { type: ['integer', 'null'] } } }, { age: 'ten' })[0]?.code).toBe('InvalidType');
    const contact = {
      oneOf: [
        { type: 'object', required: ['userId'] },
        { type: 'object', required: ['email'] },
      ],
    };
    expect(violationsOf(contact, {})).toEqual([
      expect.objectContaining({
        code: 'ConstraintViolation',
        message:
          "Field '(root)' must match exactly one of these variants: object (required: userId) | object (required: email); got object.",
      }),
    ]);
  });

  it('a union of constants reads as an enum', () => {
    expect(violationsOf({ anyOf: [{ const: 'a' }, { const: 'b' }, { enum: ['c', 'd'] }] }, 'z')).toEqual([
      {
        code: 'InvalidEnumValue',
        field: '',
        message: 'Field \'(root)\' must be one of "a", "b", "c", "d", got "z".',
        allowed: ['a', 'b', 'c', 'd'],
        actual: 'z',
        keyword: 'anyOf',
      },
    ]);
  });

  it('oneOf matching more than one branch says which', () => {
    expect(violationsOf({ oneOf: [{ type: 'integer' }, { minimum: 0 }] }, 5)).toEqual([
      {
        code: 'ConstraintViolation',
        field: '',
        message: "Field '(root)' must match exactly one oneOf variant, but it matches variants 0 and 1.",
        expected: ['integer', 'minimum 0'],
        actual: 'integer',
        keyword: 'oneOf',
      },
    ]);
  });
});

describe('violations: the error a caller receives', () => {
  it('cuts a huge property name to 100 characters in fields and messages, on both engines', () => {
    const key = 'Z'.repeat(100_000);
    const cut = `/${'Z'.repeat(99)}…`;
    const schemas = [
      { type: 'object', properties: { a: {} }, additionalProperties: false },
      { type: 'object', required: ['path'], additionalProperties: false, properties: { path: { type: 'string' } } },
      { type: 'object', propertyNames: { maxLength: 20 } },
      { type: 'object', additionalProperties: { type: 'string' } },
      // unevaluatedProperties beside a dynamic construct goes to the spec engine
      { type: 'object', properties: { a: {} }, unevaluatedProperties: false, $defs: { x: { $dynamicAnchor: 'x' } } },
    ];
    for (const schema of schemas) {
      let caught: unknown;
      try {
        validator.validate(schema, { [key]: 1 });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(SchemaValidationError);
      expect((caught as Error).message.length).toBeLessThan(600);
      expect(JSON.stringify(toErrorShape(caught)).length).toBeLessThan(2000);
      const fields = (caught as SchemaValidationError).violations.map((v) => v.field);
      expect(fields.some((field) => field === cut || field === '')).toBe(true);
    }
    // short names are untouched
    expect(violationsOf({ type: 'object', additionalProperties: false }, { shortName: 1 })[0]?.field).toBe('/shortName');
  });

  it('toErrorShape gives the seed-004 envelope', () => {
    let caught: unknown;
    try {
      validator.validateInput({ name: 'write_file', inputSchema: { type: 'object', required: ['path'] } }, {});
    } catch (err) {
      caught = err;
    }
    expect(toErrorShape(caught)).toEqual({
      status: 'Error',
      error: {
        code: 'VALIDATION',
        message: "validation error: Field '/path' is required",
        details: {
          tool: 'write_file',
          schema: 'inputSchema',
          violations: [{ code: 'RequiredMissing', field: '/path', message: "Field '/path' is required.", keyword: 'required' }],
        },
      },
    });
  });

  it('handles values JSON cannot show', () => {
    expect(messagesOf({ type: 'string' }, 10n)).toEqual(["Field '(root)' must be string, got bigint."]);
    expect(messagesOf({ const: 1 }, 10n)).toEqual(["Field '(root)' must be 1, got 10."]);
    expect(messagesOf({ type: 'object', properties: { f: { type: 'string' } } }, { f: () => 1 })).toEqual([
      "Field '/f' must be string, got function.",
    ]);
  });
});
