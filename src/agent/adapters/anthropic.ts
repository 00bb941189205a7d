/**
 * Anthropic Messages: `{ name, description, input_schema, strict?, defer_loading? }`.
 *
 * Facts, from the types of `@anthropic-ai/sdk` 1.13 (`resources/messages` `Tool`) and Anthropic's
 * tool-use and structured-outputs guides:
 * - names `^[a-zA-Z0-9_-]{1,64}$`; property keys `^[a-zA-Z0-9_.-]{1,64}$` (others are renamed,
 *   see `property-keys.ts`);
 * - `input_schema` is JSON Schema whose root is `type: 'object'` (no `anyOf` / `oneOf` / `allOf`
 *   at the root); without strict mode any keyword may appear (only `$schema` is removed);
 * - strict tool use (`strict: true`) takes a subset: `type`, `properties`, `required`,
 *   `additionalProperties: false`, `items`, `enum`, `const`, `anyOf`, `allOf`, `$ref` / `$defs`
 *   (not recursive), `default`, `description`, `title`, string `format` and `pattern`, and
 *   `minItems` of 0 or 1; no numeric bounds, no string lengths; every subschema typed (`type`,
 *   or `anyOf` / `allOf` / `enum` / `const` / `$ref`: the SDK's `transformJSONSchema` throws "JSON
 *   schema must have a type defined" otherwise), arrays without `items` allowed;
 * - `defer_loading: true` keeps a tool out of the prompt until a tool-search tool
 *   (`tool_search_tool_bm25` / `_regex`) returns a reference to it;
 * - no output schema, no annotations;
 * - `tools` also takes server tools (`{ type: 'web_search_20250305', name: 'web_search' }`, tool
 *   search, code execution...): Anthropic runs those itself, so `fromProviderTool` refuses them.
 */
import type { Tool } from '../../model/index.js';
import { providerObject, toolFromParts } from './from-provider.js';
import { renamePropertyKeys } from './property-keys.js';
import { lost, oneOfAsAnyOf, type Schema, type WalkContext } from './schema-walk.js';
import { makeStrict, STRICT_COMMON_KEYWORDS, strictLost, type StrictProblem } from './strict.js';
import { convertSchema, objectRoot, toolFacts, toolFieldsLost } from './tool-fields.js';
import type { AnthropicTool, FromProviderToolOptions, ProviderToolConversion, ToProviderToolOptions } from './types.js';

/** The keywords Anthropic's strict tool use accepts. */
export const ANTHROPIC_STRICT_KEYWORDS: ReadonlySet<string> = new Set([...STRICT_COMMON_KEYWORDS, 'allOf', 'default']);

/** Strict mode's `oneOf` as `anyOf`, and `minItems` only as 0 or 1. */
function strictAdjust(node: Schema, pointer: string, ctx: WalkContext): Schema {
  const out = oneOfAsAnyOf(node, pointer, ctx);
  if (typeof out.minItems === 'number' && out.minItems > 1) {
    const { minItems: _minItems, ...rest } = out;
    lost(ctx, 'minItems', `${pointer}/minItems`, 'strict mode takes minItems 0 or 1 only');
    return rest;
  }
  return out;
}

/** A tool as an Anthropic custom tool. */
export function toAnthropic(tool: Tool, options: ToProviderToolOptions): ProviderToolConversion<AnthropicTool> {
  const facts = toolFacts(tool, 'anthropic', options);
  toolFieldsLost(tool, facts, []);
  const pointer = '/inputSchema';
  const inline = options.inlineRefs === true;
  let schema: Schema | undefined;
  let strict = false;
  if (options.strict === true) {
    const ctx: WalkContext = { ...facts.ctx, warnings: [] };
    const problems: StrictProblem[] = [];
    const root = objectRoot(facts.inputSchema, ctx, pointer, problems);
    const filtered = convertSchema(root, pointer, ctx, { keep: ANTHROPIC_STRICT_KEYWORDS, adjust: strictAdjust, inline });
    const made = makeStrict(filtered, facts.inputSchema, pointer, { refuseRecursion: true, requireItems: false });
    problems.push(...made.problems);
    if (problems.length === 0) {
      facts.ctx.warnings.push(...ctx.warnings);
      schema = made.schema;
      strict = true;
    } else strictLost(facts.ctx, problems);
  }
  schema ??= convertSchema(objectRoot(facts.inputSchema, facts.ctx, pointer), pointer, facts.ctx, { inline });
  schema = renamePropertyKeys(schema, facts.inputSchema, facts.ctx, pointer);
  const out: AnthropicTool = { name: facts.name, input_schema: schema as AnthropicTool['input_schema'] };
  if (facts.description !== undefined) out.description = facts.description;
  if (strict) out.strict = true;
  if (options.deferLoading === true) out.defer_loading = true;
  return { tool: out, warnings: facts.ctx.warnings };
}

/**
 * An Anthropic custom tool (`type` absent or `'custom'`) as a `Tool`.
 *
 * @throws `INVALID_ARGUMENT` for a server tool (any other `type`: Anthropic runs it, there is no
 * schema to read).
 */
export function fromAnthropic(value: unknown, options: FromProviderToolOptions): ProviderToolConversion<Tool> {
  const source = providerObject(value, 'anthropic', ['custom']);
  return toolFromParts(
    'anthropic',
    source,
    { input: source.input_schema },
    ['name', 'description', 'input_schema', 'strict', 'type'],
    options,
  );
}
