/**
 * What every `toProviderTool` adapter does with the tool's own fields: the name, the description
 * (falling back to the title), the input schema's root, and a warning for each field the provider
 * has no place for.
 */
import { toolId as toolIdOf, type Tool } from '../../model/index.js';
import { layerErrors } from '../../model/internal.js';
import { encodeToolName } from '../tool-names.js';
import {
  filterKeywords,
  inlineRefs,
  isSchema,
  lost,
  resolveLocalRef,
  type KeywordRules,
  type Schema,
  type WalkContext,
} from './schema-walk.js';
import type { StrictProblem } from './strict.js';
import type { ProviderFormat, ToProviderToolOptions } from './types.js';

const errors = layerErrors('agent');

/**
 * The tool names each format takes (see the adapters' notes): OpenAI and Anthropic
 * `^[a-zA-Z0-9_-]{1,64}$`; Gemini a letter or `_` first, then up to 127 of `[a-zA-Z0-9_.:-]`;
 * MCP `[A-Za-z0-9_.-]`, up to 128 (SEP-986).
 */
export const TOOL_NAME_RULES: Readonly<Record<ProviderFormat, RegExp>> = Object.freeze({
  'openai-chat': /^[a-zA-Z0-9_-]{1,64}$/u,
  'openai-responses': /^[a-zA-Z0-9_-]{1,64}$/u,
  anthropic: /^[a-zA-Z0-9_-]{1,64}$/u,
  gemini: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/u,
  mcp: /^[A-Za-z0-9_.-]{1,128}$/u,
});

/** The parts of a tool every adapter starts from. */
export interface ToolFacts {
  /** The tool's ID. */
  id: string;
  /** The provider name (`options.name`, else the encoded ID). */
  name: string;
  /** The description, else the title (`title`, `annotations.title`); undefined when neither. */
  description: string | undefined;
  /** The input schema (a copy is never needed: every step returns new objects). */
  inputSchema: Schema;
  /** The walk context (its `warnings` are the conversion's). */
  ctx: WalkContext;
}

/** Checks the tool and the options, and gathers what every adapter needs. */
export function toolFacts(tool: Tool, format: ProviderFormat, options: ToProviderToolOptions): ToolFacts {
  if (!isSchema(tool) || typeof tool.name !== 'string' || tool.name === '') {
    throw errors.invalidArgument('tool', 'must be a tool with a name');
  }
  const id = toolIdOf(tool);
  if (options.name !== undefined && (typeof options.name !== 'string' || options.name === '')) {
    throw errors.invalidArgument('option name', 'must be a non-empty string');
  }
  if (options.name !== undefined && !TOOL_NAME_RULES[format].test(options.name)) {
    throw errors.invalidArgument(
      'option name',
      `${JSON.stringify(options.name)} is not a tool name ${format} takes (${TOOL_NAME_RULES[format].source}); encodeToolName makes one from any tool ID`,
      { details: { name: options.name, format } },
    );
  }
  const name = options.name ?? encodeToolName(id);
  const title = tool.title ?? tool.annotations?.title;
  const description = tool.description !== undefined && tool.description !== '' ? tool.description : title;
  const inputSchema = isSchema(tool.inputSchema) ? (tool.inputSchema as Schema) : { type: 'object' };
  return { id, name, description, inputSchema, ctx: { format, toolId: id, warnings: [] } };
}

/** Tool fields a provider has no place for; `title` only when the description did not stand in for it. */
export function toolFieldsLost(tool: Tool, facts: ToolFacts, kept: readonly string[]): void {
  const candidates: [string, unknown][] = [
    ['title', tool.title],
    ['outputSchema', tool.outputSchema],
    ['annotations', tool.annotations],
    ['icons', (tool as { icons?: unknown }).icons],
    ['execution', (tool as { execution?: unknown }).execution],
    ['_meta', tool._meta],
  ];
  for (const [field, value] of candidates) {
    if (value === undefined || kept.includes(field)) continue;
    if (field === 'title' && (tool.description === undefined || tool.description === '')) continue;
    lost(facts.ctx, field, `/${field}`);
  }
}

/** The input schema as a provider without references or with a keyword subset takes it. */
export function convertSchema(schema: Schema, pointer: string, ctx: WalkContext, rules: KeywordRules & { inline: boolean }): Schema {
  const inlined = rules.inline ? inlineRefs(schema, ctx, pointer) : schema;
  return filterKeywords(inlined, rules, ctx, pointer);
}

/** Whether a schema's `type` allows objects (no type does). */
function allowsObject(type: unknown): boolean {
  return type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object'));
}

/** The local references a root may be: an entry of `$defs` / `definitions`. */
const DEFINITION_REF = /^#\/(?:\$defs|definitions)\/[^/]+$/u;

/**
 * A root that is a reference (`{ $ref: '#/$defs/Query', $defs }`, as typescript-json-schema and
 * some MCP servers write it) as the object it refers to: the entry inlined at the root, the root's
 * own keywords winning, `$defs` kept for the references inside. A reference to anything else
 * (outside the schema, to no object) is dropped with a warning, and is a problem for strict mode.
 */
function rootRefInlined(schema: Schema, ctx: WalkContext, pointer: string, problems: StrictProblem[] | undefined): Schema {
  let root = schema;
  const seen = new Set<string>();
  while (typeof root.$ref === 'string') {
    const ref = root.$ref;
    const { $ref: _ref, ...siblings } = root;
    const target = DEFINITION_REF.test(ref) && !seen.has(ref) ? resolveLocalRef(schema, ref) : undefined;
    if (!isSchema(target) || !allowsObject(target.type)) {
      const reason = `the root is a reference (${JSON.stringify(ref)}) to no object schema of the schema's $defs`;
      problems?.push({ pointer: `${pointer}/$ref`, reason });
      lost(ctx, '$ref', `${pointer}/$ref`, `${reason}; dropped`);
      return siblings;
    }
    seen.add(ref);
    root = { ...target, ...siblings };
  }
  return root;
}

/** The root keywords whose alternatives `objectRoot` merges. */
const ROOT_ALTERNATIVES = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * One alternative of a root union as an object schema: a local reference followed, its own
 * alternatives merged; undefined (a problem for strict mode) when it cannot be read.
 */
function alternative(
  member: unknown,
  document: Schema,
  ctx: WalkContext,
  at: string,
  problems: StrictProblem[] | undefined,
): Schema | 'not an object' | undefined {
  let branch = member;
  const seen = new Set<string>();
  while (isSchema(branch) && typeof branch.$ref === 'string' && !seen.has(branch.$ref)) {
    seen.add(branch.$ref);
    const { $ref: ref, ...siblings } = branch;
    const target = resolveLocalRef(document, ref);
    branch = isSchema(target) ? { ...target, ...siblings } : undefined;
  }
  if (!isSchema(branch) || typeof branch.$ref === 'string') {
    problems?.push({ pointer: at, reason: 'an alternative of the root union that is not a schema it can read' });
    return undefined;
  }
  // arguments are an object: an alternative that describes no object never applies
  if (!allowsObject(branch.type)) return 'not an object';
  return ROOT_ALTERNATIVES.some((keyword) => Array.isArray(branch[keyword]))
    ? mergeAlternatives(branch, document, ctx, at, problems)
    : branch;
}

/** Distinct schemas (by their JSON text), in order. */
function distinct(schemas: readonly unknown[]): unknown[] {
  const seen = new Map<string, unknown>();
  for (const schema of schemas) {
    const key = JSON.stringify(schema);
    if (!seen.has(key)) seen.set(key, schema);
  }
  return [...seen.values()];
}

/** Keywords a schema of a fixed set of values (a `const` or an `enum`) may have beside them. */
const VALUE_SET_KEYWORDS: ReadonlySet<string> = new Set(['type', 'const', 'enum', 'description', 'title']);

/** The values of a schema that only lists values (`const`, `enum`); undefined for any other. */
function valueSet(schema: unknown): unknown[] | undefined {
  if (!isSchema(schema) || !Object.keys(schema).every((key) => VALUE_SET_KEYWORDS.has(key))) return undefined;
  if ('const' in schema) return Array.isArray(schema.enum) ? undefined : [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

/**
 * The schema of a property several alternatives declare: the one schema when they agree; for a
 * union (`anyOf` / `oneOf`), the values of each `const` / `enum` as one `enum` (a discriminator's
 * `circle` and `square`), else `anyOf` of the distinct schemas; for `allOf`, `allOf` of them.
 */
function mergeProperty(schemas: readonly unknown[], keyword: (typeof ROOT_ALTERNATIVES)[number]): unknown {
  const different = distinct(schemas);
  if (different.length === 1) return different[0];
  if (keyword === 'allOf') return { allOf: different };
  const sets = different.map(valueSet);
  if (sets.every((set) => set !== undefined)) {
    const types = distinct(different.map((schema) => (schema as Schema).type));
    const descriptions = distinct(different.map((schema) => (schema as Schema).description));
    return {
      ...(types.length === 1 && types[0] !== undefined ? { type: types[0] } : {}),
      enum: distinct(sets.flat()),
      ...(descriptions.length === 1 && descriptions[0] !== undefined ? { description: descriptions[0] } : {}),
    };
  }
  return { anyOf: different };
}

/** A node's `anyOf` / `oneOf` / `allOf` merged into its own properties (see {@link objectRoot}). */
function mergeAlternatives(
  node: Schema,
  document: Schema,
  ctx: WalkContext,
  pointer: string,
  problems: StrictProblem[] | undefined,
): Schema {
  let root = node;
  for (const keyword of ROOT_ALTERNATIVES) {
    const members = root[keyword];
    if (!Array.isArray(members)) continue;
    const { [keyword]: _members, ...rest } = root;
    const branches: Schema[] = [];
    let unreadable = false;
    members.forEach((member, i) => {
      const branch = alternative(member, document, ctx, `${pointer}/${keyword}/${i}`, problems);
      if (branch === undefined) unreadable = true;
      else if (branch !== 'not an object') branches.push(branch);
    });
    const declared = new Map<string, unknown[]>();
    for (const branch of branches) {
      if (!isSchema(branch.properties)) continue;
      for (const [name, schema] of Object.entries(branch.properties)) declared.set(name, [...(declared.get(name) ?? []), schema]);
    }
    const properties: Schema = { ...(isSchema(rest.properties) ? rest.properties : {}) };
    for (const [name, schemas] of declared) {
      const merged = mergeProperty(schemas, keyword);
      // the root's own schema of the property holds beside the alternatives'
      properties[name] = name in properties ? mergeProperty([properties[name], merged], 'allOf') : merged;
    }
    const requiredOf = (schema: Schema): string[] => (Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const required = new Set(requiredOf(rest));
    if (keyword === 'allOf') for (const branch of branches) for (const name of requiredOf(branch)) required.add(name);
    else if (!unreadable && branches.length > 0) {
      for (const name of requiredOf(branches[0] as Schema))
        if (branches.every((branch) => requiredOf(branch).includes(name))) required.add(name);
    }
    root = { ...rest, properties, ...(required.size > 0 ? { required: [...required] } : {}) };
    // closed alternatives make a closed object: every property they allow is listed
    if (
      keyword !== 'allOf' &&
      rest.additionalProperties === undefined &&
      branches.length > 0 &&
      branches.every((b) => b.additionalProperties === false)
    ) {
      root.additionalProperties = false;
    }
    lost(ctx, keyword, `${pointer}/${keyword}`, 'the root must be one object; its alternatives were merged into its properties');
  }
  return root;
}

/**
 * A root that is one object, as OpenAI (with and without strict mode) and Anthropic require:
 * - a root reference to an entry of `$defs` / `definitions` inlined (`$defs` kept for the
 *   references inside); one to anything else dropped, with a warning;
 * - `type: 'object'` when missing (or a list of types with `object`: arguments are always an
 *   object, so nothing is lost);
 * - `anyOf` / `oneOf` / `allOf` at the root merged into its properties, with a warning: a property
 *   several alternatives declare gets the union of their schemas (`const`s and `enum`s as one
 *   `enum`, differing schemas as `anyOf`; for `allOf`, `allOf` of them), required only where every
 *   alternative requires it (every property any `allOf` member requires), closed when every
 *   alternative is; alternatives that are references are followed, those that describe no object
 *   left out (arguments are an object).
 *
 * @param problems - For strict mode: what keeps the merge from being faithful (a reference that
 * cannot be followed) is added here, so the tool is sent without strict mode.
 */
export function objectRoot(schema: Schema, ctx: WalkContext, pointer: string, problems?: StrictProblem[]): Schema {
  const inlined = rootRefInlined(schema, ctx, pointer, problems);
  const typed: Schema = inlined.type === 'object' ? inlined : { ...inlined, type: 'object' };
  return mergeAlternatives(typed, schema, ctx, pointer, problems);
}
