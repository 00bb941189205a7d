/**
 * OpenAI: Chat Completions (`{ type: 'function', function: { name, description, parameters, strict } }`)
 * and Responses (`{ type: 'function', name, description, parameters, strict, defer_loading, output_schema }`).
 *
 * Facts, from the types of `openai` 6.49 (`resources/chat/completions`, `resources/shared`
 * `FunctionDefinition`, `resources/responses` `FunctionTool`) and OpenAI's function-calling and
 * structured-outputs guides:
 * - names `^[a-zA-Z0-9_-]{1,64}$` (FunctionDefinition.name);
 * - without strict mode the parameters are JSON Schema with any keyword, but OpenAI's function
 *   validator still wants the root to be one object (`type: 'object'`, no `anyOf` / `oneOf` /
 *   `allOf` at the top) and every array to have `items` ("array schema missing items"): the root
 *   is made one object (as for Anthropic) and `items: {}` added, each with a warning; `$schema` is
 *   removed;
 * - strict mode takes a subset: `type`, `properties`, `required`, `additionalProperties: false`,
 *   `items`, `enum`, `const`, `anyOf`, `$ref` / `$defs` (recursion included), `description`,
 *   `title`, strings' `pattern` and `format`, numbers' `multipleOf`, `minimum`, `maximum`,
 *   `exclusiveMinimum`, `exclusiveMaximum`, arrays' `minItems` and `maxItems`; every object closed
 *   with every property required; every subschema typed (no `{ description }`-only node: "schema
 *   must have a 'type' key") and every array with `items` (one schema, not draft-07's tuple
 *   form); the root one object (no `anyOf` there); within the size limits of the structured-outputs
 *   guide (see `openai-limits.ts`: 5,000 properties, 10 levels of objects, 1,000 enum values...);
 * - only Responses has `defer_loading` (with a `tool_search` tool in the request) and
 *   `output_schema`; Chat has neither;
 * - `tools` also takes hosted tools (Responses: `web_search`, `file_search`, `mcp`...; both:
 *   `custom` free-form tools): `fromProviderTool` takes function tools only and refuses the rest.
 */
import type { Tool } from '../../model/index.js';
import { providerObject, toolFromParts } from './from-provider.js';
import { isSchema, itemsAdded, lost, oneOfAsAnyOf, type Schema, type WalkContext } from './schema-walk.js';
import { openAiLimitProblems } from './openai-limits.js';
import { makeStrict, STRICT_COMMON_KEYWORDS, strictLost, type StrictProblem } from './strict.js';
import { convertSchema, objectRoot, toolFacts, toolFieldsLost, type ToolFacts } from './tool-fields.js';
import type {
  FromProviderToolOptions,
  OpenAIChatTool,
  OpenAIResponsesTool,
  ProviderToolConversion,
  ToProviderToolOptions,
} from './types.js';

/** The keywords OpenAI's strict mode accepts. */
export const OPENAI_STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  ...STRICT_COMMON_KEYWORDS,
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'maxItems',
]);

/**
 * The parameters and whether they are strict: strict when asked and possible, else the plain form
 * (the root made one object, `items: {}` where an array has none).
 */
export function openAiParameters(facts: ToolFacts, options: ToProviderToolOptions): { parameters: Schema; strict: boolean } {
  const pointer = '/inputSchema';
  const inline = options.inlineRefs === true;
  if (options.strict === true) {
    const ctx: WalkContext = { ...facts.ctx, warnings: [] };
    const problems: StrictProblem[] = [];
    const root = objectRoot(facts.inputSchema, ctx, pointer, problems);
    const filtered = convertSchema(root, pointer, ctx, { keep: OPENAI_STRICT_KEYWORDS, adjust: oneOfAsAnyOf, inline });
    const made = makeStrict(filtered, facts.inputSchema, pointer, { refuseRecursion: false, requireItems: true });
    const schema = made.schema;
    problems.push(...made.problems, ...openAiLimitProblems(schema, pointer));
    if (problems.length === 0) {
      facts.ctx.warnings.push(...ctx.warnings);
      return { parameters: schema, strict: true };
    }
    strictLost(facts.ctx, problems);
  }
  const root = objectRoot(facts.inputSchema, facts.ctx, pointer);
  return { parameters: convertSchema(root, pointer, facts.ctx, { inline, adjust: itemsAdded }), strict: false };
}

/** A tool as an OpenAI Chat Completions function tool. */
export function toOpenAIChat(tool: Tool, options: ToProviderToolOptions): ProviderToolConversion<OpenAIChatTool> {
  const facts = toolFacts(tool, 'openai-chat', options);
  toolFieldsLost(tool, facts, []);
  const { parameters, strict } = openAiParameters(facts, options);
  if (options.deferLoading === true) lost(facts.ctx, 'defer_loading', '', 'Chat Completions has no deferred tools (the Responses API has)');
  const fn: OpenAIChatTool['function'] = { name: facts.name };
  if (facts.description !== undefined) fn.description = facts.description;
  fn.parameters = parameters;
  fn.strict = strict;
  return { tool: { type: 'function', function: fn }, warnings: facts.ctx.warnings };
}

/** A tool as an OpenAI Responses function tool. */
export function toOpenAIResponses(tool: Tool, options: ToProviderToolOptions): ProviderToolConversion<OpenAIResponsesTool> {
  const facts = toolFacts(tool, 'openai-responses', options);
  toolFieldsLost(tool, facts, ['outputSchema']);
  const { parameters, strict } = openAiParameters(facts, options);
  const out: OpenAIResponsesTool = { type: 'function', name: facts.name, parameters, strict };
  if (facts.description !== undefined) out.description = facts.description;
  if (options.deferLoading === true) out.defer_loading = true;
  if (tool.outputSchema !== undefined) {
    out.output_schema = convertSchema(tool.outputSchema, '/outputSchema', facts.ctx, { inline: options.inlineRefs === true });
  }
  return { tool: out, warnings: facts.ctx.warnings };
}

/**
 * An OpenAI Chat Completions function tool (or a bare function definition) as a `Tool`.
 *
 * @throws `INVALID_ARGUMENT` for a tool of another type (`custom`).
 */
export function fromOpenAIChat(value: unknown, options: FromProviderToolOptions): ProviderToolConversion<Tool> {
  const source = providerObject(value, 'openai-chat', ['function']);
  const fn = source.type === 'function' && isSchema(source.function) ? source.function : source;
  return toolFromParts('openai-chat', fn, { input: fn.parameters }, ['name', 'description', 'parameters', 'strict', 'type'], options);
}

/**
 * An OpenAI Responses function tool as a `Tool`.
 *
 * @throws `INVALID_ARGUMENT` for a hosted tool (`web_search`, `file_search`, `mcp`, `custom`...).
 */
export function fromOpenAIResponses(value: unknown, options: FromProviderToolOptions): ProviderToolConversion<Tool> {
  const source = providerObject(value, 'openai-responses', ['function']);
  return toolFromParts(
    'openai-responses',
    source,
    { input: source.parameters, output: source.output_schema },
    ['name', 'description', 'parameters', 'output_schema', 'strict', 'type'],
    options,
  );
}
