/**
 * A schema that applies itself to the same value in a loop would validate forever: it is refused
 * when compiled (INVALID_SCHEMA, naming where the loop closes), never blamed on the arguments.
 * Recursion that descends into the value is ordinary and stays allowed.
 */
import { describe, expect, it } from 'vitest';
import { createSchemaValidator, ToolexecError, type Tool } from '../../src/model/index.js';

const validator = createSchemaValidator();

function outcome(inputSchema: object, args: Record<string, unknown> = {}): string {
  try {
    validator.validateInput({ name: 't', inputSchema } as Tool, args);
    return 'valid';
  } catch (err) {
    if (!ToolexecError.isInstance(err)) throw err;
    return `${err.code}: ${err.message}`;
  }
}

describe('schemas that would validate forever', () => {
  const loops: [string, object, string | RegExp][] = [
    ['the root refers to itself', { $ref: '#' }, '/$ref'],
    ['through allOf', { type: 'object', allOf: [{ $ref: '#' }] }, '/allOf/0/$ref'],
    ['a property refers to itself', { type: 'object', properties: { a: { $ref: '#/properties/a' } } }, '/properties/a/$ref'],
    [
      'two definitions through anyOf',
      {
        type: 'object',
        properties: { x: { $ref: '#/$defs/a' } },
        $defs: { a: { $ref: '#/$defs/b' }, b: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/a' }] } },
      },
      // either reference closes it, depending on where the search starts
      /\/\$defs\/(a\/\$ref|b\/anyOf\/1\/\$ref)\)/,
    ],
    ['through if/then', { type: 'object', if: { type: 'object' }, then: { $ref: '#' } }, '/then/$ref'],
    ['through not', { not: { $ref: '#' } }, '/not/$ref'],
    ['through dependentSchemas', { type: 'object', dependentSchemas: { a: { $ref: '#' } } }, '/dependentSchemas/a/$ref'],
    [
      "through draft-07's dependencies",
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', dependencies: { a: { $ref: '#' } } },
      '/dependencies/a/$ref',
    ],
    [
      'through an anchor',
      { $defs: { n: { $anchor: 'node', allOf: [{ $ref: '#node' }] } }, type: 'object', properties: { n: { $ref: '#node' } } },
      '/$defs/n/allOf/0/$ref',
    ],
  ];
  for (const [name, schema, closedAt] of loops) {
    it(`${name}: INVALID_SCHEMA naming where it closes`, () => {
      const text = outcome(schema);
      expect(text).toMatch(/^INVALID_SCHEMA: /);
      expect(text).toContain('applies itself to the same value in a loop (closed at ');
      if (typeof closedAt === 'string') expect(text).toContain(`(closed at ${closedAt})`);
      else expect(text).toMatch(closedAt);
    });
  }

  it('recursion that descends into the value is allowed', () => {
    const tree = {
      type: 'object',
      properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#' } }, next: { $ref: '#/$defs/node' } },
      $defs: { node: { anyOf: [{ type: 'null' }, { $ref: '#' }] } },
    };
    expect(outcome(tree, { value: 1, children: [{ value: 2, children: [] }], next: { value: 3, next: null } })).toBe('valid');
    expect(outcome(tree, { value: 'x' })).toMatch(/^VALIDATION: /);
    // a chain of references that ends is no loop
    expect(outcome({ $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/c' }, c: { type: 'object' } }, $ref: '#/$defs/a' })).toBe(
      'valid',
    );
  });
});
