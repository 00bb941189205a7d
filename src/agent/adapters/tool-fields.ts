/**
 * What every `toProviderTool` adapter does with the tool's own fields: the name, the description
 * (falling back to the title), the input schema's root, and a warning for each field the provider
 * has no place for.
 */
import { toolId as toolIdOf, type Tool } from '../../model/index.js';
import { layerErrors } from '../../model/internal.js';
import { encodeToolName } from '../tool-names.js';
import { filterKeywords, inlineRefs, isSchema, lost, type KeywordRules, type Schema, type WalkContext } from './schema-walk.js';
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

/**
 * A root that is one object, as OpenAI (with and without strict mode) and Anthropic require:
 * `type: 'object'` when missing (or a list of types with `object`: arguments are always an
 * object, so nothing is lost); `anyOf` / `oneOf` / `allOf` at the root merged into its properties
 * (the alternatives' properties, required only where every alternative requires it), with a
 * warning.
 */
export function objectRoot(schema: Schema, ctx: WalkContext, pointer: string): Schema {
  let root: Schema = schema.type === 'object' ? schema : { ...schema, type: 'object' };
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const members = root[keyword];
    if (!Array.isArray(members)) continue;
    const { [keyword]: _members, ...rest } = root;
    const properties: Schema = { ...(isSchema(rest.properties) ? rest.properties : {}) };
    let required = new Set<string>(Array.isArray(rest.required) ? (rest.required as string[]) : []);
    let shared: Set<string> | undefined;
    for (const member of members) {
      if (!isSchema(member)) continue;
      if (isSchema(member.properties)) Object.assign(properties, member.properties);
      const own = new Set<string>(Array.isArray(member.required) ? (member.required as string[]) : []);
      if (keyword === 'allOf') required = new Set([...required, ...own]);
      else shared = shared === undefined ? own : new Set([...shared].filter((name) => own.has(name)));
    }
    if (shared !== undefined) required = new Set([...required, ...shared]);
    root = { ...rest, properties, ...(required.size > 0 ? { required: [...required] } : {}) };
    lost(ctx, keyword, `${pointer}/${keyword}`, 'the root must be one object; its alternatives were merged into its properties');
  }
  return root;
}
