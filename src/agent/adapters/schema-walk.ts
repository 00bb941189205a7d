/**
 * The one schema walk every provider adapter uses: inline references (refusing cycles), drop the
 * keywords a provider lacks (a warning for each, with its JSON pointer), adjust what it spells
 * differently. Input schemas are never modified: every step returns new objects.
 */
import { ToolexecError } from '../../model/index.js';
import type { AdapterWarning, ProviderFormat } from './types.js';

/** A JSON Schema object (booleans are handled where they may occur). */
export type Schema = Record<string, unknown>;

/** Where one conversion is, and where its warnings go. */
export interface WalkContext {
  /** The format converted to. */
  format: ProviderFormat;
  /** The tool's ID, for error messages. */
  toolId: string;
  /** Collected warnings. */
  warnings: AdapterWarning[];
}

/** Keywords whose value is a map of name → subschema. */
export const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;
/** Keywords whose value is one subschema. */
export const SCHEMA_KEYWORDS = [
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
] as const;
/** Keywords whose value is an array of subschemas (`items` too, in draft-07's tuple form). */
export const ARRAY_KEYWORDS = ['prefixItems', 'anyOf', 'oneOf', 'allOf'] as const;

const MAP_SET: ReadonlySet<string> = new Set(MAP_KEYWORDS);
const SCHEMA_SET: ReadonlySet<string> = new Set(SCHEMA_KEYWORDS);
const ARRAY_SET: ReadonlySet<string> = new Set(ARRAY_KEYWORDS);

/** Whether a value is a JSON object (not an array). */
export function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** One JSON-pointer token (RFC 6901). */
export function pointerToken(key: string): string {
  return key.replace(/~/gu, '~0').replace(/\//gu, '~1');
}

/** Records that `feature` was lost at `pointer`. */
export function lost(ctx: WalkContext, feature: string, pointer: string, why?: string): void {
  const message = `feature "${feature}" lost converting to ${ctx.format} at ${pointer || '/'}${why === undefined ? '' : `: ${why}`}`;
  ctx.warnings.push({ format: ctx.format, feature, pointer, message });
}

/**
 * Records that the conversion rewrote `feature` at `pointer` so the provider takes the tool (an
 * `items: {}` added, a property key renamed): nothing a model needs is lost, but the schema sent
 * differs from the tool's.
 */
export function changed(ctx: WalkContext, feature: string, pointer: string, what: string): void {
  const message = `feature "${feature}" changed converting to ${ctx.format} at ${pointer || '/'}: ${what}`;
  ctx.warnings.push({ format: ctx.format, feature, pointer, message });
}

/** Whether a schema node describes arrays (`type: 'array'`, or a list of types with it). */
export function isArrayNode(node: Schema): boolean {
  const type = node.type;
  return type === 'array' || (Array.isArray(type) && type.includes('array'));
}

/**
 * For providers that refuse an array schema without `items` (OpenAI's function validator):
 * `items: {}` (any value, what a missing `items` means) added, with a warning. Use as a
 * {@link KeywordRules.adjust}.
 */
export function itemsAdded(node: Schema, pointer: string, ctx: WalkContext): Schema {
  if (!isArrayNode(node) || node.items !== undefined) return node;
  changed(ctx, 'items', `${pointer}/items`, `${ctx.format} requires items on every array; sent as items: {} (any value)`);
  return { ...node, items: {} };
}

/** Applies `fn` to each direct subschema of a node, keeping the node's shape. */
export function mapChildren(node: Schema, pointer: string, fn: (child: unknown, pointer: string) => unknown): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    const at = `${pointer}/${pointerToken(key)}`;
    if (MAP_SET.has(key) && isSchema(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, fn(child, `${at}/${pointerToken(name)}`)]));
    } else if ((ARRAY_SET.has(key) || key === 'items') && Array.isArray(value)) {
      out[key] = value.map((child, i) => fn(child, `${at}/${i}`));
    } else if (SCHEMA_SET.has(key) || key === 'items') {
      out[key] = isSchema(value) ? fn(value, at) : value;
    } else out[key] = value;
  }
  return out;
}

/** The node a local reference (`#`, `#/$defs/x`, any `#/...` pointer) points to in the root; undefined when none. */
export function resolveLocalRef(root: Schema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let target: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/gu, '/').replace(/~0/gu, '~');
    if (Array.isArray(target)) target = target[Number(token)];
    else target = isSchema(target) ? target[token] : undefined;
    if (target === undefined) return undefined;
  }
  return target;
}

/** `INVALID_SCHEMA` for a reference cycle that a provider without references cannot take. */
export function cycleError(ctx: WalkContext, ref: string, pointer: string): ToolexecError {
  return new ToolexecError(
    'INVALID_SCHEMA',
    `agent: the schema of tool "${ctx.toolId}" is recursive ($ref "${ref}" at ${pointer} refers to a schema that contains it), so it cannot be inlined for ${ctx.format}; give the tool a non-recursive schema`,
    { details: { toolId: ctx.toolId, format: ctx.format, pointer, ref } },
  );
}

/**
 * The schema with every `$ref` replaced by the schema it points to (sibling keywords kept, and
 * winning over the target's), and `$defs` / `definitions` removed. A reference to outside the
 * schema is dropped with a warning.
 *
 * @throws `INVALID_SCHEMA` for a reference cycle (a recursive schema has no finite inlined form).
 */
export function inlineRefs(root: Schema, ctx: WalkContext, pointer: string): Schema {
  const walk = (node: unknown, at: string, stack: readonly string[]): unknown => {
    if (!isSchema(node)) return node;
    let current = node;
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      const { $ref: _ref, ...siblings } = node;
      const target = resolveLocalRef(root, ref);
      if (target === undefined) {
        lost(ctx, '$ref', `${at}/$ref`, `"${ref}" is not a reference inside the schema`);
        current = siblings;
      } else {
        if (stack.includes(ref)) throw cycleError(ctx, ref, at);
        const resolved = walk(target, at, [...stack, ref]);
        return isSchema(resolved) ? { ...resolved, ...(walk(siblings, at, stack) as Schema) } : resolved;
      }
    }
    const { $defs: _defs, definitions: _definitions, ...rest } = current;
    return mapChildren(rest, at, (child, childAt) => walk(child, childAt, stack));
  };
  return walk(root, pointer, []) as Schema;
}

/** Whether a schema refers to itself (a `$ref` cycle), without throwing. */
export function isRecursive(root: Schema): boolean {
  try {
    inlineRefs(root, { format: 'mcp', toolId: '', warnings: [] }, '');
    return false;
  } catch (err) {
    if (ToolexecError.isInstance(err) && err.code === 'INVALID_SCHEMA') return true;
    throw err;
  }
}

/** What one provider keeps of a schema. */
export interface KeywordRules {
  /** The keywords kept (everything else is dropped with a warning); undefined keeps every keyword. */
  keep?: ReadonlySet<string>;
  /** Rewrites a node before its keywords are filtered (e.g. `const` → `enum`); may record warnings. */
  adjust?: (node: Schema, pointer: string, ctx: WalkContext) => Schema;
}

/** Annotations no provider needs and whose removal loses nothing a model uses. */
const SILENT_DROPS: ReadonlySet<string> = new Set(['$schema', '$comment']);

/**
 * The schema with `$schema` / `$comment` removed, each node adjusted, and every keyword outside
 * `rules.keep` dropped with a warning (pointer: the keyword's own).
 */
export function filterKeywords(root: Schema, rules: KeywordRules, ctx: WalkContext, pointer: string): Schema {
  const walk = (value: unknown, at: string): unknown => {
    if (!isSchema(value)) return value;
    const node = rules.adjust === undefined ? value : rules.adjust(value, at, ctx);
    const kept: Schema = {};
    for (const [key, item] of Object.entries(node)) {
      if (SILENT_DROPS.has(key)) continue;
      if (rules.keep !== undefined && !rules.keep.has(key)) {
        lost(ctx, key, `${at}/${pointerToken(key)}`);
        continue;
      }
      kept[key] = item;
    }
    return mapChildren(kept, at, walk);
  };
  return walk(root, pointer) as Schema;
}

/** For providers with `anyOf` but not `oneOf`: the alternatives are kept, their exclusivity is lost (a warning). */
export function oneOfAsAnyOf(node: Schema, pointer: string, ctx: WalkContext): Schema {
  if (!Array.isArray(node.oneOf) || node.anyOf !== undefined) return node;
  const { oneOf, ...rest } = node;
  lost(ctx, 'oneOf', `${pointer}/oneOf`, 'sent as anyOf (exactly-one becomes at-least-one)');
  return { ...rest, anyOf: oneOf };
}

/** `const` as a one-value `enum`, for providers with `enum` but not `const` (nothing is lost). */
export function constAsEnum(node: Schema): Schema {
  if (!('const' in node) || node.enum !== undefined) return node;
  const { const: value, ...rest } = node;
  return { ...rest, enum: [value] };
}
