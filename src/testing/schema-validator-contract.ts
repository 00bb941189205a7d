/**
 * The schema validator contract: a vitest suite every {@link SchemaValidator} must pass, as the
 * model layer's interface defines it — tool inputs (`VALIDATION`), tool outputs
 * (`OUTPUT_VALIDATION`), any schema against any instance, schemas that are no JSON Schema
 * (`INVALID_SCHEMA`), violations a model can act on, and the optional `forTool` checks.
 */
import { describe, expect, it } from 'vitest';
import type { ContractViolation, ErrorCode, SchemaValidator, Tool, ToolSchemaChecks } from '../model/index.js';
import { VIOLATION_CODES } from '../model/internal.js';
import { callLabel, expectThrows, returned, show, type Failure } from './contract-checks.js';

type Method = 'validateInput' | 'validateOutput' | 'validate';

/** `validator.method(a, b)`, which must accept (return nothing); fails naming the call and what it threw. */
function accepts(validator: SchemaValidator | ToolSchemaChecks, owner: string, method: Method, ...args: unknown[]): void {
  const fn = (validator as unknown as Record<string, (...given: unknown[]) => unknown>)[method];
  expect(typeof fn, `${owner}.${method} must be a function`).toBe('function');
  const value = returned(callLabel(owner, method, args), () => fn?.apply(validator, args));
  expect(value, `${callLabel(owner, method, args)} returned ${show(value)}: it returns nothing`).toBeUndefined();
}

/** `validator.method(a, b)`, which must throw `code`; its error. */
function refuses(validator: SchemaValidator | ToolSchemaChecks, owner: string, method: Method, args: unknown[], code: ErrorCode): Failure {
  const fn = (validator as unknown as Record<string, (...given: unknown[]) => unknown>)[method];
  return expectThrows(callLabel(owner, method, args), () => fn?.apply(validator, args), code);
}

/** Checks the violations a `VALIDATION` / `OUTPUT_VALIDATION` error lists, and returns their fields. */
function violationFields(error: Failure, label: string): string[] {
  const violations = error.details?.violations as ContractViolation[] | undefined;
  expect(Array.isArray(violations), `${label}: details.violations must list the violations, got ${show(violations)}`).toBe(true);
  expect(violations?.length, `${label}: details.violations must not be empty`).toBeGreaterThan(0);
  for (const violation of violations ?? []) {
    const what = `${label}: violation ${show(violation)}`;
    expect(VIOLATION_CODES, `${what}: code must be one of the taxonomy`).toContain(violation?.code);
    expect(typeof violation?.field, `${what}: field must be a JSON pointer string`).toBe('string');
    expect(violation.field === '' || violation.field.startsWith('/'), `${what}: field must be '' or start with /`).toBe(true);
    expect(typeof violation.message === 'string' && violation.message !== '', `${what}: message must be a non-empty string`).toBe(true);
  }
  return (violations ?? []).map((violation) => violation.field);
}

/** A tool of the contract, with the given schemas. */
function tool(inputSchema: unknown, outputSchema?: unknown): Tool {
  const made = { name: 'check', namespace: 'contract', inputSchema } as Tool;
  if (outputSchema !== undefined) made.outputSchema = outputSchema as Tool['outputSchema'];
  return made;
}

/** Deep-frozen, as the tool index stores tools. */
function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) frozen(item);
    Object.freeze(value);
  }
  return value;
}

const PERSON = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    age: { type: 'integer', minimum: 0 },
    items: { type: 'array', items: { $ref: '#/$defs/item' } },
  },
  required: ['name', 'age'],
  $defs: { item: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] } },
};

/**
 * Registers the schema validator contract for `name`: `validateInput` (`undefined` as `{}`;
 * `VALIDATION` with `details.violations` naming each wrong field, `$ref`s followed),
 * `validateOutput` (nothing to check without an output schema; `OUTPUT_VALIDATION`; `undefined` as
 * `null`), `validate` (a schema object, a boolean, JSON text or UTF-8 bytes), `INVALID_SCHEMA` for
 * a schema that is no JSON Schema in each of them, frozen schemas and instances validated and left
 * as they were, and `forTool` when the validator has it (its checks behave as the methods; making
 * them never throws).
 *
 * @param factory Makes the validator under test; called for each test.
 * @remarks The interface is synchronous: a failure names the call and what it returned or threw.
 *
 * @example
 * ```ts
 * schemaValidatorContract('my validator', () => new MyValidator());
 * ```
 */
export function schemaValidatorContract(name: string, factory: () => SchemaValidator | Promise<SchemaValidator>): void {
  describe(`schema validator contract: ${name}`, () => {
    const make = async (): Promise<SchemaValidator> => {
      const validator = await factory();
      expect(typeof validator === 'object' && validator !== null, `the factory must return a SchemaValidator, got ${show(validator)}`).toBe(
        true,
      );
      return validator;
    };

    it('validateInput accepts arguments that fit the input schema, and undefined as {}', async () => {
      const validator = await make();
      accepts(validator, 'validator', 'validateInput', tool(PERSON), { name: 'Ada', age: 36, items: [{ id: 1 }] });
      accepts(validator, 'validator', 'validateInput', tool({ type: 'object' }), undefined);
      accepts(validator, 'validator', 'validateInput', tool({ type: 'object', properties: { a: { type: 'number' } } }), {});
      refuses(validator, 'validator', 'validateInput', [tool(PERSON), undefined], 'VALIDATION');
    });

    it('validateInput refuses arguments that do not fit: VALIDATION naming each wrong field, every time', async () => {
      const validator = await make();
      const person = tool(PERSON);
      const args = { name: '', age: 'old', items: [{ id: 1 }, { id: 'x' }] };
      const label = callLabel('validator', 'validateInput', [person, args]);
      const fields = violationFields(refuses(validator, 'validator', 'validateInput', [person, args], 'VALIDATION'), label);
      for (const field of ['/name', '/age', '/items/1/id']) expect(fields, `${label}: the fields of details.violations`).toContain(field);
      const missing = violationFields(refuses(validator, 'validator', 'validateInput', [person, { name: 'Ada' }], 'VALIDATION'), label);
      expect(missing, 'a required argument left out is named').toContain('/age');
      // the same schema again, right and wrong in turn
      accepts(validator, 'validator', 'validateInput', person, { name: 'Ada', age: 36 });
      refuses(validator, 'validator', 'validateInput', [person, { name: 'Ada', age: -1 }], 'VALIDATION');
      accepts(validator, 'validator', 'validateInput', person, { name: 'Bo', age: 1 });
    });

    it('validateOutput: nothing to check without an output schema; OUTPUT_VALIDATION for a value that does not fit; undefined as null', async () => {
      const validator = await make();
      accepts(validator, 'validator', 'validateOutput', tool({ type: 'object' }), { anything: true });
      accepts(validator, 'validator', 'validateOutput', tool({ type: 'object' }), undefined);
      const summed = tool({ type: 'object' }, { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] });
      accepts(validator, 'validator', 'validateOutput', summed, { sum: 3 });
      const label = callLabel('validator', 'validateOutput', [summed, { sum: 'three' }]);
      const fields = violationFields(
        refuses(validator, 'validator', 'validateOutput', [summed, { sum: 'three' }], 'OUTPUT_VALIDATION'),
        label,
      );
      expect(fields, `${label}: the fields of details.violations`).toContain('/sum');
      refuses(validator, 'validator', 'validateOutput', [summed, undefined], 'OUTPUT_VALIDATION');
      accepts(validator, 'validator', 'validateOutput', tool({ type: 'object' }, { type: ['object', 'null'] }), undefined);
    });

    it('validate: a schema object, a boolean, JSON text or UTF-8 bytes, against any instance (undefined as null)', async () => {
      const validator = await make();
      accepts(validator, 'validator', 'validate', { type: 'string' }, 'text');
      refuses(validator, 'validator', 'validate', [{ type: 'string' }, 1], 'VALIDATION');
      accepts(validator, 'validator', 'validate', true, { any: 'thing' });
      refuses(validator, 'validator', 'validate', [false, 1], 'VALIDATION');
      accepts(validator, 'validator', 'validate', '{"type":"integer"}', 2);
      refuses(validator, 'validator', 'validate', ['{"type":"integer"}', 2.5], 'VALIDATION');
      const bytes = new TextEncoder().encode('{"type":"array","maxItems":1}');
      accepts(validator, 'validator', 'validate', bytes, [1]);
      refuses(validator, 'validator', 'validate', [bytes, [1, 2]], 'VALIDATION');
      accepts(validator, 'validator', 'validate', { type: 'null' }, undefined);
    });

    it('a schema that is no JSON Schema is INVALID_SCHEMA, in every method', async () => {
      const validator = await make();
      refuses(validator, 'validator', 'validate', [{ type: 'strng' }, 'x'], 'INVALID_SCHEMA');
      refuses(validator, 'validator', 'validate', ['{ not json', 'x'], 'INVALID_SCHEMA');
      refuses(validator, 'validator', 'validate', [{ properties: { a: { minimum: 'zero' } } }, {}], 'INVALID_SCHEMA');
      refuses(validator, 'validator', 'validateInput', [tool({ type: 'object', required: 'a' }), {}], 'INVALID_SCHEMA');
      refuses(validator, 'validator', 'validateOutput', [tool({ type: 'object' }, { type: 'strng' }), 'x'], 'INVALID_SCHEMA');
    });

    it('validates frozen schemas and instances (as the index stores tools), changing neither', async () => {
      const validator = await make();
      const schema = frozen(structuredClone(PERSON));
      const person = frozen(tool(schema, { type: 'object', properties: { ok: { type: 'boolean', default: true } } }));
      const args = frozen({ name: 'Ada', age: 36, items: [{ id: 1 }] });
      const before = JSON.stringify({ person, args });
      accepts(validator, 'validator', 'validateInput', person, args);
      refuses(validator, 'validator', 'validateInput', [person, frozen({ name: 'Ada' })], 'VALIDATION');
      accepts(validator, 'validator', 'validateOutput', person, frozen({}));
      accepts(validator, 'validator', 'validate', schema, args);
      expect(JSON.stringify({ person, args }), 'the schemas and instances after validation').toBe(before);
    });

    it('forTool, when the validator has it, gives checks that behave as validateInput and validateOutput', async () => {
      const validator = await make();
      const forTool = (validator as { forTool?: unknown }).forTool;
      expect(
        forTool === undefined || typeof forTool === 'function',
        `validator.forTool is optional, else a function: ${show(forTool)}`,
      ).toBe(true);
      if (validator.forTool === undefined) return;
      const summed = tool(PERSON, { type: 'object', required: ['sum'] });
      const checks = returned(callLabel('validator', 'forTool', [summed]), () => validator.forTool?.(summed) as ToolSchemaChecks);
      const owner = `validator.forTool(${show(summed.name)})`;
      accepts(checks, owner, 'validateInput', { name: 'Ada', age: 36 });
      refuses(checks, owner, 'validateInput', [{ name: 'Ada' }], 'VALIDATION');
      accepts(checks, owner, 'validateOutput', { sum: 1 });
      refuses(checks, owner, 'validateOutput', [{}], 'OUTPUT_VALIDATION');
      const none = returned(callLabel('validator', 'forTool', [tool({ type: 'object' })]), () =>
        validator.forTool?.(tool({ type: 'object' })),
      );
      accepts(none as ToolSchemaChecks, 'validator.forTool(a tool without an output schema)', 'validateOutput', 'anything');
      // making the checks of a broken schema does not throw: calling them does
      const broken = tool({ type: 'strng' }, { type: 'strng' });
      const brokenChecks = returned(callLabel('validator', 'forTool', [broken]), () => validator.forTool?.(broken) as ToolSchemaChecks);
      refuses(brokenChecks, 'validator.forTool(a tool whose schemas do not compile)', 'validateInput', [{}], 'INVALID_SCHEMA');
      refuses(brokenChecks, 'validator.forTool(a tool whose schemas do not compile)', 'validateOutput', ['x'], 'INVALID_SCHEMA');
    });
  });
}
