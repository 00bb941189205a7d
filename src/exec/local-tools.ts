/**
 * The facade's `tools` option: each local tool registered in the index, the local store and the
 * doc store, its schemas compiled at once.
 *
 * @internal
 * @module
 */
import { localBackend, toolId as toolIdOf, type JsonSchemaValidator, type Tool } from '../model/index.js';
import { compileToolSchema, layerErrors } from '../model/internal.js';
import type { DocStore, ToolIndex } from '../discovery/index.js';
import type { LocalBackend } from '../backend/index.js';
import type { LocalToolDefinition } from './types.js';

const errors = layerErrors('exec');

/**
 * Which schemas of a local tool are compiled when it is registered: those whose breakage would fail
 * a call (the input schema with `validateInput`, the output schema with `validateOutput: true`),
 * with the validator the runner checks them with.
 */
export interface LocalSchemaChecks {
  readonly validator: JsonSchemaValidator;
  readonly input: boolean;
  readonly output: boolean;
}

/**
 * Registers each definition: the tool in `index` (backend `local`, name = tool ID), its schemas
 * compiled (see {@link LocalSchemaChecks}), its handler in `local` under the tool ID, then the docs
 * and examples of all of them in `docs`.
 *
 * All or nothing in `index`: when one definition is refused, the local backends registered before
 * it are removed again, so a caller's own index is left with none of `tools` (a tool it held
 * already keeps its other backends). Docs registered before a refused doc stay in a caller's doc
 * store, which has no way to remove them; the index no longer knows their tools.
 *
 * @throws `CONFIGURATION` for a tool ID defined twice (in `tools`, or already in `local`);
 * `INVALID_TOOL` for a tool the index refuses; `INVALID_SCHEMA` for a schema that does not
 * compile, as the tool's first call would have failed (message and `details`: `tool`, `schema`,
 * `reason`); the doc store's error for a doc or examples it refuses.
 */
export function registerLocalTools(
  tools: readonly LocalToolDefinition[],
  index: ToolIndex,
  local: LocalBackend,
  docs: DocStore,
  checks: LocalSchemaChecks,
): void {
  const registered: string[] = [];
  try {
    const seen = new Set<string>();
    const ids = tools.map((definition) => toolIdOf(definition.tool));
    for (const [i, definition] of tools.entries()) {
      const id = ids[i] as string;
      if (seen.has(id) || local.has(id)) {
        throw errors.configuration('tools', `local tool "${id}" is defined twice`, { details: { toolId: id } });
      }
      seen.add(id);
      const had = hasOwnBackend(index, id);
      index.registerTool(definition.tool, localBackend(id));
      if (!had) registered.push(id);
      compileSchemas(checks, storedTool(index, id, definition.tool));
      local.registerHandler(id, definition.handler);
    }
    for (const [i, definition] of tools.entries()) {
      const id = ids[i] as string;
      if (definition.doc !== undefined) docs.registerDoc(id, definition.doc);
      if (definition.examples !== undefined) docs.registerExamples(id, definition.examples);
    }
  } catch (err) {
    for (const id of registered) {
      try {
        index.unregisterBackend(id, 'local', id);
      } catch {
        // A caller's index that refuses the removal keeps the entry: the refusal above is what the caller hears of.
      }
    }
    throw err;
  }
}

/** True when `index` holds the tool `id` with the local backend `tools` gives it already (a caller's index). */
function hasOwnBackend(index: ToolIndex, id: string): boolean {
  try {
    return index.getAllBackends(id).some((backend) => backend.kind === 'local' && backend.local.name === id);
  } catch {
    return false;
  }
}

/**
 * The tool as the index holds it (a frozen copy), whose schema objects the runner validates with:
 * compiling those lets its first call find them by identity. `given` when the index cannot say
 * (a caller's index whose selector throws): the validator then finds it by content.
 */
function storedTool(index: ToolIndex, id: string, given: Tool): Tool {
  try {
    return index.getTool(id).tool;
  } catch {
    return given;
  }
}

function compileSchemas(checks: LocalSchemaChecks, tool: Tool): void {
  if (checks.input) compileToolSchema(checks.validator, tool, 'inputSchema');
  if (checks.output) compileToolSchema(checks.validator, tool, 'outputSchema');
}
