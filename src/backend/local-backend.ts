import { normalizeTags, type Tool } from '../model/index.js';
import { callListener, describeValue, guardCall, textOf, type Deadline } from '../model/internal.js';
import { callDeadline, readCallOptions, settleUnder, type ReadCallOptions } from './call-deadline.js';
import { backendDisabled, backendFailure, errors } from './failures.js';
import type {
  Backend,
  BackendCallOptions,
  BackendProgressListener,
  BackendToolContext,
  BackendToolDefinition,
  BackendToolHandler,
} from './types.js';

const DEFAULT_INPUT_SCHEMA: Tool['inputSchema'] = Object.freeze({ type: 'object' as const });

/**
 * An in-process {@link Backend} built from handler functions: the one store of local tools.
 *
 * @remarks
 * Enabled when created, kind `local`. Definitions are stored under their registration key;
 * `execute` and `get` find a tool by key first, then by its listed name, so a definition whose
 * `name` differs from its key can be called by either. Listings are sorted by key. `start` and
 * `stop` do nothing.
 *
 * It is also the runner's local handler lookup: `createRunner({ local: backend })` calls
 * `backend.get(name)` at dispatch, and the facade's `tools` and `localHandlers` are registered in one
 * (`exec.localHandlers`). So a handler is registered one way, `registerHandler`, whoever calls it.
 */
export class LocalBackend implements Backend {
  /** Always `'local'`. */
  readonly kind = 'local';
  /** The backend name; listed tools get it as their namespace. */
  readonly name: string;
  readonly #definitions = new Map<string, BackendToolDefinition>();
  #enabled = true;
  #version = 0;

  constructor(name: string) {
    if (typeof name !== 'string' || name === '') throw errors.invalidArgument('backend name', 'is required');
    this.name = name;
  }

  /** False after `setEnabled(false)`: listings skip the backend and calls fail with BACKEND_DISABLED. */
  get enabled(): boolean {
    return this.#enabled;
  }

  /** Enables or disables the backend. */
  setEnabled(enabled: boolean): void {
    if (this.#enabled !== (enabled === true)) this.#version += 1;
    this.#enabled = enabled === true;
  }

  /**
   * Changes whenever what {@link LocalBackend.get} answers may change: a tool registered, replaced
   * or removed, the backend enabled or disabled. The runner remembers a tool's handler while it
   * stays the same.
   */
  get version(): number {
    return this.#version;
  }

  /**
   * Registers (or replaces) the tool stored under `key`: a definition (its `name` defaults to
   * `key`) or a bare handler (a tool named `key` with the default input schema).
   *
   * @throws `INVALID_ARGUMENT` for an empty key, a definition that is neither an object nor a
   * function, or one whose `name` is given but is not a string.
   */
  registerHandler(key: string, definition: BackendToolDefinition | BackendToolHandler): void {
    if (typeof key !== 'string' || key === '') throw errors.invalidArgument('tool key', 'is required');
    if (typeof definition === 'function') {
      this.#definitions.set(key, { name: key, handler: definition });
      this.#version += 1;
      return;
    }
    if (definition === null || typeof definition !== 'object') {
      throw errors.invalidArgument(`tool definition for "${textOf(key)}"`, 'must be a handler function or a definition object');
    }
    const copy = guardCall(errors, `tool definition for "${textOf(key)}"`, () => ({ ...definition }));
    if (copy.name !== undefined && typeof copy.name !== 'string') {
      throw errors.invalidArgument(`tool definition for "${textOf(key)}"`, `name must be a string, got ${describeValue(copy.name)}`);
    }
    this.#definitions.set(key, { ...copy, name: copy.name || key });
    this.#version += 1;
  }

  /** Removes the tool stored under `key`; true when there was one. */
  unregisterHandler(key: string): boolean {
    if (!this.#definitions.delete(key)) return false;
    this.#version += 1;
    return true;
  }

  /** True when a tool is stored under `key`. */
  has(key: string): boolean {
    return this.#definitions.has(key);
  }

  /**
   * The handler of the tool stored under `key` (or listed as `key`): what the runner calls for a
   * local backend named `key`. `undefined` when there is none; while the backend is disabled, a
   * handler that refuses with BACKEND_DISABLED, its `details` naming this backend and `key` (`tool`).
   */
  get(key: string): BackendToolHandler | undefined {
    const handler = (this.#definitions.get(key) ?? this.#find(key))?.handler;
    if (typeof handler !== 'function') return undefined;
    if (this.#enabled) return handler;
    return () => {
      throw backendDisabled(this.name, key);
    };
  }

  /** One tool per definition, sorted by key, with `namespace` = the backend name and normalized tags. */
  async listTools(_options?: BackendCallOptions): Promise<Tool[]> {
    const keys = [...this.#definitions.keys()].sort();
    const tools: Tool[] = [];
    for (const key of keys) {
      const definition = this.#definitions.get(key) as BackendToolDefinition;
      const tool: Tool = {
        name: definition.name ?? key,
        inputSchema: definition.inputSchema ?? DEFAULT_INPUT_SCHEMA,
        namespace: this.name,
        tags: normalizeTags(definition.tags ?? []),
      };
      if (definition.title !== undefined) tool.title = definition.title;
      if (definition.description !== undefined) tool.description = definition.description;
      if (definition.outputSchema !== undefined) tool.outputSchema = definition.outputSchema;
      if (definition.annotations !== undefined) tool.annotations = definition.annotations;
      tools.push(tool);
    }
    return tools;
  }

  /**
   * Runs a tool's handler.
   *
   * @remarks
   * The call stops when `options.signal` aborts or `options.deadline` passes, whether the handler
   * listens or not: it rejects at once and the handler's late result is dropped. The handler's
   * `ctx.signal` is the caller's signal, or, when the call has a deadline, one that also aborts when
   * the deadline passes. Nothing stays attached to the caller's signal once the call has settled.
   * With `options.onProgress` (the runner passes its call's listener when the tool is served
   * through a backend registry), the handler's `ctx.onProgress` reports to it; a listener that
   * throws does not fail the handler. Without one, `ctx.onProgress` is absent.
   *
   * @throws `BACKEND_DISABLED` (checked first), `TOOL_NOT_FOUND` (no such tool, or no handler),
   * `INVALID_ARGUMENT` for options that cannot be read, `ABORTED` when the caller's signal aborts
   * (before or during the call; `cause` is its reason), `TIMEOUT` when the deadline passes (or the
   * signal's reason is a `TimeoutError`), `EXECUTION` wrapping the handler's own error (a library
   * error passes through).
   */
  async execute(toolName: string, args: Record<string, unknown>, options?: BackendCallOptions): Promise<unknown> {
    if (!this.#enabled) {
      throw backendDisabled(this.name);
    }
    const definition = this.#find(toolName);
    // the tool name as messages quote it: a string cut to a readable length, anything else described
    const tool = textOf(toolName);
    if (definition === undefined || typeof definition.handler !== 'function') {
      throw errors('TOOL_NOT_FOUND', `tool not found in backend: ${this.name}:${tool}`, {
        details: { backend: this.name, tool },
      });
    }
    const handler = definition.handler;
    const read = readCallOptions(options);
    const stop = callDeadline(read);
    const id = `${this.name}:${tool}`;
    const details = { backend: this.name, tool };
    return settleUnder(
      stop,
      id,
      details,
      () => handler(args ?? {}, new ToolContext(read, stop, id)),
      (err) => backendFailure(err, `${id} failed`, details),
    );
  }

  /** Nothing to start. */
  async start(_options?: BackendCallOptions): Promise<void> {}

  /** Nothing to stop. */
  async stop(): Promise<void> {}

  #find(toolName: string): BackendToolDefinition | undefined {
    const byKey = this.#definitions.get(toolName);
    if (byKey !== undefined) return byKey;
    for (const definition of this.#definitions.values()) {
      if (definition.name === toolName) return definition;
    }
    return undefined;
  }
}

/**
 * The handler's context through `execute`. Its signal is made on first read: the caller's signal,
 * or, when the call has a deadline, the call's own (it also aborts when the deadline passes);
 * without either, one that never aborts.
 */
class ToolContext implements BackendToolContext {
  readonly toolId: string;
  readonly deadline: number | undefined;
  readonly idempotencyKey: string | undefined;
  readonly onProgress?: BackendProgressListener;
  readonly #stop: Deadline | undefined;
  #signal: AbortSignal | undefined;

  constructor(read: ReadCallOptions, stop: Deadline | undefined, toolId: string) {
    this.#signal = read.deadline === undefined ? read.signal : undefined;
    this.#stop = read.deadline === undefined ? undefined : stop;
    this.toolId = toolId;
    this.deadline = read.deadline;
    this.idempotencyKey = read.idempotencyKey;
    const listener = read.onProgress;
    // A report is advisory: the listener's failure is its own, never the handler's.
    if (listener !== undefined) this.onProgress = (progress) => callListener(listener, progress);
  }

  get signal(): AbortSignal {
    return (this.#signal ??= this.#stop?.signal ?? new AbortController().signal);
  }
}

/**
 * Creates an empty, enabled {@link LocalBackend}.
 *
 * @throws `INVALID_ARGUMENT` for an empty name.
 */
export function createLocalBackend(name: string): LocalBackend {
  return new LocalBackend(name);
}
