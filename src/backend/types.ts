import type { Tool } from '../model/index.js';

/** Per-call options of a {@link Backend}. */
export interface BackendCallOptions {
  /** Cancels the work; implementations should stop and reject when it aborts. */
  signal?: AbortSignal;
  /** The call's deadline in epoch milliseconds, when it has one (the runner passes it). */
  deadline?: number;
  /** The caller's idempotency key, when it gave one (the runner passes it; every attempt of a retried call carries the same). */
  idempotencyKey?: string;
}

/**
 * A source of tools: an in-process handler set, an MCP server, an HTTP API, ...
 *
 * @remarks
 * Contract:
 * - Concurrency: safe for concurrent calls.
 * - `name` is unique within a {@link BackendRegistry}, non-empty and without `:` (it prefixes
 *   tool IDs as `name:tool`).
 * - `listTools` returns the tools the backend serves; `execute` runs one by its name.
 * - `start`/`stop` are optional lifecycle hooks (connect, disconnect).
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
  /** Releases what `start` acquired. */
  stop?(): Promise<void>;
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
  /** Reports progress to the caller, when it listens (the runner's `onProgress` and stream events). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
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
  ctx: { signal: AbortSignal; deadline?: number | undefined; idempotencyKey?: string | undefined },
) => Promise<unknown>;

/** A lookup of handlers by name: what the runner's `local` option accepts. */
export interface HandlerLookup {
  /** The handler registered as `name` (`backend:tool`); `undefined` when there is none. */
  get(name: string): BridgedHandler | undefined;
}
