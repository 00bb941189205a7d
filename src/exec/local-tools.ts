/**
 * The facade's `tools` option: each local tool registered in the index, the local store and the
 * doc store.
 *
 * @internal
 * @module
 */
import { localBackend, toolId as toolIdOf } from '../model/index.js';
import { layerErrors } from '../model/internal.js';
import type { DocStore, ToolIndex } from '../discovery/index.js';
import type { LocalBackend } from '../backend/index.js';
import type { LocalToolDefinition } from './types.js';

const errors = layerErrors('exec');

/**
 * Registers each definition: the tool in `index` (backend `local`, name = tool ID), its handler in
 * `local` under the tool ID, its doc and examples in `docs`.
 *
 * @throws `CONFIGURATION` for a tool ID defined twice (in `tools`, or already in `local`);
 * `INVALID_TOOL` for a tool the index refuses.
 */
export function registerLocalTools(tools: readonly LocalToolDefinition[], index: ToolIndex, local: LocalBackend, docs: DocStore): void {
  const seen = new Set<string>();
  for (const definition of tools) {
    const id = toolIdOf(definition.tool);
    if (seen.has(id) || local.has(id)) {
      throw errors.configuration('tools', `local tool "${id}" is defined twice`, { details: { toolId: id } });
    }
    seen.add(id);
    index.registerTool(definition.tool, localBackend(id));
    local.registerHandler(id, definition.handler);
    if (definition.doc !== undefined) docs.registerDoc(id, definition.doc);
    if (definition.examples !== undefined) docs.registerExamples(id, definition.examples);
  }
}
