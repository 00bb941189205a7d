/**
 * An MCP server's tools in the facade's index: registered one by one (a tool the index refuses is
 * left out and reported, so one bad tool does not take its server's others down) and removed
 * together when the server fails or lists again.
 *
 * @internal
 * @module
 */
import { toolId as toolIdOf, type McpTool } from '../model/index.js';
import { layerErrors } from '../model/internal.js';
import type { ToolIndex } from '../discovery/index.js';
import { rejectedTool } from './server-failures.js';
import type { RejectedTool } from './types.js';

const errors = layerErrors('exec');

/** What an import registered: the IDs of the tools now in the index, and those left out. */
export interface ImportedTools {
  toolIds: string[];
  rejected: RejectedTool[];
}

/**
 * Registers the tools `server` listed under its name.
 *
 * @throws `PROTOCOL` when the listing is not an array (nothing is registered).
 */
export function registerServerTools(index: ToolIndex, server: string, tools: readonly McpTool[]): ImportedTools {
  if (!Array.isArray(tools)) throw errors('PROTOCOL', `MCP server "${server}" listed its tools as something not an array`);
  const imported: ImportedTools = { toolIds: [], rejected: [] };
  const seen = new Set<string>();
  for (const tool of tools) {
    try {
      const id = toolIdOf({ ...tool, namespace: (tool as { namespace?: string }).namespace || server });
      if (seen.has(id)) throw errors('INVALID_TOOL', 'the server listed this name twice; the first is kept');
      index.registerToolsFromMcp(server, [tool]);
      seen.add(id);
      imported.toolIds.push(id);
    } catch (error) {
      imported.rejected.push(rejectedTool(server, tool, error));
    }
  }
  return imported;
}

/** Removes `server`'s backend of each tool in `toolIds` (a tool another backend still serves stays). */
export function unregisterServerTools(index: ToolIndex, server: string, toolIds: readonly string[]): void {
  for (const id of toolIds) {
    try {
      index.unregisterBackend(id, 'mcp', server);
    } catch {
      // already gone
    }
  }
}
