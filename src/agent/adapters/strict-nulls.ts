/**
 * The way back from OpenAI strict mode's nullable optionals: strict mode requires every property,
 * so an optional one becomes `type: [..., 'null']` and the model sends `null` for "absent". Before
 * the tool runs, those `null`s are removed again wherever the tool's own schema leaves the property
 * optional and does not accept `null` — so the tool sees what its schema describes.
 */

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Follows a local `$ref` (`#/...`) inside the root schema; anything else is left alone. */
function deref(schema: Schema, root: Schema, depth: number): Schema {
  let current = schema;
  for (let hops = 0; hops < 32 && typeof current.$ref === 'string' && current.$ref.startsWith('#'); hops++) {
    let target: unknown = root;
    for (const token of current.$ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(token).replace(/~1/gu, '/').replace(/~0/gu, '~');
      target = isObject(target) ? target[key] : undefined;
    }
    if (!isObject(target) || depth > 64) return current;
    current = target;
  }
  return current;
}

/** Whether a schema accepts `null` (an unconstrained schema does). */
function acceptsNull(schema: unknown): boolean {
  if (schema === true || !isObject(schema)) return schema !== false;
  const type = schema.type;
  if (type === 'null') return true;
  if (Array.isArray(type)) return type.includes('null');
  if (type !== undefined) return false;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if ('const' in schema) return schema.const === null;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return options.some(acceptsNull);
  }
  return schema.nullable === true || schema.$ref === undefined;
}

function walk(schemaValue: unknown, value: unknown, root: Schema, depth: number): unknown {
  if (!isObject(schemaValue) || depth > 64) return value;
  const schema = deref(schemaValue, root, depth);
  if (Array.isArray(value)) {
    const items = schema.items;
    return isObject(items) ? value.map((item) => walk(items, item, root, depth + 1)) : value;
  }
  if (!isObject(value)) return value;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  if (properties === undefined) return value;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const propertySchema = properties[key];
    if (propertySchema === undefined) continue;
    if (
      item === null &&
      !required.has(key) &&
      !acceptsNull(isObject(propertySchema) ? deref(propertySchema, root, depth) : propertySchema)
    ) {
      out ??= { ...value };
      delete out[key];
      continue;
    }
    const next = walk(propertySchema, item, root, depth + 1);
    if (next !== item) {
      out ??= { ...value };
      out[key] = next;
    }
  }
  return out ?? value;
}

/**
 * The arguments with every `null` removed that strict mode put in for an absent optional property
 * (per `schema`, the tool's own input schema). Values are copied only where something changes.
 */
export function dropStrictNulls(schema: unknown, args: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(schema)) return args;
  return walk(schema, args, schema, 0) as Record<string, unknown>;
}
