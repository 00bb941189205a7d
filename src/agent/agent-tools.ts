/**
 * `agentTools`: one call that hands a model the tools in its provider's format, maps the names it
 * calls back to tool IDs, and runs its calls, answering in the provider's tool-result form.
 */
import type { McpTool } from '../model/index.js';
import { ToolexecError } from '../model/index.js';
import { editDistance, layerErrors, textOf, typoBudget } from '../model/internal.js';
import type { RunOptions } from '../run/index.js';
import type { Exec } from '../exec/index.js';
import { providerKeysInText, restorePropertyKeys } from './adapters/property-keys.js';
import { dropStrictNulls } from './adapters/strict-nulls.js';
import type {
  AdapterWarning,
  AnthropicTool,
  GeminiFunctionDeclaration,
  OpenAIChatTool,
  OpenAIResponsesTool,
  ProviderFormat,
} from './adapters/types.js';
import { formatProblem, isProviderFormat, toProviderTool } from './provider-tool.js';
import { optionsError } from './option-errors.js';
import { selectTools, type SelectToolsOptions } from './selection.js';
import type { SelectedTool } from './selected-tool.js';
import { toolsByName } from './tool-names.js';
import { errorResult } from './error-results.js';
import { readAgentCallOptions } from './call-options.js';
import { errorText, successResult, type ProviderToolResults } from './tool-results.js';
import { readMaxResultChars, type ResultLimitOptions } from './result-limit.js';

const errors = layerErrors('agent');

/** OpenAI Responses' hosted tool search, sent along with deferred tools. */
export interface OpenAIToolSearchTool {
  /** Always `tool_search`. */
  type: 'tool_search';
}

/** Anthropic's BM25 tool search, sent along with deferred tools. */
export interface AnthropicToolSearchTool {
  /** The tool-search tool's version. */
  type: 'tool_search_tool_bm25_20251119';
  /** Its fixed name. */
  name: 'tool_search_tool_bm25';
}

/** What `tools` holds for each format. */
export interface ProviderToolDefinitions {
  /** Function tools. */
  'openai-chat': OpenAIChatTool;
  /** Function tools, plus `tool_search` with `deferLoading`. */
  'openai-responses': OpenAIResponsesTool | OpenAIToolSearchTool;
  /** Custom tools, plus the BM25 tool search with `deferLoading`. */
  anthropic: AnthropicTool | AnthropicToolSearchTool;
  /** Function declarations (put them in `tools: [{ functionDeclarations }]`). */
  gemini: GeminiFunctionDeclaration;
  /** MCP tools. */
  mcp: McpTool;
}

/**
 * Options of {@link agentTools}: which tools ({@link SelectToolsOptions}), in which format, and how
 * much of a result `call` answers with ({@link ResultLimitOptions}).
 */
export interface AgentToolsOptions<F extends ProviderFormat = ProviderFormat> extends SelectToolsOptions, ResultLimitOptions {
  /** The provider format of `tools` and of `call`'s results. */
  format: F;
  /** OpenAI / Anthropic strict mode for every tool whose schema allows it (see `toProviderTool`). @defaultValue false */
  strict?: boolean;
  /**
   * Send the tools as deferred (`defer_loading: true`), with the provider's tool-search tool
   * (OpenAI Responses: `{ type: 'tool_search' }`; Anthropic: `tool_search_tool_bm25`), so a large
   * catalogue costs no prompt until the model searches it. Other formats: a warning. Ignored with
   * `meta: true`. @defaultValue false
   */
  deferLoading?: boolean;
  /**
   * Gemini only: `'json-schema'` sends each tool's `parametersJsonSchema` / `responseJsonSchema`
   * (JSON Schema, recommended); `'openapi'` sends `parameters` / `response`, the OpenAPI 3.0 subset
   * of the SDK's `Schema` (see `toProviderTool`). Ignored by the other formats. @defaultValue 'json-schema'
   */
  geminiSchema?: 'json-schema' | 'openapi';
}

/** Options of one {@link AgentTools.call}. */
export interface AgentCallOptions extends RunOptions {
  /**
   * The ID of the model's tool call (OpenAI `tool_call.id` / `call_id`, Anthropic `tool_use.id`,
   * Gemini `functionCall.id`), written into the result so it can go straight back into the
   * conversation; anything but a string rejects the call (`INVALID_ARGUMENT`). @defaultValue `''` (Gemini: none)
   */
  callId?: string;
}

/** A conversion warning of {@link agentTools}, with the tool it is about. */
export interface AgentToolWarning extends AdapterWarning {
  /** The tool's ID (`''` for a warning about the whole list, like deferred loading a format lacks). */
  toolId: string;
}

/** What {@link agentTools} returns. */
export interface AgentTools<F extends ProviderFormat = ProviderFormat> {
  /** The tools, ready to put in the provider's request. */
  tools: ProviderToolDefinitions[F][];
  /** The tool ID behind a name in `tools` (shortened names included); undefined for any other name. */
  toolId(name: string): string | undefined;
  /**
   * Runs the tool the model called. `args` as the provider sends them: a JSON string (OpenAI) or an
   * object (Anthropic, Gemini, MCP); either is accepted. Resolves to the provider's tool-result form
   * ({@link ProviderToolResults}): content blocks, images included. A failed call — unknown name,
   * arguments that are not JSON or do not fit the schema, a tool error, a timeout — resolves to the
   * provider's error form with a message the model can act on; it never rejects for the tool's
   * failure. It rejects only for what the app itself did: bad `options` (`INVALID_ARGUMENT` naming
   * the option: a `callId` that is not a string, `timeoutMs: -1`, a `signal` that is no
   * `AbortSignal`...), which the model could not fix, and the caller's own `signal` aborting the
   * call (`ABORTED`). Its text is cut at `maxResultChars`, ending with a note saying how much was cut.
   */
  call(name: string, args: unknown, options?: AgentCallOptions): Promise<ProviderToolResults[F]>;
  /** Every feature the conversion lost, per tool. */
  warnings: AgentToolWarning[];
}

interface Entry {
  selected: SelectedTool;
  name: string;
  strict: boolean;
}

function parseArgs(args: unknown): Record<string, unknown> {
  let value = args;
  if (typeof args === 'string') {
    if (args.trim() === '') return {};
    try {
      value = JSON.parse(args);
    } catch (err) {
      throw errors.invalidArgument('arguments', `are not valid JSON (${(err as Error).message}); send one JSON object`, { cause: err });
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw errors.invalidArgument('arguments', 'must be a JSON object');
  return value as Record<string, unknown>;
}

/** `TOOL_NOT_FOUND` for a name the model made up or misspelled: the closest names, else the first names given. */
function unknownName(name: string, names: readonly string[]): ToolexecError {
  // a made-up name is quoted cut at 200 characters: a 1 MB name must not come back as a 1 MB message
  const quotedName = textOf(name);
  const budget = typoBudget(name);
  const close = names.filter((candidate) => editDistance(name, candidate, budget + 1) <= budget);
  if (close.length > 0) {
    const quoted = close.map((candidate) => `"${candidate}"`).join(' or ');
    return errors('TOOL_NOT_FOUND', `there is no tool named "${quotedName}"; did you mean ${quoted}?`, {
      details: { name: quotedName, suggestions: close },
    });
  }
  const listed = names.length > 20 ? `${names.slice(0, 20).join(', ')}, …` : names.join(', ');
  return errors('TOOL_NOT_FOUND', `there is no tool named "${quotedName}"; call one of the tools you were given (${listed})`, {
    details: { name: quotedName },
  });
}

/** The options checked when the tools are made: `CONFIGURATION` for a bad one (option-errors.ts). */
function checkOptions(options: unknown): AgentToolsOptions {
  if (options === null || typeof options !== 'object') throw optionsError('must be an object with a format');
  const o = options as AgentToolsOptions;
  if (!isProviderFormat(o.format)) throw errors.configuration('format', formatProblem(o.format));
  for (const key of ['strict', 'deferLoading'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'boolean') throw errors.configuration(key, 'must be a boolean');
  }
  if (o.geminiSchema !== undefined && o.geminiSchema !== 'json-schema' && o.geminiSchema !== 'openapi') {
    throw errors.configuration('geminiSchema', `must be 'json-schema' or 'openapi', got ${JSON.stringify(o.geminiSchema)}`);
  }
  return o;
}

/** The provider's tool-search tool for deferred tools, or a warning when it has none. */
function toolSearchTool(format: ProviderFormat): OpenAIToolSearchTool | AnthropicToolSearchTool | undefined {
  if (format === 'openai-responses') return { type: 'tool_search' };
  if (format === 'anthropic') return { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' };
  return undefined;
}

/**
 * The tools of `exec` for a model of one provider: `tools` to send, `toolId` to map a name back,
 * `call` to run what the model asked for.
 *
 * @remarks
 * Tools are chosen as {@link selectTools} does (`ids`, `query`, `limit`; every tool without them;
 * the six meta-tools with `meta: true`), converted with `toProviderTool` (names by
 * `encodeToolName`, `strict` where the schema allows it, Gemini's `geminiSchema`) and, with `deferLoading`, marked deferred
 * beside the provider's tool search. `call` parses the arguments, puts back the property keys the
 * conversion renamed for the provider (`restorePropertyKeys`), removes the `null`s strict mode put
 * in for absent optional properties (`dropStrictNulls`), runs the tool through the facade
 * (validation, deadline, `signal`) and answers in the provider's result form, its text cut at
 * `maxResultChars` (100,000 characters by default) with a note telling the model what was cut.
 *
 * @throws `CONFIGURATION` for bad options (`maxResultChars` included); `INVALID_ARGUMENT` for two
 * tools with one name; `TOOL_NOT_FOUND` for an unknown ID in `ids`; `INVALID_SCHEMA` for a
 * recursive schema a format must inline.
 *
 * @example
 * ```ts
 * const agent = await agentTools(exec, { format: 'openai-chat', query: 'files', strict: true });
 * const completion = await openai.chat.completions.create({ model, messages, tools: agent.tools });
 * for (const call of completion.choices[0].message.tool_calls ?? []) {
 *   messages.push(await agent.call(call.function.name, call.function.arguments, { callId: call.id }));
 * }
 * ```
 */
export async function agentTools<F extends ProviderFormat>(exec: Exec, options: AgentToolsOptions<F>): Promise<AgentTools<F>> {
  const o = checkOptions(options);
  const maxChars = readMaxResultChars(o.maxResultChars);
  const format = o.format as F;
  const selected = await selectTools(exec, o);
  const deferLoading = o.deferLoading === true && o.meta !== true;
  const byName = new Map<string, Entry>();
  const tools: ProviderToolDefinitions[F][] = [];
  const warnings: AgentToolWarning[] = [];
  for (const [name, entry] of toolsByName(selected)) {
    const converted = toProviderTool(entry.tool, format, {
      name,
      strict: o.strict === true,
      deferLoading: deferLoading && toolSearchTool(format) !== undefined,
      ...(o.geminiSchema === undefined ? {} : { geminiSchema: o.geminiSchema }),
    });
    for (const warning of converted.warnings) warnings.push({ ...warning, toolId: entry.id });
    const strict =
      (converted.tool as { strict?: unknown; function?: { strict?: unknown } }).strict === true ||
      (converted.tool as { function?: { strict?: unknown } }).function?.strict === true;
    byName.set(name, { selected: entry, name, strict });
    tools.push(converted.tool as ProviderToolDefinitions[F]);
  }
  if (deferLoading) {
    const search = toolSearchTool(format);
    if (search === undefined) {
      warnings.push({
        format,
        feature: 'defer_loading',
        pointer: '',
        toolId: '',
        message: `feature "defer_loading" lost converting to ${format} at /: ${format} has no deferred tools`,
      });
    } else tools.push(search as ProviderToolDefinitions[F]);
  }
  const names = [...byName.keys()];

  const call = async (name: string, args: unknown, callOptions?: AgentCallOptions): Promise<ProviderToolResults[F]> => {
    // the app's own options: a bad one rejects (the model cannot fix it)
    const { callId, runOptions } = readAgentCallOptions(callOptions);
    const entry = typeof name === 'string' ? byName.get(name) : undefined;
    let parsed: Record<string, unknown> | undefined;
    try {
      if (entry === undefined) throw unknownName(String(name), names);
      const schema = entry.selected.tool.inputSchema;
      parsed = restorePropertyKeys(schema, parseArgs(args), format);
      if (entry.strict) parsed = dropStrictNulls(schema, parsed);
      const result = await entry.selected.run(parsed, runOptions);
      return successResult(format, result, entry.name, callId, { maxChars }) as ProviderToolResults[F];
    } catch (err) {
      if (runOptions?.signal?.aborted === true && ToolexecError.isInstance(err) && err.code === 'ABORTED') throw err;
      // a validation message names the keys the model was given, not those the conversion renamed
      const text =
        entry !== undefined && ToolexecError.isInstance(err) && err.code === 'VALIDATION'
          ? providerKeysInText(errorText(err), entry.selected.tool.inputSchema, format, parsed)
          : undefined;
      return errorResult(format, err, typeof name === 'string' ? name : String(name), callId, text, maxChars) as ProviderToolResults[F];
    }
  };

  return { tools, toolId: (name) => byName.get(name)?.selected.id, call, warnings };
}
