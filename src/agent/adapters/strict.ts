/**
 * Strict mode (OpenAI structured outputs for function calling, Anthropic strict tool use): the
 * provider constrains the model's arguments to the schema, and accepts only schemas in which every
 * object is closed and lists every property as required. Optional properties become nullable (the
 * model sends `null` for "absent"; `dropStrictNulls` removes those again before the tool runs).
 */
import { isRecursive, isSchema, lost, mapChildren, type Schema, type WalkContext } from './schema-walk.js';

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

/**
 * Closes every object of an already filtered schema and requires every property (optional ones
 * made nullable). Returns the problems that keep it from being strict: an object open to other
 * properties (`additionalProperties` true or a schema, `patternProperties`), a free-form object
 * without `properties`, and, when `refuseRecursion`, a recursive schema.
 */
export function makeStrict(
  root: Schema,
  original: Schema,
  pointer: string,
  options: { refuseRecursion: boolean },
): { schema: Schema; problems: StrictProblem[] } {
  const problems: StrictProblem[] = [];
  if (options.refuseRecursion && isRecursive(original)) problems.push({ pointer, reason: 'the schema is recursive' });
  checkOpenObjects(original, pointer, problems, true);
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
  return { schema: walk(root, pointer, true) as Schema, problems };
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

/** Records why a schema is sent without strict mode. */
export function strictLost(ctx: WalkContext, problems: readonly StrictProblem[]): void {
  for (const problem of problems) lost(ctx, 'strict', problem.pointer, `${problem.reason}; the tool is sent without strict mode`);
}
