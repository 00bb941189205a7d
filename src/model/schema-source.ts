/**
 * Turning whatever a caller passes as a schema into a checked JSON copy, a content key and a dialect.
 * Nothing here touches the caller's value beyond reading it.
 */

/** The JSON Schema dialects the validator compiles. */
export type Dialect = '2020-12' | 'draft-07';

/** A dialect defined by a known meta-schema with a `$vocabulary` (see schema-vocabulary.ts). */
export interface CustomDialect {
  /** The meta-schema's URI (as given in `$schema`). */
  readonly uri: string;
  /** The dialect it builds on. */
  readonly base: Dialect;
  /** Keywords of standard vocabularies the meta-schema leaves out: not evaluated. */
  readonly inactive: ReadonlySet<string>;
  /** Why schemas in this dialect are refused, if they are. */
  readonly refusal?: string;
}

/** A JSON value, as found in a schema document. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A schema document: an object or a boolean. */
export type SchemaDocument = boolean | { [key: string]: JsonValue };

/**
 * Why a schema cannot be used. Raised inside the model layer and turned into an `INVALID_SCHEMA`
 * {@link ToolexecError} at the public boundary (where the tool and schema slot are known).
 */
export class SchemaProblem extends Error {
  constructor(
    /** The reason, without the `invalid JSON Schema: ` prefix. */
    readonly reason: string,
    /** The underlying error (Ajv's, JSON.parse's), kept as `cause`. */
    cause?: unknown,
  ) {
    super(reason, cause === undefined ? undefined : { cause });
    this.name = 'SchemaProblem';
  }
}

/** Deepest nesting accepted in a schema document. */
export const MAX_SCHEMA_DEPTH = 1000;

/** The official meta-schema host, over http or https (generators write both). */
const JSON_SCHEMA_ORG = /^https?:\/\/json-schema\.org\//;

/**
 * The dialect named by a root `$schema` value; `undefined` and `''` mean 2020-12.
 *
 * @throws {@link SchemaProblem} for any other dialect.
 */
export function dialectOf(uri: unknown, custom?: ReadonlyMap<string, CustomDialect>): Dialect {
  if (uri === undefined || uri === '') return '2020-12';
  if (typeof uri === 'string') {
    if (JSON_SCHEMA_ORG.test(uri)) {
      const path = uri.replace(JSON_SCHEMA_ORG, '');
      if (path.startsWith('draft/2020-12/')) return '2020-12';
      if (path === 'draft-07/schema' || path.startsWith('draft-07/')) return 'draft-07';
    }
    const known = custom?.get(uri);
    if (known !== undefined) return known.base;
  }
  const shown = typeof uri === 'string' ? uri : safeJson(uri);
  throw new SchemaProblem(`unsupported JSON Schema dialect: ${shown} (only 2020-12 and draft-07 are supported)`);
}

/**
 * Why a root `$schema` can never be evaluated whatever the validator's options, or `undefined`: a
 * value that is not a string, or a json-schema.org dialect other than 2020-12 and draft-07 (a
 * custom meta-schema is given to a validator in its `schemas`, so any other URI may be one).
 */
export function unsupportedOfficialDialect(uri: unknown): string | undefined {
  if (uri === undefined || uri === '') return undefined;
  if (typeof uri !== 'string') return `$schema must be a string, got ${safeJson(uri)}`;
  if (!JSON_SCHEMA_ORG.test(uri)) return undefined;
  try {
    dialectOf(uri);
    return undefined;
  } catch (err) {
    return err instanceof SchemaProblem ? err.reason : String(err);
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses JSON schema text (a string or UTF-8 bytes).
 *
 * @throws {@link SchemaProblem} `empty schema` or `failed to parse schema: <detail>`.
 */
export function parseSchemaText(input: string | Uint8Array): unknown {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = decoder.decode(input);
    } catch (err) {
      throw new SchemaProblem('failed to parse schema: the bytes are not valid UTF-8', err);
    }
  }
  if (text.trim() === '') throw new SchemaProblem('empty schema');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new SchemaProblem(`failed to parse schema: ${err instanceof Error ? err.message : String(err)}`, err);
  }
}

/** The content identity of a schema: what {@link schemaKey} returns. */
export interface SchemaKey {
  /** A stable serialization: equal content gives an equal key, whatever the key order. */
  readonly key: string;
  /** The dialect named by the root `$schema`. */
  readonly dialect: Dialect;
  /** True when the root named no `$schema`, so the dialect was not chosen by the author. */
  readonly implicitDialect: boolean;
  /** The custom dialect (a known meta-schema with `$vocabulary`) the root `$schema` names, if any. */
  readonly custom?: CustomDialect;
}

/** The result of {@link canonicalizeSchema}: the key plus the document to compile. */
export interface CanonicalSchema extends SchemaKey {
  /** A deep JSON copy of the schema, with the root `$schema` removed (the dialect says it). */
  readonly document: SchemaDocument;
}

/** The JSON type name of any value, as a schema violation reports it (`integer` for whole numbers). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Thrown inside {@link serialize} for anything that is not JSON; the caller finds out what. */
const NOT_JSON = new Error('not JSON');

/**
 * A stable serialization of a JSON value: object keys sorted, `undefined` properties left out.
 * Fast (one string, no copy); throws {@link NOT_JSON} on anything else, including cycles (which
 * exceed the depth limit).
 */
function serialize(value: unknown, depth: number, skipKey?: string): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw NOT_JSON;
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw NOT_JSON;
  }
  if (value === null) return 'null';
  if (depth > MAX_SCHEMA_DEPTH) throw NOT_JSON;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (!Object.hasOwn(value, i)) throw NOT_JSON;
      const item: unknown = value[i];
      if (item === undefined) throw NOT_JSON;
      out += i === 0 ? serialize(item, depth + 1) : `,${serialize(item, depth + 1)}`;
    }
    return `${out}]`;
  }
  if (!isPlainObject(value)) throw NOT_JSON;
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    if (key === skipKey) continue;
    const item = value[key];
    if (item === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${serialize(item, depth + 1)}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * The content key and dialect of a schema, without copying it. Equal content in any key order
 * gives the same key; `undefined` properties count as absent, as in JSON.
 *
 * @throws {@link SchemaProblem} when `schema` is not a JSON Schema document (an object or a boolean
 * made only of JSON values, without cycles), naming what is wrong and where.
 */
export function schemaKey(schema: unknown, customDialects?: ReadonlyMap<string, CustomDialect>): SchemaKey {
  if (typeof schema === 'boolean') return { key: `2020-12|${schema}`, dialect: '2020-12', implicitDialect: true };
  if (!isPlainObject(schema)) {
    throw new SchemaProblem(`expected a JSON Schema object, a boolean or JSON text, got ${describeType(schema)}`);
  }
  const declared = schema.$schema;
  const dialect = dialectOf(declared, customDialects);
  const custom = typeof declared === 'string' ? customDialects?.get(declared) : undefined;
  let body: string;
  try {
    body = serialize(schema, 0, '$schema');
  } catch (err) {
    if (err !== NOT_JSON) throw err;
    schemaDocument(schema); // throws the precise problem
    throw new SchemaProblem('schema is not JSON');
  }
  if (custom !== undefined) return { key: `${dialect}|${custom.uri}|${body}`, dialect, implicitDialect: false, custom };
  return { key: `${dialect}|${body}`, dialect, implicitDialect: declared === undefined || declared === '' };
}

/**
 * The document to compile: a deep JSON copy of `schema` without its root `$schema`.
 *
 * @throws {@link SchemaProblem} as {@link schemaKey} does.
 */
export function schemaDocument(schema: unknown): SchemaDocument {
  if (typeof schema === 'boolean') return schema;
  if (!isPlainObject(schema)) {
    throw new SchemaProblem(`expected a JSON Schema object, a boolean or JSON text, got ${describeType(schema)}`);
  }
  const { $schema: _declared, ...rest } = schema;
  // The caller's object is the ancestor a cycle would lead back to, not the shallow view.
  return copyJson(rest, '', 0, new Set<object>([schema])) as SchemaDocument;
}

/** {@link schemaKey} and {@link schemaDocument} at once. */
export function canonicalizeSchema(schema: unknown): CanonicalSchema {
  return { ...schemaKey(schema), document: schemaDocument(schema) };
}

/**
 * A deep JSON copy of any schema-like document (used for the `schemas` option), with the same
 * checks as {@link canonicalizeSchema} but keeping `$schema`.
 *
 * @throws {@link SchemaProblem}.
 */
export function copySchemaDocument(schema: unknown): SchemaDocument {
  if (typeof schema === 'boolean') return schema;
  if (!isPlainObject(schema)) {
    throw new SchemaProblem(`expected a JSON Schema object or boolean, got ${describeType(schema)}`);
  }
  return copyJson(schema, '', 0, new Set()) as SchemaDocument;
}

function copyJson(value: unknown, pointer: string, depth: number, ancestors: Set<object>): JsonValue {
  if (depth > MAX_SCHEMA_DEPTH) {
    throw new SchemaProblem(`schema is nested more than ${MAX_SCHEMA_DEPTH} levels deep (at ${pointer.slice(0, 60)}…)`);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw notJson(pointer, String(value));
      return value;
    case 'object':
      break;
    default:
      throw notJson(pointer, `a ${typeof value}`);
  }
  if (value === null) return null;
  if (ancestors.has(value)) throw new SchemaProblem(`schema contains a cycle at ${pointer || '(root)'}`);
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const out: JsonValue[] = [];
      for (let i = 0; i < value.length; i++) {
        if (!Object.hasOwn(value, i)) throw notJson(`${pointer}/${i}`, 'a hole in an array');
        const item: unknown = value[i];
        if (item === undefined) throw notJson(`${pointer}/${i}`, 'undefined');
        out.push(copyJson(item, `${pointer}/${i}`, depth + 1, ancestors));
      }
      return out;
    }
    if (!isPlainObject(value)) throw notJson(pointer, describeType(value));
    // Keep the author's key order (Ajv reports errors in that order).
    const out: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item === undefined) continue;
      setOwn(out, key, copyJson(item, `${pointer}/${escapePointer(key)}`, depth + 1, ancestors));
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

function notJson(pointer: string, what: string): SchemaProblem {
  return new SchemaProblem(`schema is not JSON: ${pointer || '(root)'} is ${what}`);
}

/** Defines an own enumerable property, even for the key `__proto__`. */
function setOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** True for `{}`-like objects (plain or null-prototype), false for arrays, class instances, Dates, Maps... */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A short type description for messages: `null`, `array`, `number`, `Date`, `Map`... */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') {
    if (isPlainObject(value)) return 'object';
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== '' ? name : 'object';
  }
  return typeof value;
}

/** Escapes one JSON pointer segment (`~` → `~0`, `/` → `~1`). */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** JSON text of any value that never throws (bigint, cycles and symbols are shown by String()). */
export function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {
    // fall through
  }
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
