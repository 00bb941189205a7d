/**
 * Property keys a provider refuses, renamed on the way out and restored on the way back.
 *
 * Facts: Anthropic's `input_schema` property keys are `^[a-zA-Z0-9_.-]{1,64}$`; Gemini's parameter
 * names start with a letter or `_` and hold only `[a-zA-Z0-9_]`, up to 64 (`@google/genai` 2.32,
 * `FunctionDeclaration.parameters`). OpenAI and MCP state no rule: keys go as they are.
 *
 * A tool's keys like `filter[bundleId]`, `$top`, `user name` or a 70-character key are sent as a
 * legal key (`filter_bundleId_`, `_top`, `user_name`, the first 64 characters), with a warning
 * naming each. The renaming is a function of the tool's own schema alone: every illegal key of the
 * schema gets one name (a short hash of the key is appended where that name is taken), so the way
 * back needs no table — `restorePropertyKeys` computes the same renaming from the same schema and
 * puts the tool's keys back wherever the schema declares them (nested objects, arrays, `$ref`s and
 * the branches of unions included). `agentTools`' `call` does this before validation.
 */
import { createHash } from 'node:crypto';
import { either, isObject, itemSchemas, MAX_DEPTH, objectView, type Schema as ViewSchema } from './argument-view.js';
import { changed, isSchema, mapChildren, pointerToken, type Schema, type WalkContext } from './schema-walk.js';
import type { ProviderFormat } from './types.js';

/** The property keys each format takes; a format not listed takes any key. */
export const PROPERTY_KEY_RULES: Readonly<Partial<Record<ProviderFormat, RegExp>>> = Object.freeze({
  anthropic: /^[a-zA-Z0-9_.-]{1,64}$/u,
  gemini: /^[A-Za-z_][A-Za-z0-9_]{0,63}$/u,
});

/** Longest property key the renaming produces (both rules' limit). */
const MAX_KEY_CHARS = 64;
/** Characters of the hash that sets a renamed key apart from one already taken. */
const HASH_CHARS = 6;

/** The characters each format's keys may hold. */
const KEY_CHARS: Readonly<Partial<Record<ProviderFormat, RegExp>>> = {
  anthropic: /[a-zA-Z0-9_.-]/u,
  gemini: /[A-Za-z0-9_]/u,
};

/** Every property key a schema declares (in any `properties`, at any depth), each with where it is declared. */
function declaredKeys(schema: Schema, pointer: string): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  const walk = (value: unknown, at: string): unknown => {
    if (!isSchema(value)) return value;
    if (isSchema(value.properties)) {
      for (const key of Object.keys(value.properties)) {
        keys.set(key, [...(keys.get(key) ?? []), `${at}/properties/${pointerToken(key)}`]);
      }
    }
    mapChildren(value, at, walk);
    return value;
  };
  walk(schema, pointer);
  return keys;
}

/** A key with every character the format refuses as `_`, a legal first character, cut to 64. */
function legalKey(key: string, format: ProviderFormat, allowed: RegExp): string {
  let out = Array.from(key, (char) => (allowed.test(char) ? char : '_')).join('');
  if (format === 'gemini' && !/^[A-Za-z_]/u.test(out)) out = `_${out}`;
  return (out === '' ? '_' : out).slice(0, MAX_KEY_CHARS);
}

function hashOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, HASH_CHARS);
}

/** The renamings worked out so far, by schema object and format (a tool's schema is renamed on every call back). */
const keyMaps = new WeakMap<object, Partial<Record<ProviderFormat, ReadonlyMap<string, string>>>>();

/**
 * The renaming of a schema's property keys for one format: each key the format refuses → the key
 * sent in its place. Empty when every key is legal (always for OpenAI and MCP). Worked out once per
 * schema object and format.
 */
export function propertyKeyMap(schema: unknown, format: ProviderFormat): ReadonlyMap<string, string> {
  if (PROPERTY_KEY_RULES[format] === undefined || !isSchema(schema)) return NO_RENAMING;
  let byFormat = keyMaps.get(schema);
  if (byFormat === undefined) keyMaps.set(schema, (byFormat = {}));
  return (byFormat[format] ??= renaming(schema, format));
}

const NO_RENAMING: ReadonlyMap<string, string> = new Map();

function renaming(schema: Schema, format: ProviderFormat): ReadonlyMap<string, string> {
  const rule = PROPERTY_KEY_RULES[format];
  const allowed = KEY_CHARS[format];
  const map = new Map<string, string>();
  if (rule === undefined || allowed === undefined) return map;
  const keys = [...declaredKeys(schema, '').keys()];
  const illegal = keys.filter((key) => !rule.test(key));
  if (illegal.length === 0) return map;
  const taken = new Set(keys);
  for (const key of illegal) {
    const base = legalKey(key, format, allowed);
    let name = base;
    for (let attempt = 0; taken.has(name); attempt++) {
      name = `${base.slice(0, MAX_KEY_CHARS - HASH_CHARS - 1)}_${hashOf(attempt === 0 ? key : `${key}#${attempt}`)}`;
    }
    taken.add(name);
    map.set(key, name);
  }
  return map;
}

/**
 * The converted schema with its property keys renamed (in `properties`, `required`,
 * `propertyOrdering`, `dependentRequired`), and a `property name` warning for each place the
 * tool's schema (`original`) declares a renamed key. The schema as it is when nothing needs it.
 */
export function renamePropertyKeys(converted: Schema, original: Schema, ctx: WalkContext, pointer: string): Schema {
  const map = propertyKeyMap(original, ctx.format);
  if (map.size === 0) return converted;
  const rule = PROPERTY_KEY_RULES[ctx.format] as RegExp;
  for (const [key, places] of declaredKeys(original, pointer)) {
    const name = map.get(key);
    if (name === undefined) continue;
    for (const at of places) {
      changed(
        ctx,
        'property name',
        at,
        `${JSON.stringify(key)} is sent as ${JSON.stringify(name)} (${ctx.format} property names are ${rule.source}); agentTools' call (or restorePropertyKeys) puts the key back`,
      );
    }
  }
  const rename = (name: unknown): unknown => (typeof name === 'string' ? (map.get(name) ?? name) : name);
  const walk = (value: unknown, at: string): unknown => {
    if (!isSchema(value)) return value;
    const node = mapChildren(value, at, walk);
    if (isSchema(node.properties)) node.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [rename(k), v]));
    for (const keyword of ['required', 'propertyOrdering'] as const) {
      const names = node[keyword];
      if (Array.isArray(names)) node[keyword] = names.map(rename);
    }
    if (isSchema(node.dependentRequired)) {
      node.dependentRequired = Object.fromEntries(
        Object.entries(node.dependentRequired).map(([k, v]) => [rename(k), Array.isArray(v) ? v.map(rename) : v]),
      );
    }
    return node;
  };
  return walk(converted, pointer) as Schema;
}

function restore(schema: unknown, value: unknown, root: ViewSchema, back: ReadonlyMap<string, string>, depth: number): unknown {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const items = either(itemSchemas(schema, root));
    if (items === undefined) return value;
    let touched = false;
    const out = value.map((item) => {
      const next = restore(items, item, root, back, depth + 1);
      if (next !== item) touched = true;
      return next;
    });
    return touched ? out : value;
  }
  if (!isObject(value)) return value;
  const view = objectView(schema, root);
  if (view === undefined) return value;
  let touched = false;
  const entries: [string, unknown][] = [];
  for (const [key, item] of Object.entries(value)) {
    let name = key;
    const original = view.properties.has(key) ? undefined : back.get(key);
    if (original !== undefined && view.properties.has(original) && !Object.hasOwn(value, original)) name = original;
    const schemas = view.properties.get(name);
    const next = schemas === undefined ? item : restore(either(schemas), item, root, back, depth + 1);
    if (name !== key || next !== item) touched = true;
    entries.push([name, next]);
  }
  return touched ? Object.fromEntries(entries) : value;
}

/**
 * The arguments a model sent for a tool converted with `toProviderTool(tool, format)`, with the
 * tool's own property keys put back where the conversion renamed them (Anthropic and Gemini
 * refuse keys like `filter[bundleId]` or `$top`; see the `property name` warnings). `schema` is
 * the tool's own input schema. Values are copied only where something changes; for a format that
 * renames nothing (OpenAI, MCP) the arguments come back as they are.
 */
export function restorePropertyKeys(schema: unknown, args: Record<string, unknown>, format: ProviderFormat): Record<string, unknown> {
  const map = propertyKeyMap(schema, format);
  if (map.size === 0 || !isObject(schema)) return args;
  const back = new Map([...map].map(([key, name]) => [name, key]));
  return restore(schema, args, schema, back, 0) as Record<string, unknown>;
}

/** A JSON-pointer token as the key it names (`~1` is `/`, `~0` is `~`). */
function keyOfToken(token: string): string {
  return token.replace(/~1/gu, '/').replace(/~0/gu, '~');
}

/**
 * A pointer into the tool's arguments (`/filter[x]/0/$top`) with each property key as the provider
 * was given it (`/filter_x_/0/_top`): the arguments (`args`, with the tool's own keys) tell the
 * array indices from the keys.
 */
function providerPointer(pointer: string, map: ReadonlyMap<string, string>, args: unknown): string {
  let value = args;
  return pointer
    .split('/')
    .map((token, i) => {
      if (i === 0) return token;
      const key = keyOfToken(token);
      const isIndex = Array.isArray(value);
      value = isObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
      const name = isIndex ? undefined : map.get(key);
      return name === undefined ? token : pointerToken(name);
    })
    .join('/');
}

/**
 * A validation message about arguments the model sent under renamed keys, in the model's words:
 * every quoted field (`'/filter[x]'`) or key (`did you mean '$top'?`) the message names in the
 * tool's own keys is named as the provider was given it (`'/filter_x_'`, `'_top'`), so the model
 * can act on it. `args` are the arguments with the tool's keys put back; `text` as it is when the
 * format renamed nothing.
 */
export function providerKeysInText(text: string, schema: unknown, format: ProviderFormat, args: unknown): string {
  const map = propertyKeyMap(schema, format);
  if (map.size === 0) return text;
  return text.replace(/'([^'\n]*)'/gu, (quoted, inner: string) => {
    const named = inner.startsWith('/') ? providerPointer(inner, map, args) : map.get(inner);
    return named === undefined ? quoted : `'${named}'`;
  });
}
