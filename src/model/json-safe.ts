/**
 * The one conversion of arbitrary values to JSON-safe data, for everything the library writes out
 * that a caller or a guest did not check: error details (`toErrorShape`, `toJSON`), gateway
 * replies and error replies.
 *
 * @internal
 * @module
 */

/** What stands for a value met again inside itself. */
export const CIRCULAR = '[Circular]';
/** What stands for a value nested deeper than the copy goes. */
export const TRUNCATED = '[Truncated]';
/** How deep {@link toJsonSafe} copies by default. */
export const DEFAULT_JSON_DEPTH = 64;

/** How {@link toJsonSafe} copies. */
export interface JsonSafeOptions {
  /** Deepest level copied; below it a value becomes {@link TRUNCATED}. @defaultValue 64 */
  maxDepth?: number;
  /** The form of an `Error` met inside the value. @defaultValue `{ name, message }` */
  error?: (err: Error) => unknown;
  /** Called each time a value is cut at `maxDepth` (for a caller that refuses a cut copy). */
  onTruncate?: () => void;
}

/**
 * A JSON-safe deep copy of `value` that never throws: what `JSON.stringify` would write, except
 * that bigints become strings, a cycle becomes `"[Circular]"`, nesting deeper than `maxDepth`
 * `"[Truncated]"`, an `Error` `{ name, message }` (or `options.error`'s form), a `Date` its ISO
 * text (`null` when invalid), a typed array or `DataView` its bytes, a `Map` an object and a
 * `Set` an array, and a property, `toJSON` or proxy that throws `"[Unreadable: <message>]"`.
 * Functions, symbols and `undefined` members are dropped (`null` in arrays), non-finite numbers
 * become `null`, `toJSON` is honoured. Plain JSON comes out equal to what went in; `undefined`
 * when `value` itself has no JSON form (a function, a symbol, `undefined`).
 */
export function toJsonSafe(value: unknown, options: JsonSafeOptions = {}): unknown {
  const how: Copying = {
    maxDepth: options.maxDepth ?? DEFAULT_JSON_DEPTH,
    error: options.error ?? plainError,
    onTruncate: options.onTruncate,
  };
  return copy(value, [], 0, how);
}

/** {@link JsonSafeOptions} with the defaults applied. */
interface Copying {
  readonly maxDepth: number;
  readonly error: (err: Error) => unknown;
  readonly onTruncate: (() => void) | undefined;
}

function copy(value: unknown, ancestors: object[], depth: number, how: Copying): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (ancestors.includes(value)) return CIRCULAR;
  if (depth >= how.maxDepth) {
    how.onTruncate?.();
    return TRUNCATED;
  }
  ancestors.push(value);
  const next = (item: unknown): unknown => copy(item, ancestors, depth + 1, how);
  try {
    return copyObject(value, next, how.error);
  } catch (err) {
    return unreadable(err);
  } finally {
    ancestors.pop();
  }
}

/** One object's copy, its members copied by `next`; throws when the object cannot be read. */
function copyObject(object: object, next: (item: unknown) => unknown, error: (err: Error) => unknown): unknown {
  if (object instanceof Error) return error(object);
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return next((toJSON as () => unknown).call(object));
  if (Array.isArray(object)) return object.map((item) => next(item) ?? null);
  if (ArrayBuffer.isView(object)) return Array.from(new Uint8Array(object.buffer, object.byteOffset, object.byteLength));
  if (object instanceof Map) return next(Object.fromEntries(object));
  if (object instanceof Set) return next([...object]);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    let item: unknown;
    try {
      item = next((object as Record<string, unknown>)[key]);
    } catch (err) {
      item = unreadable(err);
    }
    if (item !== undefined) out[key] = item;
  }
  return out;
}

function plainError(err: Error): { name: string; message: string } {
  return { name: String(err.name), message: String(err.message) };
}

/** What stands for a value that threw when it was read. */
function unreadable(err: unknown): string {
  let message: string;
  try {
    message = err instanceof Error ? err.message : String(err);
  } catch {
    message = 'unreadable';
  }
  return `[Unreadable: ${message}]`;
}
