import { localBackend, type Tool } from '../model/index.js';
import { backendDisabled, backendFailure, backendNotFound, errors } from './failures.js';
import type { BackendRegistry } from './registry.js';
import { formatBackendToolId, parseBackendToolId } from './tool-id.js';
import type { Backend, BackendCallOptions, ToolRegistrar } from './types.js';

/**
 * One view over every backend of a registry: list all their tools,
 * run a tool by `backend:tool`.
 */
export class BackendAggregator {
  readonly #registry: BackendRegistry;

  constructor(registry: BackendRegistry) {
    if (registry === null || typeof registry !== 'object') throw errors.invalidArgument('registry', 'is required');
    this.#registry = registry;
  }

  /**
   * The tools of every enabled backend, backends in name order. A tool without a namespace gets
   * the backend's name as namespace (a copy is returned; the backend's objects are not changed).
   *
   * A tool that has a namespace of its own keeps it, so its tool ID (`geo:lookup`) does not name
   * its backend: {@link BackendAggregator.execute} takes `backend:toolName` (`remote:lookup`), not
   * the tool ID. To call tools by their IDs, register them with {@link registerBackendTools} and
   * run them through a runner given the registry.
   *
   * @throws the first backend failure (a library error as is, anything else as EXECUTION).
   */
  async listAllTools(options?: BackendCallOptions): Promise<Tool[]> {
    const all: Tool[] = [];
    for (const { backend, tools } of await listEnabledTools(this.#registry, options)) {
      for (const tool of tools) all.push(withNamespace(tool, backend.name));
    }
    return all;
  }

  /**
   * Runs `backend:tool` on that backend.
   *
   * @throws `INVALID_TOOL_ID` (malformed, or no backend part), `BACKEND_NOT_FOUND`,
   * `BACKEND_DISABLED`, or the backend's failure (a library error as is, anything else as EXECUTION).
   */
  async execute(toolId: string, args?: Record<string, unknown>, options?: BackendCallOptions): Promise<unknown> {
    const { backend: name, tool } = parseBackendToolId(toolId);
    if (name === '') {
      throw errors('INVALID_TOOL_ID', `invalid tool ID format: "${toolId}" names no backend (expected backend:tool)`, {
        details: { id: toolId },
      });
    }
    const backend = this.#registry.get(name);
    if (backend === undefined) throw backendNotFound(name);
    if (!backend.enabled) throw backendDisabled(name);
    try {
      return await backend.execute(tool, args ?? {}, options);
    } catch (err) {
      throw backendFailure(err, `${toolId} failed`, { backend: name, tool });
    }
  }
}

/** Creates a {@link BackendAggregator} over `registry`. */
export function createAggregator(registry: BackendRegistry): BackendAggregator {
  return new BackendAggregator(registry);
}

/**
 * Registers the tools of every enabled backend in an index (any {@link ToolRegistrar}, such as a
 * `ToolIndex`), each bound to the local backend `backendName:toolName`; a runner given the
 * registry (its `backends` option) then runs them through `backend.execute`.
 *
 * @remarks
 * Tools without a namespace get the backend's name, so a tool `echo` of backend `tools` has the
 * ID `tools:echo`. Every backend is listed before anything is registered: a failing listing
 * registers nothing. Registering again re-registers (the index decides whether that replaces or
 * adds). Resolves with the number of tools registered.
 *
 * @example
 * ```ts
 * await registerBackendTools(index, registry);
 * const runner = createRunner({ index, backends: registry });
 * await runner.run('tools:echo', { message: 'hi' });
 * ```
 */
export async function registerBackendTools(index: ToolRegistrar, registry: BackendRegistry, options?: BackendCallOptions): Promise<number> {
  if (index === null || typeof index !== 'object' || typeof index.registerTool !== 'function') {
    throw errors.invalidArgument('index', 'must have a registerTool method');
  }
  let count = 0;
  for (const { backend, tools } of await listEnabledTools(registry, options)) {
    for (const tool of tools) {
      index.registerTool(
        withNamespace(tool, backend.name),
        localBackend(formatBackendToolId(backend.name, tool.name)) as {
          kind: 'local';
          local: { name: string };
        },
      );
      count++;
    }
  }
  return count;
}

async function listEnabledTools(
  registry: BackendRegistry,
  options: BackendCallOptions | undefined,
): Promise<Array<{ backend: Backend; tools: Tool[] }>> {
  const listings: Array<{ backend: Backend; tools: Tool[] }> = [];
  for (const backend of registry.listEnabled()) {
    let tools: Tool[];
    try {
      tools = await backend.listTools(options);
    } catch (err) {
      throw backendFailure(err, `list tools of ${backend.name} failed`, { backend: backend.name, op: 'listTools' });
    }
    listings.push({ backend, tools: Array.isArray(tools) ? tools : [] });
  }
  return listings;
}

function withNamespace(tool: Tool, namespace: string): Tool {
  return tool.namespace ? { ...tool } : { ...tool, namespace };
}
