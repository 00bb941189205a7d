/**
 * Code-point string order (the byte order of UTF-8), which differs from the default UTF-16
 * `sort()` order only when astral characters meet characters in U+E000..U+FFFF.
 */
import { guardErrors } from './errors.js';

/**
 * Compares two strings by Unicode code point.
 *
 * @returns a negative number, zero or a positive number, like a `sort` comparator.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  if (typeof a !== 'string' || typeof b !== 'string') throw guardErrors.invalidArgument('compareCodePoints arguments', 'must be strings');
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codeUnitRank(x) - codeUnitRank(y);
  }
  return a.length - b.length;
}

// Moves surrogates (U+D800..U+DFFF, always part of an astral character) above U+E000..U+FFFF so
// that comparing code units gives code-point order.
function codeUnitRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
