/**
 * The spec engine's errors (a keyword location and an instance location each, as schemasafe
 * reports them) turned into the Ajv errors the violation builder reads: the keyword, the
 * instance path as an escaped JSON pointer, the keyword's params, the schema values (`verbose`),
 * and `oneOf`/`anyOf` errors that carry each branch's own errors, as the explaining Ajv gives them.
 */
import type { ErrorObject } from 'ajv';
import { duplicateItems } from './schema-exact-keywords.js';
import type { CompositeParams } from './composite-violations.js';
import { baseUriOf, resolveRef } from './schema-refs.js';
import { escapePointer, isPlainObject, type SchemaDocument } from './schema-source.js';

/** One error as schemasafe reports it. */
export interface SpecError {
  keywordLocation: string;
  instanceLocation: string;
}

/** Keywords an error can be about (schemasafe's keyword locations sometimes end in an index or a property name). */
const KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'enum',
  'const',
  'required',
  'dependentRequired',
  'dependencies',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'minProperties',
  'maxProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'patternProperties',
  'properties',
  'dependentSchemas',
  'not',
  'oneOf',
  'anyOf',
  'allOf',
  'if',
  'then',
  'else',
  '$ref',
  '$dynamicRef',
]);

function segmentsOf(location: string): string[] {
  const body = location.startsWith('#') ? location.slice(1) : location;
  return body === '' ? [] : body.slice(1).split('/');
}

/**
 * The schema node a keyword location leads to, following the `$ref`s and `$dynamicRef`s met on
 * the way (schema-refs.ts); `undefined` when the location cannot be followed.
 */
function schemaAt(root: SchemaDocument, segments: readonly string[]): unknown {
  let node: unknown = root;
  let i = 0;
  while (i < segments.length) {
    const segment = segments[i] as string;
    if (isPlainObject(node) && (segment === '$ref' || segment === '$dynamicRef') && typeof node[segment] === 'string') {
      node = resolveRef(root, node[segment], baseUriOf(root, node));
      i++;
    } else if (Array.isArray(node) && /^\d+$/.test(segment)) {
      node = node[Number(segment)];
      i++;
    } else if (isPlainObject(node)) {
      // The longest run of segments that names a key: property names may contain '/'.
      let j = segments.length;
      while (j > i && !Object.hasOwn(node, segments.slice(i, j).join('/'))) j--;
      if (j === i) return undefined;
      node = node[segments.slice(i, j).join('/')];
      i = j;
    } else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * The JSON pointer (escaped) of an instance location that schemasafe writes unescaped: each step
 * takes the longest run of segments that names a key of the value there.
 */
function instancePointer(data: unknown, location: string): { pointer: string; value: unknown; rest: string } {
  const segments = segmentsOf(location);
  let node: unknown = data;
  let pointer = '';
  let i = 0;
  while (i < segments.length) {
    let matched = 0;
    if (Array.isArray(node) && /^\d+$/.test(segments[i] as string) && Number(segments[i]) < node.length) matched = 1;
    else if (isPlainObject(node)) {
      for (let j = segments.length; j > i; j--) {
        if (Object.hasOwn(node, segments.slice(i, j).join('/'))) {
          matched = j - i;
          break;
        }
      }
    }
    if (matched === 0) break;
    const key = segments.slice(i, i + matched).join('/');
    pointer += `/${escapePointer(key)}`;
    node = Array.isArray(node) ? node[Number(key)] : (node as Record<string, unknown>)[key];
    i += matched;
  }
  return { pointer, value: node, rest: segments.slice(i).join('/') };
}

function typeList(type: unknown): string[] {
  return Array.isArray(type) ? type.map(String) : [String(type)];
}

/** One schemasafe error as Ajv would have reported it (`verbose` fields included where known). */
function toAjvError(error: SpecError, root: SchemaDocument, data: unknown): ErrorObject {
  const segments = segmentsOf(error.keywordLocation);
  // `additionalProperties: false` was compiled as `{ "not": {} }` (schema-spec-rewrite.ts).
  if (segments.at(-1) === 'not' && /^(additional|unevaluated)Properties$/.test(segments.at(-2) ?? '')) segments.pop();
  let at = segments.length;
  while (at > 0 && !KEYWORDS.has(segments[at - 1] as string)) at--;
  const keyword = at === 0 ? 'false schema' : (segments[at - 1] as string);
  const parentSchema = at === 0 ? schemaAt(root, segments) : schemaAt(root, segments.slice(0, at - 1));
  const schema = isPlainObject(parentSchema) && keyword !== 'false schema' ? parentSchema[keyword] : parentSchema;
  const located = instancePointer(data, error.instanceLocation);
  let instancePath = located.pointer;
  const value = located.value;
  const params: Record<string, unknown> = {};
  let message = `must pass the "${keyword}" keyword`;
  // The error as Ajv reports it: the fields read so far, with what a keyword reports differently.
  const ajvError = (fields: Partial<ErrorObject>): ErrorObject =>
    ({
      keyword,
      instancePath,
      schemaPath: error.keywordLocation,
      params,
      message,
      schema,
      parentSchema,
      data: value,
      ...fields,
    }) as ErrorObject;
  switch (keyword) {
    case 'required':
    case 'dependentRequired':
    case 'dependencies': {
      // schemasafe points at the missing property itself, or at the object.
      const object = located.rest === '' ? value : valueAtPointer(data, instancePath);
      const property = keyword === 'required' ? undefined : segments[at];
      const names = keyword === 'required' ? schema : isPlainObject(schema) && property !== undefined ? schema[property] : undefined;
      const missing =
        located.rest !== ''
          ? located.rest
          : Array.isArray(names)
            ? names.find((name) => isPlainObject(object) && !Object.hasOwn(object, String(name)))
            : undefined;
      if (missing !== undefined) params.missingProperty = String(missing);
      if (property !== undefined) params.property = property;
      message = `must have required property '${String(params.missingProperty)}'`;
      return ajvError({ data: object });
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const slash = instancePath.lastIndexOf('/');
      const name =
        located.rest !== ''
          ? located.rest
          : instancePath
              .slice(slash + 1)
              .replace(/~1/g, '/')
              .replace(/~0/g, '~');
      if (located.rest === '') instancePath = instancePath.slice(0, slash);
      params[keyword === 'additionalProperties' ? 'additionalProperty' : 'unevaluatedProperty'] = name;
      message = 'must NOT have additional properties';
      return ajvError({ data: valueAtPointer(data, instancePath) });
    }
    case 'items':
    case 'additionalItems':
    case 'unevaluatedItems': {
      // schemasafe reports each extra item; Ajv reports the array with the number of items allowed.
      if (schema === false) {
        const slash = instancePath.lastIndexOf('/');
        const arrayPath = slash >= 0 ? instancePath.slice(0, slash) : instancePath;
        const index = Number(instancePath.slice(slash + 1));
        params.limit = Number.isInteger(index) ? index : 0;
        return ajvError({
          instancePath: arrayPath,
          message: `must NOT have more than ${String(params.limit)} items`,
          data: valueAtPointer(data, arrayPath),
        });
      }
      break;
    }
    case 'type':
      if (isPlainObject(parentSchema)) params.type = typeList(parentSchema.type);
      message = `must be ${Array.isArray(params.type) ? params.type.join(',') : 'of another type'}`;
      break;
    case 'enum':
      if (Array.isArray(schema)) params.allowedValues = schema;
      message = 'must be equal to one of the allowed values';
      break;
    case 'const':
      params.allowedValue = schema;
      message = 'must be equal to constant';
      break;
    case 'format':
      params.format = schema;
      break;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      params.limit = schema;
      params.comparison = { minimum: '>=', maximum: '<=', exclusiveMinimum: '>', exclusiveMaximum: '<' }[keyword];
      break;
    case 'multipleOf':
      params.multipleOf = schema;
      break;
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
      params.limit = schema;
      break;
    case 'pattern':
      params.pattern = schema;
      break;
    case 'uniqueItems':
      Object.assign(params, duplicatePair(value));
      break;
    case 'contains':
    case 'minContains':
    case 'maxContains': {
      const node = isPlainObject(parentSchema) ? parentSchema : {};
      params.minContains = typeof node.minContains === 'number' ? node.minContains : 1;
      if (typeof node.maxContains === 'number') params.maxContains = node.maxContains;
      return ajvError({ keyword: 'contains', message: 'must contain a matching item', schema: node.contains });
    }
    case 'oneOf':
    case 'anyOf':
      // No per-branch errors from this engine: the violation builder then names the variants.
      message = keyword === 'oneOf' ? 'must match exactly one schema in oneOf' : 'must match a schema in anyOf';
      break;
    default:
      break;
  }
  return ajvError({});
}

function valueAtPointer(data: unknown, pointer: string): unknown {
  let node = data;
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isPlainObject(node)) node = node[key];
    else return undefined;
  }
  return node;
}

/** The indices of two equal items, as Ajv's own `uniqueItems` names them (`i` the later, `j` the earlier). */
function duplicatePair(value: unknown): { i?: number; j?: number } {
  const pair = Array.isArray(value) ? duplicateItems(value) : undefined;
  return pair === undefined ? {} : { i: pair[1], j: pair[0] };
}

/**
 * All errors of one failure, in Ajv's shape: the errors inside a `oneOf`/`anyOf` branch move into
 * that keyword's `params.branches` (innermost composites first), as with the explaining Ajv.
 */
export function toAjvErrors(errors: readonly SpecError[], root: SchemaDocument, data: unknown): ErrorObject[] {
  let list = errors.map((error) => toAjvError(error, root, data));
  const composites = list
    .filter((error) => error.keyword === 'oneOf' || error.keyword === 'anyOf')
    .sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  for (const composite of composites) {
    if (!list.includes(composite)) continue;
    const count = Array.isArray(composite.schema) ? composite.schema.length : 0;
    const branches: (ErrorObject[] | null)[] = Array.from({ length: count }, () => null);
    const prefix = `${composite.schemaPath}/`;
    const inside = new Set<ErrorObject>();
    for (const error of list) {
      if (error === composite || !error.schemaPath.startsWith(prefix)) continue;
      const index = Number(error.schemaPath.slice(prefix.length).split('/')[0]);
      if (!Number.isInteger(index) || index < 0 || index >= count) continue;
      (branches[index] ??= []).push(error);
      inside.add(error);
    }
    const passing = branches.flatMap((branch, index) => (branch === null ? [index] : []));
    const params: CompositeParams = { passing, branches };
    Object.assign(composite.params, params);
    list = list.filter((error) => !inside.has(error));
  }
  return list;
}
