/**
 * `toProviderTool` / `fromProviderTool`: one tool in and out of a provider's format, every feature
 * lost named with its JSON pointer. The adapters live in `adapters/`, one file per provider.
 */
import type { Tool } from '../model/index.js';
import { layerErrors } from '../model/internal.js';
import { fromAnthropic, toAnthropic } from './adapters/anthropic.js';
import { checkProviderTool } from './adapters/from-provider.js';
import { fromGemini, toGemini } from './adapters/gemini.js';
import { fromMcp, toMcp } from './adapters/mcp.js';
import { compileToolSchemas } from './adapters/schema-compile.js';
import { fromOpenAIChat, fromOpenAIResponses, toOpenAIChat, toOpenAIResponses } from './adapters/openai.js';
import {
  PROVIDER_FORMATS,
  type FromProviderToolOptions,
  type ProviderFormat,
  type ProviderToolConversion,
  type ToProviderToolOptions,
} from './adapters/types.js';

const errors = layerErrors('agent');

const TO: Record<ProviderFormat, (tool: Tool, options: ToProviderToolOptions) => ProviderToolConversion> = {
  'openai-chat': toOpenAIChat,
  'openai-responses': toOpenAIResponses,
  anthropic: toAnthropic,
  gemini: toGemini,
  mcp: toMcp,
};

const FROM: Record<ProviderFormat, (value: unknown, options: FromProviderToolOptions) => ProviderToolConversion<Tool>> = {
  'openai-chat': fromOpenAIChat,
  'openai-responses': fromOpenAIResponses,
  anthropic: fromAnthropic,
  gemini: fromGemini,
  mcp: fromMcp,
};

/** Whether `format` is one of {@link PROVIDER_FORMATS}. */
export function isProviderFormat(format: unknown): format is ProviderFormat {
  return typeof format === 'string' && (PROVIDER_FORMATS as readonly string[]).includes(format);
}

/** What is wrong with a `format` that is none of {@link PROVIDER_FORMATS}. */
export function formatProblem(format: unknown): string {
  return `must be one of ${PROVIDER_FORMATS.join(', ')} (got ${JSON.stringify(format)})`;
}

/** `INVALID_ARGUMENT` (the argument of a call) unless `format` is one of {@link PROVIDER_FORMATS}. */
function checkFormat(format: unknown): ProviderFormat {
  if (!isProviderFormat(format)) throw errors.invalidArgument('format', formatProblem(format));
  return format;
}

function checkOptions(options: unknown): ToProviderToolOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') throw errors.invalidArgument('options', 'must be an object');
  const o = options as ToProviderToolOptions;
  for (const key of ['strict', 'deferLoading', 'inlineRefs'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'boolean') throw errors.invalidArgument(`option ${key}`, 'must be a boolean');
  }
  if (o.geminiSchema !== undefined && o.geminiSchema !== 'json-schema' && o.geminiSchema !== 'openapi') {
    throw errors.invalidArgument('option geminiSchema', "must be 'json-schema' or 'openapi'");
  }
  return o;
}

function checkFromOptions(options: unknown): FromProviderToolOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') throw errors.invalidArgument('options', 'must be an object');
  const o = options as FromProviderToolOptions;
  if (o.decodeName !== undefined && typeof o.decodeName !== 'boolean')
    throw errors.invalidArgument('option decodeName', 'must be a boolean');
  return o;
}

/**
 * A tool in a provider's format, ready to put in that provider's request, with a warning for every
 * feature the provider cannot take (see docs/agents.md for the matrix):
 *
 * - `openai-chat`: `{ type: 'function', function: { name, description, parameters, strict } }`;
 * - `openai-responses`: `{ type: 'function', name, description, parameters, strict, defer_loading?, output_schema? }`;
 * - `anthropic`: `{ name, description, input_schema, strict?, defer_loading? }`;
 * - `gemini`: `{ name, description, parametersJsonSchema, responseJsonSchema? }` (or `parameters` / `response` with `geminiSchema: 'openapi'`);
 * - `mcp`: an MCP `Tool` (`tools/list`).
 *
 * The name is `options.name` (checked against the format's name rule), else
 * `encodeToolName(toolId(tool))`. `$schema` is removed (MCP keeps it); `$ref` / `$defs` are
 * inlined where the format has no references (Gemini's OpenAPI schema, or `inlineRefs: true`).
 * The root is made what each format requires (one object for OpenAI and Anthropic, `type:
 * 'object'` for MCP); OpenAI gets `items: {}` on arrays without; property keys Anthropic or Gemini
 * refuse (`filter[bundleId]`, `$top`, over 64 characters) are renamed — each such change with a
 * warning; `restorePropertyKeys` (and `agentTools`' `call`) put the keys back in a call's
 * arguments. With `strict: true` OpenAI and Anthropic get their strict form, or the plain one with
 * a `strict` warning naming why the schema cannot be strict.
 *
 * @throws `INVALID_ARGUMENT` for an unknown format, bad options (a `name` the format refuses
 * included) or a tool without a name; `INVALID_SCHEMA` for a recursive schema that has to be
 * inlined.
 *
 * @example
 * ```ts
 * const { tool, warnings } = toProviderTool(myTool, 'openai-responses', { strict: true });
 * for (const w of warnings) console.warn(w.message);
 * ```
 */
export function toProviderTool(tool: Tool, format: ProviderFormat, options?: ToProviderToolOptions): ProviderToolConversion {
  return TO[checkFormat(format)](tool, checkOptions(options));
}

/**
 * A provider's tool definition as a toolexec `Tool`: the name kept as it is (`get-weather` stays
 * `get-weather`; a Gemini name with `:` is read as a tool ID), or with `decodeName: true` decoded
 * when `encodeToolName` made it (`fs--read_text_file` → namespace `fs`, name `read_text_file`);
 * the argument schema as `inputSchema` (Gemini's OpenAPI `parameters` turned into JSON Schema);
 * the result schema where the format has one; a warning for every provider field a `Tool` has no
 * place for (`cache_control`, `defer_loading`...).
 *
 * Only function tools convert: OpenAI `type: 'function'` tools (or a bare function definition),
 * Anthropic custom tools (no `type`, or `'custom'`), Gemini function declarations, MCP tools. A
 * tool the provider runs itself (Anthropic's `web_search_20250305`, OpenAI's `web_search`...) or
 * a free-form `custom` OpenAI tool has no JSON Schema to read, and is refused naming its type.
 *
 * The schemas are compiled by the facade's validator at once, so a tool whose schema the facade
 * cannot use is refused here rather than on its first call.
 *
 * @throws `INVALID_ARGUMENT` for an unknown format or bad options, an object that is no function
 * tool of that format (naming its `type`), a schema field that holds no JSON object, or a tool
 * the model refuses once its schemas compile (a name with a space; a valid schema that describes
 * no object, `type: 'string'`); `INVALID_SCHEMA` for a schema that does not compile, wherever it
 * is broken — at its root (`type: 'strng'`) or further down (`properties: { a: { description:
 * null } }`, a `$ref` to nothing, a Gemini `maxLength: 'five'`) — naming its pointer in
 * `providerTool` (`details.pointer`: `/input_schema`) and the reason, which names the pointer
 * inside the schema (`details.reason`: `schema is invalid: /type must be equal to one of the
 * allowed values, …`).
 *
 * @example
 * ```ts
 * fromProviderTool({ type: 'function', function: { name: 'get-weather', parameters } }, 'openai-chat').tool.name; // 'get-weather'
 * fromProviderTool(toProviderTool(tool, 'anthropic').tool, 'anthropic', { decodeName: true }).tool; // tool's ID again
 * ```
 */
export function fromProviderTool(
  providerTool: unknown,
  format: ProviderFormat,
  options?: FromProviderToolOptions,
): ProviderToolConversion<Tool> {
  const converted = FROM[checkFormat(format)](providerTool, checkFromOptions(options));
  // refused now rather than on the tool's first call; before the model's checks, so that a schema
  // broken at its root (`type: 'strng'`) is INVALID_SCHEMA like one broken further down
  compileToolSchemas(format, providerTool, converted.tool);
  checkProviderTool(converted.tool);
  return converted;
}
