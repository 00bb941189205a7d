/**
 * What a tool's own input schema says about one value of the arguments a model sent: the schemas
 * of an object's properties and of an array's items, gathered through local `$ref`s and through
 * `allOf`, `anyOf` and `oneOf` — so the way back from a provider (strict mode's `null`s, renamed
 * property keys) reaches properties declared in a union's branches too, and those of a root union
 * the adapters merged into one object.
 */

/** A JSON Schema object. */
export type Schema = Record<string, unknown>;

/** How deep the walks go through nested values, references and combinators (cycles stop here). */
export const MAX_DEPTH = 64;

/** Whether a value is a JSON object (not an array). */
export function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Follows a local `$ref` (`#/...`) inside the root schema; anything else is left alone. */
export function deref(schema: Schema, root: Schema): Schema {
  let current = schema;
  for (let hops = 0; hops < 32 && typeof current.$ref === 'string' && current.$ref.startsWith('#'); hops++) {
    let target: unknown = root;
    for (const token of current.$ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(token).replace(/~1/gu, '/').replace(/~0/gu, '~');
      target = isObject(target) ? target[key] : undefined;
    }
    if (!isObject(target)) return current;
    current = target;
  }
  return current;
}

/** Whether a schema node can describe values of a JSON type (no `type` says nothing against it). */
function describes(node: Schema, type: 'object' | 'array'): boolean {
  const declared = node.type;
  if (declared === undefined) return true;
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

/** What a schema says of an object value. */
export interface ObjectView {
  /** The schemas of each named property: the node's own, its `allOf` members', every branch's. */
  properties: Map<string, unknown[]>;
  /** The same from the node, its `allOf` members and only the `anyOf` / `oneOf` branches the value can be. */
  applicable: Map<string, unknown[]>;
  /**
   * The properties surely required: the node's and every `allOf` member's `required`, and those
   * every `anyOf` / `oneOf` branch the value can be requires.
   */
  required: Set<string>;
}

/**
 * The {@link ObjectView} of a schema for an object value; undefined when the schema describes no
 * objects. `applies` picks the `anyOf` / `oneOf` branches that can describe the value at hand (by
 * default every branch); when it rejects them all, every branch counts.
 */
export function objectView(
  schemaValue: unknown,
  root: Schema,
  applies: (branch: ObjectView) => boolean = () => true,
  seen: readonly Schema[] = [],
): ObjectView | undefined {
  if (!isObject(schemaValue) || seen.length > MAX_DEPTH) return undefined;
  const node = deref(schemaValue, root);
  // a union that refers back to itself adds nothing new
  if (!describes(node, 'object') || seen.includes(node)) return undefined;
  const inner = [...seen, node];
  const view: ObjectView = { properties: new Map(), applicable: new Map(), required: new Set() };
  const merge = (into: Map<string, unknown[]>, from: ReadonlyMap<string, unknown[]>): void => {
    for (const [name, schemas] of from) into.set(name, [...(into.get(name) ?? []), ...schemas]);
  };
  const add = (other: ObjectView, applicable: boolean): void => {
    merge(view.properties, other.properties);
    if (applicable) merge(view.applicable, other.applicable);
  };
  if (isObject(node.properties)) {
    for (const [name, schema] of Object.entries(node.properties)) {
      view.properties.set(name, [schema]);
      view.applicable.set(name, [schema]);
    }
  }
  if (Array.isArray(node.required)) for (const name of node.required) if (typeof name === 'string') view.required.add(name);
  if (Array.isArray(node.allOf)) {
    for (const member of node.allOf) {
      const sub = objectView(member, root, applies, inner);
      if (sub === undefined) continue;
      add(sub, true);
      for (const name of sub.required) view.required.add(name);
    }
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (!Array.isArray(branches)) continue;
    const subs = branches.map((branch) => objectView(branch, root, applies, inner)).filter((sub) => sub !== undefined);
    const fitting = subs.filter(applies);
    const chosen = fitting.length > 0 ? fitting : subs;
    let shared: Set<string> | undefined;
    for (const sub of subs) {
      const applicable = chosen.includes(sub);
      add(sub, applicable);
      if (!applicable) continue;
      shared = shared === undefined ? new Set(sub.required) : new Set([...shared].filter((name) => sub.required.has(name)));
    }
    for (const name of shared ?? []) view.required.add(name);
  }
  return view;
}

/** The schemas of an array value's items: the node's `items` and those of its `allOf` members and branches. */
export function itemSchemas(schemaValue: unknown, root: Schema, seen: readonly Schema[] = []): unknown[] {
  if (!isObject(schemaValue) || seen.length > MAX_DEPTH) return [];
  const node = deref(schemaValue, root);
  if (!describes(node, 'array') || seen.includes(node)) return [];
  const inner = [...seen, node];
  const out: unknown[] = [];
  if (node.items !== undefined && !Array.isArray(node.items)) out.push(node.items);
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const members = node[keyword];
    if (Array.isArray(members)) for (const member of members) out.push(...itemSchemas(member, root, inner));
  }
  return out;
}

/** Several schemas of one value as one schema to walk on with: itself for one, their `anyOf` for more. */
export function either(schemas: readonly unknown[]): unknown {
  return schemas.length <= 1 ? schemas[0] : { anyOf: [...schemas] };
}

/** Keywords that make a typeless schema one about objects (as `type: 'object'` would). */
const OBJECT_KEYWORDS = [
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'minProperties',
  'maxProperties',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
] as const;

/**
 * Whether an output schema lets the tool return something other than an object: another type
 * (`type: ['object', 'null']`, a branch of `anyOf` / `oneOf` that is a string...), a value of
 * `const` / `enum` that is none, or no constraint at all (`true`, `{}`, `{ description }`). A
 * typeless schema with object keywords (`{ properties }`) counts as one about objects. Such a
 * result has no `structuredContent`, which an MCP client refuses from a tool that lists an output
 * schema ("has an output schema but did not return structured content"), failing the call.
 * `root` is the schema local `$ref`s point into.
 */
export function admitsNonObject(value: unknown, root: Schema, depth = 0): boolean {
  if (value === true) return true;
  if (!isObject(value) || depth > MAX_DEPTH) return false;
  const node = deref(value, root);
  const type = node.type;
  if (type !== undefined) return Array.isArray(type) ? type.some((t) => t !== 'object') : type !== 'object';
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches)) return branches.some((branch) => admitsNonObject(branch, root, depth + 1));
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) return node.allOf.every((member) => admitsNonObject(member, root, depth + 1));
  const values = Array.isArray(node.enum) ? (node.enum as unknown[]) : 'const' in node ? [node.const] : undefined;
  if (values !== undefined) return values.some((v) => !isObject(v));
  return !OBJECT_KEYWORDS.some((keyword) => node[keyword] !== undefined);
}
