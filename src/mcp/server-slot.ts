import { type ToolexecError, errorMessage } from '../model/index.js';
import type { ResolvedMcpExecutorOptions, ResolvedServerConfig } from './options.js';
import { type McpSession, hasFinishAuth, openSession } from './session.js';
import { connectionLostError, errors } from './errors.js';

/**
 * The connection to one configured server: opened on first use, shared by every call, dropped
 * when it dies (the next call reconnects). Concurrent first calls share one attempt; a failed
 * attempt is not remembered.
 */
export class ServerSlot {
  readonly serverName: string;
  readonly #config: ResolvedServerConfig;
  readonly #options: ResolvedMcpExecutorOptions;
  #session: McpSession | undefined;
  #pending: Promise<McpSession> | undefined;
  #closed = false;
  /** Set while an OAuth authorization the server asked for waits for its code. */
  #finishAuth: ((authorizationCode: string) => Promise<void>) | undefined;
  /** Aborted by close(): stops an attempt in flight (its process is ended at once). */
  readonly #closing = new AbortController();
  // Once a server answered only over legacy HTTP+SSE, reconnect that way directly.
  #preferSse = false;

  constructor(serverName: string, config: ResolvedServerConfig, options: ResolvedMcpExecutorOptions) {
    this.serverName = serverName;
    this.#config = config;
    this.#options = options;
  }

  /** The open session, if there is one (the fast path: no promise, no tick). */
  get current(): McpSession | undefined {
    const session = this.#session;
    return session !== undefined && !session.closed ? session : undefined;
  }

  /** The open session, or a (shared) attempt to open one. */
  acquire(): Promise<McpSession> {
    const current = this.current;
    if (current !== undefined) return Promise.resolve(current);
    if (this.#closed) return Promise.reject(closedError(this.serverName));
    this.#pending ??= this.#open();
    return this.#pending;
  }

  async #open(): Promise<McpSession> {
    try {
      const session = await openSession(this.serverName, this.#config, this.#options, this.#preferSse, {
        signal: this.#closing.signal,
        onAuthorizationPending: (finish) => {
          this.#finishAuth = finish;
        },
      });
      if (this.#closed) {
        await session.close();
        throw closedError(this.serverName);
      }
      if (session.mode === 'sse') this.#preferSse = true;
      this.#session = session;
      session.onClosed(() => {
        if (this.#session === session) {
          // Not released by us: the server went away, or the transport closed it for a message
          // over the size bound (the server is fine; the next call connects again).
          this.#session = undefined;
          if (session.closedByClient === undefined) this.#reportLost(session);
        }
        // Finish the cleanup now (a dead server's process group), not at executor close.
        void session.close();
      });
      return session;
    } finally {
      this.#pending = undefined;
    }
  }

  #reportLost(session: McpSession, error: ToolexecError = connectionLostError(this.serverName, session.failureDetails())): void {
    const listener = this.#options.onConnectionLost;
    if (listener === undefined || this.#closed) return;
    try {
      listener(this.serverName, error);
    } catch (thrown) {
      queueMicrotask(() => {
        throw thrown;
      });
    }
  }

  /**
   * A request on the open `session` was refused for want of authorization (a step-up: the server
   * wants more scopes) and the `authProvider` was sent to authorize: the session's transport, which
   * started that flow, completes it when the app brings the code to {@link finishAuth}.
   */
  authorizationPending(session: McpSession): void {
    const transport = session.transport;
    if (hasFinishAuth(transport)) this.#finishAuth = (code) => transport.finishAuth(code);
  }

  /**
   * Completes the OAuth authorization the server asked for during the last attempt: the transport
   * that started it exchanges `authorizationCode` for tokens (saved by the `authProvider`). The
   * next attempt connects with them.
   */
  async finishAuth(authorizationCode: string): Promise<void> {
    const finish = this.#finishAuth;
    if (finish === undefined) {
      throw errors('INVALID_ARGUMENT', `no OAuth authorization is waiting for a code on MCP server "${this.serverName}"`, {
        details: { serverName: this.serverName },
      });
    }
    try {
      await finish(authorizationCode);
    } catch (error) {
      throw errors('EXECUTION', `completing the OAuth authorization of MCP server "${this.serverName}" failed: ${errorMessage(error)}`, {
        cause: error,
        details: { serverName: this.serverName },
      });
    }
    this.#finishAuth = undefined;
  }

  /**
   * A request found `session`'s connection unusable (a Streamable HTTP server that went away, a
   * network failure): drops it and, when it was still the current one, reports the loss as a
   * server exit is reported, so that whoever keeps the server's status (the facade) learns of it.
   */
  async lost(session: McpSession, error: ToolexecError): Promise<void> {
    if (this.#session === session) {
      this.#session = undefined;
      this.#reportLost(session, error);
    }
    await session.close();
  }

  /** Drops `session` (if it is still the current one) and closes it. */
  async release(session: McpSession): Promise<void> {
    if (this.#session === session) this.#session = undefined;
    await session.close();
  }

  /** Closes the session and any attempt in flight; later acquires reject with CONNECTION_CLOSED. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort(closedError(this.serverName));
    const pending = this.#pending;
    const session = this.#session;
    this.#session = undefined;
    await Promise.allSettled([pending, session?.close()]);
  }
}

/** CONNECTION_CLOSED: the executor was closed. */
export function closedError(serverName?: string): ToolexecError {
  return errors(
    'CONNECTION_CLOSED',
    serverName === undefined ? 'The MCP executor is closed' : `The MCP executor is closed (server "${serverName}")`,
    serverName === undefined ? {} : { details: { serverName } },
  );
}
