import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolexecError, errorMessage } from '../model/index.js';
import { InvalidServerResponse } from './invalid-response.js';
import { abortError as stoppedError, capText, describeValue, layerErrors, textOf } from '../model/internal.js';

/** The MCP layer's error factory: every message reads `mcp: <what went wrong>`. @internal */
export const errors = layerErrors('mcp');
/**
 * What error mapping needs to know of a live connection (an `McpSession` has it): typed here so
 * that this module does not import the session, which imports it.
 */
export interface ConnectionState {
  /** How the connection was made. */
  readonly mode: string;
  /** The Streamable HTTP session ID, when the server gave one. */
  readonly sessionId: string | undefined;
  /** True once the connection is gone. */
  readonly closed: boolean;
  /** What is known about why the connection ended (exit status, stderr tail). */
  failureDetails(): FailureDetails;
}

/** What a failed operation was doing, for messages. */
export interface OperationContext {
  serverName: string;
  /** `tools/call`, `tools/list`, `initialize`, ... */
  operation: string;
  /** The tool of a `tools/call` (messages then say `tools/call "echo"`). */
  tool?: string;
  timeoutMs: number;
  /** The call's total bound (`maxTotalTimeoutMs`, or the time left before its deadline), when it has one. */
  totalMs?: number | undefined;
  /** False for a `tools/call` that did not ask for progress (so progress could not keep it alive). */
  progressRequested?: boolean;
  /** The arguments of a `tools/call`, to tell arguments that cannot be sent from a transport failure. */
  arguments?: Record<string, unknown>;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH', 'UND_ERR_SOCKET']);

/**
 * The error for an aborted call: ABORTED (or TIMEOUT for a timeout signal), `cause` = the reason.
 * `signal` is the caller's, or a `Deadline` made from it.
 */
export function abortError(signal: { readonly reason: unknown }, context: OperationContext): ToolexecError {
  return stoppedError(
    errors,
    signal.reason,
    (outcome) =>
      `${describe(context)} on MCP server "${context.serverName}" was ${outcome.code === 'TIMEOUT' ? 'cancelled by a timeout' : 'aborted'}`,
    { details: baseDetails(context) },
  );
}

/**
 * TIMEOUT for an operation whose budget (`context.timeoutMs`, from the call's start) ran out
 * while it waited for its server's connection, or before its next request could be sent.
 */
export function budgetSpentError(context: OperationContext, connecting: boolean): ToolexecError {
  const message = connecting
    ? `Connecting to MCP server "${context.serverName}" took longer than ${context.timeoutMs} ms`
    : `${describe(context)} on MCP server "${context.serverName}" timed out: its ${context.timeoutMs} ms ran out`;
  return errors('TIMEOUT', message, { details: baseDetails(context) });
}

/** True when the server answered 404 to a request carrying a session ID it no longer knows. */
export function isExpiredSession(error: unknown, session: ConnectionState): boolean {
  return session.mode === 'http' && session.sessionId !== undefined && error instanceof StreamableHTTPError && error.code === 404;
}

/** True when the request never left: the session was already gone when it was sent. */
export function isNotSent(error: unknown): boolean {
  return error instanceof Error && error.message === 'Not connected';
}

/**
 * True when the error means the connection itself is unusable (the session must be dropped).
 *
 * Decided from the session, not from an error code: the SDK rejects the requests in flight with its
 * own `McpError` of code -32000 (`ConnectionClosed`) only after the transport reported the close,
 * which the session has seen by then, while -32000 is also the first code of JSON-RPC's
 * server-defined range, which servers answer with (`rate limit exceeded`, say): such a reply came
 * over a working connection and leaves it as it was.
 */
export function isConnectionLost(error: unknown, session: ConnectionState): boolean {
  if (session.closed) return true;
  // A JSON-RPC error the server answered, whatever its code: the connection carried it.
  if (error instanceof McpError) return false;
  if (error instanceof SseError) return true;
  if (error instanceof Error && error.message === 'Not connected') return true;
  return isNetworkError(error);
}

/**
 * The socket-level failure under a transport error, when there is one: `fetch` rejects with a bare
 * `fetch failed` whose `cause` says what happened (`connect ECONNREFUSED 127.0.0.1:9`).
 */
function networkCauseOf(error: unknown): { code?: string; message: string } | undefined {
  let refused: Error | undefined;
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const { code, syscall } = current as { code?: unknown; syscall?: unknown };
    // a Node system error (`syscall` set: connect, getaddrinfo, …) or undici's own socket errors
    if (typeof code === 'string' && (typeof syscall === 'string' || code.startsWith('UND_ERR_'))) return { code, message: current.message };
    // fetch's own refusal before any socket (`bad port`: a port the Fetch standard blocks, 1, 6000, 10080...)
    if (
      current instanceof TypeError &&
      current.message === 'fetch failed' &&
      current.cause instanceof Error &&
      current.cause.message !== ''
    ) {
      refused ??= current.cause;
    }
  }
  return refused === undefined ? undefined : { message: refused.message.slice(0, 200) };
}

function isNetworkError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (current instanceof TypeError && current.message === 'fetch failed') return true;
  }
  return false;
}

/**
 * Maps an SDK or transport failure to a {@link ToolexecError}: timeouts → TIMEOUT, a lost
 * connection → EXECUTION naming the server (with exit status and stderr tail), a JSON-RPC error
 * → EXECUTION with the server's message, an invalid result → PROTOCOL. `cause` keeps the original.
 */
export function mapOperationError(error: unknown, context: OperationContext, session?: ConnectionState): ToolexecError {
  if (ToolexecError.isInstance(error)) return error;
  if (context.arguments !== undefined && !(error instanceof McpError) && session?.closed !== true) {
    const unsendable = unsendableArguments(context, error);
    if (unsendable !== undefined) return unsendable;
  }
  const where = `${describe(context)} on MCP server "${context.serverName}"`;
  if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
    const total = (error.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout;
    const why =
      typeof total === 'number'
        ? `ran past the total limit of ${context.totalMs ?? total} ms`
        : context.progressRequested === false
          ? `no answer for ${context.timeoutMs} ms (the call did not ask for progress: give it an onProgress listener, or set alwaysRequestProgress, to let a server's progress reports keep it alive)`
          : `no answer or progress for ${context.timeoutMs} ms`;
    return errors('TIMEOUT', `${where} timed out: ${why}`, {
      cause: error,
      details: baseDetails(context),
    });
  }
  if (session !== undefined && isConnectionLost(error, session)) {
    const failure = session.failureDetails();
    let message: string;
    if (failure.closedByClient !== undefined) {
      // The server did not end it: the client did (the server's exit and stderr say nothing here).
      message = `the connection to MCP server "${context.serverName}" was closed during ${describe(context)}: ${failure.closedByClient}`;
    } else {
      message = `MCP server "${context.serverName}" closed the connection during ${describe(context)}`;
      if (failure.exitCode !== undefined || failure.signal !== undefined) {
        message += failure.signal != null ? ` (killed by ${failure.signal})` : ` (exit code ${String(failure.exitCode)})`;
      }
      if (failure.stderr !== undefined) message += `; stderr: ${lastLines(failure.stderr)}`;
      else if (failure.transportError !== undefined && capText(failure.transportError) !== errorMessage(error)) {
        message += `; last transport error: ${capText(failure.transportError)}`;
      }
    }
    // `connectionLost` tells a retry policy that the request may be tried again on a new connection
    // (not when this side closed it: the same request would get the same oversized reply).
    const connectionLost = failure.closedByClient === undefined;
    return errors('EXECUTION', message, { cause: error, details: { ...baseDetails(context), ...failure, connectionLost } });
  }
  if (error instanceof UnauthorizedError) {
    return errors(
      'EXECUTION',
      `${where} is not authorized (${errorMessage(error)}): the server asks for a new authorization (more scopes, say); complete it with finishAuth and call again`,
      { cause: error, details: { ...baseDetails(context), reason: 'unauthorized' } },
    );
  }
  if (error instanceof McpError && error.data instanceof InvalidServerResponse) {
    return errors(
      'PROTOCOL',
      `MCP server "${context.serverName}" sent an invalid response to ${describe(context)}: ${error.data.problem}`,
      {
        cause: error,
        details: baseDetails(context),
      },
    );
  }
  if (error instanceof McpError) {
    return errors('EXECUTION', `${where} failed: ${errorMessage(error)}`, {
      cause: error,
      details: { ...baseDetails(context), mcpCode: error.code, ...(error.data === undefined ? {} : { mcpData: error.data }) },
    });
  }
  if (error instanceof Error && error.name === 'ZodError') {
    return errors(
      'PROTOCOL',
      `MCP server "${context.serverName}" sent an invalid result for ${describe(context)}: ${errorMessage(error)}`,
      {
        cause: error,
        details: baseDetails(context),
      },
    );
  }
  return errors('EXECUTION', `${where} failed: ${errorMessage(error)}`, { cause: error, details: baseDetails(context) });
}

/**
 * INVALID_ARGUMENT when the call's arguments cannot be sent as JSON (a throwing getter, a bigint, a
 * cycle), else `undefined`: asked only after a request failed before the server answered, to tell
 * the caller's arguments from a transport failure.
 */
function unsendableArguments(context: OperationContext, failure: unknown): ToolexecError | undefined {
  try {
    JSON.stringify(context.arguments);
    return undefined;
  } catch (error) {
    let why: string;
    try {
      why = error instanceof Error ? error.message : describeValue(error);
    } catch {
      why = 'an unreadable error';
    }
    return errors.invalidArgument('params.arguments', `of ${describe(context)} cannot be sent as JSON: ${why}`, {
      cause: failure,
      details: baseDetails(context),
    });
  }
}

/** How a session reaches its server. */
export type SessionMode = 'stdio' | 'http' | 'sse' | 'custom';

const TRANSPORT_NAMES: Record<SessionMode, string> = {
  stdio: 'stdio',
  http: 'Streamable HTTP',
  sse: 'HTTP+SSE',
  custom: 'a custom transport',
};

/** What a failed connection attempt was. */
export interface ConnectContext {
  serverName: string;
  /** The transport tried. */
  mode: SessionMode;
  /** The connect timeout that applied. */
  timeoutMs: number;
}

/**
 * The error for a server that could not be reached or initialized. The message names the server,
 * the transport and the HTTP status (once), then the exit status and stderr tail of a process;
 * `details` has `serverName`, `transport`, `httpStatus`, `reason` and what the session knew.
 */
export function connectError(error: unknown, context: ConnectContext, failure: FailureDetails = {}): ToolexecError {
  if (ToolexecError.isInstance(error)) return error;
  const details: Record<string, unknown> = { serverName: context.serverName, transport: context.mode, ...failure };
  const over = `MCP server "${context.serverName}" over ${TRANSPORT_NAMES[context.mode]}`;
  if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) return connectTimeoutError(context, failure, error);
  const status = httpStatusOf(error);
  let reason = stripTransportPrefix(errorMessage(error));
  if (status !== undefined) {
    details.httpStatus = status;
    if (!reason.includes(`HTTP ${status}`)) reason = `HTTP ${status}: ${reason}`;
  }
  if (error instanceof UnauthorizedError) reason = `not authorized (${reason})`;
  const network = networkCauseOf(error);
  if (network !== undefined) {
    if (network.code !== undefined) details.networkCode = network.code;
    if (!reason.includes(network.code ?? network.message)) reason += ` (${network.message || network.code})`;
  }
  details.reason = reason;
  let message = `could not connect to ${over}: ${reason}`;
  if (failure.exitCode !== undefined) message += ` (exit code ${String(failure.exitCode)})`;
  if (failure.stderr !== undefined) message += `; stderr: ${lastLines(failure.stderr)}`;
  else if (failure.transportError !== undefined && capText(failure.transportError) !== errorMessage(error)) {
    message += `; last transport error: ${capText(failure.transportError)}`;
  }
  return errors('EXECUTION', message, { cause: error, details });
}

/**
 * TIMEOUT for a server that did not start and answer `initialize` within the connect timeout (a
 * process that never answers, an HTTP+SSE stream that never sends its `endpoint` event).
 */
export function connectTimeoutError(context: ConnectContext, failure: FailureDetails = {}, cause?: unknown): ToolexecError {
  const details: Record<string, unknown> = { serverName: context.serverName, transport: context.mode, ...failure };
  let message = `MCP server "${context.serverName}" over ${TRANSPORT_NAMES[context.mode]} did not answer initialize within ${context.timeoutMs} ms`;
  if (failure.transportError !== undefined) message += `; last transport error: ${failure.transportError}`;
  details.reason = `no answer to initialize within ${context.timeoutMs} ms`;
  return errors('TIMEOUT', message, cause === undefined ? { details } : { cause, details });
}

/** The error when Streamable HTTP was refused and the HTTP+SSE fallback failed too: both reasons, once each. */
export function fallbackError(serverName: string, httpError: ToolexecError, sseError: unknown): ToolexecError {
  const sse = ToolexecError.isInstance(sseError) ? sseError : connectError(sseError, { serverName, mode: 'sse', timeoutMs: 0 });
  const reason = (e: ToolexecError): string => (typeof e.details?.reason === 'string' ? e.details.reason : e.message);
  const httpStatus = sse.details?.httpStatus ?? httpError.details?.httpStatus;
  return errors(
    sse.code === 'TIMEOUT' ? 'TIMEOUT' : 'EXECUTION',
    `could not connect to MCP server "${serverName}": Streamable HTTP failed (${reason(httpError)}), then HTTP+SSE failed (${reason(sse)})`,
    {
      cause: new AggregateError([httpError, sse], `both transports of MCP server "${serverName}" failed`),
      details: {
        serverName,
        transport: 'sse',
        ...(httpStatus === undefined ? {} : { httpStatus }),
        attempts: [httpError.details, sse.details],
      },
    },
  );
}

/** The HTTP status of a transport error (Streamable HTTP, SSE), or undefined. */
function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    const code = error.code;
    return typeof code === 'number' && code >= 100 && code < 600 ? code : undefined;
  }
  return undefined;
}

function stripTransportPrefix(message: string): string {
  return message.replace(/^(Streamable HTTP error|SSE error): /, '');
}

/** EXECUTION for an open connection that ended by itself: a server that exited, crashed or dropped the stream. */
export function connectionLostError(serverName: string, failure: FailureDetails): ToolexecError {
  let message = `MCP server "${serverName}" closed the connection`;
  if (failure.signal != null) message += ` (killed by ${failure.signal})`;
  else if (failure.exitCode !== undefined) message += ` (exit code ${String(failure.exitCode)})`;
  if (failure.stderr !== undefined) message += `; stderr: ${lastLines(failure.stderr)}`;
  else if (failure.transportError !== undefined) message += `; last transport error: ${failure.transportError}`;
  return errors('EXECUTION', message, { details: { serverName, ...failure } });
}

/** What a session knows about why it ended. */
export interface FailureDetails {
  exitCode?: number | null;
  signal?: string | null;
  stderr?: string;
  transportError?: string;
  /** Why the client closed the connection itself (a server message over the size bound), when it did. */
  closedByClient?: string;
}

/** The operation as messages name it: `tools/call "echo"`, `tools/list`. Built only for an error. */
function describe(context: OperationContext): string {
  return context.tool === undefined ? context.operation : `${context.operation} "${textOf(context.tool)}"`;
}

function baseDetails(context: OperationContext): Record<string, unknown> {
  const details: Record<string, unknown> = { serverName: context.serverName };
  if (context.tool !== undefined) details.tool = context.tool;
  return details;
}

/** A stderr line that says what went wrong (`Error: Cannot find module …`), as opposed to a stack frame. */
const CAUSE_LINE = /\b(error|exception|fatal|panic|cannot|can't|not found|no such file|denied|refused)\b/i;

/**
 * Keeps messages readable: the last few lines of stderr, after the first line that says what went
 * wrong when the tail lacks it (Node prints its `Error: Cannot find module …` above a stack trace
 * that fills the last lines). The full tail is in `details.stderr`.
 */
function lastLines(text: string, maxLines = 5, maxChars = 600): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const last = lines.slice(-maxLines);
  const cause = lines.find((line) => CAUSE_LINE.test(line) && !/^\s*at\s/.test(line));
  const shown = cause === undefined || last.includes(cause) ? last : [cause.trim(), '…', ...last.slice(-(maxLines - 1))];
  let tail = shown.join(' | ');
  if (tail.length > maxChars) tail = `${tail.slice(0, maxChars / 2)}…${tail.slice(-maxChars / 2)}`;
  return tail;
}
