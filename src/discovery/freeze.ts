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
/** Most objects and arrays {@link frozenCopy} copies for one value. */
export const MAX_COPY_NODES = 100_000;

/**
 * A deep-frozen copy of JSON-like data: plain objects and arrays are copied directly, anything
 * else goes through `structuredClone`. A shared reference is copied once per place it appears.
 *
 * @throws `DataCloneError` (a DOMException) for functions and symbols, like `structuredClone`,
 * and a `RangeError` for cycles, nesting deeper than {@link MAX_COPY_DEPTH} or more than
 * {@link MAX_COPY_NODES} objects.
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
  if (depth >= MAX_COPY_DEPTH) throw new RangeError(`nested deeper than ${MAX_COPY_DEPTH} levels (or cyclic)`);
  if (++budget.nodes > MAX_COPY_NODES) throw new RangeError(`more than ${MAX_COPY_NODES} objects`);
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = copyValue(value[i], depth + 1, budget);
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
