/**
 * How a snippet's `console` shows a value: strings as they are, everything else as compact JSON
 * where JSON can say it, and readable forms where it cannot (`NaN`, `-0`, `Infinity`, `12n`,
 * `undefined`, `[Function: f]`, `Map(1) {"a" => 1}`, `Set(2) {1, 2}`, `Error: message`,
 * `[Circular]`). Nesting beyond {@link MAX_DEPTH} shows as `[Object]` / `[Array]` and long
 * collections are cut after {@link MAX_ITEMS} entries, so one log line stays bounded.
 */
import {
  GuestError,
  GuestMap,
  GuestSet,
  GuestString,
  JSONStringify,
  apply,
  isArray,
  mapForEach,
  objectIs,
  objectKeys,
  setForEach,
} from './primordials.js';

/** How deep nested objects are shown. */
const MAX_DEPTH = 6;
/** How many entries of one array, object, map or set are shown. */
const MAX_ITEMS = 100;

/** One console argument as text (a string as it is). */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return show(value, 0, []);
  } catch {
    // a getter or proxy of the snippet's own threw: show what can be shown without it
    try {
      return GuestString(value);
    } catch {
      return `[${typeof value}]`;
    }
  }
}

function show(value: unknown, depth: number, seen: unknown[]): string {
  switch (typeof value) {
    case 'string':
      return JSONStringify(value);
    case 'number':
      return objectIs(value, -0) ? '-0' : GuestString(value);
    case 'bigint':
      return `${GuestString(value)}n`;
    case 'boolean':
    case 'symbol':
    case 'undefined':
      return GuestString(value);
    case 'function': {
      const name = (value as { name?: unknown }).name;
      return `[Function: ${typeof name === 'string' && name !== '' ? name : '(anonymous)'}]`;
    }
    default:
      break;
  }
  if (value === null) return 'null';
  if (value instanceof GuestError) return GuestString(value);
  for (let i = 0; i < seen.length; i += 1) if (seen[i] === value) return '[Circular]';
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return show(apply(toJSON, value, []), depth, seen);
  if (depth >= MAX_DEPTH) return isArray(value) ? '[Array]' : '[Object]';
  const inner: unknown[] = [];
  for (let i = 0; i < seen.length; i += 1) inner[i] = seen[i];
  inner[seen.length] = value;
  const next = (item: unknown) => show(item, depth + 1, inner);
  if (isArray(value)) return `[${items(value.length, (i) => next(value[i]))}]`;
  if (value instanceof GuestMap) {
    const parts: string[] = [];
    apply(mapForEach, value, [(v: unknown, k: unknown) => (parts[parts.length] = `${next(k)} => ${next(v)}`)]);
    return `Map(${parts.length}) {${items(parts.length, (i) => parts[i] as string, ', ')}}`;
  }
  if (value instanceof GuestSet) {
    const parts: string[] = [];
    apply(setForEach, value, [(v: unknown) => (parts[parts.length] = next(v))]);
    return `Set(${parts.length}) {${items(parts.length, (i) => parts[i] as string, ', ')}}`;
  }
  const record = value as Record<string, unknown>;
  const keys = objectKeys(record);
  return `{${items(keys.length, (i) => `${JSONStringify(keys[i])}:${next(record[keys[i] as string])}`)}}`;
}

/** `count` entries rendered by `render`, joined, the ones past {@link MAX_ITEMS} counted instead. */
function items(count: number, render: (index: number) => string, separator = ','): string {
  let text = '';
  const shown = count > MAX_ITEMS ? MAX_ITEMS : count;
  for (let i = 0; i < shown; i += 1) text += (i === 0 ? '' : separator) + render(i);
  if (count > shown) text += `${separator}... ${count - shown} more`;
  return text;
}
