/**
 * Deep freezing of the index's stored values, so the objects it hands out cannot corrupt it.
 */
import { reachableObjects } from '../model/internal.js';

/**
 * Freezes `value` and everything reachable from it through own properties (cycles are fine);
 * returns `value`. Typed arrays cannot be frozen and are left as they are.
 */
export function deepFreeze<T>(value: T): T {
  for (const current of reachableObjects(value, ownValues)) {
    if (!ArrayBuffer.isView(current)) Object.freeze(current);
  }
  return value;
}

/** The values of an object's own properties (none for a typed array, whose elements are numbers). */
function ownValues(object: object): unknown[] {
  if (ArrayBuffer.isView(object)) return [];
  return Reflect.ownKeys(object).map((key) => (object as Record<PropertyKey, unknown>)[key]);
}

/** Deepest nesting {@link frozenCopy} accepts (deeper data, or a cycle, is rejected). */
export const MAX_COPY_DEPTH = 256;
/**
 * Most objects, arrays and array items {@link frozenCopy} copies for one value. An array counts
 * its `length`, not the items it holds, so a sparse array costs what its copy would.
 */
export const MAX_COPY_NODES = 100_000;

/**
 * What {@link frozenCopy} throws for data past its limits: a cycle, nesting deeper than
 * {@link MAX_COPY_DEPTH}, or more than {@link MAX_COPY_NODES} objects, arrays and array items.
 * Thrown before the copy does the work, so the data's size never costs more than the limits.
 */
export class CopyLimitError extends RangeError {
  override name = 'CopyLimitError';
}

/**
 * A deep-frozen copy of JSON-like data: plain objects and arrays are copied directly, anything
 * else goes through `structuredClone`. A shared reference is copied once per place it appears.
 *
 * @throws {@link CopyLimitError} for cycles, nesting deeper than {@link MAX_COPY_DEPTH} or more
 * than {@link MAX_COPY_NODES} objects, arrays and array items; a `TypeError` for an array with a
 * hole (JSON has none); `DataCloneError` (a DOMException) for functions and symbols, like
 * `structuredClone`.
 */
export function frozenCopy<T>(value: T): T {
  const budget = { nodes: 0 };
  return copyValue(value, 0, budget) as T;
}

function copyValue(value: unknown, depth: number, budget: { nodes: number }): unknown {
  if (typeof value === 'function' || typeof value === 'symbol') {
    throw new DOMException(`${String(value)} could not be cloned.`, 'DataCloneError');
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_COPY_DEPTH) throw new CopyLimitError(`nested deeper than ${MAX_COPY_DEPTH} levels (or cyclic)`);
  const isArray = Array.isArray(value);
  const length = isArray ? (value as unknown[]).length : 0;
  budget.nodes += 1 + length;
  if (budget.nodes > MAX_COPY_NODES) throw new CopyLimitError(`more than ${MAX_COPY_NODES} objects, arrays and array items`);
  if (isArray) {
    const array = value as unknown[];
    const copy: unknown[] = [];
    for (let i = 0; i < length; i++) {
      if (!(i in array)) throw new TypeError(`array with a hole at index ${i}`);
      copy.push(copyValue(array[i], depth + 1, budget));
    }
    return Object.freeze(copy);
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return deepFreeze(structuredClone(value));
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyValue((value as Record<string, unknown>)[key], depth + 1, budget);
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return Object.freeze(copy);
}
