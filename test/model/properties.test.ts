/**
 * Property tests: round-trips, invariants, and that no input makes a public model function throw
 * anything but a ToolexecError.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ToolexecError,
  createSchemaValidator,
  normalizeTags,
  parseToolId,
  toolId,
  validateBackend,
  validateTool,
  type Tool,
  type ToolBackend,
} from '../../src/model/index.js';

const anything = fc.anything({
  withBoxedValues: true,
  withMap: true,
  withSet: true,
  withObjectString: true,
  withNullPrototype: true,
  withBigInt: true,
  withDate: true,
  withTypedArray: true,
  withSparseArray: true,
  withUnicodeString: true,
});

/** Schema-shaped objects: real keywords with arbitrary (often wrong) values, nested. */
const keyword = fc.constantFrom(
  'type',
  'properties',
  'required',
  'items',
  'prefixItems',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'enum',
  'const',
  'minimum',
  'maxLength',
  'pattern',
  'format',
  '$ref',
  '$id',
  '$defs',
  '$schema',
  'definitions',
  'additionalProperties',
  'unevaluatedProperties',
  'contains',
  'minContains',
  'propertyNames',
  'dependentRequired',
  'multipleOf',
  'uniqueItems',
  'discriminator',
  'x-custom',
);
const schemaLike = fc.letrec((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small' },
    fc.boolean(),
    fc.dictionary(
      keyword,
      fc.oneof(
        anything,
        tie('schema'),
        fc.array(tie('schema'), { maxLength: 3 }),
        fc.dictionary(fc.string(), tie('schema'), { maxKeys: 3 }),
      ),
      {
        maxKeys: 5,
      },
    ),
  ),
})).schema;

/** Calls `fn`; anything thrown must be a ToolexecError. */
function onlyToolexecErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!ToolexecError.isInstance(err)) throw new Error(`threw a non-ToolexecError: ${String(err)}`, { cause: err });
  }
}

const toolName = fc.stringMatching(/^[A-Za-z0-9_.-]{1,128}$/);
const namespace = fc.option(
  fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !s.includes(':')),
  { nil: undefined },
);
const version = fc.option(
  fc
    .tuple(fc.nat(99), fc.nat(99), fc.nat(99), fc.option(fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/), { nil: undefined }))
    .map(([major, minor, patch, pre]) => `${major}.${minor}.${patch}${pre === undefined ? '' : `-${pre}`}`),
  { nil: undefined },
);

describe('tool IDs: properties', () => {
  it('parseToolId(toolId(t)) gives back the namespace, name and version of every valid tool', () => {
    fc.assert(
      fc.property(toolName, namespace, version, (name, ns, ver) => {
        const tool: Tool = { name, inputSchema: { type: 'object' } };
        if (ns !== undefined) tool.namespace = ns;
        if (ver !== undefined) tool.version = ver;
        validateTool(tool);
        const expected: { namespace?: string; name: string; version?: string } = { name };
        if (ns !== undefined) {
          expected.namespace = ns;
          if (ver !== undefined) expected.version = ver;
        }
        expect(parseToolId(toolId(tool))).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('a parsed ID joins back into itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', ':', ' ') }), (id) => {
        let parsed;
        try {
          parsed = parseToolId(id);
        } catch (err) {
          expect((err as ToolexecError).code).toBe('INVALID_TOOL_ID');
          return;
        }
        expect([parsed.namespace, parsed.name, parsed.version].filter((part) => part !== undefined).join(':')).toBe(id);
      }),
      { numRuns: 500 },
    );
  });
});

describe('normalizeTags: properties', () => {
  it('gives at most 20 unique, clean tags, and is idempotent', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 40 }), (tags) => {
        const normalized = normalizeTags(tags);
        expect(normalized.length).toBeLessThanOrEqual(20);
        expect(new Set(normalized).size).toBe(normalized.length);
        for (const tag of normalized) expect(tag).toMatch(/^[a-z0-9_.-]{1,64}$/);
        expect(normalizeTags(normalized)).toEqual(normalized);
      }),
      { numRuns: 300 },
    );
  });
});

describe('public model functions throw nothing but ToolexecError', () => {
  it('validateTool, toolId, parseToolId, normalizeTags and validateBackend', () => {
    fc.assert(
      fc.property(anything, (value) => {
        onlyToolexecErrors(() => validateTool(value as Tool));
        onlyToolexecErrors(() => toolId(value as Tool));
        onlyToolexecErrors(() => parseToolId(value as string));
        onlyToolexecErrors(() => normalizeTags(value as string[]));
        onlyToolexecErrors(() => validateBackend(value as ToolBackend));
      }),
      { numRuns: 1000 },
    );
  });

  it('tool-shaped values', () => {
    const toolLike = fc.record(
      {
        name: fc.oneof(toolName, anything),
        namespace: anything,
        version: anything,
        tags: anything,
        inputSchema: anything,
        kind: fc.constantFrom('mcp', 'local', 'provider', 'x'),
        mcp: anything,
        local: anything,
        provider: anything,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(toolLike, (value) => {
        onlyToolexecErrors(() => validateTool(value as unknown as Tool));
        onlyToolexecErrors(() => toolId(value as unknown as Tool));
        onlyToolexecErrors(() => validateBackend(value as unknown as ToolBackend));
      }),
      { numRuns: 500 },
    );
  });

  it('createSchemaValidator: validate, validateInput and validateOutput with any schema and instance', () => {
    const validator = createSchemaValidator();
    const asserting = createSchemaValidator({ formats: 'assert', maxCachedSchemas: 10 });
    fc.assert(
      fc.property(fc.oneof(anything, schemaLike), anything, (schema, instance) => {
        for (const v of [validator, asserting]) {
          onlyToolexecErrors(() => v.validate(schema, instance));
          onlyToolexecErrors(() => v.validateInput({ name: 't', inputSchema: schema } as Tool, instance));
          onlyToolexecErrors(() => v.validateOutput({ name: 't', inputSchema: {}, outputSchema: schema } as unknown as Tool, instance));
          onlyToolexecErrors(() => v.validateInput(schema as Tool, instance));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('the verdict does not depend on what was compiled before (deterministic)', () => {
    const warm = createSchemaValidator({ maxCachedSchemas: 20 });
    const outcome = (v: ReturnType<typeof createSchemaValidator>, schema: unknown, instance: unknown): string => {
      try {
        v.validate(schema, instance);
        return 'valid';
      } catch (err) {
        const e = err as ToolexecError;
        return e.code === 'INVALID_SCHEMA' ? e.message : `${e.code} ${e.message}`;
      }
    };
    fc.assert(
      fc.property(schemaLike, fc.jsonValue(), (schema, instance) => {
        expect(outcome(warm, schema, instance)).toBe(outcome(createSchemaValidator(), schema, instance));
      }),
      { numRuns: 300 },
    );
  });
});
