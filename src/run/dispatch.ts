import type { ToolBackend } from '../model/index.js';
import { ABORTED, type Deadline } from '../model/internal.js';
import { closeIterator, isAsyncIterable, isPromiseLike } from './async-values.js';
import type { SchemaChecks } from './checks.js';
import { abortToolError, configError, executeFailure, mcpToolError, registryFailure } from './failures.js';
import type { ToolErrorOp } from './errors.js';
import { HandlerContext } from './handler-context.js';
import { normalizeMcpResult } from './normalize.js';
import type { ResolvedRunnerOptions } from './options.js';
import type { Resolved } from './resolution.js';
import type {
  CallToolResult,
  LocalHandler,
  LocalRegistry,
  McpExecutor,
  ProgressEvent,
  ProviderExecutor,
  RunOptions,
  RunResult,
} from './types.js';

/**
 * Dispatch: a validated call to the backend it was resolved to — a local handler, the MCP executor
 * or the provider executor — then its value normalized (MCP) and checked against the output schema.
 * A synchronous handler gives the result synchronously; anything asynchronous races the call's
 * deadline.
 *
 * @internal
 * @module
 */

/** Receives progress reports of one call. */
export type ProgressSink = (progress: ProgressEvent) => void;

/** The three executors of one runner and the calls to them. */
export class Dispatcher {
  readonly #local: LocalRegistry | undefined;
  /** The MCP executor, if configured (streams use it too). */
  readonly mcp: McpExecutor | undefined;
  /** The provider executor, if configured (streams use it too). */
  readonly provider: ProviderExecutor | undefined;
  readonly #checks: SchemaChecks;

  constructor(options: ResolvedRunnerOptions, checks: SchemaChecks) {
    this.#local = options.local;
    this.mcp = options.mcp;
    this.provider = options.provider;
    this.#checks = checks;
  }

  /** Runs the call on `backend`; the result when it was synchronous throughout. */
  dispatch(
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    args: Record<string, unknown>,
    deadline: Deadline | undefined,
    progress: ProgressSink | undefined,
  ): RunResult | Promise<RunResult> {
    switch (backend.kind) {
      case 'local':
        return this.#runLocal(toolId, resolved, backend, args, deadline, progress);
      case 'mcp':
        return this.#runMcp(toolId, resolved, backend, args, deadline, progress);
      case 'provider':
        return this.#runProvider(toolId, resolved, backend, args, deadline, progress);
      default:
        throw configError('execute', toolId, backend, `unknown backend kind: ${String((backend as { kind?: unknown }).kind)}`);
    }
  }

  /** {@link Dispatcher.localHandler} for dispatch, with the common case (a registered string name) kept small. */
  #handler(toolId: string, backend: ToolBackend): LocalHandler {
    const registry = this.#local;
    const name = (backend as { local?: { name?: unknown } }).local?.name;
    if (registry === undefined || typeof name !== 'string') return this.localHandler('execute', toolId, backend);
    let handler: LocalHandler | undefined;
    try {
      handler = registry.get(name);
    } catch (err) {
      throw registryFailure('execute', toolId, backend, name, err);
    }
    return typeof handler === 'function' ? handler : this.localHandler('execute', toolId, backend);
  }

  /** The handler a local backend names. @throws ToolError (`op`) when there is none. */
  localHandler(op: ToolErrorOp, toolId: string, backend: ToolBackend): LocalHandler {
    const registry = this.#local;
    if (registry === undefined) throw configError(op, toolId, backend, 'local registry not configured');
    const target = (backend as { local?: { name?: unknown } }).local;
    if (target === undefined || target === null || typeof target !== 'object') {
      throw configError(op, toolId, backend, 'local backend missing name');
    }
    const name = String(target.name);
    let handler: LocalHandler | undefined;
    try {
      handler = registry.get(name);
    } catch (err) {
      throw registryFailure(op, toolId, backend, name, err);
    }
    if (typeof handler !== 'function') throw configError(op, toolId, backend, `local handler "${name}" not found`);
    return handler;
  }

  #runLocal(
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    args: Record<string, unknown>,
    deadline: Deadline | undefined,
    progress: ProgressSink | undefined,
  ): RunResult | Promise<RunResult> {
    const handler = this.#handler(toolId, backend);
    let out: unknown;
    try {
      out = handler(args, new HandlerContext(toolId, deadline, progress));
    } catch (err) {
      throw executeFailure(toolId, backend, err, deadline);
    }
    if (isPromiseLike(out)) return this.#awaitLocal(out, toolId, resolved, backend, deadline);
    if (isAsyncIterable(out)) return this.#drainLocal(out, toolId, resolved, backend, deadline);
    return this.#finish(toolId, resolved, backend, out);
  }

  async #awaitLocal(
    pending: PromiseLike<unknown>,
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    deadline: Deadline | undefined,
  ): Promise<RunResult> {
    const value = await settle(pending, toolId, backend, deadline);
    if (isAsyncIterable(value)) return this.#drainLocal(value, toolId, resolved, backend, deadline);
    return this.#finish(toolId, resolved, backend, value);
  }

  /** A handler that returned an AsyncIterable: its last chunk is the result. */
  async #drainLocal(
    iterable: AsyncIterable<unknown>,
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    deadline: Deadline | undefined,
  ): Promise<RunResult> {
    let iterator: AsyncIterator<unknown>;
    try {
      iterator = iterable[Symbol.asyncIterator]();
    } catch (err) {
      throw executeFailure(toolId, backend, err, deadline);
    }
    let last: unknown;
    for (;;) {
      let step: IteratorResult<unknown> | typeof ABORTED;
      try {
        const next = iterator.next();
        step = deadline === undefined ? await next : await deadline.race(next);
      } catch (err) {
        throw executeFailure(toolId, backend, err, deadline);
      }
      if (step === ABORTED) {
        closeIterator(iterator);
        throw abortToolError(toolId, 'execute', backend, (deadline as Deadline).reason);
      }
      if (step === null || typeof step !== 'object') {
        throw configError('execute', toolId, backend, 'the handler iterator returned a non-object step');
      }
      if (step.done === true) break;
      last = step.value;
    }
    return this.#finish(toolId, resolved, backend, last);
  }

  #runMcp(
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    args: Record<string, unknown>,
    deadline: Deadline | undefined,
    progress: ProgressSink | undefined,
  ): Promise<RunResult> {
    const executor = this.mcp;
    if (executor === undefined) throw configError('execute', toolId, backend, 'MCP executor not configured');
    const target = (backend as { mcp?: { serverName?: unknown } }).mcp;
    if (target === undefined || target === null || typeof target !== 'object') {
      throw configError('execute', toolId, backend, 'MCP backend missing server name');
    }
    let pending: Promise<CallToolResult>;
    try {
      pending = executor.callTool(
        target.serverName as string,
        { name: resolved.tool.name, arguments: args },
        executorOptions(deadline, progress),
      );
    } catch (err) {
      throw executeFailure(toolId, backend, err, deadline);
    }
    return this.#awaitMcp(pending, toolId, resolved, backend, deadline);
  }

  async #awaitMcp(
    pending: PromiseLike<CallToolResult>,
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    deadline: Deadline | undefined,
  ): Promise<RunResult> {
    const result = (await settle(pending, toolId, backend, deadline)) as CallToolResult | null | undefined;
    if (result === undefined || result === null) return this.#finish(toolId, resolved, backend, undefined);
    if (result.isError === true) throw mcpToolError(toolId, backend, result);
    const structured = normalizeMcpResult(result);
    this.#checks.checkOutput(toolId, resolved, backend, structured);
    return { tool: resolved.tool, backend, structured, mcpResult: result };
  }

  #runProvider(
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    args: Record<string, unknown>,
    deadline: Deadline | undefined,
    progress: ProgressSink | undefined,
  ): Promise<RunResult> {
    const executor = this.provider;
    if (executor === undefined) throw configError('execute', toolId, backend, 'provider executor not configured');
    const target = (backend as { provider?: { providerId?: unknown; toolId?: unknown } }).provider;
    if (target === undefined || target === null || typeof target !== 'object') {
      throw configError('execute', toolId, backend, 'provider backend missing details');
    }
    let pending: Promise<unknown>;
    try {
      pending = executor.callTool(target.providerId as string, target.toolId as string, args, executorOptions(deadline, progress));
    } catch (err) {
      throw executeFailure(toolId, backend, err, deadline);
    }
    return this.#awaitProvider(pending, toolId, resolved, backend, deadline);
  }

  async #awaitProvider(
    pending: PromiseLike<unknown>,
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    deadline: Deadline | undefined,
  ): Promise<RunResult> {
    const value = await settle(pending, toolId, backend, deadline);
    return this.#finish(toolId, resolved, backend, value);
  }

  #finish(toolId: string, resolved: Resolved, backend: ToolBackend, structured: unknown): RunResult {
    this.#checks.checkOutput(toolId, resolved, backend, structured);
    return { tool: resolved.tool, backend, structured };
  }
}

/** Awaits dispatch work, racing the call's deadline; maps failures to ToolErrors. */
async function settle(
  pending: PromiseLike<unknown>,
  toolId: string,
  backend: ToolBackend,
  deadline: Deadline | undefined,
): Promise<unknown> {
  let value: unknown;
  try {
    value = deadline === undefined ? await pending : await deadline.race(pending);
  } catch (err) {
    throw executeFailure(toolId, backend, err, deadline);
  }
  if (value === ABORTED) throw abortToolError(toolId, 'execute', backend, (deadline as Deadline).reason);
  return value;
}

function executorOptions(deadline: Deadline | undefined, progress: ProgressSink | undefined): RunOptions | undefined {
  if (deadline === undefined && progress === undefined) return undefined;
  const options: RunOptions = {};
  if (deadline !== undefined) options.signal = deadline.signal;
  if (progress !== undefined) options.onProgress = progress;
  return options;
}
