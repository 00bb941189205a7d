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
 * compiled (see {@link LocalSchemaChecks}), its handler in `local` under the tool ID, its doc and
 * examples in `docs`.
 *
 * @throws `CONFIGURATION` for a tool ID defined twice (in `tools`, or already in `local`);
 * `INVALID_TOOL` for a tool the index refuses; `INVALID_SCHEMA` for a schema that does not
 * compile, as the tool's first call would have failed (message and `details`: `tool`, `schema`, `reason`).
 */
export function registerLocalTools(
  tools: readonly LocalToolDefinition[],
  index: ToolIndex,
  local: LocalBackend,
  docs: DocStore,
  checks: LocalSchemaChecks,
): void {
  const seen = new Set<string>();
  for (const definition of tools) {
    const id = toolIdOf(definition.tool);
    if (seen.has(id) || local.has(id)) {
      throw errors.configuration('tools', `local tool "${id}" is defined twice`, { details: { toolId: id } });
    }
    seen.add(id);
    index.registerTool(definition.tool, localBackend(id));
    compileSchemas(checks, registered(index, id, definition.tool));
    local.registerHandler(id, definition.handler);
    if (definition.doc !== undefined) docs.registerDoc(id, definition.doc);
    if (definition.examples !== undefined) docs.registerExamples(id, definition.examples);
  }
}

/**
 * The tool as the index holds it (a frozen copy), whose schema objects the runner validates with:
 * compiling those lets its first call find them by identity. `given` when the index cannot say
 * (a caller's index whose selector throws): the validator then finds it by content.
 */
function registered(index: ToolIndex, id: string, given: Tool): Tool {
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
