/** A misspelled argument next to a missing required one: the violation suggests the rename. */
import { describe, expect, it } from 'vitest';
import { SchemaValidationError, createSchemaValidator, type ContractViolation } from '../../src/model/index.js';

const validator = createSchemaValidator();

function violationsOf(schema: unknown, data: unknown): ContractViolation[] {
  try {
    validator.validate(schema, data);
  } catch (err) {
    expect(err).toBeInstanceOf(SchemaValidationError);
    return (err as SchemaValidationError).violations;
  }
  throw new Error('expected the value to be rejected');
}

const schema = { type: 'object', required: ['path'], properties: { path: { type: 'string' }, encoding: { type: 'string' } } };

describe('misspelled argument names', () => {
  it("an undeclared 'pth' beside a missing 'path' suggests the rename", () => {
    expect(violationsOf(schema, { pth: '/tmp/a' })).toEqual([
      {
        code: 'RequiredMissing',
        field: '/path',
        message: "Field '/path' is required; did you mean 'path' instead of 'pth'?",
        keyword: 'required',
        suggestion: { action: 'rename', from: '/pth', to: '/path' },
      },
    ]);
  });

  it('a nested object gets pointers to the nested field', () => {
    const nested = { type: 'object', properties: { file: schema } };
    expect(violationsOf(nested, { file: { paht: 'x' } })[0]?.suggestion).toEqual({
      action: 'rename',
      from: '/file/paht',
      to: '/file/path',
    });
  });

  it('with additionalProperties false, the rejected name suggests the missing one too', () => {
    const closed = { ...schema, additionalProperties: false };
    const violations = violationsOf(closed, { pth: '/tmp/a' });
    expect(violations).toContainEqual({
      code: 'ConstraintViolation',
      field: '/pth',
      message: "Field '/pth' is not allowed; did you mean 'path'?",
      expected: 'additionalProperties false',
      keyword: 'additionalProperties',
      suggestion: { action: 'rename', from: '/pth', to: '/path' },
    });
    expect(violations.find((v) => v.code === 'RequiredMissing')?.suggestion).toEqual({ action: 'rename', from: '/pth', to: '/path' });
  });

  it('no suggestion for a declared argument or a name too far away', () => {
    expect(violationsOf(schema, { encoding: 'utf8' })[0]).not.toHaveProperty('suggestion');
    expect(violationsOf(schema, { destination: 'x' })[0]).toEqual({
      code: 'RequiredMissing',
      field: '/path',
      message: "Field '/path' is required.",
      keyword: 'required',
    });
  });
});

describe('editDistance', () => {
  it('counts inserts, deletes, substitutions and swaps of neighbours, capped at max + 1', async () => {
    const { editDistance, typoBudget } = await import('../../src/model/internal.js');
    expect(editDistance('path', 'path')).toBe(0);
    expect(editDistance('pth', 'path')).toBe(1);
    expect(editDistance('paht', 'path')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
    expect([typoBudget('a'), typoBudget('pth'), typoBudget('read_text_file')]).toEqual([0, 1, 4]);
  });
});
