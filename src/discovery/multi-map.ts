/**
 * The index's lookup tables from a key (a lowercased ID or name) to tool IDs.
 *
 * @internal
 * @module
 */

/** A key's IDs: a single ID as a string, switched to an array on a second one (rare). */
export type MultiMap = Map<string, string | string[]>;

/** Adds `value` under `key` (once). */
export function addToMultiMap(map: MultiMap, key: string, value: string): void {
  const current = map.get(key);
  if (current === undefined) map.set(key, value);
  else if (typeof current === 'string') {
    if (current !== value) map.set(key, [current, value]);
  } else if (!current.includes(value)) current.push(value);
}

/** Removes `value` from under `key`. */
export function removeFromMultiMap(map: MultiMap, key: string, value: string): void {
  const current = map.get(key);
  if (current === value) map.delete(key);
  else if (Array.isArray(current)) {
    const rest = current.filter((item) => item !== value);
    map.set(key, rest.length === 1 ? (rest[0] as string) : rest);
  }
}

/** The values under `key`; `undefined` when none. */
export function multiMapValues(map: MultiMap, key: string): readonly string[] | undefined {
  const current = map.get(key);
  return typeof current === 'string' ? [current] : current;
}
