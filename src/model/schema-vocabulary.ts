/**
 * Custom meta-schemas: a `$schema` that names a known document (the `schemas` option) which is a
 * 2020-12 meta-schema with its own `$vocabulary`. The schema is then evaluated as 2020-12 with
 * only the keywords of the vocabularies that meta-schema lists; an unknown vocabulary it requires
 * (`true`) is refused, an unknown optional one (`false`) is ignored, as the specification says.
 */
import { SchemaProblem, isPlainObject, type CustomDialect, type JsonValue, type SchemaDocument } from './schema-source.js';

const VOCAB = 'https://json-schema.org/draft/2020-12/vocab/';

/** The keywords of each 2020-12 vocabulary that affect validation (annotation-only vocabularies list none). */
const VOCABULARIES: Readonly<Record<string, readonly string[]>> = {
  [`${VOCAB}core`]: ['$id', '$schema', '$ref', '$anchor', '$dynamicRef', '$dynamicAnchor', '$vocabulary', '$comment', '$defs'],
  [`${VOCAB}applicator`]: [
    'prefixItems',
    'items',
    'contains',
    'additionalProperties',
    'properties',
    'patternProperties',
    'dependentSchemas',
    'propertyNames',
    'if',
    'then',
    'else',
    'allOf',
    'anyOf',
    'oneOf',
    'not',
  ],
  [`${VOCAB}unevaluated`]: ['unevaluatedItems', 'unevaluatedProperties'],
  [`${VOCAB}validation`]: [
    'type',
    'const',
    'enum',
    'multipleOf',
    'maximum',
    'exclusiveMaximum',
    'minimum',
    'exclusiveMinimum',
    'maxLength',
    'minLength',
    'pattern',
    'maxItems',
    'minItems',
    'uniqueItems',
    'maxContains',
    'minContains',
    'maxProperties',
    'minProperties',
    'required',
    'dependentRequired',
  ],
  [`${VOCAB}meta-data`]: [],
  [`${VOCAB}format-annotation`]: [],
  [`${VOCAB}content`]: [],
};

/** The custom dialects among the known documents: 2020-12 meta-schemas with a `$vocabulary`. */
export function customDialects(known: ReadonlyMap<string, SchemaDocument>): Map<string, CustomDialect> {
  const out = new Map<string, CustomDialect>();
  for (const [uri, document] of known) {
    if (typeof document !== 'object' || !isPlainObject(document.$vocabulary)) continue;
    const declared = document.$schema;
    if (typeof declared !== 'string' || !declared.startsWith('https://json-schema.org/draft/2020-12/')) continue;
    const vocabulary = document.$vocabulary as Record<string, JsonValue>;
    const active = new Set<string>();
    let refusal: string | undefined;
    for (const [name, required] of Object.entries(vocabulary)) {
      if (Object.hasOwn(VOCABULARIES, name)) active.add(name);
      else if (required === true)
        refusal ??= `the meta-schema ${uri} requires the vocabulary ${name} in $vocabulary, which the validator does not know`;
    }
    if (!active.has(`${VOCAB}core`)) refusal ??= `the meta-schema ${uri} does not list the core vocabulary in $vocabulary`;
    const inactive = new Set<string>();
    for (const [name, keywords] of Object.entries(VOCABULARIES))
      if (!active.has(name)) for (const keyword of keywords) inactive.add(keyword);
    const dialect: CustomDialect = { uri, base: '2020-12', inactive, ...(refusal === undefined ? {} : { refusal }) };
    out.set(uri, dialect);
    out.set(uri.replace(/#$/, ''), dialect);
  }
  return out;
}

/** Subschema positions of the applicator, unevaluated and core vocabularies. */
const SINGLE = new Set([
  'items',
  'contains',
  'additionalProperties',
  'propertyNames',
  'if',
  'then',
  'else',
  'not',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const LISTS = new Set(['prefixItems', 'allOf', 'anyOf', 'oneOf']);
const MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs']);

function setOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function strip(value: JsonValue, inactive: ReadonlySet<string>, depth: number): JsonValue {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || depth > 1000) return value;
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(value)) {
    if (inactive.has(key)) continue;
    const item = value[key] as JsonValue;
    let kept = item;
    if (SINGLE.has(key)) kept = strip(item, inactive, depth + 1);
    else if (LISTS.has(key) && Array.isArray(item)) kept = item.map((sub) => strip(sub, inactive, depth + 1));
    else if (MAPS.has(key) && isPlainObject(item)) {
      const map: Record<string, JsonValue> = {};
      for (const name of Object.keys(item)) setOwn(map, name, strip(item[name] as JsonValue, inactive, depth + 1));
      kept = map;
    }
    setOwn(out, key, kept);
  }
  return out;
}

/**
 * The document as its custom dialect reads it: the keywords of vocabularies the meta-schema
 * leaves out are removed (they are not evaluated).
 *
 * @throws {@link SchemaProblem} when the dialect is refused.
 */
export function inDialect(document: SchemaDocument, dialect: CustomDialect): SchemaDocument {
  if (dialect.refusal !== undefined) throw new SchemaProblem(`unsupported $vocabulary: ${dialect.refusal}`);
  if (typeof document === 'boolean' || dialect.inactive.size === 0) return document;
  return strip(document, dialect.inactive, 0) as SchemaDocument;
}
