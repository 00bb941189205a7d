/**
 * `toProviderTool` / `fromProviderTool`: one tool in and out of a provider's format, every feature
 * lost named with its JSON pointer. The adapters live in `adapters/`, one file per provider.
 */
import type { Tool } from '../model/index.js';
import { layerErrors } from '../model/internal.js';
import { fromAnthropic, toAnthropic } from './adapters/anthropic.js';
import { fromGemini, toGemini } from './adapters/gemini.js';
import { fromMcp, toMcp } from './adapters/mcp.js';
import { fromOpenAIChat, fromOpenAIResponses, toOpenAIChat, toOpenAIResponses } from './adapters/openai.js';
import { PROVIDER_FORMATS, type ProviderFormat, type ProviderToolConversion, type ToProviderToolOptions } from './adapters/types.js';

const errors = layerErrors('agent');

const TO: Record<ProviderFormat, (tool: Tool, options: ToProviderToolOptions) => ProviderToolConversion> = {
  'openai-chat': toOpenAIChat,
  'openai-responses': toOpenAIResponses,
  anthropic: toAnthropic,
  gemini: toGemini,
  mcp: toMcp,
};

const FROM: Record<ProviderFormat, (value: unknown) => ProviderToolConversion<Tool>> = {
  'openai-chat': fromOpenAIChat,
  'openai-responses': fromOpenAIResponses,
  anthropic: fromAnthropic,
  gemini: fromGemini,
  mcp: fromMcp,
};

/** `INVALID_ARGUMENT` unless `format` is one of {@link PROVIDER_FORMATS}. */
export function checkFormat(format: unknown): ProviderFormat {
  if (typeof format !== 'string' || !(PROVIDER_FORMATS as readonly string[]).includes(format)) {
    throw errors.invalidArgument('format', `must be one of ${PROVIDER_FORMATS.join(', ')} (got ${JSON.stringify(format)})`);
  }
  return format as ProviderFormat;
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
 * The name is `options.name`, else `encodeToolName(toolId(tool))`. `$schema` is removed (MCP keeps
 * it); `$ref` / `$defs` are inlined where the format has no references (Gemini's OpenAPI schema,
 * or `inlineRefs: true`). With `strict: true` OpenAI and Anthropic get their strict form, or the
 * plain one with a `strict` warning naming why the schema cannot be strict.
 *
 * @throws `INVALID_ARGUMENT` for an unknown format, bad options or a tool without a name;
 * `INVALID_SCHEMA` for a recursive schema that has to be inlined.
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
 * A provider's tool definition as a toolexec `Tool`: the name decoded when `encodeToolName` made it
 * (`fs--read_text_file` → namespace `fs`, name `read_text_file`), else kept; the argument schema as
 * `inputSchema` (Gemini's OpenAPI `parameters` turned into JSON Schema); the result schema where
 * the format has one; a warning for every provider field a `Tool` has no place for
 * (`cache_control`, `defer_loading`...).
 *
 * @throws `INVALID_ARGUMENT` for an unknown format, or an object that is no tool of that format.
 */
export function fromProviderTool(providerTool: unknown, format: ProviderFormat): ProviderToolConversion<Tool> {
  return FROM[checkFormat(format)](providerTool);
}
