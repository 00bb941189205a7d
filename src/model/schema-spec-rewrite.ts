/**
 * The copy of a schema that the spec engine compiles. schemasafe lints schemas even in its `spec`
 * mode and refuses some that are valid JSON Schema; this copy says the same thing in a form it
 * accepts:
 *
 * - `additionalProperties: false` / `unevaluatedProperties: false` become `{ "not": {} }` (the
 *   same schema), which its "unknown required property" lint leaves alone;
 * - a keyword that cannot apply under the schema's own `type` (`minimum` beside `type: "string"`)
 *   is left out: it never applies, and its presence is refused as "unexpected rules in type".
 *   Only keywords that hold no subschema are left out, so every `$ref` target stays in place.
 */
import type { JsonValue, SchemaDocument } from './schema-source.js';

/** Keywords whose value is one subschema. */
const SINGLE = [
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
] as const;
/** Keywords whose value is a list of subschemas. */
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
/** Keywords whose value maps names to subschemas. */
const MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'] as const;

/** Scalar keywords by the instance type they apply to. */
const BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  string: ['minLength', 'maxLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType'],
  array: ['minItems', 'maxItems', 'uniqueItems', 'minContains', 'maxContains'],
  object: ['minProperties', 'maxProperties', 'required', 'dependentRequired'],
};

const NOTHING: JsonValue = { not: {} };

type JsonObject = { [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Keywords the node's own `type` rules out. */
function inapplicable(node: JsonObject): Set<string> {
  const out = new Set<string>();
  const type = node.type;
  const types = typeof type === 'string' ? [type] : Array.isArray(type) && type.every((t) => typeof t === 'string') ? type : undefined;
  if (types === undefined) return out;
  const allows = (group: string) => types.includes(group) || (group === 'number' && types.includes('integer'));
  for (const [group, keywords] of Object.entries(BY_TYPE)) if (!allows(group)) for (const keyword of keywords) out.add(keyword);
  return out;
}

function rewrite(value: JsonValue, depth: number): JsonValue {
  if (!isObject(value) || depth > 1000) return value;
  const dropped = inapplicable(value);
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const item = value[key] as JsonValue;
    if (dropped.has(key) && (item === null || typeof item !== 'object' || isStringList(item))) continue;
    setOwn(out, key, rewriteKeyword(key, item, depth));
  }
  return out;
}

function isStringList(value: JsonValue): boolean {
  return Array.isArray(value)
    ? value.every((item) => typeof item === 'string')
    : isObject(value) && Object.values(value).every(isStringListOrString);
}

function isStringListOrString(value: JsonValue): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function rewriteKeyword(key: string, item: JsonValue, depth: number): JsonValue {
  if ((key === 'additionalProperties' || key === 'unevaluatedProperties') && item === false) return NOTHING;
  if ((SINGLE as readonly string[]).includes(key)) return rewrite(item, depth + 1);
  if (key === 'items') return Array.isArray(item) ? item.map((sub) => rewrite(sub, depth + 1)) : rewrite(item, depth + 1);
  if ((LISTS as readonly string[]).includes(key) && Array.isArray(item)) return item.map((sub) => rewrite(sub, depth + 1));
  if ((MAPS as readonly string[]).includes(key) && isObject(item)) {
    const out: JsonObject = {};
    for (const name of Object.keys(item)) setOwn(out, name, rewrite(item[name] as JsonValue, depth + 1));
    return out;
  }
  return item;
}

/** The spec engine's copy of `document` (a new value; `document` is not touched). */
export function specEngineCopy(document: SchemaDocument): SchemaDocument {
  return typeof document === 'boolean' ? document : (rewrite(document, 0) as SchemaDocument);
}
