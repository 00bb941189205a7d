/**
 * The way back from strict mode's nullable optionals (OpenAI structured outputs, Anthropic strict
 * tool use): strict mode requires every property, so an optional one becomes `type: [..., 'null']`
 * and the model sends `null` for "absent". Before the tool runs, those `null`s are removed again
 * wherever the tool's own schema leaves the property optional and does not accept `null` — in
 * nested objects and arrays, and in the branches of `anyOf` / `oneOf` / `allOf` (a root union
 * merged into one object included; of a union, the branches whose required properties the object
 * has) — so the tool sees what its schema describes.
 */
import { deref, either, isObject, itemSchemas, MAX_DEPTH, objectView, type ObjectView, type Schema } from './argument-view.js';

/** Whether a schema accepts `null` (an unconstrained schema does). */
function acceptsNull(schema: unknown, root: Schema, seen: readonly Schema[] = []): boolean {
  if (schema === true || !isObject(schema)) return schema !== false;
  const node = deref(schema, root);
  // a union that refers back to itself: its other alternatives decide
  if (seen.includes(node) || seen.length > MAX_DEPTH) return false;
  const inner = [...seen, node];
  const type = node.type;
  if (type === 'null') return true;
  if (Array.isArray(type)) return type.includes('null');
  if (type !== undefined) return false;
  if (Array.isArray(node.enum)) return node.enum.includes(null);
  if ('const' in node) return node.const === null;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = node[key];
    if (Array.isArray(options)) return options.some((option) => acceptsNull(option, root, inner));
  }
  if (Array.isArray(node.allOf)) return node.allOf.every((member) => acceptsNull(member, root, inner));
  return node.nullable === true || node.$ref === undefined;
}

function walk(schema: unknown, value: unknown, root: Schema, depth: number): unknown {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const items = either(itemSchemas(schema, root));
    if (items === undefined) return value;
    let changed = false;
    const out = value.map((item) => {
      const next = walk(items, item, root, depth + 1);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (!isObject(value)) return value;
  // the branches of a union this object can be: each of their required properties present, and not
  // as a null the branch refuses (that null is strict mode's "absent", sent for another branch)
  const record = value;
  const applies = (branch: ObjectView): boolean =>
    [...branch.required].every(
      (name) =>
        Object.hasOwn(record, name) &&
        (record[name] !== null || (branch.applicable.get(name) ?? []).some((option) => acceptsNull(option, root))),
    );
  const view = objectView(schema, root, applies);
  if (view === undefined) return value;
  let changed = false;
  const entries: [string, unknown][] = [];
  for (const [key, item] of Object.entries(value)) {
    const schemas = view.properties.get(key);
    if (schemas === undefined) {
      entries.push([key, item]);
      continue;
    }
    // a null no schema of the property accepts (in the branches the object can be), for a property
    // not surely required: strict mode's "absent"
    const options = view.applicable.get(key) ?? [];
    if (item === null && !view.required.has(key) && !options.some((option) => acceptsNull(option, root))) {
      changed = true;
      continue;
    }
    const next = walk(either(schemas), item, root, depth + 1);
    if (next !== item) changed = true;
    entries.push([key, next]);
  }
  return changed ? Object.fromEntries(entries) : value;
}

/**
 * The arguments with every `null` removed that strict mode put in for an absent optional property
 * (per `schema`, the tool's own input schema), at any depth and in the branches of unions: a
 * `null` goes when the property is not required (by its object, or by every branch of a union the
 * object can be) and none of its schemas there accepts `null`. Values are copied only where
 * something changes.
 */
export function dropStrictNulls(schema: unknown, args: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(schema)) return args;
  return walk(schema, args, schema, 0) as Record<string, unknown>;
}
