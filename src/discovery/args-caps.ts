/**
 * The size caps of example arguments (Go: `tooldoc.ValidateArgs`).
 */
import { guardCall } from '../model/internal.js';
import { guardErrors } from './errors.js';

/** Deepest nesting of example args: the top-level object is depth 1. */
export const MAX_ARGS_DEPTH = 5;
/** Most object keys plus array items, counted at every level, in one example's args. */
export const MAX_ARGS_KEYS = 50;

/** The size of one example's args, as {@link measureArgs} reports it. */
export interface ArgsMeasure {
  /** Nesting depth: 0 for null/undefined, 1 for a flat object. */
  depth: number;
  /** Object keys plus array items at every level. */
  keys: number;
  /** `depth <= MAX_ARGS_DEPTH && keys <= MAX_ARGS_KEYS`. */
  ok: boolean;
}

/**
 * Measures example args: an object or array sits at depth d (the top level at 1) and its values
 * or items at d+1; every key and item counts once; a scalar adds no depth. A shared reference
 * counts once per place it appears, as it would in the args' JSON.
 *
 * @remarks The walk stops as soon as the args are known to be past a cap: it does not descend
 * past {@link MAX_ARGS_DEPTH} + 1, and it stops once more than {@link MAX_ARGS_KEYS} keys and
 * items are counted (an array counts its `length`, holes included, before any item is visited).
 * So for args past a cap `depth` and `keys` count the part visited (`depth` reads at least
 * `MAX_ARGS_DEPTH + 1`, or `keys` at least `MAX_ARGS_KEYS + 1`); `ok` is exact either way, and the
 * cost never exceeds what args within the caps could cost.
 *
 * @example
 * ```ts
 * measureArgs({ items: [{ id: 1 }, { id: 2 }] }); // { depth: 3, keys: 5, ok: true }
 * ```
 */
export function measureArgs(args: unknown): ArgsMeasure {
  return guardCall(guardErrors, 'args', () => measure(args));
}

function measure(args: unknown): ArgsMeasure {
  if (args === null || args === undefined) return { depth: 0, keys: 0, ok: true };
  let depth = 0;
  let keys = 0;
  const stack: [unknown, number][] = [[args, 1]];
  while (stack.length > 0) {
    const [value, level] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== 'object') {
      depth = Math.max(depth, level - 1);
      continue;
    }
    depth = Math.max(depth, level);
    if (level > MAX_ARGS_DEPTH) break;
    const children: readonly unknown[] | undefined = Array.isArray(value) ? undefined : Object.values(value);
    keys += children === undefined ? (value as unknown[]).length : children.length;
    if (keys > MAX_ARGS_KEYS) break;
    for (const child of children ?? (value as unknown[])) stack.push([child, level + 1]);
  }
  return { depth, keys, ok: depth <= MAX_ARGS_DEPTH && keys <= MAX_ARGS_KEYS };
}
