/**
 * The six meta-tools: a model works a catalogue of any size through them — search, look at the
 * namespaces, read one tool's schema, run a tool, run a chain, run a code-mode snippet — instead of
 * receiving every tool's definition.
 */
import { ToolexecError, createSchemaValidator, type Tool } from '../model/index.js';
import { layerErrors } from '../model/internal.js';
import type { DetailLevel, ToolDoc, ToolSummary } from '../discovery/index.js';
import type { RunOptions } from '../run/index.js';
import type { CodeResult, Exec, ExecChainResult, Result, Step } from '../exec/index.js';
import { dropStrictNulls } from './adapters/strict-nulls.js';
import { codeFailureForTheModel, codeRunOutput } from './code-run-output.js';
import type { SelectedTool } from './selected-tool.js';

const errors = layerErrors('agent');

/** The meta-tools' names, in the order {@link metaTools} lists them. */
export const META_TOOL_NAMES = ['search_tools', 'list_namespaces', 'describe_tool', 'run_tool', 'run_chain', 'execute_code'] as const;

/** One of {@link META_TOOL_NAMES}. */
export type MetaToolName = (typeof META_TOOL_NAMES)[number];

/** Most results one `search_tools` call returns. */
export const MAX_SEARCH_LIMIT = 50;

/** Most steps one `run_chain` call runs. */
export const MAX_CHAIN_STEPS = 20;

const ARGS_DESCRIPTION =
  'The tool\'s arguments as a JSON object encoded in a string, matching the input schema that describe_tool returns, e.g. "{\\"path\\":\\"notes.txt\\"}". Omit (or "{}") for a tool without arguments.';

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/**
 * The definitions of the six meta-tools. Their schemas are closed objects whose every property is
 * a string, a number, a boolean or an array of closed objects, so OpenAI's and Anthropic's strict
 * modes take them unchanged apart from the optional properties made nullable. Tool arguments
 * travel as JSON text (`args`) for the same reason: strict mode cannot describe an open object.
 */
export const META_TOOL_DEFINITIONS: Readonly<Record<MetaToolName, Tool>> = Object.freeze({
  search_tools: {
    name: 'search_tools',
    title: 'Search tools',
    description:
      'Full-text search over the whole tool catalogue (names, IDs, descriptions, namespaces, tags). Returns the best matches, each with its `id` and a one-line summary. Start here: search with a few keywords of what you want to do, then call describe_tool on a promising `id` before run_tool. An empty query lists tools in ID order.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'A few keywords, e.g. "read file" or "currency convert".' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_SEARCH_LIMIT,
          description: `How many results, 1–${MAX_SEARCH_LIMIT}. Default 10.`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: readOnly,
  },
  list_namespaces: {
    name: 'list_namespaces',
    title: 'List namespaces',
    description:
      'Lists every namespace of the catalogue (a namespace groups related tools, usually one server or service; a tool ID is `namespace:name`). Use it to see what areas the catalogue covers, then search_tools with a namespace name to see its tools.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: readOnly,
  },
  describe_tool: {
    name: 'describe_tool',
    title: 'Describe a tool',
    description:
      'Returns one tool\'s documentation by `id` (as search_tools returned it): its description, the JSON Schema of its arguments (`inputSchema`) and result, and at detail "full" usage notes and examples. Call it before run_tool to learn the exact arguments.',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The tool ID, e.g. "fs:read_text_file".' },
        detail: {
          type: 'string',
          enum: ['summary', 'schema', 'full'],
          description:
            '"summary": the description only; "schema" (default): plus the argument and result schemas; "full": plus notes and examples.',
        },
      },
      required: ['id'],
      additionalProperties: false,
    },
    annotations: readOnly,
  },
  run_tool: {
    name: 'run_tool',
    title: 'Run a tool',
    description:
      "Runs one tool by `id` with its arguments and returns its result. The arguments are checked against the tool's input schema first; if they do not fit, the error names each wrong field — fix them and call again. Use describe_tool first if you do not know the arguments.",
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The tool ID, e.g. "fs:read_text_file".' },
        args: { type: 'string', description: ARGS_DESCRIPTION },
      },
      required: ['id'],
      additionalProperties: false,
    },
  },
  run_chain: {
    name: 'run_chain',
    title: 'Run a chain of tools',
    description: `Runs up to ${MAX_CHAIN_STEPS} tools in order in one call. A step with usePrevious: true receives the previous step's result as its argument \`previous\`. The chain stops at the first failing step unless that step says stopOnError: false. Returns every step's result (or error) and the last step's result.`,
    inputSchema: {
      type: 'object',
      properties: {
        steps: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_CHAIN_STEPS,
          description: 'The steps, in order.',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string', description: 'The tool ID.' },
              args: { type: 'string', description: ARGS_DESCRIPTION },
              usePrevious: { type: 'boolean', description: "Pass the previous step's result as the argument `previous`." },
              stopOnError: { type: 'boolean', description: 'false: a failure of this step does not stop the chain. Default true.' },
            },
            required: ['id'],
            additionalProperties: false,
          },
        },
      },
      required: ['steps'],
      additionalProperties: false,
    },
  },
  execute_code: {
    name: 'execute_code',
    title: 'Execute code',
    description:
      'Runs a JavaScript or TypeScript snippet in a sandbox (no network, no files) and returns what it returns, its console output and the tool calls it made. Inside, the object `tools` calls the catalogue: `await tools.searchTools(query, limit)`, `await tools.describeTool(id, "schema")`, `await tools.runTool(id, args)` (its result\'s `structured` field is the tool\'s value), `await tools.runChain(steps)`. The snippet is the body of an async function: `return` its answer. With language "python" the snippet is Python: the same calls without await (`tools.search_tools(query, limit)`, `tools.describe_tool(id, "schema")`, `tools.run_tool(id, args)`, `tools.run_chain(steps)`), its last expression is its answer, and a failed call raises `tools.ToolError` (`.code`). Use it to call many tools, loop, filter or combine results in one step instead of many run_tool calls.',
    inputSchema: {
      type: 'object',
      properties: {
        code: {
          type: 'string',
          description: 'The snippet, e.g. `const r = await tools.runTool("math:add", { a: 1, b: 2 }); return r.structured;`',
        },
        language: { type: 'string', enum: ['javascript', 'typescript', 'python'], description: 'Default "javascript".' },
      },
      required: ['code'],
      additionalProperties: false,
    },
  },
});

const validator = createSchemaValidator();

/** The meta-tool's arguments: JSON-text `args` accepted as objects too, strict mode's `null`s dropped, then checked. */
function checkedArgs(tool: Tool, raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw errors.invalidArgument(`${tool.name} arguments`, 'must be a JSON object');
  const args = dropStrictNulls(tool.inputSchema, raw as Record<string, unknown>);
  const normalized = tool.name === 'run_tool' ? argsAsText(args) : tool.name === 'run_chain' ? stepsArgsAsText(args) : args;
  validator.validateInput(tool, normalized);
  return normalized;
}

function argsAsText(args: Record<string, unknown>): Record<string, unknown> {
  const value = args.args;
  return value !== null && typeof value === 'object' ? { ...args, args: JSON.stringify(value) } : args;
}

function stepsArgsAsText(args: Record<string, unknown>): Record<string, unknown> {
  return Array.isArray(args.steps)
    ? { ...args, steps: args.steps.map((step: unknown) => (isRecord(step) ? argsAsText(step) : step)) }
    : args;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Parses a tool's JSON-text arguments; `INVALID_ARGUMENT` naming the place when they are not a JSON object. */
function parseArgs(text: unknown, where: string): Record<string, unknown> {
  if (text === undefined || text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text as string);
  } catch (err) {
    throw errors.invalidArgument(where, `is not valid JSON (${(err as Error).message}); send the arguments as a JSON object text`, {
      cause: err,
    });
  }
  if (!isRecord(parsed)) throw errors.invalidArgument(where, 'must be a JSON object, e.g. {"name":"value"}');
  return parsed;
}

function elapsed(startedMs: number): number {
  return Math.max(performance.now() - startedMs, Number.MIN_VALUE);
}

/** A summary reduced to what a model needs to pick a tool. */
function compactSummary(summary: ToolSummary): Record<string, unknown> {
  const out: Record<string, unknown> = { id: summary.id };
  if (summary.summary !== undefined && summary.summary !== '') out.summary = summary.summary;
  if (summary.tags !== undefined && summary.tags.length > 0) out.tags = summary.tags;
  return out;
}

/** A tool's documentation as a model reads it: no `_meta`, no internal fields. */
function compactDoc(id: string, doc: ToolDoc): Record<string, unknown> {
  const out: Record<string, unknown> = { id, summary: doc.summary };
  const tool = doc.tool;
  if (tool !== undefined) {
    if (tool.description !== undefined) out.description = tool.description;
    out.inputSchema = tool.inputSchema;
    if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  }
  if (doc.annotations !== undefined) out.annotations = doc.annotations;
  if (doc.notes !== undefined && doc.notes !== '') out.notes = doc.notes;
  if (doc.examples !== undefined && doc.examples.length > 0) out.examples = doc.examples;
  return out;
}

function chainValue(chain: ExecChainResult): Record<string, unknown> {
  return {
    result: chain.result.value ?? null,
    steps: chain.steps.map((step) => ({
      id: step.toolId,
      ...(step.skipped === true
        ? { skipped: true }
        : step.error !== undefined
          ? { error: step.error.message }
          : { value: step.value ?? null }),
    })),
  };
}

type Runner = (
  exec: Exec,
  args: Record<string, unknown>,
  options: RunOptions | undefined,
) => Promise<{ value: unknown; content?: Result['content'] }>;

const RUNNERS: Record<MetaToolName, Runner> = {
  search_tools: async (exec, args) => {
    const summaries = await exec.searchTools(args.query as string, (args.limit as number | undefined) ?? 10);
    return { value: { tools: summaries.map(compactSummary) } };
  },
  list_namespaces: async (exec) => ({ value: { namespaces: await exec.listNamespaces() } }),
  describe_tool: async (exec, args) => {
    const id = args.id as string;
    return { value: compactDoc(id, await exec.getToolDoc(id, (args.detail as DetailLevel | undefined) ?? 'schema')) };
  },
  run_tool: async (exec, args, options) => {
    const result = await exec.runTool(args.id as string, parseArgs(args.args, 'run_tool argument args'), options);
    return result.content === undefined ? { value: result.value } : { value: result.value, content: result.content };
  },
  run_chain: async (exec, args, options) => {
    const steps = (args.steps as Record<string, unknown>[]).map((step, i): Step => {
      const out: Step = { toolId: step.id as string, args: parseArgs(step.args, `run_chain steps[${i}].args`) };
      if (step.usePrevious === true) out.usePrevious = true;
      if (step.stopOnError === false) out.stopOnError = false;
      return out;
    });
    return { value: chainValue(await exec.runChain(steps, options)) };
  },
  execute_code: async (exec, args, options) => {
    let run: CodeResult;
    try {
      run = await exec.executeCode({
        code: args.code as string,
        ...(args.language === undefined ? {} : { language: args.language as string }),
        ...(options?.signal === undefined ? {} : { signal: options.signal }),
        ...(options?.timeoutMs === undefined || options.timeoutMs === Infinity ? {} : { timeoutMs: options.timeoutMs }),
      });
    } catch (err) {
      // what had already happened, told as codeTool tells it
      throw codeFailureForTheModel(err);
    }
    return { value: codeRunOutput(run) };
  },
};

/**
 * A `TOOL_NOT_FOUND` with no suggestion (an ID nothing is close to) ends with what to do next: the
 * model made the ID up, and only a search finds the real one. Any other failure as it is.
 */
function withSearchHint(err: unknown): unknown {
  if (!ToolexecError.isInstance(err) || err.code !== 'TOOL_NOT_FOUND') return err;
  const suggestions = err.details?.suggestions;
  if (Array.isArray(suggestions) && suggestions.length > 0) return err;
  return new ToolexecError('TOOL_NOT_FOUND', `${err.message}; find tool IDs with search_tools (or list_namespaces)`, {
    cause: err,
    ...(err.details === undefined ? {} : { details: err.details }),
  });
}

/** One meta-tool as a {@link SelectedTool}: its `run` checks the arguments and calls the matching facade method. */
export function metaTool(exec: Exec, name: MetaToolName): SelectedTool {
  const tool = META_TOOL_DEFINITIONS[name];
  const runner = RUNNERS[name];
  return {
    id: name,
    tool,
    run: async (raw, options) => {
      const startedMs = performance.now();
      const args = checkedArgs(tool, raw);
      let ran: Awaited<ReturnType<Runner>>;
      try {
        ran = await runner(exec, args, options);
      } catch (err) {
        // a chain's failure keeps its steps: only the calls that name one tool get the hint
        throw name === 'run_tool' || name === 'describe_tool' ? withSearchHint(err) : err;
      }
      const { value, content } = ran;
      const result: Result = { value, toolId: name, durationMs: elapsed(startedMs) };
      if (content !== undefined) result.content = content;
      return result;
    },
  };
}

/**
 * The six meta-tools as {@link SelectedTool}s, in the order of {@link META_TOOL_NAMES}:
 *
 * - `search_tools` `{ query, limit? }` → `exec.searchTools` → `{ tools: [{ id, summary?, tags? }] }`;
 * - `list_namespaces` `{}` → `exec.listNamespaces` → `{ namespaces }`;
 * - `describe_tool` `{ id, detail? }` → `exec.getToolDoc` (default detail `schema`) → `{ id, summary, description?, inputSchema, outputSchema?, annotations?, notes?, examples? }`;
 * - `run_tool` `{ id, args? }` (args: JSON text) → `exec.runTool` → the tool's value and content blocks;
 * - `run_chain` `{ steps: [{ id, args?, usePrevious?, stopOnError? }] }` → `exec.runChain` → `{ result, steps: [{ id, value | error | skipped }] }`;
 * - `execute_code` `{ code, language? }` (`javascript`, `typescript` or `python`) → `exec.executeCode` → `{ toolCalls: [{ id, count, failed? }], warnings?, value, stdout?, stderr? }`
 *   (the output of `codeTool`: `value`, `stdout` and `stderr` shortest first, so that a cut
 *   result keeps the tool calls, the warnings and the short fields whole); a failed snippet's
 *   error names the tool calls that had already succeeded and ends with what it printed.
 *
 * Each `run` resolves to a `Result` whose `toolId` is the meta-tool's name, and rejects with a
 * `ToolexecError`: `VALIDATION` (with violations) for arguments that do not fit the meta-tool's
 * schema, `INVALID_ARGUMENT` for `args` that are not a JSON object text, or the facade's error.
 * `null` for an optional property (what strict mode sends) counts as absent.
 */
export function metaTools(exec: Exec): SelectedTool[] {
  return META_TOOL_NAMES.map((name) => metaTool(exec, name));
}
