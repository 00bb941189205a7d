import type { ToolBackend } from '../model/index.js';
import type { BackendRegistry } from '../backend/index.js';
import { bridgedStreamOf, type BridgedStream } from '../backend/internal.js';
import { ABORTED, type Deadline } from '../model/internal.js';
import { closeIterator, isAsyncIterable, isPromiseLike } from './async-values.js';
import type { SchemaChecks } from './checks.js';
import { checkCallToolResult } from './call-result.js';
import { abortToolError, configError, dispatchFailure, executeFailure, mcpToolError, registryFailure } from './failures.js';
import type { ToolError, ToolErrorOp } from './errors.js';
import { HandlerContext } from './handler-context.js';
import { normalizeMcpResult } from './normalize.js';
import type { ResolvedRunnerOptions } from './options.js';
import type { Resolved } from './resolution.js';
import type { CallToolResult, RunOptions, LocalHandler, LocalRegistry, McpExecutor, ProgressEvent, ProviderExecutor } from './types.js';
import type { RunResult } from './types.js';

/**
 * Dispatch: a validated call to the backend it was resolved to — a local handler, the MCP executor
 * or the provider executor — then its value normalized (MCP) and checked against the output schema.
 * A synchronous handler gives the result synchronously; anything asynchronous races the call's
 * deadline.
 *
 * @internal
 * @module
 */

/** A call that went asynchronous: what finishing it needs. */
interface PendingCall {
  toolId: string;
  resolved: Resolved;
  backend: ToolBackend;
  deadline: Deadline | undefined;
}

/** Receives progress reports of one call. */
export type ProgressSink = (progress: ProgressEvent) => void;

/** The three executors of one runner and the calls to them. */
export class Dispatcher {
  readonly #local: LocalRegistry | undefined;
  readonly #backends: BackendRegistry | undefined;
  /** The MCP executor, if configured (streams use it too). */
  readonly mcp: McpExecutor | undefined;
  /** The provider executor, if configured (streams use it too). */
  readonly provider: ProviderExecutor | undefined;
  readonly #checks: SchemaChecks;

  constructor(options: ResolvedRunnerOptions, checks: SchemaChecks) {
    this.#local = options.local;
    this.#backends = options.backends;
    this.mcp = options.mcp;
    this.provider = options.provider;
    this.#checks = checks;
  }

  /**
   * Runs the call on `backend`; the result when it was synchronous throughout.
   *
   * A synchronous local handler's path stays small (its rare branches are methods of their own)
   * so that V8 can inline more of it into the runner's call.
   */
  dispatch(
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    args: Record<string, unknown>,
    deadline: Deadline | undefined,
    progress: ProgressSink | undefined,
    idempotencyKey?: string,
  ): RunResult | Promise<RunResult> {
    if (backend.kind !== 'local') return this.#runRemote({ toolId, resolved, backend, deadline }, args, progress, idempotencyKey);
    const handler = this.#handler(toolId, resolved, backend);
    let out: unknown;
    let pending: boolean;
    try {
      out = handler(args, new HandlerContext(toolId, deadline, progress, idempotencyKey));
      // reads the value's `then` and `Symbol.asyncIterator`, which may throw (a hostile value)
      pending = isPromiseLike(out) || isAsyncIterable(out);
    } catch (err) {
      throw executeFailure(toolId, backend, err, deadline);
    }
    if (pending) return this.#settleLocal(out, { toolId, resolved, backend, deadline });
    return this.#finish(toolId, resolved, backend, out);
  }

  /** A local handler's value that is a promise or an AsyncIterable: awaited, or drained. */
  #settleLocal(out: unknown, call: PendingCall): Promise<RunResult> {
    return isPromiseLike(out) ? this.#awaitLocal(out, call) : this.#drainLocal(out as AsyncIterable<unknown>, call);
  }

  /**
   * {@link Dispatcher.localHandler} for dispatch: the handler of a resolution's selected backend
   * is remembered with it while the registry's `version` stays the same (see
   * {@link LocalRegistry.version}).
   */
  #handler(toolId: string, resolved: Resolved, backend: ToolBackend): LocalHandler {
    const remembered = resolved.handler;
    if (remembered !== undefined && backend === resolved.selected && resolved.handlerVersion === this.#registryVersion()) return remembered;
    return this.#findHandler(toolId, resolved, backend);
  }

  /** The local registry's `version`, when it has a numeric one (a getter that throws: none). */
  #registryVersion(): number | undefined {
    const registry = this.#local;
    if (registry === undefined) return undefined;
    let version: unknown;
    try {
      version = registry.version;
    } catch {
      return undefined;
    }
    return typeof version === 'number' ? version : undefined;
  }

  /** The handler `backend` names, looked up in the registry (and remembered, see {@link Dispatcher.#handler}). */
  #findHandler(toolId: string, resolved: Resolved, backend: ToolBackend): LocalHandler {
    const registry = this.#local;
    if (registry === undefined) return this.localHandler('execute', toolId, backend);
    const version = this.#registryVersion();
    const name = (backend as { local?: { name?: unknown } }).local?.name;
    if (typeof name !== 'string') return this.localHandler('execute', toolId, backend);
    let handler: LocalHandler | undefined;
    try {
      handler = registry.get(name);
    } catch (err) {
      throw registryFailure('execute', toolId, backend, name, err);
    }
    if (typeof handler !== 'function') return this.localHandler('execute', toolId, backend);
    if (backend === resolved.selected && version !== undefined) {
      resolved.handler = handler;
      resolved.handlerVersion = version;
    }
    return handler;
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

  #awaitLocal(pending: PromiseLike<unknown>, call: PendingCall): Promise<RunResult> {
    return settle(pending, call.toolId, call.backend, call.deadline, (value) => {
      let iterable: boolean;
      try {
        iterable = isAsyncIterable(value);
      } catch (err) {
        throw executeFailure(call.toolId, call.backend, err, call.deadline);
      }
      return iterable
        ? this.#drainLocal(value as AsyncIterable<unknown>, call)
        : this.#finish(call.toolId, call.resolved, call.backend, value);
    });
  }

  /** A handler that returned an AsyncIterable: its last chunk is the result. */
  async #drainLocal(iterable: AsyncIterable<unknown>, call: PendingCall): Promise<RunResult> {
    const { toolId, backend, deadline } = call;
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
      let done: unknown, value: unknown;
      try {
        ({ done, value } = step);
      } catch (err) {
        closeIterator(iterator);
        throw executeFailure(toolId, backend, err, deadline);
      }
      if (done === true) break;
      last = value;
    }
    return this.#finish(toolId, call.resolved, backend, last);
  }

  /**
   * An `mcp` or `provider` call: the executor's promise, awaited under the call's deadline. Any
   * other kind of backend is a configuration error.
   */
  #runRemote(
    call: PendingCall,
    args: Record<string, unknown>,
    progress: ProgressSink | undefined,
    idempotencyKey: string | undefined,
  ): Promise<RunResult> {
    const { toolId, resolved, backend, deadline } = call;
    const kind = backend.kind;
    if (kind !== 'mcp' && kind !== 'provider') throw configError('execute', toolId, backend, `unknown backend kind: ${String(kind)}`);
    const registered = this.#registered(backend, resolved.tool.name);
    if (registered !== undefined) {
      // A backend of the registry serves this server or provider: it runs the tool by its name there.
      const backends = this.#backends as BackendRegistry;
      const options = executorOptions(deadline, progress, idempotencyKey);
      const mcp = backend.kind === 'mcp';
      return this.#callRemote(
        toolId,
        backend,
        deadline,
        () => backends.execute(registered.name, registered.tool, args, options),
        (value) =>
          mcp
            ? this.#finishMcp(toolId, resolved, backend, value as CallToolResult | null | undefined)
            : this.#finish(toolId, resolved, backend, value),
      );
    }
    if (backend.kind === 'mcp') {
      const executor = this.mcp;
      if (executor === undefined) throw configError('execute', toolId, backend, 'MCP executor not configured');
      const target = targetOf(toolId, backend, 'mcp', 'MCP backend missing server name');
      const params = { name: resolved.tool.name, arguments: args };
      return this.#callRemote(
        toolId,
        backend,
        deadline,
        () => executor.callTool(target.serverName as string, params, executorOptions(deadline, progress, idempotencyKey)),
        (value) => this.#finishMcp(toolId, resolved, backend, value as CallToolResult | null | undefined),
      );
    }
    const executor = this.provider;
    if (executor === undefined) throw configError('execute', toolId, backend, 'provider executor not configured');
    const target = targetOf(toolId, backend, 'provider', 'provider backend missing details');
    return this.#callRemote(
      toolId,
      backend,
      deadline,
      () =>
        executor.callTool(target.providerId as string, target.toolId as string, args, executorOptions(deadline, progress, idempotencyKey)),
      (value) => this.#finish(toolId, resolved, backend, value),
    );
  }

  /**
   * The registry backend that serves an `mcp` or `provider` tool backend, when the runner has a
   * registry and it holds a backend named like the server (`mcp.serverName`) or the provider
   * (`provider.providerId`); with the tool's name there (the tool's MCP name, or `provider.toolId`).
   */
  #registered(backend: ToolBackend, mcpName: string): { name: string; tool: string } | undefined {
    const backends = this.#backends;
    if (backends === undefined) return undefined;
    const target = (backend as unknown as Record<string, { serverName?: unknown; providerId?: unknown; toolId?: unknown } | undefined>)[
      backend.kind
    ];
    if (target === undefined || target === null || typeof target !== 'object') return undefined;
    const name = backend.kind === 'mcp' ? target.serverName : target.providerId;
    if (typeof name !== 'string' || backends.get(name) === undefined) return undefined;
    const tool = backend.kind === 'mcp' ? mcpName : target.toolId;
    return typeof tool === 'string' ? { name, tool } : undefined;
  }

  /**
   * The stream of an `mcp` or `provider` tool backend served by a registry backend that implements
   * `executeStream` (see {@link Dispatcher.dispatch}); `undefined` when there is none (the
   * executors stream it).
   */
  registeredStream(backend: ToolBackend, mcpName: string): BridgedStream | undefined {
    const registered = this.#registered(backend, mcpName);
    if (registered === undefined) return undefined;
    const bridge = (this.#backends as BackendRegistry).localRegistry();
    return bridgedStreamOf(bridge.get(`${registered.name}:${registered.tool}`));
  }

  /** Calls an executor and waits for it under the call's deadline; `finish` makes the result. */
  #callRemote(
    toolId: string,
    backend: ToolBackend,
    deadline: Deadline | undefined,
    call: () => PromiseLike<unknown>,
    finish: (value: unknown) => RunResult,
  ): Promise<RunResult> {
    let pending: PromiseLike<unknown>;
    try {
      pending = call();
    } catch (err) {
      throw executeFailure(toolId, backend, err, deadline);
    }
    return settle(pending, toolId, backend, deadline, finish);
  }

  /**
   * An MCP result: checked ({@link checkCallToolResult}: not a `CallToolResult` → PROTOCOL; `null`,
   * no result, passes), `isError` → EXECUTION, else normalized and checked against the output
   * schema. A result that cannot be read (a throwing getter) → EXECUTION with that error as cause.
   */
  #finishMcp(toolId: string, resolved: Resolved, backend: ToolBackend, result: CallToolResult | null | undefined): RunResult {
    if (result === null) return this.#finish(toolId, resolved, backend, undefined);
    let structured: unknown;
    let reported: ToolError | undefined;
    try {
      checkCallToolResult(String((backend as { mcp?: { serverName?: unknown } }).mcp?.serverName), result);
      if ((result as CallToolResult).isError === true) reported = mcpToolError(toolId, backend, result as CallToolResult);
      else structured = normalizeMcpResult(result);
    } catch (err) {
      throw dispatchFailure('execute', toolId, backend, err);
    }
    if (reported !== undefined) throw reported;
    this.#checks.checkOutput(toolId, resolved, backend, structured);
    return { tool: resolved.tool, backend, structured, mcpResult: result };
  }

  #finish(toolId: string, resolved: Resolved, backend: ToolBackend, structured: unknown): RunResult {
    this.#checks.checkOutput(toolId, resolved, backend, structured);
    return { tool: resolved.tool, backend, structured };
  }
}

/**
 * Awaits dispatch work, racing the call's deadline, and makes the result of its value with
 * `finish`; a failure becomes a ToolError. One await per call, whatever the backend.
 */
async function settle(
  pending: PromiseLike<unknown>,
  toolId: string,
  backend: ToolBackend,
  deadline: Deadline | undefined,
  finish: (value: unknown) => RunResult | Promise<RunResult>,
): Promise<RunResult> {
  let value: unknown;
  try {
    value = deadline === undefined ? await pending : await deadline.race(pending);
  } catch (err) {
    throw executeFailure(toolId, backend, err, deadline);
  }
  if (value === ABORTED) throw abortToolError(toolId, 'execute', backend, (deadline as Deadline).reason);
  return finish(value);
}

/** The target of an `mcp` or `provider` backend (`backend.mcp`, `backend.provider`). @throws EXECUTION when it has none. */
function targetOf(toolId: string, backend: ToolBackend, key: 'mcp' | 'provider', missing: string): Record<string, unknown> {
  const target = (backend as unknown as Record<string, unknown>)[key];
  if (target === undefined || target === null || typeof target !== 'object') throw configError('execute', toolId, backend, missing);
  return target as Record<string, unknown>;
}

/**
 * What an executor is given: the call's signal, its deadline as epoch milliseconds (the time left
 * is the request's budget), the progress listener and the idempotency key.
 *
 * @internal
 */
export function executorOptions(
  deadline: Deadline | undefined,
  progress: ProgressSink | undefined,
  idempotencyKey: string | undefined,
): (RunOptions & { deadline?: number }) | undefined {
  if (deadline === undefined && progress === undefined && idempotencyKey === undefined) return undefined;
  const options: RunOptions & { deadline?: number } = {};
  if (deadline !== undefined) {
    options.signal = deadline.signal;
    const deadlineMs = deadline.deadlineMs;
    if (deadlineMs !== undefined) options.deadline = deadlineMs;
  }
  if (progress !== undefined) options.onProgress = progress;
  if (idempotencyKey !== undefined) options.idempotencyKey = idempotencyKey;
  return options;
}
