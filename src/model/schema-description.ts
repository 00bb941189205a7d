/**
 * How schemas and values read in violation messages: values shown short, schemas summarized in a
 * line, local `$ref`s followed, a `oneOf`'s discriminator found.
 */
import { escapePointer, isPlainObject, safeJson, type SchemaDocument } from './schema-source.js';

/** How a field is shown in messages: its pointer, or `(root)` for the whole value. */
export function fieldLabel(field: string): string {
  return field === '' ? '(root)' : field;
}

const MAX_SHOWN_CHARS = 60;
const MAX_LISTED = 10;

/** A value as a message shows it: JSON, cut to a readable length (`NaN` and `±Infinity` as they are). */
export function show(value: unknown): string {
  const text = typeof value === 'number' && !Number.isFinite(value) ? String(value) : safeJson(value);
  return text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS - 1)}…` : text;
}

export function showList(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LISTED).map(show).join(', ');
  return values.length > MAX_LISTED ? `${shown}, … (${values.length} in all)` : shown;
}

/** A keyword parameter as text: strings as they are, anything else as JSON. */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : safeJson(value);
}

export function plural(count: unknown, singular: string, pluralForm: string): string {
  return `${text(count)} ${count === 1 ? singular : pluralForm}`;
}

/** The value itself when it is a short scalar (worth echoing back), otherwise undefined. */
export function scalar(value: unknown): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value === 'string') return value.length <= 200 ? value : `${value.slice(0, 199)}…`;
  return undefined;
}

export function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The value at a JSON pointer inside `data` (undefined when the path does not exist). */
export function valueAt(data: unknown, pointer: string): unknown {
  if (pointer === '') return data;
  let current = data;
  for (const raw of pointer.slice(1).split('/')) {
    if (current === null || typeof current !== 'object') return undefined;
    const key = unescapePointer(raw);
    current = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
  }
  return current;
}

/** Follows local `$ref`s (`#`, `#/json/pointer`) inside `root`; anything else is returned as is. */
export function resolveLocal(schema: unknown, root: SchemaDocument): unknown {
  let current = schema;
  for (let hops = 0; hops < 16; hops++) {
    if (!isPlainObject(current) || typeof current.$ref !== 'string' || !current.$ref.startsWith('#')) return current;
    let fragment: string;
    try {
      fragment = decodeURIComponent(current.$ref.slice(1));
    } catch {
      return current;
    }
    if (fragment !== '' && !fragment.startsWith('/')) return current;
    const target = valueAt(root, fragment);
    if (target === undefined) return current;
    // A `$ref` with siblings: the siblings still apply; describe the target only when it is alone.
    if (Object.keys(current).length > 1) return current;
    current = target;
  }
  return current;
}

/** `properties` of a branch, including those of its local `$ref` target and its `allOf` members. */
export function collectProperties(schema: unknown, root: SchemaDocument, depth = 0): Map<string, unknown> {
  const found = new Map<string, unknown>();
  if (depth > 8 || !isPlainObject(schema)) return found;
  const visit = (part: unknown) => {
    for (const [key, value] of collectProperties(part, root, depth + 1)) if (!found.has(key)) found.set(key, value);
  };
  if (isPlainObject(schema.properties)) {
    for (const [key, value] of Object.entries(schema.properties)) found.set(key, resolveLocal(value, root));
  }
  if (typeof schema.$ref === 'string') {
    const target = resolveLocal({ $ref: schema.$ref }, root);
    if (target !== schema && !(isPlainObject(target) && target.$ref === schema.$ref)) visit(target);
  }
  if (Array.isArray(schema.allOf)) for (const member of schema.allOf) visit(resolveLocal(member, root));
  return found;
}

/** The single value a property schema pins (`const`, or an `enum` of one). */
export function pinnedValue(schema: unknown): { value: unknown } | undefined {
  if (!isPlainObject(schema)) return undefined;
  if (Object.hasOwn(schema, 'const')) return { value: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return { value: schema.enum[0] };
  return undefined;
}

export interface Discriminator {
  property: string;
  /** Every value that selects a branch, in branch order (what a message lists as allowed). */
  values: unknown[];
  /** Per branch, the values that select it (one for a `const`, several for an `enum`). */
  branchValues: unknown[][];
}

/** The values a property schema pins: its `const`, or every value of its (non-empty) `enum`. */
function pinnedValues(schema: unknown): unknown[] | undefined {
  if (!isPlainObject(schema)) return undefined;
  if (Object.hasOwn(schema, 'const')) return [schema.const];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum as unknown[];
  return undefined;
}

/**
 * A property every branch pins (`kind: {const: 'circle'}`, or `t: {enum: ['a', 'b']}`), to value
 * sets that do not overlap, so that the value picks exactly one branch; if there is one.
 */
export function findDiscriminator(branches: readonly unknown[], root: SchemaDocument): Discriminator | undefined {
  if (branches.length < 2) return undefined;
  const properties = branches.map((branch) => collectProperties(resolveLocal(branch, root), root));
  const first = properties[0];
  if (first === undefined) return undefined;
  for (const property of first.keys()) {
    const values: unknown[] = [];
    const branchValues: unknown[][] = [];
    const seen = new Set<string>();
    for (const props of properties) {
      const pinned = pinnedValues(props.get(property));
      if (pinned === undefined) break;
      const own = new Set<string>();
      let overlaps = false;
      for (const value of pinned) {
        const key = safeJson(value);
        if (own.has(key)) continue;
        if (seen.has(key)) {
          overlaps = true;
          break;
        }
        own.add(key);
        values.push(value);
      }
      if (overlaps) break;
      for (const key of own) seen.add(key);
      branchValues.push(pinned);
    }
    if (branchValues.length === branches.length) return { property, values, branchValues };
  }
  return undefined;
}

export function typeText(type: unknown): string | undefined {
  if (typeof type === 'string') return type;
  if (Array.isArray(type) && type.every((t) => typeof t === 'string')) return type.join(' | ');
  return undefined;
}

/** A one-line summary of a schema, for the candidates of a failed `oneOf`/`anyOf`. */
export function describeSchema(schema: unknown, root: SchemaDocument): string {
  const resolved = resolveLocal(schema, root);
  if (resolved === true) return 'any value';
  if (resolved === false) return 'no value';
  if (!isPlainObject(resolved)) return 'a schema';
  if (Object.hasOwn(resolved, 'const')) return show(resolved.const);
  if (Array.isArray(resolved.enum)) return `one of ${showList(resolved.enum)}`;
  const details: string[] = [];
  for (const [key, value] of collectProperties(resolved, root)) {
    const pinned = pinnedValue(value);
    if (pinned !== undefined && details.length < 3) details.push(`${key}=${show(pinned.value)}`);
  }
  if (Array.isArray(resolved.required) && resolved.required.length > 0) {
    details.push(`required: ${resolved.required.slice(0, 5).map(String).join(', ')}${resolved.required.length > 5 ? ', …' : ''}`);
  }
  for (const keyword of ['format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems']) {
    const value = resolved[keyword];
    if (typeof value === 'string' || typeof value === 'number') details.push(`${keyword} ${value}`);
  }
  let head = typeText(resolved.type);
  if (head === undefined && (isPlainObject(resolved.properties) || Array.isArray(resolved.required))) head = 'object';
  if (head === undefined && details.length === 0) {
    if (typeof resolved.title === 'string') return resolved.title;
    if (typeof resolved.$ref === 'string') return resolved.$ref;
    return 'a schema';
  }
  if (head === undefined) return details.join(', ');
  return details.length > 0 ? `${head} (${details.join(', ')})` : head;
}

/** Longest pointer segment a violation shows (a longer property name is cut, ending in `…`). */
const MAX_SEGMENT_CHARS = 100;

function cutSegment(part: string): string {
  return part.length > MAX_SEGMENT_CHARS ? `${part.slice(0, MAX_SEGMENT_CHARS - 1)}…` : part;
}

/** A property name as a JSON pointer segment, cut to {@link MAX_SEGMENT_CHARS}. */
export function segment(name: string): string {
  return cutSegment(escapePointer(name));
}

/**
 * `pointer` with each segment cut to {@link MAX_SEGMENT_CHARS}: a model that sends a huge property
 * name gets a violation of readable size back, not its name echoed in every message.
 */
export function cutPointer(pointer: string): string {
  return pointer.length <= MAX_SEGMENT_CHARS ? pointer : pointer.split('/').map(cutSegment).join('/');
}
