/**
 * The regular expressions of `pattern` and `patternProperties`, which a schema from an MCP server
 * brings and a model's arguments are matched against. JavaScript's engine backtracks: a pattern
 * with nested quantifiers (`^(a+)+$`, `^(\w+\s?)*$`) takes exponential time on a crafted string and
 * blocks the event loop, every other call with it. The Go original matches with RE2, in linear
 * time. Here:
 *
 * - a pattern that `safe-regex2` finds safe (no quantifier inside a quantified group, at most 25
 *   quantifiers) runs on JavaScript's engine, as fast as ever;
 * - any other runs on RE2 (Google's `re2-wasm`, loaded on first use): linear in the string's
 *   length, ~10 µs a match;
 * - a pattern RE2 cannot compile (lookaround, backreferences: ECMAScript only) stays on
 *   JavaScript's engine.
 *
 * @internal
 * @module
 */
import { createRequire } from 'node:module';
import safeRegex from 'safe-regex2';

/** What Ajv needs of a regular expression. */
interface RegExpLike {
  test(text: string): boolean;
}

/** The RE2 class of `re2-wasm`: ECMAScript syntax in, RE2's linear-time matching out; it requires the `u` flag. */
type Re2Class = new (pattern: string, flags: string) => RegExpLike;

let re2: Re2Class | null | undefined;

/** `re2-wasm`'s RE2 class, loaded on the first pattern that needs it (`null` if it cannot be loaded). */
function loadRe2(): Re2Class | null {
  if (re2 === undefined) {
    try {
      re2 = (createRequire(import.meta.url)('re2-wasm') as { RE2: Re2Class }).RE2;
    } catch {
      re2 = null;
    }
  }
  return re2;
}

/**
 * A compiled `pattern`: JavaScript's engine for a pattern that cannot backtrack badly, else RE2
 * when it accepts the pattern (see the module's notes).
 *
 * @throws a `SyntaxError` for a pattern that is not a regular expression (as `new RegExp`).
 */
export function compilePattern(pattern: string, flags: string): RegExpLike {
  const native = new RegExp(pattern, flags);
  if (safeRegex(native)) return native;
  const Re2 = loadRe2();
  if (Re2 === null) return native;
  try {
    return new Re2(pattern, flags.includes('u') ? flags : `${flags}u`);
  } catch {
    // ECMAScript-only syntax (lookaround, backreferences): JavaScript's engine it is
    return native;
  }
}

/** {@link compilePattern} as Ajv's `code.regExp` option (`code` is for standalone code, which the validator never emits). */
export const patternEngine: ((pattern: string, flags: string) => RegExpLike) & { code: string } = Object.assign(
  (pattern: string, flags: string) => compilePattern(pattern, flags),
  { code: 'compilePattern' },
);
