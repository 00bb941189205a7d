import { ToolexecError, errorMessage, localBackend, type Tool } from '../model/index.js';
import { describeValue, guardCall } from '../model/internal.js';
import { callDeadline, handedOptions, raceUnder, readCallOptions } from './call-deadline.js';
import { backendFailure, errors } from './failures.js';
import { enabledBackends, type BackendRegistry } from './registry.js';
import { formatBackendToolId, parseBackendToolId } from './tool-id.js';
import type { BackendCallOptions, ToolRegistrar } from './types.js';

/**
 * One view over every backend of a registry: list all their tools,
 * run a tool by `backend:tool`.
 */
export class BackendAggregator {
  readonly #registry: BackendRegistry;

  /** @throws `INVALID_ARGUMENT` for a `registry` that is not a {@link BackendRegistry}. */
  constructor(registry: BackendRegistry) {
    if (!isRegistry(registry)) throw errors.invalidArgument('registry', 'must be a BackendRegistry');
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
   * A backend's listing is all or nothing: one that is not an array, or that holds an entry that is
   * not a tool object with a non-empty string `name` (`null`, a string, an object without a name,
   * an object whose properties cannot be read), fails the whole call; bad entries are never skipped.
   *
   * `options.signal` and `options.deadline` bound the whole listing, whether the backends listen or
   * not: an aborted signal (already, or during the listing) rejects at once with `ABORTED`, a passed
   * deadline with `TIMEOUT`; a backend's late listing is dropped.
   *
   * @throws `INVALID_ARGUMENT` for options that cannot be read; `ABORTED` (`cause` = the signal's
   * reason) / `TIMEOUT`; the first backend failure: a library error as is, a rejection of `listTools` as
   * `EXECUTION` (its error as `cause`), a listing that is not tools as `EXECUTION` naming the
   * backend (`details.backend`, `details.op: 'listTools'`, `details.index` of the bad entry).
   */
  async listAllTools(options?: BackendCallOptions): Promise<Tool[]> {
    const all: Tool[] = [];
    for (const { tools } of await listEnabledTools(this.#registry, options)) all.push(...tools);
    return all;
  }

  /**
   * Runs `backend:tool` on that backend, through {@link BackendRegistry.execute}: the call stops
   * when `options.signal` aborts or `options.deadline` passes, whether the backend listens or not.
   *
   * @throws `INVALID_TOOL_ID` (malformed, or no backend part), `BACKEND_NOT_FOUND`,
   * `BACKEND_DISABLED`, `INVALID_ARGUMENT` for options that cannot be read, `ABORTED` when the
   * caller's signal aborts (`cause` is its reason), `TIMEOUT` when the deadline passes, or the
   * backend's failure (a library error as is, anything else as EXECUTION with it as `cause`).
   */
  async execute(toolId: string, args?: Record<string, unknown>, options?: BackendCallOptions): Promise<unknown> {
    const { backend: name, tool } = parseBackendToolId(toolId);
    if (name === '') {
      throw errors('INVALID_TOOL_ID', `invalid tool ID format: "${toolId}" names no backend (expected backend:tool)`, {
        details: { id: toolId },
      });
    }
    return this.#registry.execute(name, tool, args ?? {}, options);
  }
}

/**
 * Creates a {@link BackendAggregator} over `registry`.
 *
 * @throws `INVALID_ARGUMENT` for a `registry` that is not a {@link BackendRegistry}.
 */
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
 * ID `tools:echo`. Every backend is listed before anything is registered: a failing listing, or
 * one that holds something that is not a tool (see {@link BackendAggregator.listAllTools}),
 * registers nothing. A tool the index refuses stops the registration with the index's code, named
 * by backend and tool (`details.backend`, `details.tool`); the tools registered before it stay.
 * Registering again re-registers (the index decides whether that replaces or adds). Resolves with
 * the number of tools registered. `options.signal` and `options.deadline` bound the listing as in
 * {@link BackendAggregator.listAllTools} (`ABORTED` / `TIMEOUT`; nothing is registered then).
 *
 * @throws `INVALID_ARGUMENT` for an index without a `registerTool` method or a registry that is not
 * a {@link BackendRegistry}; the listing failures of {@link BackendAggregator.listAllTools}; the
 * index's refusal of a tool (its code, e.g. `INVALID_TOOL`; an index that throws something else:
 * `INVALID_ARGUMENT`), with it as `cause`.
 *
 * @example
 * ```ts
 * await registerBackendTools(index, registry);
 * const runner = createRunner({ index, backends: registry });
 * await runner.run('tools:echo', { message: 'hi' });
 * ```
 */
export async function registerBackendTools(index: ToolRegistrar, registry: BackendRegistry, options?: BackendCallOptions): Promise<number> {
  const register = guardCall(errors, 'index', () => {
    if (index === null || typeof index !== 'object' || typeof index.registerTool !== 'function') {
      throw errors.invalidArgument('index', 'must have a registerTool method');
    }
    return index.registerTool.bind(index);
  });
  if (!isRegistry(registry)) throw errors.invalidArgument('registry', 'must be a BackendRegistry');
  let count = 0;
  for (const { name, tools } of await listEnabledTools(registry, options)) {
    for (const tool of tools) {
      const binding = localBackend(formatBackendToolId(name, tool.name)) as { kind: 'local'; local: { name: string } };
      try {
        register(tool, binding);
      } catch (err) {
        throw refusedTool(err, name, tool.name);
      }
      count++;
    }
  }
  return count;
}

/** One enabled backend's listing: its registered name and its tools, checked and copied (namespace filled in). */
interface Listing {
  name: string;
  tools: Tool[];
}

/**
 * Every enabled backend's listing, in name order, under one deadline made of `options` (see
 * `call-deadline.ts`): a stopped signal or a passed deadline rejects at once (ABORTED / TIMEOUT),
 * without waiting for a backend that ignores its signal.
 */
async function listEnabledTools(registry: BackendRegistry, options: BackendCallOptions | undefined): Promise<Listing[]> {
  const read = readCallOptions(options);
  const stop = callDeadline(read);
  try {
    const listings: Listing[] = [];
    for (const [name, backend] of enabledBackends(registry)) {
      const details = { backend: name, op: 'listTools' };
      const failure = (err: unknown): ToolexecError => backendFailure(err, `list tools of ${name} failed`, details);
      const listed = await raceUnder(
        stop,
        `list tools of ${name}`,
        details,
        () => backend.listTools(stop === undefined ? options : handedOptions(read, stop)),
        failure,
      );
      try {
        listings.push({ name, tools: checkedTools(name, listed) });
      } catch (err) {
        throw failure(err);
      }
    }
    return listings;
  } finally {
    stop?.dispose();
  }
}

/**
 * Copies of the tools a backend listed, with the backend's name as namespace where they have none.
 *
 * @throws `EXECUTION` for a listing that is not an array or an entry that is not a tool object with
 * a non-empty string name; whatever reading the listing throws (a throwing getter, a revoked proxy)
 * for the caller to wrap.
 */
function checkedTools(name: string, listed: unknown): Tool[] {
  if (!Array.isArray(listed)) throw notTools(name, `listed ${describeValue(listed)} instead of an array of tools`);
  const tools: Tool[] = [];
  for (let index = 0; index < listed.length; index++) {
    const entry: unknown = listed[index];
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw notTools(name, `listed ${describeValue(entry)} at index ${index}, not a tool`, index);
    }
    const tool = { ...(entry as Tool) };
    if (typeof tool.name !== 'string' || tool.name === '') {
      throw notTools(name, `listed a tool without a name at index ${index} (name: ${describeValue(tool.name)})`, index);
    }
    if (!tool.namespace) tool.namespace = name;
    tools.push(tool);
  }
  return tools;
}

/** EXECUTION: backend `name` listed something that is not tools. */
function notTools(name: string, what: string, index?: number): ToolexecError {
  const details: Record<string, unknown> = { backend: name, op: 'listTools' };
  if (index !== undefined) details.index = index;
  return errors('EXECUTION', `list tools of ${name} failed: the backend ${what}`, { details });
}

/** The index's refusal of a backend's tool, named by backend and tool: the index's code, or INVALID_ARGUMENT. */
function refusedTool(err: unknown, backend: string, tool: string): ToolexecError {
  const id = formatBackendToolId(backend, tool);
  const details = { backend, tool };
  if (!ToolexecError.isInstance(err)) {
    return errors.invalidArgument('index', `refused tool ${id}: ${errorMessage(err)}`, { cause: err, details });
  }
  return errors(err.code, `register tool ${id} failed: ${err.message}`, { cause: err, details: { ...err.details, ...details } });
}

/** A {@link BackendRegistry}, or anything with its `names`, `get` and `execute` methods. */
function isRegistry(value: unknown): value is BackendRegistry {
  return guardCall(
    errors,
    'registry',
    () =>
      value !== null &&
      typeof value === 'object' &&
      typeof (value as { names?: unknown }).names === 'function' &&
      typeof (value as { get?: unknown }).get === 'function' &&
      typeof (value as { execute?: unknown }).execute === 'function',
  );
}
