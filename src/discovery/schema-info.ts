/**
 * What a tool's input schema says about each argument (Go: `tooldoc.DescribeTool`, its schema-info step).
 */
import type { SchemaInfo } from './types.js';
import { guardCall } from '../model/internal.js';
import { guardErrors } from './errors.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The schema as a JSON value: JSON text (string or UTF-8 bytes) parsed, other values round-tripped. */
function schemaObject(schema: unknown): Record<string, unknown> | undefined {
  try {
    if (typeof schema === 'string') return asObject(JSON.parse(schema));
    if (schema instanceof Uint8Array) return asObject(JSON.parse(new TextDecoder().decode(schema)));
    if (isPlainObject(schema)) return schema;
    if (schema === undefined || schema === null) return undefined;
    const text = JSON.stringify(schema);
    return text === undefined ? undefined : asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

// Plain assignment would treat a property named `__proto__` as the prototype.
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function copyOf(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return isPlainObject(value) ? value : undefined;
}

/** Most `$ref` hops followed from one schema node (a cycle of references stops there). */
const MAX_REF_HOPS = 8;

/** The node a local reference (`#/$defs/Name`, `#/definitions/Name`) points at in `root`. */
function localTarget(root: Record<string, unknown>, ref: string): Record<string, unknown> | undefined {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (match === null) return undefined;
  const defs = root[match[1] as string];
  if (!isPlainObject(defs)) return undefined;
  const name = decodeURIComponent(match[2] as string)
    .replaceAll('~1', '/')
    .replaceAll('~0', '~');
  return Object.prototype.hasOwnProperty.call(defs, name) ? asObject(defs[name]) : undefined;
}

/** `node` with its local `$ref` chain followed (the last node reached; `node` itself without one). */
function resolved(root: Record<string, unknown>, node: Record<string, unknown>): Record<string, unknown> {
  let current = node;
  for (let hop = 0; hop < MAX_REF_HOPS && typeof current.$ref === 'string'; hop++) {
    const target = localTarget(root, current.$ref);
    if (target === undefined || target === current) break;
    current = target;
  }
  return current;
}

/**
 * The object schemas whose `properties` and `required` describe the arguments: the root, the
 * node its `$ref` points at (a zod or pydantic schema kept in `$defs`), and the members of
 * their `allOf` (each followed through its `$ref`), in that order.
 */
function argumentSchemas(root: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const visit = (node: Record<string, unknown>, depth: number): void => {
    if (out.includes(node) || depth > MAX_REF_HOPS) return;
    out.push(node);
    const target = resolved(root, node);
    if (target !== node) visit(target, depth + 1);
    if (Array.isArray(node.allOf)) {
      for (const member of node.allOf as unknown[]) if (isPlainObject(member)) visit(member, depth + 1);
    }
  };
  visit(root, 0);
  return out;
}

function typeList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? (value as unknown[]).filter((item): item is string => typeof item === 'string') : [];
}

/** A property's JSON types: its `type`, else that of its `$ref` target, else the union of its `anyOf` / `oneOf` members' types. */
function propertyTypes(root: Record<string, unknown>, property: Record<string, unknown>): string[] {
  const own = typeList(property.type);
  if (own.length > 0) return own;
  const target = resolved(root, property);
  if (target !== property) return typeList(target.type);
  const members = Array.isArray(property.anyOf) ? property.anyOf : Array.isArray(property.oneOf) ? property.oneOf : [];
  const union: string[] = [];
  for (const member of members as unknown[]) {
    if (!isPlainObject(member)) continue;
    for (const type of typeList(resolved(root, member).type)) if (!union.includes(type)) union.push(type);
  }
  return union;
}

/**
 * Derives the required arguments, each property's types and defaults from an input schema given
 * as an object, JSON text or bytes. The properties and `required` names are read from the root,
 * from the local `$defs` / `definitions` node a root `$ref` points at, and from the members of a
 * root `allOf` (first mention of a property wins). A property's types are its `type` (a string as
 * a one-item list, or the strings of an array), else those of its local `$ref` target, else the
 * union of its `anyOf` / `oneOf` members' types (`Optional[str]` → `["string", "null"]`). Empty
 * parts are left out; the result is `undefined` when nothing was found or the schema is not valid JSON.
 */
export function deriveSchemaInfo(schema: unknown): SchemaInfo | undefined {
  return guardCall(guardErrors, 'schema', () => derive(schema));
}

function derive(schema: unknown): SchemaInfo | undefined {
  const root = schemaObject(schema);
  if (root === undefined) return undefined;
  const info: SchemaInfo = {};
  const required: string[] = [];
  const types: Record<string, string[]> = {};
  const defaults: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const node of argumentSchemas(root)) {
    if (Array.isArray(node.required)) {
      for (const name of node.required as unknown[]) if (typeof name === 'string' && !required.includes(name)) required.push(name);
    }
    if (!isPlainObject(node.properties)) continue;
    for (const [name, property] of Object.entries(node.properties)) {
      if (!isPlainObject(property) || seen.has(name)) continue;
      seen.add(name);
      const list = propertyTypes(root, property);
      if (list.length > 0) setOwn(types, name, list);
      if (Object.prototype.hasOwnProperty.call(property, 'default') && property.default !== undefined) {
        setOwn(defaults, name, copyOf(property.default));
      }
    }
  }
  if (required.length > 0) info.required = required;
  if (Object.keys(types).length > 0) info.types = types;
  if (Object.keys(defaults).length > 0) info.defaults = defaults;
  return Object.keys(info).length > 0 ? info : undefined;
}
