import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DIALECT_2020_12,
  DIALECT_DRAFT_07,
  JsonSchemaValidator,
  SchemaValidationError,
  ToolexecError,
  createSchemaValidator,
  hasErrorCode,
  type Tool,
} from '../../src/model/index.js';

const S = { type: 'object' };

function tool(inputSchema: unknown, outputSchema?: unknown): Tool {
  const t = { name: 'probe', inputSchema } as unknown as Tool;
  if (outputSchema !== undefined) (t as { outputSchema?: unknown }).outputSchema = outputSchema;
  return t;
}

/** Runs `fn` and returns what it threw (failing the test when it does not throw). */
function thrown(fn: () => void): ToolexecError {
  try {
    fn();
  } catch (err) {
    expect(ToolexecError.isInstance(err)).toBe(true);
    return err as ToolexecError;
  }
  throw new Error('expected a throw');
}

describe('createSchemaValidator: Go conformance (foundation §8, cases 43–58)', () => {
  const v = createSchemaValidator();

  it('43: validates each basic type', () => {
    const cases: [string, unknown, unknown][] = [
      ['string', 'x', 123],
      ['integer', 42, 4.5],
      ['number', 4.5, 'x'],
      ['boolean', true, 'true'],
      ['array', [1], { 0: 1 }],
      ['object', { a: 1 }, [1]],
      ['null', null, 0],
    ];
    for (const [type, good, bad] of cases) {
      expect(() => v.validate({ type }, good)).not.toThrow();
      const err = thrown(() => v.validate({ type }, bad));
      expect(err.code).toBe('VALIDATION');
      expect(err).toBeInstanceOf(SchemaValidationError);
    }
    // JSON Schema integers are whole numbers, whatever their spelling.
    expect(() => v.validate({ type: 'integer' }, 1.0)).not.toThrow();
  });

  it('44: rejects a missing required property and a wrong-typed one', () => {
    const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] };
    expect(() => v.validate(schema, { name: 'Ada', age: 36 })).not.toThrow();
    expect(thrown(() => v.validate(schema, {})).code).toBe('VALIDATION');
    expect(thrown(() => v.validate(schema, { name: 'Ada', age: 'old' })).code).toBe('VALIDATION');
  });

  it('45: additionalProperties false rejects extras; plain S accepts them', () => {
    const closed = { type: 'object', additionalProperties: false };
    expect(() => v.validate(closed, {})).not.toThrow();
    expect(thrown(() => v.validate(closed, { extra: 1 })).code).toBe('VALIDATION');
    expect(() => v.validate(S, {})).not.toThrow();
    expect(() => v.validate(S, { extra: 1 })).not.toThrow();
  });

  it('46: rejects other dialects with INVALID_SCHEMA', () => {
    for (const uri of [
      'http://json-schema.org/draft-04/schema#',
      'http://json-schema.org/draft-06/schema#',
      'https://example.com/my-schema',
    ]) {
      const err = thrown(() => v.validate({ $schema: uri, type: 'string' }, 'x'));
      expect(err.code).toBe('INVALID_SCHEMA');
      expect(err.message).toBe(`invalid JSON Schema: unsupported JSON Schema dialect: ${uri} (only 2020-12 and draft-07 are supported)`);
    }
    expect(thrown(() => v.validate({ $schema: 7 }, 'x')).message).toContain('unsupported JSON Schema dialect: 7');
  });

  it('47: accepts 2020-12 and both draft-07 spellings', () => {
    for (const uri of [DIALECT_2020_12, DIALECT_DRAFT_07, 'http://json-schema.org/draft-07/schema', '']) {
      expect(() => v.validate({ $schema: uri, type: 'string' }, 'test')).not.toThrow();
    }
  });

  it('accepts the official dialects over http and https alike (generators write both)', () => {
    for (const uri of [
      'https://json-schema.org/draft-07/schema#',
      'https://json-schema.org/draft-07/schema',
      'http://json-schema.org/draft/2020-12/schema',
    ]) {
      expect(() => v.validate({ $schema: uri, type: 'string' }, 'test')).not.toThrow();
      expect(thrown(() => v.validate({ $schema: uri, type: 'string' }, 1)).code).toBe('VALIDATION');
    }
    // draft-07 over https keeps draft-07's meaning: tuple items
    const tuple = { $schema: 'https://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }] };
    expect(thrown(() => v.validate(tuple, [1])).code).toBe('VALIDATION');
    expect(() => v.validate(tuple, ['a', 1])).not.toThrow();
  });

  it('48: accepts URIs under the 2020-12 and draft-07 prefixes', () => {
    for (const uri of ['https://json-schema.org/draft/2020-12/meta/core', 'http://json-schema.org/draft-07/links']) {
      expect(() => v.validate({ $schema: uri, type: 'string' }, 'test')).not.toThrow();
      expect(thrown(() => v.validate({ $schema: uri, type: 'string' }, 1)).code).toBe('VALIDATION');
    }
  });

  it("49: never mutates the caller's schema or instance", () => {
    const schema = { $schema: DIALECT_DRAFT_07, type: 'object', properties: { a: { type: 'string' } } };
    const before = structuredClone(schema);
    v.validate(schema, { a: 'x' });
    thrown(() => v.validate(schema, { a: 1 }));
    expect(schema).toEqual(before);
    expect(schema.$schema).toBe(DIALECT_DRAFT_07);
    // Frozen values make any write throw.
    const frozen = Object.freeze({ type: 'object', required: Object.freeze(['a']) });
    const instance = Object.freeze({ b: Object.freeze([1, 2]) });
    expect(thrown(() => v.validate(frozen, instance)).code).toBe('VALIDATION');
  });

  it('50: never fetches an external $ref', () => {
    const err = thrown(() => v.validate({ $ref: 'https://example.com/external-schema.json' }, {}));
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toBe('invalid JSON Schema: external $ref resolution is disabled: https://example.com/external-schema.json');
    expect(err.cause).toBeInstanceOf(Error);
    expect((err.cause as { missingRef?: string }).missingRef).toBe('https://example.com/external-schema.json');
  });

  it('51: resolves local $refs', () => {
    const schema = {
      $defs: { name: { type: 'string' } },
      type: 'object',
      properties: { firstName: { $ref: '#/$defs/name' }, lastName: { $ref: '#/$defs/name' } },
    };
    expect(() => v.validate(schema, { firstName: 'John', lastName: 'Doe' })).not.toThrow();
    expect(thrown(() => v.validate(schema, { firstName: 123 })).code).toBe('VALIDATION');
    const draft07 = { $schema: DIALECT_DRAFT_07, definitions: { n: { type: 'number' } }, items: { $ref: '#/definitions/n' } };
    expect(() => v.validate(draft07, [1, 2])).not.toThrow();
    expect(thrown(() => v.validate(draft07, ['x'])).code).toBe('VALIDATION');
    const missing = thrown(() => v.validate({ $ref: '#/$defs/nope' }, 1));
    expect(missing.code).toBe('INVALID_SCHEMA');
    expect(missing.message).toContain('cannot resolve $ref #/$defs/nope');
  });

  it('52: text that is not JSON is an invalid schema', () => {
    const err = thrown(() => v.validate('not a schema', {}));
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toMatch(/^invalid JSON Schema: failed to parse schema: /);
    expect(err.cause).toBeInstanceOf(SyntaxError);
  });

  it('53: empty and broken JSON text', () => {
    for (const empty of ['', '   ', new Uint8Array(), Buffer.from(' \n')]) {
      expect(thrown(() => v.validate(empty, {})).message).toBe('invalid JSON Schema: empty schema');
    }
    expect(thrown(() => v.validate('{invalid json}', {})).message).toContain('invalid JSON Schema');
    const truncated = thrown(() => v.validate(new TextEncoder().encode('{"type": "object"'), {}));
    expect(truncated.code).toBe('INVALID_SCHEMA');
    expect(truncated.message).toContain('failed to parse schema');
    expect(thrown(() => v.validate(new Uint8Array([0xff, 0xfe]), {})).message).toContain('not valid UTF-8');
  });

  it('54: raw JSON schema text, as a string or as bytes', () => {
    for (const raw of ['{"type":"integer"}', new TextEncoder().encode('{"type":"integer"}')]) {
      expect(() => v.validate(raw, 42)).not.toThrow();
      expect(thrown(() => v.validate(raw, 'nope')).code).toBe('VALIDATION');
    }
    expect(() => v.validate('true', 'anything')).not.toThrow();
    expect(thrown(() => v.validate('42', 1)).message).toBe('invalid JSON Schema: expected a JSON Schema object or boolean, got number');
  });

  it('55: a missing tool or inputSchema is INVALID_SCHEMA', () => {
    for (const bad of [null, undefined]) {
      const input = thrown(() => v.validateInput(bad as unknown as Tool, {}));
      expect(input.code).toBe('INVALID_SCHEMA');
      expect(input.message).toBe(`invalid JSON Schema: tool is ${String(bad)}`);
      expect(thrown(() => v.validateOutput(bad as unknown as Tool, {})).message).toBe(`invalid JSON Schema: tool is ${String(bad)}`);
    }
    expect(thrown(() => v.validateInput('x' as unknown as Tool, {})).message).toBe(
      'invalid JSON Schema: tool is not an object (got string)',
    );
    const noSchema = thrown(() => v.validateInput({ name: 'bare' } as unknown as Tool, {}));
    expect(noSchema.code).toBe('INVALID_SCHEMA');
    expect(noSchema.message).toBe('invalid JSON Schema: tool "bare" has no inputSchema');
  });

  it('56: validateOutput passes without an outputSchema and checks one when present', () => {
    expect(() => v.validateOutput(tool(S), 'anything')).not.toThrow();
    const t = tool(S, { type: 'object', properties: { result: { type: 'string' } } });
    expect(() => v.validateOutput(t, { result: 'ok' })).not.toThrow();
    const err = thrown(() => v.validateOutput(t, { result: 123 }));
    expect(err.code).toBe('OUTPUT_VALIDATION');
    expect(err.message).toBe("output validation error: Field '/result' must be string, got integer");
    expect(err.details).toMatchObject({ tool: 'probe', schema: 'outputSchema' });
    // A missing result is null: an object schema rejects it.
    expect(thrown(() => v.validateOutput(t, undefined)).message).toBe("output validation error: Field '(root)' must be object, got null");
    expect(() => v.validateOutput(tool(S, { type: ['object', 'null'] }), undefined)).not.toThrow();
  });

  it('57: format is an annotation by default', () => {
    expect(() => v.validate({ type: 'string', format: 'email' }, 'nope')).not.toThrow();
    expect(() => v.validate({ type: 'string', format: 'no-such-format' }, 'nope')).not.toThrow();
  });

  it('58: undefined args count as {}', () => {
    expect(() => v.validateInput(tool(S), undefined)).not.toThrow();
    const err = thrown(() => v.validateInput(tool({ type: 'object', required: ['q'] }), undefined));
    expect(err.message).toBe("validation error: Field '/q' is required");
    expect(thrown(() => v.validateInput(tool(S), null)).message).toBe("validation error: Field '(root)' must be object, got null");
  });
});

describe('createSchemaValidator: dialects', () => {
  const v = createSchemaValidator();

  it('keeps draft-07 tuple items', () => {
    const tuple = { $schema: DIALECT_DRAFT_07, type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false };
    expect(() => v.validate(tuple, ['a', 1])).not.toThrow();
    const err = thrown(() => v.validate(tuple, ['a', 'b']));
    expect(err.message).toBe("validation error: Field '/1' must be number, got string");
    expect(thrown(() => v.validate(tuple, ['a', 1, true])).message).toBe(
      "validation error: Field '(root)' must have at most 2 items, got 3",
    );
  });

  it('reads a schema without $schema that is only valid as draft-07 as draft-07', () => {
    const tuple = { type: 'array', items: [{ type: 'string' }, { type: 'number' }] };
    expect(() => v.validate(tuple, ['a', 1])).not.toThrow();
    expect(thrown(() => v.validate(tuple, ['a', 'b'])).code).toBe('VALIDATION');
    // 2020-12 spells tuples with prefixItems.
    expect(() => v.validate({ prefixItems: [{ type: 'string' }], items: false }, ['a'])).not.toThrow();
    expect(thrown(() => v.validate({ prefixItems: [{ type: 'string' }], items: false }, ['a', 2])).code).toBe('VALIDATION');
  });

  it('applies draft-07 $ref semantics (siblings ignored) and 2020-12 ones (siblings applied)', () => {
    const defs = { definitions: { any: {} }, $defs: { any: {} } };
    expect(() => v.validate({ $schema: DIALECT_DRAFT_07, ...defs, $ref: '#/definitions/any', minimum: 10 }, 1)).not.toThrow();
    expect(thrown(() => v.validate({ ...defs, $ref: '#/$defs/any', minimum: 10 }, 1)).code).toBe('VALIDATION');
  });

  it('accepts boolean schemas', () => {
    expect(() => v.validate(true, { anything: [1] })).not.toThrow();
    expect(thrown(() => v.validate(false, 1)).message).toBe("validation error: Field '(root)' is not allowed");
  });
});

describe('createSchemaValidator: bad schemas', () => {
  const v = createSchemaValidator();

  it('names what Ajv cannot compile and keeps its error as cause', () => {
    const type = thrown(() => v.validate({ type: 'nonsense' }, 1));
    expect(type.code).toBe('INVALID_SCHEMA');
    expect(type.message).toMatch(/^invalid JSON Schema: schema is invalid: \/type /);
    expect(type.cause).toBeInstanceOf(Error);
    const minimum = thrown(() => v.validate({ minimum: 'x' }, 1));
    expect(minimum.message).toBe('invalid JSON Schema: schema is invalid: /minimum must be number');
    const pattern = thrown(() => v.validate({ type: 'string', pattern: '(' }, 'x'));
    expect(pattern.code).toBe('INVALID_SCHEMA');
    expect(pattern.message).toContain('Invalid regular expression');
  });

  it('names the type of anything that is not a schema', () => {
    const cases: [unknown, string][] = [
      [42, 'invalid JSON Schema: expected a JSON Schema object, a boolean or JSON text, got number'],
      [null, 'invalid JSON Schema: schema is null'],
      [undefined, 'invalid JSON Schema: schema is undefined'],
      [[{ type: 'string' }], 'invalid JSON Schema: expected a JSON Schema object, a boolean or JSON text, got array'],
      [new Date(0), 'invalid JSON Schema: expected a JSON Schema object, a boolean or JSON text, got Date'],
      [new Map(), 'invalid JSON Schema: expected a JSON Schema object, a boolean or JSON text, got Map'],
      [() => 1, 'invalid JSON Schema: expected a JSON Schema object, a boolean or JSON text, got function'],
      [10n, 'invalid JSON Schema: expected a JSON Schema object, a boolean or JSON text, got bigint'],
    ];
    for (const [schema, message] of cases) {
      const err = thrown(() => v.validate(schema, {}));
      expect(err.code).toBe('INVALID_SCHEMA');
      expect(err.message).toBe(message);
    }
  });

  it('refuses values that are not JSON and cycles, without overflowing', () => {
    expect(thrown(() => v.validate({ type: 'object', default: 10n }, {})).message).toBe(
      'invalid JSON Schema: schema is not JSON: /default is a bigint',
    );
    expect(thrown(() => v.validate({ minimum: Number.NaN }, 1)).message).toBe('invalid JSON Schema: schema is not JSON: /minimum is NaN');
    expect(thrown(() => v.validate({ enum: [1, undefined] }, 1)).message).toBe(
      'invalid JSON Schema: schema is not JSON: /enum/1 is undefined',
    );
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(thrown(() => v.validate(cyclic, {})).message).toBe('invalid JSON Schema: schema contains a cycle at /properties/self');
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5000; i++) deep = { items: deep };
    const tooDeep = thrown(() => v.validate(deep, []));
    expect(tooDeep.code).toBe('INVALID_SCHEMA');
    expect(tooDeep.message).toMatch(/^invalid JSON Schema: schema is nested more than 1000 levels deep \(at \/items\/items/);
    expect(tooDeep.message.length).toBeLessThan(200);
    // `undefined` properties are absent, as in JSON.
    expect(() => v.validate({ type: 'string', description: undefined }, 'x')).not.toThrow();
  });

  it('reports the tool and slot of a bad tool schema', () => {
    const err = thrown(() => v.validateInput({ name: 'search', inputSchema: { type: 'nonsense' } } as unknown as Tool, {}));
    expect(err.message).toMatch(/^invalid JSON Schema: inputSchema of tool "search": schema is invalid: /);
    expect(err.details).toMatchObject({ tool: 'search', schema: 'inputSchema' });
    // The failure is remembered for that object, and still a fresh error each time.
    const again = thrown(() => v.validateInput({ name: 'search', inputSchema: { type: 'nonsense' } } as unknown as Tool, {}));
    expect(again).not.toBe(err);
    expect(again.message).toBe(err.message);
  });

  it('names the tool by its ID (namespace:name[:version]), so that files:write and db:write are told apart', () => {
    const write = (namespace: string | undefined, version?: string): Tool =>
      ({
        name: 'write',
        ...(namespace === undefined ? {} : { namespace }),
        ...(version === undefined ? {} : { version }),
        inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        outputSchema: { type: 'string' },
      }) as unknown as Tool;
    expect(thrown(() => v.validateInput(write('files'), {})).details).toMatchObject({ tool: 'files:write', schema: 'inputSchema' });
    expect(thrown(() => v.validateInput(write('db', '2.0.0'), {})).details).toMatchObject({ tool: 'db:write:2.0.0' });
    expect(thrown(() => v.validateOutput(write('files'), 1)).details).toMatchObject({ tool: 'files:write', schema: 'outputSchema' });
    expect(thrown(() => v.forTool(write('files')).validateInput({})).details).toMatchObject({ tool: 'files:write' });
    // A bare name stays the name; a version without a namespace is not part of the ID.
    expect(thrown(() => v.validateInput(write(undefined, '1.0.0'), {})).details).toMatchObject({ tool: 'write' });
    const bad = { name: 'search', namespace: 'web', inputSchema: { type: 'nonsense' } } as unknown as Tool;
    const err = thrown(() => v.validateInput(bad, {}));
    expect(err.message).toMatch(/^invalid JSON Schema: inputSchema of tool "web:search": schema is invalid: /);
    expect(err.details).toMatchObject({ tool: 'web:search', schema: 'inputSchema' });
    const missing = thrown(() => v.validateInput({ name: 'bare', namespace: 'ns' } as unknown as Tool, {}));
    expect(missing.message).toBe('invalid JSON Schema: tool "ns:bare" has no inputSchema');
  });
});

describe('createSchemaValidator: non-finite numbers', () => {
  const v = createSchemaValidator();

  it('shows NaN and ±Infinity as they are, not as null', () => {
    expect(thrown(() => v.validate({ enum: [1] }, NaN)).message).toBe("validation error: Field '(root)' must be one of 1, got NaN");
    expect(thrown(() => v.validate({ const: 0 }, -Infinity)).message).toBe("validation error: Field '(root)' must be 0, got -Infinity");
  });

  it("type 'number' and 'integer' refuse NaN and ±Infinity: they are not JSON numbers", () => {
    const bounded = { type: 'object', properties: { n: { type: 'number', maximum: 5 }, i: { type: 'integer' } } };
    for (const n of [NaN, Infinity, -Infinity]) {
      expect(thrown(() => v.validate(bounded, { n })).message).toBe(
        `validation error: Field '/n' must be number, got ${n} (not a finite number)`,
      );
      expect(thrown(() => v.validate(bounded, { i: n })).message).toBe(
        `validation error: Field '/i' must be integer, got ${n} (not a finite number)`,
      );
    }
    expect(() => v.validate(bounded, { n: -1e308, i: 2 ** 60 })).not.toThrow();
  });

  it('a type violation says which non-finite number it got', () => {
    // The spec engine (chosen here for unevaluatedProperties) refuses Infinity as an integer.
    const err = thrown(() => v.validate({ type: 'integer', unevaluatedProperties: false }, Infinity));
    expect(err.message).toBe("validation error: Field '(root)' must be integer, got Infinity (not a finite number)");
    expect((err as SchemaValidationError).violations[0]).toMatchObject({ code: 'InvalidType', expected: 'integer', actual: 'number' });
  });
});

describe('createSchemaValidator: $ref documents (schemas option)', () => {
  const point = {
    $id: 'https://example.com/point.json',
    type: 'object',
    required: ['x', 'y'],
    properties: { x: { type: 'number' }, y: { type: 'number' } },
  };

  it('resolves a $ref to a known document and nothing else', () => {
    const v = createSchemaValidator({ schemas: { 'https://example.com/point.json': point } });
    const schema = { type: 'array', items: { $ref: 'https://example.com/point.json' } };
    expect(() => v.validate(schema, [{ x: 1, y: 2 }])).not.toThrow();
    expect(thrown(() => v.validate(schema, [{ x: 1 }])).message).toBe("validation error: Field '/0/y' is required");
    expect(thrown(() => v.validate({ $ref: 'https://example.com/other.json' }, 1)).message).toContain(
      'external $ref resolution is disabled: https://example.com/other.json',
    );
  });

  it('copies the documents and checks them when the validator is created', () => {
    const doc = structuredClone(point);
    const v = createSchemaValidator({ schemas: { 'https://example.com/point.json': doc } });
    doc.properties.x.type = 'string';
    expect(() => v.validate({ $ref: 'https://example.com/point.json' }, { x: 1, y: 2 })).not.toThrow();
    const bad = thrown(() => createSchemaValidator({ schemas: { 'https://example.com/bad.json': 5 } }));
    expect(bad.code).toBe('INVALID_SCHEMA');
    expect(bad.message).toBe(
      'invalid JSON Schema: known schema https://example.com/bad.json: expected a JSON Schema object or boolean, got number',
    );
  });

  it("keeps each schema's $id to itself (same $id, different content; no cross-schema refs)", () => {
    const v = createSchemaValidator();
    const a = { $id: 'https://example.com/shared.json', type: 'string' };
    const b = { $id: 'https://example.com/shared.json', type: 'number' };
    expect(() => v.validate(a, 'x')).not.toThrow();
    expect(() => v.validate(b, 1)).not.toThrow();
    expect(thrown(() => v.validate(b, 'x')).code).toBe('VALIDATION');
    const viaRef = thrown(() => v.validate({ $ref: 'https://example.com/shared.json' }, 'x'));
    expect(viaRef.code).toBe('INVALID_SCHEMA');
    expect(viaRef.message).toContain('external $ref resolution is disabled');
  });
});

describe('createSchemaValidator: formats', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("asserts known formats in 'assert' mode and lets unknown ones pass silently", () => {
    const spies = (['log', 'warn', 'error', 'info', 'debug'] as const).map((method) => vi.spyOn(console, method));
    const v = createSchemaValidator({ formats: 'assert' });
    expect(() => v.validate({ type: 'string', format: 'email' }, 'ada@example.com')).not.toThrow();
    const err = thrown(() => v.validate({ type: 'string', format: 'email' }, 'nope'));
    expect((err as SchemaValidationError).violations).toEqual([
      {
        code: 'InvalidFormat',
        field: '',
        message: 'Field \'(root)\' must be a valid email string (format "email"), got "nope".',
        expected: 'email',
        actual: 'nope',
        keyword: 'format',
      },
    ]);
    for (const format of ['date-time', 'uri', 'uuid', 'ipv4', 'date']) {
      expect(thrown(() => v.validate({ format }, 'not valid')).code).toBe('VALIDATION');
    }
    expect(() => v.validate({ type: 'string', format: 'x-custom-phone' }, 'anything')).not.toThrow();
    createSchemaValidator().validate({ format: 'x-custom-phone' }, 'anything');
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});

describe('createSchemaValidator: options', () => {
  it('rejects bad options with INVALID_ARGUMENT', () => {
    const bad: unknown[] = [
      { formats: 'strict' },
      { maxCachedSchemas: 0 },
      { maxCachedSchemas: 1.5 },
      { maxViolations: -1 },
      { schemas: [] },
      'x',
    ];
    for (const options of bad) {
      expect(thrown(() => createSchemaValidator(options as never)).code).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('createSchemaValidator: compile once', () => {
  const schema = () => ({
    type: 'object',
    properties: { id: { type: 'string' }, count: { type: 'integer', minimum: 0 } },
    required: ['id'],
  });

  it('10,000 fresh but equal schema objects share one compiled entry', () => {
    const v = new JsonSchemaValidator();
    for (let i = 0; i < 10_000; i++) v.validateInput(tool(schema()), { id: `x${i}`, count: i });
    expect(v.cacheStats()).toEqual({ cachedSchemas: 1, compilations: 1 });
    // Key order is not content.
    v.validate(
      { required: ['id'], properties: { count: { minimum: 0, type: 'integer' }, id: { type: 'string' } }, type: 'object' },
      { id: 'y' },
    );
    expect(v.cacheStats()).toEqual({ cachedSchemas: 1, compilations: 1 });
    // Equal JSON text too.
    v.validate(JSON.stringify(schema()), { id: 'z' });
    v.validate(JSON.stringify(schema()), { id: 'z' });
    expect(v.cacheStats()).toEqual({ cachedSchemas: 1, compilations: 1 });
  });

  it('finds a known schema object by identity without reading it again', () => {
    const v = createSchemaValidator();
    let reads = 0;
    const proxy = new Proxy(schema(), {
      get(target, key, receiver) {
        reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
      ownKeys(target) {
        reads++;
        return Reflect.ownKeys(target);
      },
    });
    const t = tool(proxy);
    v.validateInput(t, { id: 'a' });
    const afterFirst = reads;
    expect(afterFirst).toBeGreaterThan(0);
    for (let i = 0; i < 100; i++) v.validateInput(t, { id: 'a' });
    thrown(() => v.validateInput(t, { id: 1 }));
    expect(reads).toBe(afterFirst);
  });

  it('bounds the content cache (LRU) and recompiles what fell out', () => {
    const v = new JsonSchemaValidator({ maxCachedSchemas: 5 });
    for (let i = 0; i < 20; i++) v.validate({ type: 'integer', minimum: i }, 100);
    expect(v.cacheStats()).toEqual({ cachedSchemas: 5, compilations: 20 });
    v.validate({ type: 'integer', minimum: 19 }, 100); // still cached
    expect(v.cacheStats().compilations).toBe(20);
    v.validate({ type: 'integer', minimum: 0 }, 100); // evicted long ago
    expect(v.cacheStats()).toEqual({ cachedSchemas: 5, compilations: 21 });
    expect(thrown(() => v.validate({ type: 'integer', minimum: 0 }, -1)).code).toBe('VALIDATION');
  });

  it('also caches a bad schema by content', () => {
    const v = new JsonSchemaValidator();
    for (let i = 0; i < 50; i++) thrown(() => v.validate({ type: 'nonsense' }, 1));
    expect(v.cacheStats().compilations).toBe(1);
  });

  it('compile() warms the cache and reports a bad schema', () => {
    const v = new JsonSchemaValidator();
    const s = schema();
    v.compile(s);
    v.compile(s);
    v.validate(s, { id: 'a' });
    expect(v.cacheStats().compilations).toBe(1);
    expect(thrown(() => v.compile({ minimum: 'x' })).code).toBe('INVALID_SCHEMA');
  });
});

describe('createSchemaValidator: forTool (bound checks)', () => {
  const input = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
  const output = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

  it('behaves exactly like validateInput / validateOutput on the tool', () => {
    const v = createSchemaValidator();
    const t = tool(input, output);
    const checks = v.forTool(t);
    checks.validateInput({ id: 'a' });
    checks.validateOutput({ n: 1 });
    for (const args of [{}, { id: 1 }, undefined, null, []]) {
      expect(thrown(() => checks.validateInput(args))).toEqual(thrown(() => v.validateInput(t, args)));
    }
    for (const value of [{ n: 'x' }, undefined, null, 3]) {
      expect(thrown(() => checks.validateOutput(value))).toEqual(thrown(() => v.validateOutput(t, value)));
    }
    const failure = thrown(() => checks.validateInput({}));
    expect(failure.code).toBe('VALIDATION');
    expect(failure.message).toBe("validation error: Field '/id' is required");
    expect(failure.details).toMatchObject({ tool: 'probe', schema: 'inputSchema' });
    expect(thrown(() => checks.validateOutput({})).code).toBe('OUTPUT_VALIDATION');
  });

  it('never throws itself: a bad or missing schema fails when its check is called', () => {
    const v = createSchemaValidator();
    const missing = v.forTool({ name: 'bare' } as unknown as Tool);
    expect(thrown(() => missing.validateInput({})).code).toBe('INVALID_SCHEMA');
    missing.validateOutput('anything'); // no output schema: nothing to check
    const bad = v.forTool(tool({ type: 'nonsense' }, { minimum: 'x' }));
    expect(thrown(() => bad.validateInput({})).code).toBe('INVALID_SCHEMA');
    expect(thrown(() => bad.validateOutput(1)).code).toBe('INVALID_SCHEMA');
    const notATool = v.forTool(null as unknown as Tool);
    expect(thrown(() => notATool.validateInput({}))).toEqual(thrown(() => v.validateInput(null as unknown as Tool, {})));
  });

  it('compiles once: bound checks reuse the compiled schemas of the validator', () => {
    const v = new JsonSchemaValidator();
    const t = tool(input, output);
    v.validateInput(t, { id: 'a' });
    const checks = v.forTool(t);
    for (let i = 0; i < 100; i++) checks.validateInput({ id: `x${i}` });
    checks.validateOutput({ n: 2 });
    expect(v.cacheStats().compilations).toBe(2);
  });

  it('dynamic anchors keep their per-call scope (their schemas do not share a validation context)', () => {
    // The extensible tree of the JSON Schema Test Suite (dynamicRef, "strict-tree schema"): the
    // strict tree's anchor reaches the children only in calls that start from the strict tree.
    const tree = {
      $id: 'https://example.com/tree',
      $dynamicAnchor: 'node',
      type: 'object',
      properties: { data: true, children: { type: 'array', items: { $dynamicRef: '#node' } } },
    };
    const strictTree = { $id: 'https://example.com/strict-tree', $dynamicAnchor: 'node', $ref: 'tree', unevaluatedProperties: false };
    const misspelled = { children: [{ daat: 1 }] };
    const v = createSchemaValidator({ schemas: { 'https://example.com/tree': tree } });
    for (let i = 0; i < 3; i++) {
      expect(thrown(() => v.validate(strictTree, misspelled)).code).toBe('VALIDATION');
      v.validate(strictTree, { children: [{ data: 1 }] });
      v.validate(tree, misspelled);
    }
    // Schemas without dynamic anchors share one frozen context; recursion through $ref still works.
    const chain = {
      $ref: '#/$defs/node',
      $defs: { node: { type: 'object', properties: { v: { type: 'integer' }, next: { $ref: '#/$defs/node' } } } },
    };
    const w = createSchemaValidator();
    const t = tool(chain, chain);
    const checks = w.forTool(t);
    for (let i = 0; i < 3; i++) {
      checks.validateInput({ v: 1, next: { v: 2, next: { v: 3 } } });
      expect(thrown(() => checks.validateOutput({ v: 1, next: { v: 2, next: { v: 'x' } } })).message).toContain('/next/next/v');
    }
  });
});

describe('SchemaValidationError', () => {
  it('carries the violations, the code and a readable message', () => {
    const v = createSchemaValidator();
    const err = thrown(() => v.validateInput(tool({ type: 'object', required: ['a', 'b', 'c', 'd', 'e'] }), {}));
    expect(err).toBeInstanceOf(SchemaValidationError);
    expect(err).toBeInstanceOf(ToolexecError);
    expect(err.name).toBe('SchemaValidationError');
    const violations = (err as SchemaValidationError).violations;
    expect(violations).toHaveLength(5);
    expect(err.details?.violations).toBe(violations);
    expect(err.details).toMatchObject({ tool: 'probe', schema: 'inputSchema' });
    expect(err.message).toBe("validation error: Field '/a' is required; Field '/b' is required; Field '/c' is required; and 2 more");
    expect(hasErrorCode(err, 'VALIDATION')).toBe(true);
  });

  it('caps the list at maxViolations and counts the rest', () => {
    const required = Array.from({ length: 100 }, (_, i) => `p${i}`);
    const err = thrown(() => createSchemaValidator().validate({ required }, {})) as SchemaValidationError;
    expect(err.violations).toHaveLength(50);
    expect(err.details?.omittedViolations).toBe(50);
    expect(err.message).toMatch(/; and 97 more$/);
    const small = thrown(() => createSchemaValidator({ maxViolations: 2 }).validate({ required }, {})) as SchemaValidationError;
    expect(small.violations.map((x) => x.field)).toEqual(['/p0', '/p1']);
  });

  it('can be built directly', () => {
    const err = new SchemaValidationError('OUTPUT_VALIDATION', [
      { code: 'RequiredMissing', field: '/x', message: "Field '/x' is required." },
    ]);
    expect(err.message).toBe("output validation error: Field '/x' is required");
    expect(err.code).toBe('OUTPUT_VALIDATION');
    expect(err.toJSON()).toMatchObject({ code: 'OUTPUT_VALIDATION', details: { violations: err.violations } });
  });
});

describe('SchemaCompiler: bounded memory', () => {
  it('retires a busy Ajv instance; what it compiled keeps working', async () => {
    const { SchemaCompiler } = await import('../../src/model/schema-compiler.js');
    const compiler = new SchemaCompiler({ formats: 'annotate', schemas: new Map(), compilationsPerInstance: 3 });
    const compiled = Array.from({ length: 7 }, (_, i) => compiler.compile({ type: 'integer', minimum: i }, '2020-12', true));
    const owners = new Set(compiled.map((c) => c.owner));
    expect(owners.size).toBe(3);
    expect(compiled[0]?.owner).toBe(compiled[2]?.owner);
    expect(compiled[3]?.owner).not.toBe(compiled[2]?.owner);
    for (const [i, c] of compiled.entries()) {
      expect(c.validate(i)).toBe(true);
      expect(c.validate(i - 1)).toBe(false);
      expect(compiler.explain(c, i - 1)[0]?.keyword).toBe('minimum');
      compiler.release(c);
    }
  });
});
