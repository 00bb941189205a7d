/**
 * A snippet's result as JSON text, with its size checked while it is serialized: both guests (the
 * QuickJS prelude and the node guest) hand their result over through it.
 */
import { JSONStringify } from './primordials.js';

/** Thrown by the size check: the result would be larger than the cap. */
const TOO_LARGE = { tooLarge: true };

/**
 * The snippet's value (`__out` when it returned nothing) as JSON text; `undefined` for no value;
 * `null` when it would be larger than `maxBytes`. Throws when not serializable.
 *
 * @remarks The size is checked while serializing, before any text is built: each string, key and
 * number counts at least its length, so a value far over the cap (a 50 MB string) is refused
 * without making its JSON copy, which could exhaust the VM's memory on the way out. The host
 * checks the exact UTF-8 size of what passes.
 */
export function resultJson(value: unknown, maxBytes: number): string | null | undefined {
  const result = value === undefined ? (globalThis as { __out?: unknown }).__out : value;
  if (result === undefined) return undefined;
  let size = 0;
  const count = (key: string, item: unknown): unknown => {
    size += key.length + 4;
    if (typeof item === 'string') size += item.length;
    // a marker, not an error: it never leaves resultJson
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (size > maxBytes) throw TOO_LARGE;
    return item;
  };
  try {
    return JSONStringify(result, count);
  } catch (error) {
    if (error === TOO_LARGE) return null;
    throw error;
  }
}
