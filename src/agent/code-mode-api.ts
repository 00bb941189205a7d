/**
 * The code-mode API for models: TypeScript declarations of a snippet's `tools` with each selected
 * tool's arguments and result typed from its schemas (json-schema-to-typescript), and a short
 * prompt on how to write a snippet.
 */
import type { Tool } from '../model/index.js';
import { layerErrors, missingPeerMessage, optionalPeer } from '../model/internal.js';
import type { Exec } from '../exec/index.js';
import { ENVIRONMENT_DECLARATIONS, RESERVED_NAMES } from './code-mode-types.js';
import { PYTHON_CODE_MODE_PROMPT, declarePythonTools } from './code-mode-python.js';
import { optionsError } from './option-errors.js';
import { selectTools } from './selection.js';

const errors = layerErrors('agent');

/** Options of {@link codeModeApi}. */
export interface CodeModeApiOptions {
  /** Declare these tools (`TOOL_NOT_FOUND` for one the facade does not know). */
  ids?: string[];
  /** Declare the best matches of a full-text search (after `ids`). */
  query?: string;
  /** Most tools the query adds. @defaultValue 10 for a query; every tool when neither `ids` nor `query` is given */
  limit?: number;
  /**
   * The snippet language: `'typescript'` (JavaScript snippets read the same declarations; `'javascript'`
   * is taken as a synonym) or `'python'` (a `.pyi` stub of the module `tools` and the Python prompt).
   * @defaultValue 'typescript'
   */
  language?: 'typescript' | 'javascript' | 'python';
}

/** A code-mode API: what to put in a model's context so it can write snippets. */
export interface CodeModeApi {
  /**
   * TypeScript: declarations of the snippet's globals (`tools`, `console`, the timers, `__out`),
   * `tools.runTool` typed per declared tool ID: `ToolArgs['math:add']` its arguments,
   * `ToolResults['math:add']` its result (`unknown` without an output schema). A script (no
   * import or export): save it as a `.d.ts` or hand it to {@link checkSnippet}.
   *
   * Python: the stub of the module `tools` (`.pyi` text): per tool a `TypedDict` of its arguments
   * (`MathAddArgs`), its structured result (`MathAddOutput`), `MathAddResult =
   * RunResult[MathAddOutput]` and an `@overload` of `run_tool(id: Literal['math:add'], args:
   * MathAddArgs) -> MathAddResult`; then `search_tools`, `describe_tool`, `list_namespaces`,
   * `list_tool_examples`, `run_chain` and `ToolError`.
   */
  declarations: string;
  /** The language the declarations and the prompt are for. */
  language: 'typescript' | 'python';
  /** How to write a snippet, in a few lines, for a system prompt or a tool description (the declarations are not in it). */
  prompt: string;
}

/** One tool to declare: the ID a snippet calls it by and its definition. */
export interface DeclaredTool {
  /** The tool ID the snippet passes to `tools.runTool`. */
  id: string;
  /** The tool, with its JSON Schemas. */
  tool: Tool;
}

type Compile = (schema: Record<string, unknown>, name: string, options: Record<string, unknown>) => Promise<string>;

/** Loads json-schema-to-typescript on first use. @throws `RUNTIME_UNAVAILABLE` when it is not installed. */
const loadCompiler: () => Promise<Compile> = optionalPeer(
  'json-schema-to-typescript',
  (mod) => (mod as { compile: Compile }).compile,
  (err) =>
    errors('RUNTIME_UNAVAILABLE', missingPeerMessage('the code-mode API', 'json-schema-to-typescript'), {
      cause: err,
      details: { missing: 'json-schema-to-typescript' },
    }),
);

/** json-schema-to-typescript's options: no banner, no formatter, no tuples, nothing fetched for a `$ref`. */
const COMPILE_OPTIONS = {
  bannerComment: '',
  format: false,
  additionalProperties: false,
  ignoreMinAndMaxItems: true,
  strictIndexSignatures: true,
  unknownAny: true,
  declareExternallyReferenced: true,
  $refOptions: { resolve: { external: false } },
};

/** A TypeScript identifier for a tool ID, unique among `taken`: `math:add:1.0.0` → `MathAdd_1_0_0`. */
function namespaceName(id: string, taken: Set<string>): string {
  const parts = id.split(/[^A-Za-z0-9]+/).filter((part) => part !== '');
  let base = parts.map((part, i) => (i > 0 && /^\d/.test(part) ? `_${part}` : part.charAt(0).toUpperCase() + part.slice(1))).join('');
  if (base === '' || /^\d/.test(base)) base = `Tool${base}`;
  let name = base;
  for (let n = 2; taken.has(name) || RESERVED_NAMES.has(name); n++) name = `${base}${n}`;
  taken.add(name);
  return name;
}

/** The schema json-schema-to-typescript gets: without `$schema`, `$id` and a root `title` (which would rename the type). */
function compilable(schema: Record<string, unknown>, description: string | undefined): Record<string, unknown> {
  const { $schema: _schema, $id: _id, title: _title, ...rest } = structuredClone(schema);
  if (description !== undefined && description !== '' && rest.description === undefined) rest.description = description;
  return rest;
}

/** Indents generated code by its braces (json-schema-to-typescript's output is unformatted). */
function indent(code: string, depth: number): string {
  const out: string[] = [];
  let level = depth;
  for (const raw of code.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (/^[}\])]/.test(line)) level = Math.max(depth, level - 1);
    out.push(`${'  '.repeat(level)}${line.startsWith('*') ? ` ${line}` : line}`);
    if (/[{[(]$/.test(line)) level++;
  }
  return out.join('\n');
}

function comment(text: string | undefined, depth: number): string {
  if (text === undefined || text.trim() === '') return '';
  const pad = '  '.repeat(depth);
  const lines = text.replaceAll('*/', '*\\/').trim().split('\n');
  return `${pad}/**\n${lines.map((line) => `${pad} * ${line}`.trimEnd()).join('\n')}\n${pad} */\n`;
}

async function typeOf(compile: Compile, schema: unknown, name: string, description: string | undefined): Promise<string> {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return `export type ${name} = unknown;`;
  try {
    return await compile(compilable(schema as Record<string, unknown>, description), name, COMPILE_OPTIONS);
  } catch (err) {
    // a schema the generator cannot read: the tool stays callable, untyped
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return `/** Not typed: its JSON Schema could not be converted (${reason?.replaceAll('*/', '*\\/')}). */\nexport type ${name} = ${name === 'Args' ? 'Record<string, unknown>' : 'unknown'};`;
  }
}

/**
 * The declarations of a set of tools (the part of {@link codeModeApi} after selection).
 *
 * @throws `RUNTIME_UNAVAILABLE` when json-schema-to-typescript is not installed.
 */
export async function declareTools(tools: readonly DeclaredTool[]): Promise<string> {
  const compile = await loadCompiler();
  const taken = new Set<string>();
  const blocks: string[] = [];
  const args: string[] = [];
  const results: string[] = [];
  for (const { id, tool } of tools) {
    const ns = namespaceName(id, taken);
    const input = await typeOf(compile, tool.inputSchema, 'Args', tool.description);
    const output = await typeOf(compile, tool.outputSchema, 'Result', undefined);
    blocks.push(
      `${comment(`${id}${tool.title ? ` — ${tool.title}` : ''}`, 0)}declare namespace ${ns} {\n${indent(input, 1)}\n${indent(output, 1)}\n}`,
    );
    const doc = comment(tool.description ?? tool.title, 1);
    const key = JSON.stringify(id);
    args.push(`${doc}  ${key}: ${ns}.Args;`);
    results.push(`  ${key}: ${ns}.Result;`);
  }
  return [
    `// The code-mode API of toolexec: the globals of a snippet, with ${tools.length} tool${tools.length === 1 ? '' : 's'} typed.`,
    ...blocks,
    `/** The arguments of each declared tool, by tool ID. */\ninterface ToolArgs {\n${args.join('\n')}\n}`,
    `/** The structured result of each declared tool, by tool ID (unknown without an output schema). */\ninterface ToolResults {\n${results.join('\n')}\n}`,
    ENVIRONMENT_DECLARATIONS,
  ].join('\n\n');
}

/** The prompt: how a snippet is written and run. */
export const CODE_MODE_PROMPT = `Write a TypeScript (or JavaScript) snippet; it runs in a sandbox as the body of an async function.
- Use \`await\` freely and \`return\` the value you want back (it must be JSON-serializable). \`console.log\` output is returned too.
- The only globals are \`tools\`, \`console\` and the timers, declared below: no filesystem, network, process, require or import.
- \`const { structured } = await tools.runTool('namespace:name', { ...args })\` runs a tool; its result is in \`.structured\`.
  Arguments are checked against the tool's schema before it runs.
- Tools that are not declared can be found with \`tools.searchTools(query)\`; read their arguments with \`tools.describeTool(id, 'schema')\`.
- \`tools.runChain([{ toolId, args }, { toolId, argsFrom: { arg: '/pointer/into/previous/result' } }])\` feeds one tool's result to the next.
- Run independent calls together with \`Promise.all\`, and await every call.
- A failed call rejects with an Error whose \`code\` (VALIDATION, TOOL_NOT_FOUND, EXECUTION, TIMEOUT, ...) and message say what to fix;
  catch it to try another way. Tool calls per snippet are limited: do the work in as few snippets as you can.`;

/**
 * The code-mode API of a facade's tools: TypeScript declarations of the snippet's `tools` (each
 * selected tool's arguments and result typed from its JSON Schemas by json-schema-to-typescript)
 * and a short prompt on how to write a snippet.
 *
 * @remarks
 * Tools are chosen as `selectTools` does: `ids` first, then the `query`'s best matches, or every
 * tool when neither is given. `tools.runTool('math:add', args)` is typed for every declared ID
 * (its arguments required when the schema requires any; no extra property, so a misspelled
 * argument is caught); an ID that is not declared is still accepted, untyped, since a snippet may
 * find tools with `searchTools`. Check a snippet against the declarations with
 * {@link checkSnippet} before running it with `exec.executeCode`.
 *
 * @example
 * ```ts
 * const api = await codeModeApi(exec, { query: 'invoices', limit: 20 });
 * const system = `${api.prompt}\n\n\`\`\`ts\n${api.declarations}\n\`\`\``;
 * ```
 *
 * With `language: 'python'` the declarations are the stub of the Python module `tools` (see
 * {@link CodeModeApi.declarations}) and the prompt tells how a Python snippet is written (the last
 * expression is the value, calls are synchronous, a failure raises `ToolError` with `.code`); no
 * optional dependency is needed.
 *
 * @throws `CONFIGURATION` for bad options; `TOOL_NOT_FOUND` for an unknown ID in `ids`;
 * `RUNTIME_UNAVAILABLE` when the optional peer dependency json-schema-to-typescript is not
 * installed (TypeScript declarations only).
 */
export async function codeModeApi(exec: Exec, options: CodeModeApiOptions = {}): Promise<CodeModeApi> {
  if (options === null || typeof options !== 'object') throw optionsError();
  const { language = 'typescript', ids, query, limit } = options;
  if (language !== 'typescript' && language !== 'javascript' && language !== 'python')
    throw errors.configuration('language', `must be 'typescript', 'javascript' or 'python', got ${JSON.stringify(language)}`, {
      details: { language },
    });
  const selected = await selectTools(exec, {
    ...(ids === undefined ? {} : { ids }),
    ...(query === undefined ? {} : { query }),
    ...(limit === undefined ? {} : { limit }),
  });
  const declared = selected.map(({ id, tool }) => ({ id, tool }));
  if (language === 'python') return { declarations: declarePythonTools(declared), prompt: PYTHON_CODE_MODE_PROMPT, language };
  return { declarations: await declareTools(declared), prompt: CODE_MODE_PROMPT, language: 'typescript' };
}
