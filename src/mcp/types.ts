import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, Root } from '@modelcontextprotocol/sdk/types.js';
import type { McpTool, ToolexecError } from '../model/index.js';
import type { McpExecutor, RunOptions } from '../run/index.js';

export type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, OAuthClientProvider, Root, Transport };

/** Who sent a server-initiated request (elicitation, sampling), handed to the app's handler. */
export interface ServerRequestInfo {
  /** The name of the server (its key in `servers` / `mcpServers`). */
  server: string;
  /** Aborted when the server cancels its request or the connection ends. */
  signal: AbortSignal;
}

/**
 * Where server log messages (`notifications/message`) go: a pino-style logger (pino, or
 * `console` wrapped). Each method is called with a record `{ server, level, logger?, data }` and a
 * message (the data itself when it is a string). MCP's eight levels map to four: `notice` → info,
 * `warning` → warn, `critical` / `alert` / `emergency` → error.
 */
export interface McpLogger {
  /** Debug messages. */
  debug(record: object, message?: string): void;
  /** Info and notice messages. */
  info(record: object, message?: string): void;
  /** Warnings. */
  warn(record: object, message?: string): void;
  /** Errors and worse. */
  error(record: object, message?: string): void;
}

/** Answers a server's `elicitation/create`: the user accepts (with `content`), declines or cancels. */
export type ElicitationHandler = (request: ElicitRequest['params'], info: ServerRequestInfo) => Promise<ElicitResult>;

/** Answers a server's `sampling/createMessage` with a completion from the app's model. */
export type SamplingHandler = (request: CreateMessageRequest['params'], info: ServerRequestInfo) => Promise<CreateMessageResult>;

/** What every server config may say, whatever its transport. */
export interface McpServerConfigBase {
  /**
   * The facade (`createExec`) treats a required server as all-or-nothing: until it is connected,
   * `connect()` and every call wait for it, and its failure rejects them. Other servers fail
   * alone. The executor itself ignores this field. @defaultValue false
   */
  required?: boolean;
}

/**
 * A server started as a child process, spoken to over its stdin/stdout.
 *
 * @remarks
 * The process leads its own process group, so closing the executor ends the whole tree (an
 * `npx`/`uvx` wrapper and the server it starts). Its environment is a small safe default (`PATH`,
 * `HOME`, `USER`, ...) plus `env`; the host environment is never passed wholesale.
 */
export interface McpStdioServerConfig extends McpServerConfigBase {
  /** Selects this transport. @defaultValue 'stdio' (when there is a `command`) */
  transport?: 'stdio';
  /** The same as `transport`, as MCP clients' config files spell it. */
  type?: 'stdio';
  /** The executable, looked up on `PATH`. */
  command: string;
  /** Command-line arguments, passed as-is (no shell). */
  args?: string[];
  /** Added to the default environment (and overriding it). */
  env?: Record<string, string>;
  /** Working directory of the process. @defaultValue the current directory */
  cwd?: string;
}

/**
 * A remote server: `{ url }` (or `type: 'http'`) is Streamable HTTP, falling back to the legacy
 * HTTP+SSE transport when the server rejects it with a 4xx; `type: 'sse'` is the legacy transport
 * only.
 */
export interface McpHttpServerConfig extends McpServerConfigBase {
  /** Selects the transport. @defaultValue 'http' (when there is a `url`) */
  transport?: 'http' | 'sse';
  /** The same as `transport`, as MCP clients' config files spell it. */
  type?: 'http' | 'sse';
  /** The MCP endpoint, e.g. `https://example.com/mcp`. */
  url: string;
  /** Sent with every request (authorization, API keys, ...). */
  headers?: Record<string, string>;
  /**
   * OAuth for a protected server (the SDK's `OAuthClientProvider`): given to the Streamable HTTP
   * transport and to the SSE fallback alike. A server answering 401 without one fails with
   * `details.httpStatus: 401`.
   */
  authProvider?: OAuthClientProvider;
}

/**
 * A transport the caller builds: in-memory pairs (`InMemoryTransport.createLinkedPair()`),
 * WebSockets, or any other {@link Transport}. Called again for every (re)connection.
 */
export interface McpCustomServerConfig extends McpServerConfigBase {
  /** Selects this transport. */
  transport: 'custom';
  /** Builds a fresh, unstarted transport; the executor connects and closes it. A throw fails that connection attempt. */
  createTransport: () => Transport | Promise<Transport>;
}

/** How to reach one MCP server. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig | McpCustomServerConfig;

/** Options of {@link createMcpExecutor}. */
export interface McpExecutorOptions {
  /** The servers by name; the name is the namespace of imported tools and the backend's `serverName`. */
  servers: Record<string, McpServerConfig>;
  /**
   * How long a request may go without hearing from the server; a progress notification restarts
   * the clock. Used when a call passes no `timeoutMs`, and for connecting and `tools/list`.
   * A server can only report progress on a call that asks for it: see
   * {@link McpExecutorOptions.alwaysRequestProgress}.
   * @defaultValue 60_000
   */
  requestTimeoutMs?: number;
  /**
   * How long a server may take to start and answer `initialize` before the attempt fails
   * (TIMEOUT) and its process is ended. Raise it for servers that download themselves on first
   * run (`npx -y ...`). @defaultValue 10_000
   */
  connectTimeoutMs?: number;
  /**
   * Ask for progress (send a `_meta.progressToken`) on every `tools/call`, not only on calls that
   * have a progress listener (`onProgress`, or a stream), so that a server reporting progress
   * keeps a call alive past `requestTimeoutMs` even when the caller does not listen.
   *
   * @remarks Off by default, like the MCP SDK: per the MCP spec a requester asks for progress
   * when it wants it, and the token costs the SDK and the server ~2–4 µs per call (measurable
   * only in memory; `npm run bench -- mcp`). Turn it on for servers whose long tools report
   * progress to say they are still working. A call that times out without having asked for
   * progress says so in its TIMEOUT message.
   * @defaultValue false
   */
  alwaysRequestProgress?: boolean;
  /**
   * The longest a `tools/call` may run however much progress it reports (checked when progress
   * arrives). @defaultValue no limit
   */
  maxTotalTimeoutMs?: number;
  /** Sent in `initialize`. @defaultValue `{ name: 'toolexec', version: '0.1.0' }` */
  clientInfo?: {
    /** The client's name. */
    name: string;
    /** The client's version. */
    version: string;
  };
  /** How much of a stdio server's stderr is kept to quote in errors. @defaultValue 8192 */
  stderrTailBytes?: number;
  /**
   * After SIGTERM, how long a stdio server's process group gets to exit before SIGKILL.
   * @defaultValue 2000
   */
  killGraceMs?: number;
  /** Receives a stdio server's stderr as it arrives (it is captured either way). */
  onStderr?: (serverName: string, text: string) => void;
  /**
   * Called when an open connection ends without being closed by the executor (the server exited
   * or crashed, the stream broke) or a request finds it unusable (a Streamable HTTP server that
   * stopped answering: the request's error), with the error that explains it. The next call reconnects.
   */
  onConnectionLost?: (serverName: string, error: ToolexecError) => void;
  /** Called when a server sends `notifications/tools/list_changed` (re-run `importTools` to refresh). */
  onToolsListChanged?: (serverName: string) => void;
  /**
   * Answers servers that ask the user for input (`elicitation/create`). The client always declares
   * form elicitation (`{ form: { applyDefaults: true } }`): without a handler every request is
   * declined, as the spec allows; when the handler accepts, fields it left out get the requested
   * schema's defaults (SEP-1034). A handler's rejection reaches the server as a JSON-RPC error.
   * @defaultValue decline every request
   */
  onElicitation?: ElicitationHandler;
  /**
   * Answers servers that ask the app's model for a completion (`sampling/createMessage`). The
   * sampling capability is declared only when there is a handler. @defaultValue none
   */
  onSampling?: SamplingHandler;
  /**
   * The roots (`file://` URIs) servers may work in, answered to `roots/list`. Declares the roots
   * capability with `listChanged`; `setRoots()` replaces the list and tells every open connection.
   * @defaultValue none (the capability is not declared)
   */
  roots?: Root[];
  /** Receives servers' log messages (`notifications/message`). @defaultValue none (dropped) */
  logger?: McpLogger;
}

/** Per-call options: a signal, a timeout (reset by progress) and a progress callback. */
export type McpCallOptions = RunOptions;

/** The parameters of a `tools/call` request. */
export interface McpCallParams {
  /** The tool's MCP name (not its canonical toolexec ID). */
  name: string;
  /** The tool's arguments; absent sends none. */
  arguments?: Record<string, unknown>;
}

/**
 * What {@link McpExecutorClient.importTools} needs of a tool index: the `registerToolsFromMcp`
 * method of `toolexec/discovery`'s ToolIndex, typed structurally so that mcp stays below
 * discovery in the layer table.
 */
export interface McpToolSink {
  /** Registers `tools` with an `mcp` backend for `serverName`. */
  registerToolsFromMcp(serverName: string, tools: readonly McpTool[]): void;
}

/** An {@link McpExecutor} that owns its connections: lists, imports and closes. */
export interface McpExecutorClient extends McpExecutor {
  /**
   * Every tool the server lists (all pages). A tool without the shape MCP requires (no
   * `inputSchema`, an `inputSchema` whose `type` is not `object`, a `description` that is not a
   * string, ...) is left out, and `onRejectedTool` (when given) is called for each, once the
   * listing is complete, with the tool as sent and an `INVALID_TOOL` error whose message names the
   * field (`invalid tool: inputSchema is missing`); the server's other tools are listed.
   */
  listTools(
    serverName: string,
    options?: Pick<RunOptions, 'signal' | 'timeoutMs'> & {
      /** Called for each tool the server listed that was left out, with why. */
      onRejectedTool?: (tool: unknown, error: ToolexecError) => void;
    },
  ): Promise<McpTool[]>;
  /**
   * Lists the tools of `serverNames` (default: every configured server) and registers them with
   * `index.registerToolsFromMcp(serverName, tools)`, so the namespace is the server name.
   * @returns how many tools were registered
   */
  importTools(index: McpToolSink, serverNames?: readonly string[]): Promise<number>;
  /**
   * Completes the interactive OAuth authorization a server asked for (see `authProvider`) with
   * the code the user brought back; the next connection uses the new tokens.
   */
  finishAuth(serverName: string, authorizationCode: string): Promise<void>;
  /** Closes every session and ends every server process tree. Idempotent; later calls reject. */
  close(): Promise<void>;
}

/** The raw tools a server lists, re-exported for convenience. */
export type { McpTool };
