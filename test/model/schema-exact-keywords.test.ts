/**
 * `multipleOf` on decimal numbers as written (exact, as the Go original), and `uniqueItems` in
 * time linear in the array's size, with the messages a model reads unchanged.
 */
import { describe, expect, it } from 'vitest';
import { createSchemaValidator, ToolexecError, type Tool } from '../../src/model/index.js';
import { duplicateItems, isMultipleOf } from '../../src/model/schema-exact-keywords.js';

const validator = createSchemaValidator();
const toolWith = (property: object): Tool => ({ name: 't', inputSchema: { type: 'object', properties: { x: property } } });

/** The message of the validation failure of `x`, or `valid`. */
function outcome(property: object, x: unknown): string {
  try {
    validator.validateInput(toolWith(property), { x });
    return 'valid';
  } catch (err) {
    if (!ToolexecError.isInstance(err)) throw err;
    return err.message;
  }
}

describe('multipleOf', () => {
  it('accepts decimals that are multiples as written (float division says otherwise)', () => {
    for (const [divisor, value] of [
      [0.01, 0.07],
      [0.01, 19.99],
      [0.01, 0.29],
      [0.05, 4.35],
      [0.1, 0.3],
      [0.0001, 0.0075],
      [1.5, 4.5],
      [2, -8],
    ] as const) {
      expect(outcome({ multipleOf: divisor }, value), `${value} / ${divisor}`).toBe('valid');
    }
  });

  it('refuses what is not a multiple, with the message a model reads', () => {
    expect(outcome({ multipleOf: 0.01 }, 0.075)).toBe("validation error: Field '/x' must be a multiple of 0.01, got 0.075");
    expect(outcome({ multipleOf: 0.0001 }, 0.00751)).toContain('must be a multiple of 0.0001');
    // float division rounds 1e17 / 3 to an integer; 10^17 is not a multiple of 3
    expect(outcome({ multipleOf: 3 }, 1e17)).toContain('must be a multiple of 3');
    expect(outcome({ multipleOf: 0.123456789 }, 1e308)).toContain('must be a multiple of 0.123456789');
  });

  it('numbers beyond the float range of the quotient are exact too', () => {
    expect(outcome({ type: 'integer', multipleOf: 0.5 }, 1e308)).toBe('valid');
    expect(isMultipleOf(1e308, 1e-300)).toBe(true);
    expect(isMultipleOf(5e-324, 1e308)).toBe(false);
    expect(isMultipleOf(Number.MAX_SAFE_INTEGER, 1)).toBe(true);
    expect(isMultipleOf(Number.NaN, 1)).toBe(false);
  });
});

describe('uniqueItems', () => {
  const unique = { type: 'array', uniqueItems: true };

  it('equal by JSON value: object key order does not count, types do', () => {
    expect(
      outcome(unique, [
        { a: 1, b: [1, { c: 2 }] },
        { b: [1, { c: 2 }], a: 1 },
      ]),
    ).toContain('must not contain duplicate items (items 0 and 1 are equal)');
    expect(outcome(unique, [1, '1', [1], { 1: 1 }, true, null, 0])).toBe('valid');
    expect(outcome(unique, [0, -0])).toContain('duplicate items');
  });

  it('long arrays: the first repeated item is named, with the item it repeats', () => {
    const items = Array.from({ length: 40 }, (_, i) => ({ id: i }));
    expect(outcome(unique, [...items, { id: 7 }])).toContain('(items 7 and 40 are equal)');
    expect(duplicateItems(items)).toBeUndefined();
  });

  it('items without a JSON text (undefined inside, a Date) are compared pairwise', () => {
    const items: unknown[] = Array.from({ length: 20 }, (_, i) => ({ id: i, extra: undefined }));
    expect(duplicateItems([...items, { id: 3, extra: undefined }])).toEqual([3, 20]);
    expect(duplicateItems([...items, new Date(0), new Date(0)])).toEqual([20, 21]);
  });

  it('30,000 distinct objects validate in linear time (pairwise comparison took ~14 s)', () => {
    const items = Array.from({ length: 30_000 }, (_, i) => ({ id: i, name: `n${i}` }));
    expect(outcome(unique, items)).toBe('valid');
    expect(outcome(unique, [...items, { name: 'n29999', id: 29_999 }])).toContain('(items 29999 and 30000 are equal)');
  });
});
