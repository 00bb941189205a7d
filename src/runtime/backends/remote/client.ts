/**
 * The `remote` backend (beta): runs snippets on a remote runtime service over one signed,
 * full-duplex HTTP exchange, serving the snippet's tool calls from the caller's own gateway.
 */
import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { ToolexecError, isErrorCode, type ErrorCode } from '../../../model/index.js';
import { runtimeError } from '../../core/errors.js';
import { abortError, settlesWithin, watchDeadline, type StopKind } from '../../core/stopping.js';
import { serveGateway, type GatewayServer } from '../../gateway/server.js';
import { createStreamConnection } from '../../gateway/stream-connection.js';
import type { TracingGateway } from '../../gateway/tracing.js';
import { deserializeError, protocolError } from '../../gateway/wire.js';
import { effectiveTimeoutMs, validateRequest } from '../../core/request.js';
import type { ExecuteRequest, ExecuteResult, RuntimeBackend } from '../../core/types.js';
import { RunRecord } from '../../core/run-record.js';
import { executeMessage, readResultPayload } from './messages.js';
import { createSignedConnection, type SignedConnection } from './signed-connection.js';
import { REMOTE_HEADERS, REMOTE_PROTOCOL, deriveSessionKey, remoteRequestHeaders } from './signing.js';
import { resolveOptions, type RemoteBackendOptions, type Resolved } from './client-options.js';

/** Largest error body read from a refusing server. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Gateway errors remembered per run, to give a failure its original cause. */
const MAX_REMEMBERED_ERRORS = 100;

/** How an exchange ended: the server's terminal message. */
type Terminal = { kind: 'result'; result: unknown } | { kind: 'failed'; error: unknown; result: unknown };

function statusCode(status: number): ErrorCode {
  if (status === 401 || status === 403) return 'BACKEND_DENIED';
  if (status === 413) return 'RESOURCE_LIMIT';
  if (status === 400 || status === 405 || status === 408 || status === 415) return 'PROTOCOL';
  return 'RUNTIME_UNAVAILABLE';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Reads a refusal's JSON body (at most {@link MAX_ERROR_BODY_BYTES}, within `timeoutMs`: a body
 * still arriving then is dropped, and the refusal goes by its status); `undefined` when there is
 * none or it is not JSON.
 */
function readErrorBody(res: IncomingMessage, timeoutMs: number): Promise<unknown> {
  return new Promise<unknown>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => res.destroy(), timeoutMs);
    const done = () => {
      clearTimeout(timer);
      res.off('data', onData);
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ERROR_BODY_BYTES) {
        res.destroy();
        return;
      }
      chunks.push(chunk);
    };
    res.on('data', onData);
    res.once('end', done);
    res.once('close', done);
    res.once('error', done);
  });
}

/**
 * A refusal: the code its HTTP status means, whatever the body says — a refusal comes before any
 * authentication, so anything on the way (or an impostor server) could write that body; its
 * message and details are kept as what the server said (`details.serverCode`: the code it named),
 * except a `result`: the run's partial result is the caller's own record, never the body's.
 */
function refusalError(status: number, body: unknown, endpoint: string): ToolexecError {
  const error = isObject(body) && isObject(body.error) ? body.error : {};
  const code = statusCode(status);
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : `the remote runtime answered HTTP ${status}`;
  const serverCode = isErrorCode(error.code) ? { serverCode: error.code } : {};
  const { result: _forged, ...said } = isObject(error.details) ? error.details : {};
  return runtimeError(code, message, { details: { ...said, ...serverCode, status, endpoint } });
}

/**
 * Why an exchange ended without the server's terminal message: its channel's authentication
 * failure (`PROTOCOL`), else a lost connection — a message cut short (the channel's
 * `CONNECTION_CLOSED`) or a response that failed (`readError`), kept as the cause —, else a server
 * that ended the exchange without a result.
 */
function endedError(endpoint: string, failure: ToolexecError | undefined, readError: unknown): ToolexecError {
  const cut = ToolexecError.isInstance(failure, 'CONNECTION_CLOSED');
  if (failure !== undefined && !cut) return failure;
  if (cut || readError !== undefined) {
    const how = cut ? 'in the middle of a message' : `mid-run: ${readError instanceof Error ? readError.message : String(readError)}`;
    const code = (readError as NodeJS.ErrnoException | undefined)?.code;
    return runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: the remote runtime at ${endpoint} closed the connection ${how}`, {
      cause: cut ? failure : readError,
      // as a connection that fails outright: the socket's code when it has one
      details: { endpoint, reason: !cut && typeof code === 'string' ? code : 'connection_lost' },
    });
  }
  return runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: the remote runtime at ${endpoint} ended the exchange without a result`, {
    details: { endpoint, reason: 'no_result' },
  });
}

/**
 * Runs snippets on a remote runtime service.
 *
 * @remarks
 * One run is one HTTP `POST` kept open in both directions (newline-delimited JSON): the client
 * sends the `execute` message (code, language, timeout, limits, profile, metadata), signed with
 * HMAC-SHA256 over method, path, timestamp, a fresh nonce, key id and the message's digest; the
 * server answers `200` and streams the snippet's gateway requests, which this backend serves from
 * `request.gateway` — wrapped with `createTracingGateway`, so `maxToolCalls` and
 * `maxChainSteps` are enforced **here**, whatever the server does, and `toolCalls` is the
 * caller's own record — and sends the replies back in the request body. Every message after the
 * first carries a MAC under a session key derived from the signature, so neither side accepts
 * injected, replayed or reordered messages, and the server proves it holds the secret. The run
 * ends with the server's `result` or `failed` message.
 *
 * Failures: the server's error code and message (`CODE_EXECUTION` with line/column, `TIMEOUT`,
 * `LIMIT_EXCEEDED` — with the caller's original gateway error as `cause` —, ...), with the partial
 * result; a refusal (an unsigned HTTP answer) gets the code of its status, never one its body names (`401` → `BACKEND_DENIED`: bad signature, stale
 * timestamp, replay; `413` → `RESOURCE_LIMIT` `details.limit: 'body'`; `503` →
 * `RUNTIME_UNAVAILABLE`); connection refused, DNS failure, no answer within `connectTimeoutMs` or
 * a connection lost mid-run, even in the middle of a message → `RUNTIME_UNAVAILABLE` with the reason
 * (`cause`: what broke it); a bad MAC → `PROTOCOL`; the
 * client's deadline (the run's timeout + `timeoutOverheadMs`) → `TIMEOUT`; `request.signal` →
 * `ABORTED`. Aborts and timeouts destroy the HTTP exchange, which makes the server abort the run.
 *
 * `limitsEnforced`: timeout, tool calls and chain steps (enforced here); memory, CPU, pids and
 * disk as the (authenticated) server reports them. `backend.details`: `{ endpoint, remote }`,
 * where `remote` is the server's backend info.
 */
export class RemoteBackend implements RuntimeBackend {
  readonly kind = 'remote' as const;
  readonly readiness = 'beta' as const;
  readonly #options: Resolved | undefined;
  readonly #live = new Set<() => void>();

  constructor(options: RemoteBackendOptions = {}) {
    this.#options = resolveOptions(options);
  }

  /** The service's endpoint (origin and path, no query); `''` when unconfigured. */
  get endpoint(): string {
    return this.#options?.endpoint ?? '';
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const options = this.#options;
    const run = new RunRecord({ kind: this.kind, readiness: this.readiness, details: { endpoint: this.endpoint } });
    try {
      validateRequest(request);
    } catch (err) {
      throw run.fail(err, 'RUNTIME_UNAVAILABLE');
    }
    if (options === undefined) {
      throw runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: remote client not configured (url and secret)', {
        result: run.partial(),
        details: { backend: this.kind, reason: 'client_not_configured' },
      });
    }
    const line = JSON.stringify(executeMessage(request));
    const bytes = Buffer.byteLength(line);
    if (bytes > options.maxMessageBytes) {
      throw runtimeError(
        'RESOURCE_LIMIT',
        `resource limit exceeded: the execute message is ${bytes} bytes, over ${options.maxMessageBytes}`,
        {
          result: run.partial(),
          details: { limit: 'body', bytes, maxMessageBytes: options.maxMessageBytes },
        },
      );
    }
    const traced = run.traceGateway(request);

    const timeoutMs = effectiveTimeoutMs(request, options.defaultTimeoutMs) + options.timeoutOverheadMs;
    const gatewayErrors: unknown[] = [];
    let terminal: Terminal;
    try {
      terminal = await this.#exchange(options, line, request, traced, timeoutMs, gatewayErrors);
    } catch (err) {
      throw run.fail(err, 'RUNTIME_UNAVAILABLE');
    }

    const read = readResultPayload(terminal.result);
    run.backend.details = {
      endpoint: options.endpoint,
      ...(read.backend === undefined ? {} : { remote: read.backend }),
      ...(read.durationMs === undefined ? {} : { remoteDurationMs: read.durationMs }),
    };
    Object.assign(run.limitsEnforced, {
      memory: read.limitsEnforced.memory,
      cpu: read.limitsEnforced.cpu,
      pids: read.limitsEnforced.pids,
      disk: read.limitsEnforced.disk,
    });
    const result = run.partial({
      stdout: read.stdout,
      stderr: read.stderr,
      ...(read.hasValue ? { value: read.value } : {}),
      ...(read.warnings.length > 0 ? { warnings: read.warnings } : {}),
    });
    if (terminal.kind === 'result') {
      run.throwIfBudgetCaught(result);
      return result;
    }

    const remote = deserializeError(terminal.error);
    const original = gatewayErrors.find(
      (error) => ToolexecError.isInstance(error) && error.code === remote.code && error.message === remote.message,
    );
    const { result: _ignored, ...details } = remote.details ?? {};
    throw runtimeError(remote.code, remote.message, { cause: original ?? remote, result, details });
  }

  /** Tears down every exchange in progress (their runs reject with `ABORTED`). Idempotent. */
  async close(): Promise<void> {
    for (const destroy of [...this.#live]) destroy();
    this.#live.clear();
  }

  #exchange(
    options: Resolved,
    line: string,
    request: ExecuteRequest,
    gateway: TracingGateway,
    timeoutMs: number,
    gatewayErrors: unknown[],
  ): Promise<Terminal> {
    const path = `${options.url.pathname}${options.url.search}`;
    const signed = remoteRequestHeaders(options.secret, {
      method: 'POST',
      path,
      timestampMs: options.now(),
      nonce: options.nonce(),
      ...(options.keyId === undefined ? {} : { keyId: options.keyId }),
      body: line,
    });
    const sessionKey = deriveSessionKey(options.secret, signed[REMOTE_HEADERS.signature] as string);
    const transport = options.url.protocol === 'https:' ? https : http;

    return new Promise<Terminal>((resolve, reject) => {
      let settled = false;
      let response: IncomingMessage | undefined;
      let refused = false;
      let server: GatewayServer | undefined;
      let channel: SignedConnection | undefined;
      /** Why the response failed (a reset connection), if it did. */
      let readError: unknown;
      const signal = request.signal;

      let stopWatching = (): void => undefined;
      const cleanup = () => {
        stopWatching();
        clearTimeout(connect);
        this.#live.delete(destroy);
      };
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        cleanup();
        client.destroy();
        if (server !== undefined) void server.close();
        reject(error);
      };
      const succeed = (terminal: Terminal) => {
        if (settled) return;
        settled = true;
        cleanup();
        resolve(terminal);
        // end our side of the exchange; drop the connection if the server does not end its side
        const closing = server === undefined ? Promise.resolve() : server.close();
        void settlesWithin(closing, 1000).then(() => {
          const linger = setTimeout(() => {
            if (response?.complete !== true) client.destroy();
          }, 5000);
          linger.unref();
          response?.once('end', () => clearTimeout(linger));
        });
      };
      const destroy = () => fail(runtimeError('ABORTED', 'execution aborted: the remote backend was closed'));
      const stopped = (kind: StopKind) =>
        fail(
          kind === 'aborted'
            ? abortError(signal as AbortSignal, 'execution')
            : runtimeError('TIMEOUT', `execution timeout: no result from the remote runtime within ${timeoutMs}ms`, {
                details: { timeoutMs, endpoint: options.endpoint },
              }),
        );
      const connect = setTimeout(() => {
        fail(
          runtimeError(
            'RUNTIME_UNAVAILABLE',
            `runtime unavailable: the remote runtime at ${options.endpoint} did not answer within ${options.connectTimeoutMs}ms`,
            {
              details: { endpoint: options.endpoint, reason: 'connect_timeout' },
            },
          ),
        );
      }, options.connectTimeoutMs);

      const client: ClientRequest = transport.request(options.url, {
        method: 'POST',
        headers: { ...options.headers, 'content-type': 'application/x-ndjson', ...signed },
        ...(options.agent === undefined ? {} : { agent: options.agent }),
      });
      client.on('socket', (socket) => socket.setNoDelay(true));
      client.on('error', (err: NodeJS.ErrnoException) => {
        if (refused) return;
        const reason = typeof err.code === 'string' ? err.code : 'unreachable';
        const what = response === undefined ? 'is unreachable' : 'closed the connection mid-run';
        fail(
          runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: the remote runtime at ${options.endpoint} ${what}: ${err.message}`, {
            cause: err,
            details: { endpoint: options.endpoint, reason },
          }),
        );
      });
      client.on('response', (res) => {
        response = res;
        clearTimeout(connect);
        if (res.statusCode !== 200) {
          refused = true;
          void readErrorBody(res, options.connectTimeoutMs).then((body) => fail(refusalError(res.statusCode ?? 0, body, options.endpoint)));
          return;
        }
        if (res.headers[REMOTE_HEADERS.protocol] !== REMOTE_PROTOCOL) {
          fail(protocolError(`${options.endpoint} does not speak ${REMOTE_PROTOCOL}`, { endpoint: options.endpoint }));
          return;
        }
        res.on('error', (err) => {
          readError ??= err;
        });
        const inner = createStreamConnection(res, client, { maxMessageBytes: options.maxMessageBytes * 2 + 1024 });
        channel = createSignedConnection(inner, {
          key: sessionKey,
          sendLabel: 'c2s',
          receiveLabel: 's2c',
          maxMessageBytes: options.maxMessageBytes,
        });
        const served = serveGateway(gateway, channel, {
          onMessage: (message) => {
            if (message.type === 'result') succeed({ kind: 'result', result: message.result });
            else if (message.type === 'failed') succeed({ kind: 'failed', error: message.error, result: message.result });
          },
          onRequestError: (_id, error) => {
            gatewayErrors.push(error);
            if (gatewayErrors.length > MAX_REMEMBERED_ERRORS) gatewayErrors.shift();
          },
        });
        server = served;
        void served.done.then(() => fail(endedError(options.endpoint, channel?.failure, readError)));
      });

      this.#live.add(destroy);
      // the wall clock and the caller's abort (at once, if it has aborted already)
      stopWatching = watchDeadline(signal, timeoutMs, stopped);
      client.write(`${line}\n`);
    });
  }
}

/** Creates a {@link RemoteBackend}. @throws `CONFIGURATION` for a bad URL, secret or option. */
export function createRemoteBackend(options: RemoteBackendOptions = {}): RemoteBackend {
  return new RemoteBackend(options);
}
