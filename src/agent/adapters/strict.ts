/**
 * Strict mode (OpenAI structured outputs for function calling, Anthropic strict tool use): the
 * provider constrains the model's arguments to the schema, and accepts only schemas in which every
 * object is closed and lists every property as required. Optional properties become nullable (the
 * model sends `null` for "absent"; `dropStrictNulls` removes those again before the tool runs).
 */
import {
  isArrayNode,
  isRecursive,
  isSchema,
  lost,
  mapChildren,
  pointerToken,
  resolveLocalRef,
  type Schema,
  type WalkContext,
} from './schema-walk.js';

/**
 * The keywords both providers' strict modes accept (OpenAI structured outputs, Anthropic strict tool
 * use): structure, references, annotations, strings' `pattern` and `format`, arrays' `minItems`.
 * Each adapter adds what its provider alone accepts.
 */
export const STRICT_COMMON_KEYWORDS: readonly string[] = [
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'pattern',
  'format',
  'minItems',
];

/** One reason a schema cannot be strict. */
export interface StrictProblem {
  /** JSON pointer of the node. */
  pointer: string;
  /** Why. */
  reason: string;
}

/** Whether a schema node describes objects. */
function isObjectNode(node: Schema): boolean {
  const type = node.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || isSchema(node.properties);
}

/** Whether a schema accepts `null` as it is. */
function acceptsNull(node: Schema): boolean {
  const type = node.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (type !== undefined) return false;
  if (Array.isArray(node.enum)) return node.enum.includes(null);
  if ('const' in node) return node.const === null;
  const options = node.anyOf ?? node.oneOf;
  if (Array.isArray(options)) return options.some((option) => isSchema(option) && acceptsNull(option));
  return false;
}

/** The schema made nullable: `null` added to its type (and enum), or `anyOf: [schema, {type: 'null'}]`. */
export function nullable(node: Schema): Schema {
  if (acceptsNull(node)) return node;
  const type = node.type;
  const withEnum = (out: Schema): Schema => (Array.isArray(node.enum) ? { ...out, enum: [...(node.enum as unknown[]), null] } : out);
  if (typeof type === 'string' && !('const' in node)) return withEnum({ ...node, type: [type, 'null'] });
  if (Array.isArray(type) && !('const' in node)) return withEnum({ ...node, type: [...(type as unknown[]), 'null'] });
  const { description, ...rest } = node;
  return { anyOf: [rest, { type: 'null' }], ...(description === undefined ? {} : { description }) };
}

/** What one provider's strict mode refuses beyond open objects. */
export interface StrictRules {
  /** A recursive schema (Anthropic). */
  refuseRecursion: boolean;
  /** An array without `items` (OpenAI: "array schema missing items"). */
  requireItems: boolean;
}

/**
 * Closes every object of an already filtered schema and requires every property (optional ones
 * made nullable). Returns the problems that keep it from being strict: an object open to other
 * properties (`additionalProperties` true or a schema, `patternProperties`), a free-form object
 * without `properties`, a subschema with no type (`{ description }` only, or the `{}` an
 * unsupported `allOf` leaves), with `requireItems` an array without `items`, with
 * `refuseRecursion` a recursive schema, and a `$ref` that resolves to no subschema of the schema
 * sent (see {@link checkRefs}).
 */
export function makeStrict(
  root: Schema,
  original: Schema,
  pointer: string,
  options: StrictRules,
): { schema: Schema; problems: StrictProblem[] } {
  const problems: StrictProblem[] = [];
  if (options.refuseRecursion && isRecursive(original)) problems.push({ pointer, reason: 'the schema is recursive' });
  checkOpenObjects(original, pointer, problems, true);
  checkTypedNodes(root, pointer, problems, options.requireItems);
  const walk = (value: unknown, at: string, isRoot: boolean): unknown => {
    if (!isSchema(value)) return value;
    let node = mapChildren(value, at, (child, childAt) => walk(child, childAt, false));
    if (isObjectNode(node) || (isRoot && node.type === undefined)) {
      const properties = isSchema(node.properties) ? node.properties : {};
      const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
      const closed: Schema = {};
      for (const [name, schema] of Object.entries(properties)) {
        closed[name] = required.has(name) || !isSchema(schema) ? schema : nullable(schema);
      }
      node = { ...node, properties: closed, required: Object.keys(closed), additionalProperties: false };
    }
    return node;
  };
  const schema = walk(root, pointer, true) as Schema;
  checkRefs(schema, original, pointer, problems);
  return { schema, problems };
}

/**
 * Finds the references strict mode would send unresolved. The provider resolves a `$ref` as a JSON
 * pointer into the schema it is given, and the strict keyword subset has no `$anchor` or `$id`: a
 * reference in the schema about to be sent must point to one of its subschemas (`#`, `#/$defs/X`).
 * So these are problems: a reference by anchor (`#foo`) or by `$id` (`urn:x`), one to a definition
 * that is not there (`#/$defs/Nope`) or that the filter dropped, one to another document
 * (`https://…`); and, in the tool's schema, a subschema with its own `$id` that holds references
 * (their base is that subschema, not the root the provider resolves them against).
 */
function checkRefs(sent: Schema, original: Schema, pointer: string, problems: StrictProblem[]): void {
  const visitSent = (value: unknown, at: string): unknown => {
    if (!isSchema(value)) return value;
    const ref = value.$ref;
    if (typeof ref === 'string') {
      const target = resolveLocalRef(sent, ref);
      if (!isSchema(target) && typeof target !== 'boolean') {
        problems.push({
          pointer: `${at}/$ref`,
          reason: `the reference ${JSON.stringify(ref)} resolves to no subschema of the schema sent (strict mode resolves JSON pointers inside it only, not an $anchor, an $id or another document)`,
        });
      }
    }
    return mapChildren(value, at, visitSent);
  };
  visitSent(sent, pointer);
  const hasRef = (value: unknown): boolean => {
    if (!isSchema(value)) return false;
    if (typeof value.$ref === 'string') return true;
    let found = false;
    mapChildren(value, '', (child) => {
      found ||= hasRef(child);
      return child;
    });
    return found;
  };
  const visitOriginal = (value: unknown, at: string, isRoot: boolean): unknown => {
    if (!isSchema(value)) return value;
    if (!isRoot && typeof value.$id === 'string' && hasRef(value)) {
      problems.push({
        pointer: `${at}/$id`,
        reason: 'a subschema with its own $id, the base of the references inside it, which strict mode drops',
      });
      return value;
    }
    return mapChildren(value, at, (child, childAt) => visitOriginal(child, childAt, false));
  };
  visitOriginal(original, pointer, true);
}

/** Finds the objects of the caller's schema that strict mode would have to close against their meaning. */
function checkOpenObjects(value: unknown, at: string, problems: StrictProblem[], isRoot: boolean): void {
  if (!isSchema(value)) return;
  if (isObjectNode(value) || (isRoot && value.type === undefined)) {
    const additional = value.additionalProperties;
    if (additional === true || isSchema(additional)) {
      problems.push({ pointer: `${at}/additionalProperties`, reason: 'the object accepts properties it does not list' });
    }
    if (isSchema(value.patternProperties)) {
      problems.push({ pointer: `${at}/patternProperties`, reason: 'the object accepts properties by pattern' });
    }
    if (!isRoot && !isSchema(value.properties) && additional !== false) {
      problems.push({ pointer: at, reason: 'a free-form object (no properties listed)' });
    }
  }
  mapChildren(value, at, (child, childAt) => {
    checkOpenObjects(child, childAt, problems, false);
    return child;
  });
}

/** The keywords that give a strict-mode subschema its type (both providers refuse a node without one). */
const TYPING_KEYWORDS = ['type', '$ref', 'anyOf', 'oneOf', 'allOf', 'enum', 'const'] as const;

/** Keywords whose value is a map of name → subschema a strict schema may hold. */
const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions'] as const;
/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;

/**
 * Finds, in the filtered schema about to be sent, the subschemas strict mode cannot take: one with
 * no type (a property that is any JSON value, or what is left when a keyword the provider lacks is
 * dropped), and with `requireItems` an array that does not say what it holds.
 */
function checkTypedNodes(root: Schema, pointer: string, problems: StrictProblem[], requireItems: boolean): void {
  const visit = (value: unknown, at: string): void => {
    if (!isSchema(value) || !TYPING_KEYWORDS.some((keyword) => value[keyword] !== undefined)) {
      problems.push({ pointer: at, reason: 'a subschema without a type (any JSON value)' });
      return;
    }
    walk(value, at);
  };
  const walk = (node: Schema, at: string): void => {
    if (requireItems && isArrayNode(node) && node.items === undefined) {
      problems.push({ pointer: at, reason: 'an array that does not say what its items are (no items)' });
    }
    for (const key of SUBSCHEMA_MAPS) {
      const map = node[key];
      if (isSchema(map)) for (const [name, child] of Object.entries(map)) visit(child, `${at}/${key}/${pointerToken(name)}`);
    }
    for (const key of SUBSCHEMA_LISTS) {
      const list = node[key];
      if (Array.isArray(list)) list.forEach((child, i) => visit(child, `${at}/${key}/${i}`));
    }
    const items = node.items;
    if (Array.isArray(items)) items.forEach((child, i) => visit(child, `${at}/items/${i}`));
    else if (items !== undefined) visit(items, `${at}/items`);
  };
  walk(root, pointer);
}

/** Records why a schema is sent without strict mode. */
export function strictLost(ctx: WalkContext, problems: readonly StrictProblem[]): void {
  for (const problem of problems) lost(ctx, 'strict', problem.pointer, `${problem.reason}; the tool is sent without strict mode`);
}
