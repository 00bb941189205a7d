/**
 * The Vercel AI SDK (v7): toolexec's tools as a `ToolSet` for `generateText`, `streamText` and
 * `ToolLoopAgent` (with the `execute_code` tool of code-tool.ts when asked).
 */
import type { Tool as AiTool, ToolSet } from 'ai';
import { ToolexecError, type Tool } from '../model/index.js';
import { callListener, layerErrors } from '../model/internal.js';
import { jsonOutput, loadAiSdk, type AiSdk, type AiSdkTool, type ToolResultOutput } from './ai-sdk-peer.js';
import { codeTool, type CodeToolOptions } from './code-tool.js';
import type { Exec, Result } from '../exec/index.js';
import type { CodeModeApiOptions } from './code-mode-api.js';
import { selectTools, type SelectToolsOptions } from './selection.js';
import { toolsByName } from './tool-names.js';
import { aiSdkToolError, errorText, jsonResult } from './tool-results.js';
import type { SelectedTool } from './selected-tool.js';
import type { AgentToolWarning } from './agent-tools.js';
import { toProviderTool } from './provider-tool.js';
import { providerKeysInText, restorePropertyKeys } from './adapters/property-keys.js';
import { dropStrictNulls } from './adapters/strict-nulls.js';
import { PROVIDER_FORMATS, type ProviderFormat } from './adapters/types.js';
import { joinedText, partsFor, partsOf, type ResultPart } from './result-parts.js';
import { limitParts, readMaxResultChars, type ResultLimitOptions } from './result-limit.js';
import { optionsError } from './option-errors.js';

const errors = layerErrors('agent');

/**
 * Options of {@link aiSdkTools}: which tools ({@link SelectToolsOptions}), and how much of a result
 * the model reads ({@link ResultLimitOptions}: `toModelOutput`; the tool's `output` stays whole;
 * `execute_code` gets the same limit unless `code` sets its own).
 */
export interface AiSdkToolsOptions extends SelectToolsOptions, ResultLimitOptions {
  /**
   * Add the `execute_code` tool of {@link codeTool} (replacing the meta-tool of that name), its
   * description carrying the code-mode API of the same selection, or of `code`'s own `ids` /
   * `query` when it is an object. @defaultValue false
   */
  code?: boolean | CodeToolOptions;
  /**
   * The provider behind the AI SDK model the tools go to. When set, each tool's input schema is
   * the one `toProviderTool` makes for that format (an object root, `items` on OpenAI arrays,
   * property keys Anthropic or Gemini refuse renamed, the strict form with `strict`), and a call's
   * arguments get their renamed keys back (and strict mode's `null`s removed) before the tool
   * runs, as `agentTools`' `call` does; a result's parts are those `agentTools` sends that format
   * (a medium the provider cannot take as a text note, no blank text for Anthropic). Unset: the
   * tool's own schema, `$schema` removed (the AI SDK sends it as it is, so a schema the provider
   * refuses fails the model request), and every part of a result. For
   * `'gemini'` it is the JSON Schema form (`parametersJsonSchema`): an AI SDK tool's schema is JSON
   * Schema, which the AI SDK's Google provider converts itself, so there is no `geminiSchema` here.
   */
  provider?: ProviderFormat;
  /**
   * With `provider`: the strict form (the AI SDK tool's `strict`) for every tool whose schema
   * allows it; a tool that cannot be strict stays plain, with a `strict` warning. @defaultValue false
   */
  strict?: boolean;
  /** With `provider`: called with each feature a conversion lost or changed, naming the tool. */
  onWarning?: (warning: AgentToolWarning) => void;
}

/** How {@link aiTool} presents a tool's schema (as is, or converted for one provider) and its result. */
interface SchemaConversion {
  format: ProviderFormat;
  strict: boolean;
  onWarning: ((warning: AgentToolWarning) => void) | undefined;
}

/** The resolved `maxResultChars` (result-limit.ts). */
type MaxChars = number;

/**
 * What an AI SDK tool of toolexec returns (the `output` of its tool result): the facade's
 * {@link Result} — `value` (the tool's structured result), `content` (an MCP tool's blocks),
 * `toolId`, `durationMs`. The model gets `value` as JSON, or the content blocks (images as files)
 * when an MCP tool sent more than text.
 */
export type AiSdkToolOutput = Result;

/**
 * The tool result output the model reads, for a facade result: the value as JSON (a string as
 * text), or an MCP tool's content blocks when they hold more than text. With a `provider`, the
 * parts are those `agentTools` sends that format ({@link partsFor}): a medium it cannot take as a
 * text note, for Anthropic no empty or blank text. Text beyond `maxChars` is cut, with the note
 * of result-limit.ts (a JSON value too long becomes its cut text).
 */
function modelOutput(result: Result, provider: ProviderFormat | undefined, maxChars: MaxChars): ToolResultOutput {
  const blocks = result.content;
  let parts: ResultPart[];
  if (blocks !== undefined && blocks.some((block) => block.type !== 'text')) parts = partsOf(blocks);
  else if (typeof result.value !== 'string') return jsonOutput(result.value, maxChars);
  else parts = [{ kind: 'text', text: result.value }];
  return outputOf(limitParts(provider === undefined ? parts : partsFor(provider, parts), maxChars));
}

/** Parts as the AI SDK's output: one text when all are text, else `content` with media as files. */
function outputOf(parts: readonly ResultPart[]): ToolResultOutput {
  if (parts.every((part) => part.kind === 'text')) return { type: 'text', value: joinedText(parts) };
  return {
    type: 'content',
    value: parts.map((part) =>
      part.kind === 'text'
        ? { type: 'text', text: part.text }
        : { type: 'file', mediaType: part.mimeType, data: { type: 'data', data: part.data } },
    ),
  };
}

/** The input schema a model reads: the tool's own, without `$schema` (providers send their own dialect). */
function modelSchema(tool: Tool): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = tool.inputSchema as Record<string, unknown>;
  return schema;
}

function describe(entry: SelectedTool): string {
  const { tool } = entry;
  return tool.description ?? tool.title ?? tool.annotations?.title ?? entry.id;
}

/** The input schema and strictness of `entry` converted for `conversion.format` (warnings reported). */
function providerSchema(
  entry: SelectedTool,
  name: string,
  conversion: SchemaConversion,
): { schema: Record<string, unknown>; strict: boolean } {
  const converted = toProviderTool(entry.tool, conversion.format, { name, strict: conversion.strict });
  const onWarning = conversion.onWarning;
  if (onWarning !== undefined) for (const warning of converted.warnings) callListener(onWarning, { ...warning, toolId: entry.id });
  const tool = converted.tool as {
    function?: { parameters?: Record<string, unknown>; strict?: unknown };
    parameters?: Record<string, unknown>;
    input_schema?: Record<string, unknown>;
    parametersJsonSchema?: Record<string, unknown>;
    inputSchema?: Record<string, unknown>;
    strict?: unknown;
  };
  const schema = tool.function?.parameters ?? tool.parameters ?? tool.input_schema ?? tool.parametersJsonSchema ?? tool.inputSchema ?? {};
  const { $schema: _dialect, ...rest } = schema;
  return { schema: rest, strict: tool.strict === true || tool.function?.strict === true };
}

/** One selected tool as an AI SDK tool: toolexec validates, runs and times it; the signal goes through. */
function aiTool(
  ai: AiSdk,
  entry: SelectedTool,
  name: string,
  conversion: SchemaConversion | undefined,
  maxChars: MaxChars,
): AiTool<Record<string, unknown>, AiSdkToolOutput> {
  const converted = conversion === undefined ? undefined : providerSchema(entry, name, conversion);
  const original = entry.tool.inputSchema;
  const argsOf = (input: Record<string, unknown> | undefined): Record<string, unknown> => {
    const args = input ?? {};
    if (conversion === undefined || converted === undefined) return args;
    const restored = restorePropertyKeys(original, args, conversion.format);
    return converted.strict ? dropStrictNulls(original, restored) : restored;
  };
  return ai.tool<Record<string, unknown>, AiSdkToolOutput, Record<string, unknown>>({
    description: describe(entry),
    // no validate function: the AI SDK passes the model's input through, toolexec checks it
    inputSchema: ai.jsonSchema<Record<string, unknown>>(converted?.schema ?? modelSchema(entry.tool)),
    ...(converted?.strict === true ? { strict: true } : {}),
    // a value with no JSON form rejects (EXECUTION), so the model gets it as the tool's error; every
    // failure reads as agentTools words it
    execute: async (input, { abortSignal }) => {
      let args: Record<string, unknown> | undefined;
      try {
        args = argsOf(input);
        return jsonResult(await entry.run(args, abortSignal === undefined ? {} : { signal: abortSignal }));
      } catch (err) {
        // a validation message names the keys the model was given, not those the conversion renamed
        const renamed = conversion !== undefined && ToolexecError.isInstance(err) && err.code === 'VALIDATION';
        throw aiSdkToolError(err, maxChars, renamed ? providerKeysInText(errorText(err), original, conversion.format, args) : undefined);
      }
    },
    // what the model reads is cut at maxResultChars; `output`, the app's, stays whole
    toModelOutput: ({ output }) => modelOutput(output, conversion?.format, maxChars),
  });
}

/**
 * An AI SDK `ToolSet` (tools by name), as {@link aiSdkTools} makes it: assignable to the `ai`
 * package's `ToolSet` (`generateText({ tools })`, `new ToolLoopAgent({ tools })`) without a cast,
 * and typed without naming `ai` (an optional peer dependency; see {@link AiSdkTool}).
 */
export type AiSdkToolSet = Record<string, AiSdkTool>;

/**
 * toolexec's tools as an AI SDK (v7) `ToolSet`, for `generateText`, `streamText` and
 * `ToolLoopAgent`.
 *
 * @remarks
 * - Tools are chosen by `selectTools` (`ids`, `query`, `limit`, or `meta: true` for the six
 *   meta-tools); each is keyed by its provider-safe name (`encodeToolName`: `math:add` →
 *   `math--add`), with `tool({ description, inputSchema: jsonSchema(schema), execute })`.
 * - The AI SDK does not validate: `execute` runs the call through the facade (`exec.runTool`),
 *   which validates the arguments, applies the deadline and runs the tool; `execute`'s
 *   `abortSignal` is the call's signal. A failure (`VALIDATION` naming each field, `EXECUTION`,
 *   `TIMEOUT`...) rejects, and the AI SDK hands it back to the model as the tool's error, in the
 *   words `agentTools` uses ({@link errorText}: `Error (VALIDATION): ... Fix the arguments and
 *   call the tool again.`), so the model can correct the call. So does a result whose value cannot
 *   be serialised as JSON (`EXECUTION`: a cycle, a BigInt, a throwing `toJSON`).
 * - The output is the facade's {@link Result}; `toModelOutput` gives the model the value as JSON,
 *   or an MCP tool's content blocks with images and audio as files; with `provider`, only the
 *   parts that format takes, as `agentTools` sends them (the others as text notes). What the model
 *   reads (a failure's text too) is cut at `maxResultChars` (100,000 characters by default), ending
 *   with a note saying how much was cut; the `output` itself stays whole.
 * - `code: true` adds `execute_code` ({@link codeTool}).
 *
 * @example
 * ```ts
 * const agent = new ToolLoopAgent({ model, tools: await aiSdkTools(exec, { query: 'files' }) });
 * const { text } = await agent.generate({ prompt: 'Summarize README.md' });
 * ```
 *
 * @throws `CONFIGURATION` for bad options (`maxResultChars` and `code`'s own included), or `code`
 * beside a selected tool already named `execute_code`; `INVALID_ARGUMENT` for two selected tools
 * with one name (a hash collision of two long IDs, as `agentTools` refuses it); `TOOL_NOT_FOUND`
 * for an unknown ID in `ids`; `RUNTIME_UNAVAILABLE` when the optional peer dependency `ai` is not
 * installed.
 */
export async function aiSdkTools(exec: Exec, options: AiSdkToolsOptions = {}): Promise<AiSdkToolSet> {
  if (options === null || typeof options !== 'object') throw optionsError();
  const { code, provider, strict, onWarning, maxResultChars, ...selection } = options;
  const maxChars = readMaxResultChars(maxResultChars);
  if (code !== undefined && typeof code !== 'boolean' && (code === null || typeof code !== 'object')) {
    throw errors.configuration('code', 'must be a boolean or the options of codeTool');
  }
  if (provider !== undefined && !PROVIDER_FORMATS.includes(provider)) {
    throw errors.configuration('provider', `must be one of ${PROVIDER_FORMATS.join(', ')}, got ${JSON.stringify(provider)}`);
  }
  if (strict !== undefined && typeof strict !== 'boolean') throw errors.configuration('strict', 'must be a boolean');
  if (onWarning !== undefined && typeof onWarning !== 'function') throw errors.configuration('onWarning', 'must be a function');
  const conversion = provider === undefined ? undefined : { format: provider, strict: strict === true, onWarning };
  const ai = await loadAiSdk();
  const tools: ToolSet = {};
  // two tools with one name (a hash collision of two long IDs) are refused, as agentTools does
  for (const [name, entry] of toolsByName(await selectTools(exec, selection))) tools[name] = aiTool(ai, entry, name, conversion, maxChars);
  if (code !== undefined && code !== false) {
    // the meta-tool of that name is replaced (documented); a tool of the catalogue is not dropped unsaid
    if (tools.execute_code !== undefined && selection.meta !== true) {
      throw errors.configuration('code', 'adds a tool named "execute_code", and a selected tool already has that name', {
        details: { name: 'execute_code' },
      });
    }
    const own = code === true ? {} : code;
    // the same tools as the set; with meta-tools, none declared (a snippet searches the catalogue)
    const scope = own.ids !== undefined || own.query !== undefined ? {} : selection.meta === true ? { ids: [] } : pick(selection);
    tools.execute_code = await codeTool(exec, { ...scope, maxResultChars: maxChars, ...own });
  }
  return tools;
}

function pick(selection: SelectToolsOptions): Omit<CodeModeApiOptions, 'language'> {
  const out: Omit<CodeModeApiOptions, 'language'> = {};
  if (selection.ids !== undefined) out.ids = [...selection.ids];
  if (selection.query !== undefined) out.query = selection.query;
  if (selection.limit !== undefined) out.limit = selection.limit;
  return out;
}
