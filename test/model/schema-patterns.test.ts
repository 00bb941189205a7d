/**
 * `pattern` and `patternProperties` cannot block the event loop: a pattern that could backtrack
 * for seconds (nested quantifiers) runs on RE2, in time linear in the string; safe patterns stay
 * on JavaScript's engine; ECMAScript-only syntax keeps working.
 */
import { describe, expect, it } from 'vitest';
import { createSchemaValidator, ToolexecError, type Tool } from '../../src/model/index.js';
import { compilePattern } from '../../src/model/schema-patterns.js';

const validator = createSchemaValidator();

function outcome(inputSchema: object, args: Record<string, unknown>): string {
  try {
    validator.validateInput({ name: 't', inputSchema } as Tool, args);
    return 'valid';
  } catch (err) {
    if (!ToolexecError.isInstance(err)) throw err;
    return err.message;
  }
}

describe('patterns that would backtrack', () => {
  // On JavaScript's engine each of these takes ~2^n steps: 2.5 s at 28 characters, hours at 40.
  const crafted: [string, string][] = [
    ['^(a+)+$', `${'a'.repeat(40)}!`],
    ['^(\\w+\\s?)*$', `${'word '.repeat(12)}!`],
    ['^([a-z0-9]+)*[.]$', `${'a'.repeat(40)}!`],
  ];
  for (const [pattern, text] of crafted) {
    it(`${pattern} on a crafted ${text.length}-character string: refused at once`, () => {
      expect(outcome({ type: 'object', properties: { s: { type: 'string', pattern } } }, { s: text })).toContain(
        `must match the pattern ${pattern}`,
      );
    });
  }

  it('patternProperties keys too', () => {
    const schema = { type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } }, additionalProperties: false };
    expect(outcome(schema, { [`${'a'.repeat(40)}!`]: 1 })).toContain('validation error');
    expect(outcome(schema, { aaa: 1 })).toBe('valid');
  });

  it('they still match what they should, Unicode classes included', () => {
    const slug = { type: 'object', properties: { s: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' } } };
    expect(outcome(slug, { s: 'my-tool-2' })).toBe('valid');
    expect(outcome(slug, { s: 'my--tool' })).toContain('must match the pattern');
    const words = { type: 'object', properties: { s: { type: 'string', pattern: '^(\\p{L}+\\s?)*$' } } };
    expect(outcome(words, { s: 'héllo wörld' })).toBe('valid');
    expect(outcome(words, { s: 'héllo 42' })).toContain('must match the pattern');
  });
});

describe('compilePattern', () => {
  it("a safe pattern stays on JavaScript's engine; one that could backtrack goes to RE2", () => {
    expect(compilePattern('^[A-Z]+-\\d+$', 'u')).toBeInstanceOf(RegExp);
    expect(compilePattern('^(a+)+$', 'u')).not.toBeInstanceOf(RegExp);
  });

  it('ECMAScript-only syntax (lookaround, backreferences) stays on JavaScript, so such a schema still works', () => {
    const lookahead = compilePattern('^(?=.*[A-Z])(\\w+\\s?)*$', 'u');
    expect(lookahead).toBeInstanceOf(RegExp);
    expect(lookahead.test('Ab cd')).toBe(true);
    expect(lookahead.test('ab cd')).toBe(false);
    expect(compilePattern('^(a+)\\1$', 'u').test('aaaa')).toBe(true);
  });

  it('a pattern that is not a regular expression throws as new RegExp does', () => {
    expect(() => compilePattern('(', 'u')).toThrow(SyntaxError);
  });
});
