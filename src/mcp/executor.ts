import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, McpError, type Progress, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ToolexecError, type McpTool } from '../model/index.js';
import {
  ABORTED,
  Deadline,
  asLibraryError,
  describeValue,
  linkedSignal,
  readField,
  readFunction,
  readOptionsObject,
  readSignal,
  textOf,
} from '../model/internal.js';
import { readCallBudget, readCallParams, readMcpCallOptions, withIdempotencyKey } from './call-budget.js';
import type { CallToolResult, ProgressEvent, RunOptions, StreamEvent } from '../run/index.js';
import { callToolResultSchema } from '../run/internal.js';
import { streamToolCall } from './call-stream.js';
import {
  type OperationContext,
  abortError,
  budgetSpentError,
  isConnectionLost,
  isExpiredSession,
  isNotSent,
  mapOperationError,
  errors,
} from './errors.js';
import { type ResolvedMcpExecutorOptions, resolveMcpExecutorOptions, resolveTimeoutMs } from './options.js';
import { ServerSlot, closedError } from './server-slot.js';
import type { McpSession } from './session.js';
import { SpanRedaction } from './span-redaction.js';
import { traceMcpRequest } from './trace-context.js';
import { type RejectedListedTool, checkToolsPage } from './list-tools.js';
import type { McpCallParams, McpExecutorClient, McpExecutorOptions, McpToolSink, Root } from './types.js';

// A server that keeps returning cursors is cut off here rather than listed forever.
const MAX_LIST_PAGES = 10_000;

const ignoreProgress = (): void => undefined;

/** What a page of `tools/list` stands for when the server has no tools/list at all (no tools). */
const NO_TOOLS_LISTING = Object.freeze({ tools: [] });

/**
 * The {@link McpExecutorClient} over `@modelcontextprotocol/sdk`: one lazily opened, shared
 * connection per configured server (stdio, Streamable HTTP with SSE fallback, or a custom transport).
 *
 * @remarks
 * - Connections open on first use and are reused; a dead one is dropped and the next call
 *   reconnects. A Streamable HTTP session the server forgot (404) is re-initialized and the request
 *   replayed once.
 * - `timeoutMs` (default `requestTimeoutMs`) is how long a call may go without hearing from the
 *   server: every progress notification restarts it (up to `maxTotalTimeoutMs`, when set). A call
 *   asks the server for progress when it has an `onProgress` listener (streams always do), or on
 *   every call with `alwaysRequestProgress`.
 *   Aborting the `signal` sends `notifications/cancelled` to the server.
 * - Failures are {@link ToolexecError}s: ABORTED (cause = the abort reason), TIMEOUT, EXECUTION
 *   (lost connection, naming the server and quoting its stderr; or the server's JSON-RPC error),
 *   PROTOCOL (an invalid result or response), CONFIGURATION (unknown server), CONNECTION_CLOSED
 *   (after close()), INVALID_ARGUMENT (parameters or options that cannot be used; nothing is sent).
 * - With tracing on, each request has a client span; a failed one records the library error, its
 *   message scrubbed of the call's credentials (see `span-redaction.ts`), for direct calls too.
 * - Results are returned as the server sent them, `isError` included (the runner decides).
 */
export class SdkMcpExecutor implements McpExecutorClient {
  readonly #options: ResolvedMcpExecutorOptions;
  readonly #slots = new Map<string, ServerSlot>();
  /** The SDK request options of a call with the default timeout and no progress (shared: the SDK only reads them). */
  readonly #plainRequestOptions: RequestOptions;
  /** What failed request spans are scrubbed of. */
  readonly #spanRedaction: SpanRedaction;
  #closing: Promise<void> | undefined;

  constructor(options: McpExecutorOptions) {
    this.#options = resolveMcpExecutorOptions(options);
    for (const [name, config] of this.#options.servers) this.#slots.set(name, new ServerSlot(name, config, this.#options));
    this.#spanRedaction = new SpanRedaction(this.#options.servers);
    this.#plainRequestOptions = requestOptionsFor(this.#options.requestTimeoutMs, this.#options.maxTotalTimeoutMs, undefined);
  }

  /** The configured server names, in configuration order. */
  get serverNames(): string[] {
    return [...this.#slots.keys()];
  }

  /**
   * Calls `params.name` on `serverName` and returns the raw `CallToolResult`. Parameters or options
   * that cannot be used (no tool name, `arguments` that are not an object or cannot be sent as
   * JSON, a `signal` that is not one, ...) reject with INVALID_ARGUMENT.
   */
  callTool(serverName: string, params: McpCallParams, options?: RunOptions): Promise<CallToolResult> {
    // Not an async function (one promise fewer per call): #withSession is the call's one async
    // frame, and anything thrown before it becomes a rejection here.
    try {
      const slot = this.#slot(serverName);
      const resolved = this.#options;
      const read = readMcpCallOptions(options);
      const { name, arguments: args } = readCallParams(params);
      const call = readCallBudget(read, resolved, serverName, name);
      const timeoutMs = call.timeoutMs;
      const onProgress = read.onProgress;
      // The SDK sends a progress token (and resets the timeout on progress) only with a handler.
      const progressRequested = onProgress !== undefined || resolved.alwaysRequestProgress;
      const context: OperationContext = {
        serverName,
        operation: 'tools/call',
        tool: name,
        timeoutMs,
        totalMs: call.totalMs,
        progressRequested,
        arguments: args,
      };
      const requestOptions =
        !progressRequested && timeoutMs === resolved.requestTimeoutMs && call.totalMs === resolved.maxTotalTimeoutMs
          ? this.#plainRequestOptions
          : requestOptionsFor(
              timeoutMs,
              call.totalMs,
              progressRequested
                ? onProgress === undefined
                  ? ignoreProgress
                  : (progress) => onProgress(toProgressEvent(progress))
                : undefined,
            );
      const request = {
        method: 'tools/call' as const,
        params: withIdempotencyKey({ name, arguments: args }, read.idempotencyKey),
      };
      return traceMcpRequest(
        serverName,
        request,
        (sent) =>
          this.#withSession(slot, context, read.signal, requestOptions, (session, sdkOptions) =>
            session.client.request(sent, callToolResultSchema, sdkOptions),
          ),
        { secrets: () => this.#spanRedaction.secrets(serverName, name, args) },
      );
    } catch (error) {
      return Promise.reject(asLibraryError(errors, 'callTool arguments', error));
    }
  }

  /**
   * Streams a call: `progress` events as the server reports them, then `done` with the result
   * normalized (`normalizeMcpResult`), or an `error` event (EXECUTION) when the tool reports
   * `isError`. Transport failures, timeouts and aborts reject the iteration. Breaking out of the
   * loop cancels the request on the server.
   */
  callToolStream(serverName: string, params: McpCallParams, options: RunOptions = {}): AsyncIterable<StreamEvent> {
    return streamToolCall(this, serverName, params, options);
  }

  /**
   * Every tool the server lists, following `nextCursor` pages. Each tool is checked on its own: one
   * without the shape MCP requires (no `inputSchema`, an `inputSchema` not of type `object`, a
   * `description` that is not a string, ...) is left out and given to `options.onRejectedTool`
   * with an `INVALID_TOOL` error naming the field; the others are listed. A page that is itself
   * malformed (`tools` not an array, `nextCursor` not a string) rejects with `PROTOCOL`.
   */
  async listTools(serverName: string, options?: Parameters<McpExecutorClient['listTools']>[1]): Promise<McpTool[]> {
    let slot: ServerSlot;
    let timeoutMs: number;
    let signal: AbortSignal | undefined;
    let onRejectedTool: ((tool: unknown, error: ToolexecError) => void) | undefined;
    try {
      slot = this.#slot(serverName);
      const given = readOptionsObject(errors, 'options', options) ?? {};
      timeoutMs = resolveTimeoutMs(
        readField(errors, given, 'timeoutMs') as number | undefined,
        this.#options.requestTimeoutMs,
        'timeoutMs',
        'INVALID_ARGUMENT',
      );
      signal = readSignal(errors, readField(errors, given, 'signal'));
      onRejectedTool = readFunction(errors, readField(errors, given, 'onRejectedTool'), 'onRejectedTool');
    } catch (error) {
      throw asLibraryError(errors, 'listTools arguments', error);
    }
    const context: OperationContext = { serverName, operation: 'tools/list', timeoutMs };
    const rejected: RejectedListedTool[] = [];
    // One budget for the whole listing: connecting and every page.
    const budget = new Deadline(signal, timeoutMs, true);
    let tools: McpTool[];
    try {
      tools = await this.#listPages(slot, context, signal, budget, rejected);
    } finally {
      budget.dispose();
    }
    this.#spanRedaction.remember(serverName, tools);
    // Told once the listing is complete (a listing that fails halfway reports nothing), outside the
    // session's error mapping: a listener's throw is the caller's own.
    if (onRejectedTool !== undefined) for (const { tool, error } of rejected) onRejectedTool(tool, error);
    return tools;
  }

  /** Every page of `tools/list`, each request given what is left of `budget`. */
  #listPages(
    slot: ServerSlot,
    context: OperationContext,
    signal: AbortSignal | undefined,
    budget: Deadline,
    rejected: RejectedListedTool[],
  ): Promise<McpTool[]> {
    const { serverName } = context;
    const baseOptions = { timeout: context.timeoutMs };
    return this.#withSession(
      slot,
      context,
      signal,
      baseOptions,
      async (session, sdkOptions) => {
        const listed: McpTool[] = [];
        rejected.length = 0;
        const seen = new Set<string>();
        let cursor: string | undefined;
        for (let page = 0; page < MAX_LIST_PAGES; page++) {
          const first = page === 0;
          const leftMs = budget.remainingMs() ?? context.timeoutMs;
          if (leftMs <= 0) throw stoppedError(budget, context, false);
          const pageOptions: RequestOptions = { ...sdkOptions, timeout: leftMs };
          // Not the SDK's ListToolsResultSchema, which refuses the whole page for one malformed tool:
          // checkToolsPage checks the page strictly and each tool on its own.
          const result = await traceMcpRequest(
            serverName,
            { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
            (sent) =>
              session.client.request(sent, ResultSchema, pageOptions).catch((error: unknown) => {
                // A server that offers no tools (only resources or prompts) has no tools/list: an
                // empty listing, not a failed request.
                if (first && error instanceof McpError && error.code === (ErrorCode.MethodNotFound as number)) return NO_TOOLS_LISTING;
                throw error;
              }),
            { map: (error) => mapOperationError(error, context, session), secrets: () => this.#spanRedaction.secrets(serverName) },
          );
          if (result === NO_TOOLS_LISTING) return listed;
          const checked = checkToolsPage(serverName, result);
          listed.push(...checked.tools);
          rejected.push(...checked.rejected);
          cursor = checked.nextCursor;
          if (cursor === undefined) return listed;
          if (seen.has(cursor)) break;
          seen.add(cursor);
        }
        throw errors('PROTOCOL', `MCP server "${serverName}" repeated a tools/list cursor; stopped after ${listed.length} tools`, {
          details: { serverName },
        });
      },
      budget,
    );
  }

  /** Lists and registers the tools of `serverNames` (default: all); namespace = server name. */
  async importTools(index: McpToolSink, serverNames?: readonly string[]): Promise<number> {
    let names: string[];
    try {
      if (index === null || typeof index !== 'object' || typeof index.registerToolsFromMcp !== 'function') {
        throw errors.invalidArgument('index', `must have a registerToolsFromMcp method, got ${describeValue(index)}`);
      }
      if (serverNames !== undefined && !Array.isArray(serverNames)) {
        throw errors.invalidArgument('serverNames', `must be an array of server names, got ${describeValue(serverNames)}`);
      }
      names = [...new Set<string>(serverNames ?? this.#slots.keys())];
      for (const name of names) this.#slot(name);
    } catch (error) {
      throw asLibraryError(errors, 'importTools arguments', error);
    }
    const lists = await Promise.all(names.map((name) => this.listTools(name)));
    let count = 0;
    names.forEach((name, i) => {
      const tools = lists[i] ?? [];
      index.registerToolsFromMcp(name, tools);
      count += tools.length;
    });
    return count;
  }

  /**
   * Completes an interactive OAuth authorization: after a connection to `serverName` failed
   * because the server asked for one (the `authProvider`'s `redirectToAuthorization` was called),
   * exchanges the code the user brought back, on the transport that started the flow. The next
   * call connects with the new tokens. INVALID_ARGUMENT when no authorization is waiting.
   */
  finishAuth(serverName: string, authorizationCode: string): Promise<void> {
    try {
      if (typeof authorizationCode !== 'string' || authorizationCode === '') {
        throw errors.invalidArgument('authorizationCode', 'must be a non-empty string');
      }
      return this.#slot(serverName).finishAuth(authorizationCode);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a ToolexecError from the checks
      return Promise.reject(error);
    }
  }

  /**
   * Replaces the roots servers are told about (`roots/list`) and sends
   * `notifications/roots/list_changed` on every open connection. `CONFIGURATION` when the executor
   * was created without `roots`; `INVALID_ARGUMENT` for a bad list.
   */
  async setRoots(roots: Root[]): Promise<void> {
    if (this.#closing !== undefined) throw closedError();
    this.#options.features.setRoots(roots);
    const open = [...this.#slots.values()].flatMap((slot) => (slot.current === undefined ? [] : [slot.current]));
    // A connection that dies meanwhile reconnects with the new list anyway.
    await Promise.allSettled(open.map((session) => session.client.sendRootsListChanged()));
  }

  /** Closes every session and ends every server process tree. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= Promise.allSettled([...this.#slots.values()].map((slot) => slot.close())).then(() => undefined);
    return this.#closing;
  }

  #slot(serverName: string): ServerSlot {
    if (typeof serverName !== 'string') throw errors.invalidArgument('serverName', `must be a string, got ${describeValue(serverName)}`);
    if (this.#closing !== undefined) throw closedError(serverName);
    const slot = this.#slots.get(serverName);
    if (slot === undefined) {
      const known = this.serverNames;
      const asked = textOf(serverName);
      throw errors(
        'CONFIGURATION',
        `Unknown MCP server "${asked}"; configured: ${known.length === 0 ? '(none)' : known.map((n) => `"${n}"`).join(', ')}`,
        { details: { serverName: asked, knownServers: known } },
      );
    }
    return slot;
  }

  /**
   * Runs `operation` on the server's session: connects if needed, links the caller's signal, maps
   * failures, drops a dead connection, and re-initializes a forgotten HTTP session once (replaying
   * the request). Connecting spends the operation's budget: `budget` when the operation keeps one
   * of its own (a listing of many pages), else its first wait (the request's timeout, or its total
   * bound when shorter), counted from the call's start; the request then gets what is left.
   */
  async #withSession<T>(
    slot: ServerSlot,
    context: OperationContext,
    signal: AbortSignal | undefined,
    baseOptions: RequestOptions,
    operation: (session: McpSession, options: RequestOptions) => Promise<T>,
    budget?: Deadline,
  ): Promise<T> {
    let link: Deadline | undefined;
    // Made only when there is no open session: the common path allocates nothing.
    let connectBudget = budget;
    try {
      if (signal?.aborted === true) throw abortError(signal, context);
      // The SDK never removes its abort listener: give it a per-call signal, not the caller's.
      // A per-call controller also lets us cancel on the server after a total-timeout, which the SDK
      // reports without sending notifications/cancelled.
      if (signal !== undefined || baseOptions.maxTotalTimeout !== undefined) link = linkedSignal(signal);
      const sdkOptions = link === undefined ? baseOptions : { ...baseOptions, signal: link.signal };
      const asksProgress = baseOptions.onprogress !== undefined;
      for (let attempt = 0; ; attempt++) {
        let session = slot.current;
        let requestOptions = sdkOptions;
        if (session === undefined) {
          const firstWaitMs = firstWaitOf(baseOptions, context.timeoutMs);
          connectBudget ??= new Deadline(signal, firstWaitMs, true);
          session = await this.#connect(slot, context, connectBudget);
          if (budget === undefined)
            requestOptions = afterConnecting(sdkOptions, firstWaitMs - (connectBudget.remainingMs() ?? firstWaitMs));
        }
        if (asksProgress) session.progressCalls++;
        try {
          return await operation(session, requestOptions);
        } catch (error) {
          if (this.#closing !== undefined && !ToolexecError.isInstance(error)) throw closedError(slot.serverName);
          if (signal !== undefined && isAborted(signal)) throw abortError(signal, context);
          // A forgotten HTTP session: re-initialize and replay once. Requests in flight on it when
          // it was dropped fail with "connection closed"; the server never processed them either.
          // A request that never left (the connection died just before) is safe to send again too.
          if (
            attempt === 0 &&
            (isExpiredSession(error, session) || isNotSent(error) || (session.expired && isConnectionLost(error, session)))
          ) {
            session.expired = true;
            await slot.release(session);
            continue;
          }
          if (error instanceof UnauthorizedError) slot.authorizationPending(session);
          const mapped = mapOperationError(error, context, session);
          if (isTotalTimeout(error)) link?.abort(mapped);
          if (isConnectionLost(error, session)) await slot.lost(session, mapped);
          throw mapped;
        } finally {
          if (asksProgress) session.progressCalls--;
        }
      }
    } finally {
      link?.dispose();
      if (connectBudget !== budget) connectBudget?.dispose();
    }
  }

  /**
   * The server's session once connected, within `budget` (the caller's signal and the time left).
   * The attempt is shared: one caller giving up does not cancel it for the others.
   */
  async #connect(slot: ServerSlot, context: OperationContext, budget: Deadline): Promise<McpSession> {
    const session = await budget.race(slot.acquire());
    if (session !== ABORTED && budget.remainingMs() !== 0) return session;
    throw stoppedError(budget, context, true);
  }
}

/** Creates an {@link McpExecutorClient} for `options.servers`; nothing connects until first use. */
export function createMcpExecutor(options: McpExecutorOptions): SdkMcpExecutor {
  return new SdkMcpExecutor(options);
}

function toProgressEvent(progress: Progress): ProgressEvent {
  const event: ProgressEvent = { progress: progress.progress };
  if (progress.total !== undefined) event.total = progress.total;
  if (progress.message !== undefined) event.message = progress.message;
  return event;
}

// A function, so the compiler does not assume `aborted` is still what an earlier check saw.
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function isTotalTimeout(error: unknown): boolean {
  return error instanceof McpError && typeof (error.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout === 'number';
}

/** Why `budget` left no time: the caller's abort (ABORTED, or TIMEOUT for a timeout reason), else its time ran out (TIMEOUT). */
function stoppedError(budget: Deadline, context: OperationContext, connecting: boolean): ToolexecError {
  // `aborted` first: a deadline whose time is up but whose timer has not run yet fires now.
  return budget.aborted && !budget.timedOut ? abortError(budget, context) : budgetSpentError(context, connecting);
}

/** How long an operation may wait for its first answer: its timeout, or its total bound when that is shorter. */
function firstWaitOf(options: RequestOptions, timeoutMs: number): number {
  const waitMs = options.timeout ?? timeoutMs;
  const totalMs = options.maxTotalTimeout;
  return totalMs !== undefined && totalMs < waitMs ? totalMs : waitMs;
}

/** `options` with `spentMs` (the time connecting took) taken off the request's timeout and total bound. */
function afterConnecting(options: RequestOptions, spentMs: number): RequestOptions {
  if (spentMs <= 0) return options;
  const left: RequestOptions = { ...options };
  if (options.timeout !== undefined) left.timeout = Math.max(1, Math.ceil(options.timeout - spentMs));
  if (options.maxTotalTimeout !== undefined) left.maxTotalTimeout = Math.max(1, Math.ceil(options.maxTotalTimeout - spentMs));
  return left;
}

/** SDK request options: `timeoutMs` restarted by progress, the total bound, the progress handler (which makes the SDK send a token). */
function requestOptionsFor(
  timeoutMs: number,
  maxTotalTimeoutMs: number | undefined,
  onprogress: ((progress: Progress) => void) | undefined,
): RequestOptions {
  const options: RequestOptions = { timeout: timeoutMs, resetTimeoutOnProgress: true };
  if (maxTotalTimeoutMs !== undefined) options.maxTotalTimeout = maxTotalTimeoutMs;
  if (onprogress !== undefined) options.onprogress = onprogress;
  return options;
}
