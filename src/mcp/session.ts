import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, type MessageExtraInfo, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ToolexecError } from '../model/index.js';
import { ABORTED, Deadline, MAX_TIMER_MS } from '../model/internal.js';
import { StdioProcessTransport } from './stdio-transport.js';
import { standInResponse } from './invalid-response.js';
import type { ResolvedMcpExecutorOptions, ResolvedServerConfig } from './options.js';
import { connectError, connectTimeoutError, fallbackError, type FailureDetails, type SessionMode } from './errors.js';

export type { SessionMode };

// How long close() waits for the server to acknowledge an HTTP session's termination.
const TERMINATE_TIMEOUT_MS = 1000;

/** One initialized MCP client connection to one server. */
export class McpSession {
  readonly serverName: string;
  readonly client: Client;
  readonly transport: Transport;
  readonly mode: SessionMode;
  /** The last error the transport reported (kept to explain a dropped connection). */
  lastError: Error | undefined;
  /** Set when the server forgot this HTTP session (404): requests on it may be replayed elsewhere. */
  expired = false;
  /**
   * Requests in flight that asked for progress. While there are any, responses reach the SDK one
   * microtask late, after the notifications that came before them (see
   * `deliverNotificationsBeforeResponses`); otherwise at once.
   */
  progressCalls = 0;
  #closed = false;
  #closing: Promise<void> | undefined;
  #onClosed: (() => void) | undefined;

  constructor(serverName: string, client: Client, transport: Transport, mode: SessionMode) {
    this.serverName = serverName;
    this.client = client;
    this.transport = transport;
    this.mode = mode;
    client.onclose = () => {
      this.#closed = true;
      this.#onClosed?.();
    };
    client.onerror = (error) => {
      this.lastError = error;
    };
  }

  /** True once the connection is gone (server exit, transport closed, close() called). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Runs `listener` once when the connection closes for any reason. */
  onClosed(listener: () => void): void {
    if (this.#closed) listener();
    else this.#onClosed = listener;
  }

  /** Why this side closed the connection (a server message over the size bound), when it did. */
  get closedByClient(): string | undefined {
    return this.transport instanceof StdioProcessTransport ? this.transport.closedBy?.message : undefined;
  }

  /** The Streamable HTTP session ID, when there is one. */
  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  /** What is known about why the connection ended: exit status and stderr tail of a process. */
  failureDetails(): FailureDetails {
    const details: FailureDetails = {};
    if (this.transport instanceof StdioProcessTransport) {
      const exit = this.transport.exit;
      if (exit !== undefined) {
        details.exitCode = exit.code;
        details.signal = exit.signal;
      }
      const stderr = this.transport.stderrTail;
      if (stderr !== '') details.stderr = stderr;
    }
    const closedByClient = this.closedByClient;
    if (closedByClient !== undefined) details.closedByClient = closedByClient;
    if (this.lastError !== undefined) details.transportError = this.lastError.message;
    return details;
  }

  /** Ends the session: terminates an HTTP session, closes the transport, ends a process tree. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    if (!this.#closed && !this.expired && this.transport instanceof StreamableHTTPClientTransport && this.sessionId !== undefined) {
      await settleWithin(this.transport.terminateSession(), TERMINATE_TIMEOUT_MS);
    }
    // Once the transport has reported close, the client has let go of it: closing it again is not
    // needed, except that a server process group may still need ending.
    if (this.client.transport !== undefined) await this.client.close().catch(() => undefined);
    if (this.transport instanceof StdioProcessTransport) await this.transport.close();
    this.#closed = true;
  }
}

/**
 * Opens and initializes a session; on failure nothing is left running. The whole attempt (the
 * HTTP+SSE fallback included) gets `connectTimeoutMs`, from starting the transport (spawning the
 * process, opening the event stream) to the answer to `initialize`.
 */
export async function openSession(
  serverName: string,
  config: ResolvedServerConfig,
  options: ResolvedMcpExecutorOptions,
  preferSse: boolean,
  attempt: ConnectAttempt,
): Promise<McpSession> {
  // Stopped by the executor's close (the slot's signal) or by the connect timeout. The SDK's own
  // connect() bounds only `initialize`, not the transport's start, and never removes the listener
  // it adds to a signal it is given: it gets neither.
  const deadline = new Deadline(attempt.signal, options.connectTimeoutMs, true);
  try {
    return await openWithin(serverName, config, options, preferSse, attempt, deadline);
  } finally {
    deadline.dispose();
  }
}

async function openWithin(
  serverName: string,
  config: ResolvedServerConfig,
  options: ResolvedMcpExecutorOptions,
  preferSse: boolean,
  attempt: ConnectAttempt,
  deadline: Deadline,
): Promise<McpSession> {
  switch (config.kind) {
    case 'stdio': {
      const transport = new StdioProcessTransport({
        command: config.command,
        args: config.args,
        env: config.env,
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
        stderrTailBytes: options.stderrTailBytes,
        killGraceMs: options.killGraceMs,
        ...(options.onStderr === undefined ? {} : { onStderr: (text: string) => options.onStderr?.(serverName, text) }),
      });
      return initialize(serverName, transport, 'stdio', options, attempt, deadline);
    }
    case 'http':
    case 'sse': {
      const transportOptions = {
        requestInit: config.headers === undefined ? {} : { headers: config.headers },
        ...(config.authProvider === undefined ? {} : { authProvider: config.authProvider }),
      };
      const sse = (): Promise<McpSession> =>
        initialize(serverName, new SSEClientTransport(config.url, transportOptions), 'sse', options, attempt, deadline);
      if (config.kind === 'sse' || preferSse) return sse();
      try {
        return await initialize(
          serverName,
          new StreamableHTTPClientTransport(config.url, transportOptions),
          'http',
          options,
          attempt,
          deadline,
        );
      } catch (error) {
        if (!isLegacyServerRejection(error)) throw error;
        try {
          return await sse();
        } catch (sseError) {
          if (attempt.signal.aborted) throw sseError;
          throw fallbackError(serverName, error as ToolexecError, sseError);
        }
      }
    }
    case 'custom': {
      let transport: Transport;
      try {
        transport = await config.createTransport();
      } catch (error) {
        throw connectError(error, { serverName, mode: 'custom', timeoutMs: options.connectTimeoutMs });
      }
      return initialize(serverName, transport, 'custom', options, attempt, deadline);
    }
  }
}

/** What one connection attempt is given by its slot. */
export interface ConnectAttempt {
  /** Aborted when the executor closes: the attempt stops and leaves nothing running. */
  signal: AbortSignal;
  /** Called when the server asked for an OAuth authorization; `finish` exchanges the code the user brings back. */
  onAuthorizationPending: (finish: (authorizationCode: string) => Promise<void>) => void;
}

/** True for a transport that can complete an OAuth authorization it started (Streamable HTTP, SSE). */
export function hasFinishAuth(transport: Transport): transport is Transport & { finishAuth(code: string): Promise<void> } {
  return typeof (transport as { finishAuth?: unknown }).finishAuth === 'function';
}

/**
 * A 4xx answer to the first Streamable HTTP POST: the server predates Streamable HTTP (spec: fall
 * back to SSE). 401 and 403 are about credentials, not the transport: no fallback.
 */
function isLegacyServerRejection(failure: unknown): boolean {
  const status = ToolexecError.isInstance(failure) ? failure.details?.httpStatus : undefined;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 401 && status !== 403;
}

async function initialize(
  serverName: string,
  transport: Transport,
  mode: SessionMode,
  options: ResolvedMcpExecutorOptions,
  attempt: ConnectAttempt,
  deadline: Deadline,
): Promise<McpSession> {
  const client = new Client(options.clientInfo, { capabilities: options.features.capabilities });
  options.features.install(client, serverName);
  const session = new McpSession(serverName, client, transport, mode);
  let failure: unknown;
  try {
    // No signal for the SDK: it would keep its listener, and send notifications/cancelled for
    // `initialize` when it fires, which MCP forbids. The race stops the wait; closing the session
    // stops the rest. The SDK's own timeout (of `initialize` alone) ends no earlier than the race.
    const connected = await deadline.race(client.connect(transport, { timeout: Math.max(1, deadline.remainingMs() ?? MAX_TIMER_MS) }));
    if (connected !== ABORTED) {
      deliverNotificationsBeforeResponses(transport, session);
      const onListChanged = options.onToolsListChanged;
      if (onListChanged !== undefined && client.getServerCapabilities()?.tools?.listChanged === true) {
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => onListChanged(serverName));
      }
      return session;
    }
  } catch (error) {
    failure = error;
  }
  const details = session.failureDetails();
  await session.close();
  const { signal } = attempt;
  if (signal.aborted) throw signal.reason;
  const context = { serverName, mode, timeoutMs: options.connectTimeoutMs };
  if (failure === undefined) throw connectTimeoutError(context, details);
  // The server wants an interactive OAuth authorization: the transport that started it finishes it.
  if (failure instanceof UnauthorizedError && hasFinishAuth(transport)) {
    attempt.onAuthorizationPending((code) => transport.finishAuth(code));
  }
  throw connectError(failure, context, details);
}

/**
 * A malformed response (see `invalid-response.ts`) is replaced by an error response for its ID.
 *
 * The SDK dispatches notifications one microtask late but responses at once, so a progress
 * notification sent just before the result (in the same chunk) reaches a handler the response
 * already removed, and the last progress report is lost. While a request that asked for progress is
 * in flight, responses are delayed by one microtask, which keeps the server's order. With none in
 * flight there is no progress handler to reach, and responses go through at once (a microtask and
 * a closure less per call).
 */
function deliverNotificationsBeforeResponses(transport: Transport, session: McpSession): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (received: JSONRPCMessage, extra?: MessageExtraInfo): void => {
    let message = received;
    if ('id' in message && !('method' in message)) {
      // A malformed answer (from a transport that does not check, a custom one) fails its request at once.
      message = standInResponse(message) ?? message;
      if (session.progressCalls > 0) {
        queueMicrotask(() => deliver(message, extra));
        return;
      }
    }
    deliver(message, extra);
  };
}

async function settleWithin(promise: Promise<unknown>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}
