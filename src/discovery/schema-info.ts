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

/**
 * Derives the required arguments, each property's types (a `type` string as a one-item list, or
 * the strings of a `type` array) and defaults from an input schema given as an object, JSON text
 * or bytes. Empty parts are left out; the result is `undefined` when nothing was found or the
 * schema is not valid JSON.
 */
export function deriveSchemaInfo(schema: unknown): SchemaInfo | undefined {
  return guardCall(guardErrors, 'schema', () => derive(schema));
}

function derive(schema: unknown): SchemaInfo | undefined {
  const root = schemaObject(schema);
  if (root === undefined) return undefined;
  const info: SchemaInfo = {};
  if (Array.isArray(root.required)) {
    const required = (root.required as unknown[]).filter((item): item is string => typeof item === 'string');
    if (required.length > 0) info.required = required;
  }
  if (isPlainObject(root.properties)) {
    const types: Record<string, string[]> = {};
    const defaults: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(root.properties)) {
      if (!isPlainObject(property)) continue;
      const type = property.type;
      if (typeof type === 'string') setOwn(types, name, [type]);
      else if (Array.isArray(type)) {
        const list = (type as unknown[]).filter((item): item is string => typeof item === 'string');
        if (list.length > 0) setOwn(types, name, list);
      }
      if (Object.prototype.hasOwnProperty.call(property, 'default') && property.default !== undefined) {
        setOwn(defaults, name, copyOf(property.default));
      }
    }
    if (Object.keys(types).length > 0) info.types = types;
    if (Object.keys(defaults).length > 0) info.defaults = defaults;
  }
  return Object.keys(info).length > 0 ? info : undefined;
}
