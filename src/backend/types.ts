import type { Tool } from '../model/index.js';

/** Per-call options of a {@link Backend}. */
export interface BackendCallOptions {
  /** Cancels the work; implementations should stop and reject when it aborts. */
  signal?: AbortSignal;
  /** The call's deadline in epoch milliseconds, when it has one (the runner passes it). */
  deadline?: number;
  /**
   * The caller's idempotency key, when it gave one (the runner passes it; every attempt of a
   * retried call carries the same): a string of 1 to 256 characters, else `INVALID_ARGUMENT`.
   */
  idempotencyKey?: string;
  /**
   * Receives the work's progress reports, when the caller listens: the runner passes its call's
   * `onProgress` (or its stream's `progress` events) for a tool it dispatches to the backend; a
   * {@link LocalBackend} hands it to the handler as `ctx.onProgress`.
   */
  onProgress?: BackendProgressListener;
}

/** A progress report's listener, as a backend is handed one ({@link BackendCallOptions.onProgress}). */
export type BackendProgressListener = (progress: { progress: number; total?: number; message?: string }) => void;

/**
 * A source of tools: an in-process handler set, an MCP server, an HTTP API, ...
 *
 * @remarks
 * Contract:
 * - Concurrency: safe for concurrent calls.
 * - `name` is unique within a {@link BackendRegistry}, non-empty and without `:` (it prefixes
 *   tool IDs as `name:tool`).
 * - `listTools` returns the tools the backend serves; `execute` runs one by its name.
 * - `start`/`stop` are optional lifecycle hooks (connect, disconnect); when handed a signal, they
 *   should give up once it aborts (the registry does not wait for them then).
 */
export interface Backend {
  /** What kind of backend this is (`'local'`, `'mcp'`, `'http'`, ...). */
  readonly kind: string;
  /** The backend's unique name. */
  readonly name: string;
  /** A disabled backend is skipped by listings and refuses calls (BACKEND_DISABLED). */
  readonly enabled: boolean;
  /** The tools this backend serves. */
  listTools(options?: BackendCallOptions): Promise<Tool[]>;
  /** Runs the tool `toolName` with `args`; resolves with its result. */
  execute(toolName: string, args: Record<string, unknown>, options?: BackendCallOptions): Promise<unknown>;
  /** Runs the tool and streams partial results, when the backend can. */
  executeStream?(toolName: string, args: Record<string, unknown>, options?: BackendCallOptions): AsyncIterable<unknown>;
  /** Prepares the backend (connects, spawns, ...). */
  start?(options?: BackendCallOptions): Promise<void>;
  /**
   * Releases what `start` acquired.
   *
   * @param options - what {@link BackendRegistry.stopAll} and {@link BackendRegistry.unregister}
   *   hand on: `signal` aborts when their caller gives up or their deadline passes (the caller's
   *   `deadline`, else 10 s from the call), and may have aborted already: stop at once then (close
   *   rather than drain), since the registry no longer waits; `deadline` is that moment in epoch
   *   milliseconds. Optional: a backend may be stopped directly without it, and an implementation
   *   may ignore it.
   */
  stop?(options?: BackendCallOptions): Promise<void>;
}

/**
 * What a local tool handler receives besides its arguments: the same context whether the runner
 * calls the handler (`createRunner({ local })`, the facade's tools) or {@link LocalBackend.execute} does.
 */
export interface BackendToolContext {
  /** Aborted when the caller gives up; stop work when it fires. */
  signal: AbortSignal;
  /** The ID the call was made with: the runner's canonical ID, or `backend:tool` through `execute`. */
  toolId: string;
  /**
   * Reports progress to the caller; present only when it listens: the runner's `onProgress` and
   * `runStream`'s `progress` events, whether the runner calls the handler itself (`local`) or
   * through a backend registry (`createRunner({ backends })`, which hands it on as
   * {@link BackendCallOptions.onProgress}), and `options.onProgress` of
   * {@link LocalBackend.execute}. A listener that throws does not fail the handler.
   */
  onProgress?: BackendProgressListener;
  /** The call's deadline in epoch milliseconds, when it has one (for work handed on: an HTTP request's timeout). */
  readonly deadline?: number | undefined;
  /** The caller's idempotency key, when it gave one (every attempt of a retried call carries the same). */
  readonly idempotencyKey?: string | undefined;
}

/** An in-process tool implementation: what a {@link LocalBackend} stores and the runner's local dispatch calls. */
export type BackendToolHandler = (args: Record<string, unknown>, ctx: BackendToolContext) => unknown;

/**
 * A tool served by a {@link LocalBackend}: the tool's fields plus its handler.
 */
export interface BackendToolDefinition {
  /** @defaultValue the registration key */
  name?: string;
  /** The tool's display title; copied to the listed tool. */
  title?: string;
  /** What the tool does; copied to the listed tool. */
  description?: string;
  /** @defaultValue `{ type: 'object' }` */
  inputSchema?: Tool['inputSchema'];
  /** The JSON Schema of the handler's result; copied to the listed tool (the runner checks results against it). */
  outputSchema?: Tool['outputSchema'];
  /** MCP behaviour hints (`readOnlyHint`, ...); copied to the listed tool. */
  annotations?: Tool['annotations'];
  /** Normalized (`normalizeTags`) when listed. */
  tags?: string[];
  /** Runs the tool. A definition without one lists, but calls fail with TOOL_NOT_FOUND. */
  handler: BackendToolHandler;
}

/**
 * A place tools can be registered with a backend binding: a `ToolIndex` of `toolexec/discovery`
 * fits (typed structurally: this layer does not import discovery).
 */
export interface ToolRegistrar {
  /** Registers `tool` bound to the local handler named `backend.local.name` (`backend:tool`). */
  registerTool(tool: Tool, backend: { kind: 'local'; local: { name: string } }): void;
}

/**
 * A handler as the runner's local registry hands it out (typed structurally: this layer does not
 * import run). The runner's `LocalHandler` context has these fields and more.
 */
export type BridgedHandler = (
  args: Record<string, unknown>,
  ctx: {
    signal: AbortSignal;
    deadline?: number | undefined;
    idempotencyKey?: string | undefined;
    onProgress?: BackendProgressListener | undefined;
  },
) => Promise<unknown>;

/** A lookup of handlers by name: what the runner's `local` option accepts. */
export interface HandlerLookup {
  /** The handler registered as `name` (`backend:tool`); `undefined` when there is none. */
  get(name: string): BridgedHandler | undefined;
}
