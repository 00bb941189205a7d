/**
 * The server side of the remote runtime protocol: a `node:http` request handler that verifies a
 * signed `execute` request, runs it on a local runtime or backend, and lets the snippet's tool
 * calls travel back to the caller over the same HTTP exchange.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { ToolexecError, type ErrorCode } from '../../../model/index.js';
import { noop } from '../../../model/internal.js';
import { partialResultOf, runtimeError } from '../../core/errors.js';
import { settlesWithin } from '../../core/stopping.js';
import { PendingAuth, readFirstLine, type FirstLine } from './first-message.js';
import { createProxyGateway } from '../../gateway/proxy.js';
import { createStreamConnection } from '../../gateway/stream-connection.js';
import { protocolError, serializeError, type WireMessage } from '../../gateway/wire.js';
import type { ExecuteRequest, SecurityProfile } from '../../core/types.js';
import { parseExecuteMessage, resultPayload, type RemoteExecutePayload } from './messages.js';
import { createSignedConnection, type SignedConnection } from './signed-connection.js';
import { REMOTE_HEADERS, REMOTE_PROTOCOL, deriveSessionKey, verifyRemoteSignature } from './signing.js';
import { resolveOptions, type RemoteRuntimeHandlerOptions } from './handler-options.js';
import { watchWriteStall } from './write-stall.js';

/** Counters of a {@link RemoteRuntimeHandler}. */
export interface RemoteRuntimeHandlerStats {
  /** Requests handled. */
  requests: number;
  /** Exchanges that ran a snippet (authenticated). */
  runs: number;
  /** Requests refused for authentication (bad signature, stale, replayed, unknown key). */
  denied: number;
}

/** A `node:http` (and express-compatible) request handler serving the remote runtime protocol. */
export interface RemoteRuntimeHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** Exchanges in progress (authenticated, each holding a run slot). */
  readonly activeRuns: number;
  /** Requests being authenticated now (their signed execute message still arriving). */
  readonly pendingAuth: number;
  /** A copy of the counters. */
  readonly stats: RemoteRuntimeHandlerStats;
  /**
   * Refuses new requests (`503`, `closing`), drops the requests still being authenticated (`503`,
   * `closing`), aborts running snippets and waits for their exchanges to end; an exchange whose
   * last message is not delivered within a second (a client that stopped reading) has its
   * connection dropped. Idempotent.
   */
  close(): Promise<void>;
}

/** What authentication hands the run: the execute message, the rest of the body, the key material. */
interface Authenticated {
  payload: RemoteExecutePayload;
  first: { line: Buffer; rest: Buffer; ended: boolean };
  secret: Buffer;
  signature: string;
}

/** A refusal before the exchange starts: an HTTP status and the library error sent as the body. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly error: ToolexecError,
    readonly headers: Record<string, string> = {},
  ) {
    super(error.message);
  }

  get code(): ErrorCode {
    return this.error.code;
  }
}

function deny(reason: string, message: string): Refusal {
  return new Refusal(401, runtimeError('BACKEND_DENIED', `backend denied by policy: ${message}`, { details: { reason } }));
}

/** A `503` for a runtime that cannot take the run now. */
function unavailable(message: string, reason: string, headers: Record<string, string> = {}): Refusal {
  return new Refusal(503, runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${message}`, { details: { reason } }), headers);
}

function sendRefusal(res: ServerResponse, refusal: Refusal, req: IncomingMessage): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const { code, message, details } = refusal.error;
  const body = JSON.stringify({ error: { code, message, details: details ?? {} } });
  res.writeHead(refusal.status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    connection: 'close',
    [REMOTE_HEADERS.protocol]: REMOTE_PROTOCOL,
    ...refusal.headers,
  });
  res.end(body);
  // discard whatever the client still sends, and drop the connection if it keeps sending
  req.resume();
  const timer = setTimeout(() => req.socket?.destroy(), 1000);
  timer.unref();
  res.once('close', () => clearTimeout(timer));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function stripResult(err: unknown): unknown {
  if (!ToolexecError.isInstance(err) || err.details?.result === undefined) return err;
  const { result: _result, ...details } = err.details;
  const copy = runtimeError(err.code, err.message, {
    ...(err.cause === undefined ? {} : { cause: err.cause }),
    ...(Object.keys(details).length === 0 ? {} : { details }),
  });
  copy.name = err.name;
  return copy;
}

/** Sends a terminal message; one too large to send becomes a `failed` PROTOCOL message. */
async function sendTerminal(connection: SignedConnection, message: WireMessage): Promise<void> {
  try {
    await connection.send(message);
  } catch (err) {
    if (!ToolexecError.isInstance(err) || err.code !== 'PROTOCOL') return;
    const error = protocolError(`the run's ${message.type} message is too large to send (${err.message})`);
    await connection.send({ type: 'failed', error: serializeError(error) }).catch(() => undefined);
  }
}

function requestOf(payload: RemoteExecutePayload, allowUnsafeOptIn: boolean): Omit<ExecuteRequest, 'gateway' | 'signal'> {
  const request: Omit<ExecuteRequest, 'gateway' | 'signal'> = { code: payload.code };
  if (payload.language !== undefined) request.language = payload.language;
  if (payload.timeoutMs !== undefined) request.timeoutMs = payload.timeoutMs;
  if (payload.limits !== undefined) request.limits = payload.limits;
  if (payload.profile !== undefined) request.profile = payload.profile as SecurityProfile;
  if (payload.strict === true) request.strict = true;
  if (payload.metadata !== undefined) {
    const { unsafeOptIn, ...rest } = payload.metadata;
    request.metadata = allowUnsafeOptIn && unsafeOptIn !== undefined ? { ...rest, unsafeOptIn } : rest;
  }
  return request;
}

/** How long `close` lets exchanges send their last message before it drops their connections. */
const CLOSE_GRACE_MS = 1000;

const NONCE = /^[A-Za-z0-9_-]{8,128}$/;
const TIMESTAMP = /^\d{1,16}$/;

/**
 * Creates the server side of the remote runtime protocol, for `http.createServer(handler)` or an
 * express route (mount it without a body parser: it reads the body as a stream).
 *
 * @remarks
 * Per request (a `POST`): the protocol header must be `toolexec-remote/1` (`400`); the timestamp,
 * nonce and signature headers must be present and well formed, the key id known (with `secrets`),
 * and the timestamp within `replayWindowMs` of the server's clock — otherwise `401` with code
 * `BACKEND_DENIED` and `details.reason` (`missing_signature`, `unknown_key`, `stale_timestamp`).
 * Then the first body line (the execute message, at most `maxBodyBytes`, else `413`
 * `RESOURCE_LIMIT`) is read and the HMAC-SHA256 signature over method, path, timestamp, nonce, key
 * id and the line's SHA-256 is checked in constant time (`401` `bad_signature`); a nonce already
 * seen within the window is refused (`401` `replayed`). Only then does the server answer `200`
 * and stream newline-delimited JSON: the snippet runs on `runtime`/`backend` with a proxy gateway
 * whose calls go to the client as messages; the client's replies come back in the same request
 * body. Every message after the execute message is authenticated with a session key derived from
 * the signature (see {@link createSignedConnection}); a bad one aborts the run. The last message is
 * `result` or `failed` (the error serialized with its code, plus the partial result). If the client
 * closes the exchange, the run is aborted.
 *
 * Authentication comes first and costs no run slot: a request holds one of `maxPendingAuth` places
 * while its signed execute message arrives (within `firstMessageTimeoutMs`); when all are taken the
 * one waiting longest is dropped (`503`, `auth_busy`), so unauthenticated connections that trickle
 * bytes never keep signed clients out. Only a verified request (signature, timestamp, fresh nonce)
 * takes one of `maxConcurrentRuns` run slots (`503`, `busy`, when none is free).
 *
 * Bounds: `maxPendingAuth`, `maxConcurrentRuns` (`503`), `firstMessageTimeoutMs` (`408`),
 * `maxMessageBytes` per later message, a bounded replay cache, `writeStallTimeoutMs` for a client
 * that stops reading its response (its exchange is dropped, its run slot freed). Set the server's
 * `headersTimeout` short (a few seconds) so that connections trickling their headers, which never
 * reach this handler, are dropped early too. The server's `requestTimeout` (node's default 300 s)
 * must exceed the longest run, as the request body stays open for the whole exchange. Use HTTPS
 * (or a private network) for confidentiality: the protocol authenticates, it does not encrypt.
 *
 * @throws `CONFIGURATION` for missing or invalid options.
 */
export function createRemoteRuntimeHandler(options: RemoteRuntimeHandlerOptions): RemoteRuntimeHandler {
  const resolved = resolveOptions(options);
  const exchanges = new Set<Promise<void>>();
  const running = new Set<AbortController>();
  /** The responses of the exchanges in progress: what `close` drops when they outlast its grace. */
  const streaming = new Set<ServerResponse>();
  const stats: RemoteRuntimeHandlerStats = { requests: 0, runs: 0, denied: 0 };
  const pendingAuth = new PendingAuth(resolved.maxPendingAuth);
  let active = 0;
  let closed = false;

  /**
   * Checks the request's signature, timestamp and nonce, holding a place among the requests being
   * authenticated (never a run slot). Returns what the run needs, or `undefined` when the client
   * went away. @throws a {@link Refusal}.
   */
  async function authenticate(req: IncomingMessage, res: ServerResponse): Promise<Authenticated | undefined> {
    const protocol = header(req, REMOTE_HEADERS.protocol);
    if (protocol !== REMOTE_PROTOCOL) {
      throw new Refusal(400, protocolError(`expected ${REMOTE_HEADERS.protocol}: ${REMOTE_PROTOCOL}`, { protocol: protocol ?? null }));
    }
    const timestamp = header(req, REMOTE_HEADERS.timestamp);
    const nonce = header(req, REMOTE_HEADERS.nonce);
    const signature = header(req, REMOTE_HEADERS.signature);
    const keyId = header(req, REMOTE_HEADERS.keyId);
    if (timestamp === undefined || !TIMESTAMP.test(timestamp) || nonce === undefined || !NONCE.test(nonce) || signature === undefined) {
      throw deny('missing_signature', 'the request is not signed (timestamp, nonce and signature headers are required)');
    }
    let secret = resolved.secret;
    if (resolved.secrets !== undefined) {
      secret = keyId === undefined ? undefined : resolved.secrets.get(keyId);
      if (secret === undefined) throw deny('unknown_key', 'unknown key id');
    }
    const now = resolved.now();
    const timestampMs = Number(timestamp);
    if (Math.abs(now - timestampMs) > resolved.replayWindowMs) {
      throw deny('stale_timestamp', `the request timestamp is outside the ${resolved.replayWindowMs}ms replay window`);
    }
    let leave = noop;
    let first: FirstLine;
    try {
      first = await readFirstLine(req, resolved.maxBodyBytes, resolved.firstMessageTimeoutMs, (evict) => {
        // a request that arrives while closing waits for nothing
        if (closed) evict();
        else leave = pendingAuth.enter(evict);
      });
    } finally {
      leave();
    }
    if (first.kind === 'evicted') {
      if (closed) throw unavailable('the remote runtime is shutting down', 'closing');
      throw unavailable('too many requests being authenticated', 'auth_busy', { 'retry-after': '1' });
    }
    if (first.kind === 'too_large') {
      throw new Refusal(
        413,
        runtimeError('RESOURCE_LIMIT', `resource limit exceeded: the execute message is over ${resolved.maxBodyBytes} bytes`, {
          details: { limit: 'body', maxBodyBytes: resolved.maxBodyBytes },
        }),
      );
    }
    if (first.kind === 'timeout') throw new Refusal(408, protocolError('the execute message did not arrive in time'));
    if (first.kind === 'closed') {
      res.destroy();
      return undefined;
    }
    const line = first.line.length > 0 && first.line[first.line.length - 1] === 13 ? first.line.subarray(0, -1) : first.line;
    const path = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    const fields = { method: req.method ?? 'POST', path, timestampMs, nonce, ...(keyId === undefined ? {} : { keyId }), body: line };
    if (secret === undefined || !verifyRemoteSignature(secret, fields, signature)) throw deny('bad_signature', 'bad request signature');
    const verdict = resolved.replay.remember(nonce, now);
    if (verdict === 'replayed') throw deny('replayed', 'the request was already used (replay)');
    if (verdict === 'full') {
      throw unavailable('the replay cache is full', 'busy', { 'retry-after': '1' });
    }
    let payload: RemoteExecutePayload;
    try {
      payload = parseExecuteMessage(JSON.parse(line.toString('utf8')));
    } catch (err) {
      throw new Refusal(400, ToolexecError.isInstance(err) ? err : protocolError('the execute message is not JSON', undefined, err));
    }
    return { payload, first, secret, signature };
  }

  /** Runs an authenticated exchange (holding a run slot). */
  async function exchange(req: IncomingMessage, res: ServerResponse, auth: Authenticated): Promise<void> {
    const { payload, first, secret, signature } = auth;
    stats.runs += 1;
    res.writeHead(200, {
      'content-type': 'application/x-ndjson',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      [REMOTE_HEADERS.protocol]: REMOTE_PROTOCOL,
    });
    res.flushHeaders();
    const input: Readable = first.ended ? Readable.from([]) : req;
    if (!first.ended && first.rest.length > 0) req.unshift(first.rest);
    const controller = new AbortController();
    const inner = createStreamConnection(input, res, { maxMessageBytes: resolved.maxMessageBytes * 2 + 1024 });
    if (!first.ended) req.resume();
    const signed = createSignedConnection(inner, {
      key: deriveSessionKey(secret, signature),
      sendLabel: 's2c',
      receiveLabel: 'c2s',
      maxMessageBytes: resolved.maxMessageBytes,
      onFailure: (error) => controller.abort(error),
    });
    const proxy = createProxyGateway({
      connection: signed,
      ...(resolved.gatewayRequestTimeoutMs > 0 ? { requestTimeoutMs: resolved.gatewayRequestTimeoutMs } : {}),
    });
    const onClose = () => {
      if (!res.writableFinished) controller.abort(runtimeError('ABORTED', 'execution aborted: the client closed the exchange'));
    };
    res.once('close', onClose);
    running.add(controller);
    streaming.add(res);
    // a client that stops taking its output is dropped (closing the response aborts the run)
    const stopWatching = watchWriteStall(res, resolved.writeStallTimeoutMs, () => res.destroy());
    try {
      const result = await resolved.target.execute({
        ...requestOf(payload, resolved.allowUnsafeOptIn),
        gateway: proxy,
        signal: controller.signal,
      });
      await sendTerminal(signed, { type: 'result', result: resultPayload(result) });
    } catch (err) {
      const partial = partialResultOf(err);
      // stopped because this handler is closing: the server's reason (RUNTIME_UNAVAILABLE), not
      // the ABORTED the backend makes of any stop — the client did not give up
      const reason: unknown = controller.signal.reason;
      const stoppedByClose = closed && ToolexecError.isInstance(reason, 'RUNTIME_UNAVAILABLE');
      await sendTerminal(signed, {
        type: 'failed',
        error: serializeError(stoppedByClose ? reason : stripResult(err)),
        ...(partial === undefined ? {} : { result: resultPayload(partial) }),
      });
    } finally {
      stopWatching();
      res.off('close', onClose);
      running.delete(controller);
      streaming.delete(res);
      await proxy.close();
      await signed.close();
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.requests += 1;
    if (closed) {
      sendRefusal(res, unavailable('the remote runtime is shutting down', 'closing'), req);
      return;
    }
    if (req.method !== 'POST') {
      sendRefusal(res, new Refusal(405, protocolError('the remote runtime accepts POST only'), { allow: 'POST' }), req);
      return;
    }
    let slot = false;
    try {
      // authenticated first: an unsigned request never takes a run slot
      const auth = await authenticate(req, res);
      if (auth === undefined) return;
      if (closed) throw unavailable('the remote runtime is shutting down', 'closing');
      if (active >= resolved.maxConcurrentRuns) throw unavailable('too many concurrent runs', 'busy', { 'retry-after': '1' });
      active += 1;
      slot = true;
      await exchange(req, res, auth);
    } catch (err) {
      if (err instanceof Refusal) {
        if (err.code === 'BACKEND_DENIED') stats.denied += 1;
        sendRefusal(res, err, req);
      } else {
        res.destroy();
      }
    } finally {
      if (slot) active -= 1;
    }
  }

  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    const task = handle(req, res).catch(() => {
      res.destroy();
    });
    exchanges.add(task);
    void task.finally(() => exchanges.delete(task));
  }) as RemoteRuntimeHandler;
  Object.defineProperties(handler, {
    activeRuns: { get: () => active },
    pendingAuth: { get: () => pendingAuth.size },
    stats: { get: () => ({ ...stats }) },
    close: {
      value: async () => {
        closed = true;
        for (const controller of running)
          controller.abort(
            runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the remote runtime is shutting down', {
              details: { reason: 'closing' },
            }),
          );
        pendingAuth.evictAll();
        // an exchange gets a moment to send its last message; one whose client does not read
        // (its response stuck on a full socket) is dropped then, so closing never waits on a client
        if (!(await settlesWithin(Promise.allSettled([...exchanges]), CLOSE_GRACE_MS))) {
          for (const res of streaming) res.destroy();
        }
        while (exchanges.size > 0) await Promise.allSettled([...exchanges]);
      },
    },
  });
  return handler;
}
