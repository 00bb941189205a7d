/**
 * The one abstraction the agent layer hands to a model: a tool with the function that runs it.
 * Every adapter of this layer (provider formats, the AI SDK, the MCP server) starts from
 * {@link selectTools}.
 */
import { toolId as toolIdOf, type Tool } from '../model/index.js';
import { layerErrors } from '../model/internal.js';
import type { Exec } from '../exec/index.js';
import { metaTools } from './meta-tools.js';
import { optionsError } from './option-errors.js';
import type { SelectedTool } from './selected-tool.js';

export type { SelectedTool };

const errors = layerErrors('agent');

/** Which tools {@link selectTools} hands over. */
export interface SelectToolsOptions {
  /** These tools, in this order (`TOOL_NOT_FOUND` for one the facade does not know). */
  ids?: readonly string[];
  /** The best matches of a full-text search (after `ids`, without repeating them). */
  query?: string;
  /**
   * Most tools the query (or, without `ids` and `query`, the listing of every tool) adds.
   * @defaultValue 10 for a query; every tool when neither `ids` nor `query` is given
   */
  limit?: number;
  /**
   * Hand over the six meta-tools (`search_tools`, `list_namespaces`, `describe_tool`, `run_tool`,
   * `run_chain`, `execute_code`) instead of the tools themselves, for catalogues too large to
   * send: `ids`, `query` and `limit` are then ignored. @defaultValue false
   */
  meta?: boolean;
}

/** Default `limit` of a query. */
export const DEFAULT_QUERY_LIMIT = 10;

/**
 * The options checked: `CONFIGURATION` for a bad one (they make the tools handed over), which every
 * adapter built on {@link selectTools} gives too.
 */
export function checkSelectOptions(options: unknown): SelectToolsOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') throw optionsError();
  const o = options as SelectToolsOptions;
  if (o.ids !== undefined && (!Array.isArray(o.ids) || o.ids.some((id) => typeof id !== 'string' || id === ''))) {
    throw errors.configuration('ids', 'must be an array of tool IDs');
  }
  if (o.query !== undefined && typeof o.query !== 'string') throw errors.configuration('query', 'must be a string');
  if (o.limit !== undefined && (typeof o.limit !== 'number' || !(o.limit >= 1))) {
    throw errors.configuration('limit', 'must be a number ≥ 1');
  }
  if (o.meta !== undefined && typeof o.meta !== 'boolean') throw errors.configuration('meta', 'must be a boolean');
  return o;
}

/** An ordinary tool's entry: runs through `exec.runTool` under the ID it was selected by. */
function toolEntry(exec: Exec, id: string, tool: Tool): SelectedTool {
  return { id, tool, run: (args, options) => exec.runTool(id, args, options) };
}

async function toolOf(exec: Exec, id: string): Promise<Tool> {
  const doc = await exec.getToolDoc(id, 'schema');
  if (doc.tool === undefined) throw errors('TOOL_NOT_FOUND', `tool not found: ${id}`, { details: { toolId: id } });
  return doc.tool;
}

/**
 * The tools to hand a model, each with the function that runs it.
 *
 * @remarks
 * `ids` come first, in order; then the `query`'s best `limit` matches; with neither, every tool
 * of the index in ID order (up to `limit`). With `meta: true`, the six meta-tools of
 * {@link metaTools} instead, whatever the other options say.
 *
 * @throws `CONFIGURATION` for bad options; `TOOL_NOT_FOUND` for an unknown ID in `ids`.
 *
 * @example
 * ```ts
 * const entries = await selectTools(exec, { query: 'files', limit: 5 });
 * const result = await entries[0].run({ path: 'a.txt' });
 * ```
 */
export async function selectTools(exec: Exec, options?: SelectToolsOptions): Promise<SelectedTool[]> {
  const o = checkSelectOptions(options);
  if (o.meta === true) return metaTools(exec);
  const selected: SelectedTool[] = [];
  const seen = new Set<string>();
  for (const id of o.ids ?? []) {
    if (seen.has(id)) continue;
    const tool = await toolOf(exec, id);
    seen.add(id);
    seen.add(toolIdOf(tool));
    selected.push(toolEntry(exec, id, tool));
  }
  if (o.query !== undefined || o.ids === undefined) {
    const limit = o.limit ?? (o.query === undefined ? Infinity : DEFAULT_QUERY_LIMIT);
    const summaries = await exec.searchTools(o.query ?? '', limit);
    for (const summary of summaries) {
      if (seen.has(summary.id)) continue;
      seen.add(summary.id);
      selected.push(toolEntry(exec, summary.id, await toolOf(exec, summary.id)));
    }
  }
  return selected;
}
