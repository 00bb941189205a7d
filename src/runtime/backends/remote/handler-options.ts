/**
 * The options of the remote runtime handler (the server side of the `remote` backend), and the
 * one place their defaults are resolved.
 */
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../gateway/stream-connection.js';
import type { ExecuteRequest, ExecuteResult, Runtime, RuntimeBackend } from '../../core/types.js';
import { OptionReader, optionError } from '../../core/option-reader.js';
import { ReplayCache } from './replay-cache.js';
import { secretBytes, type RemoteSecret } from './signing.js';

/** Default replay window: 5 minutes either side of the server's clock. */
export const DEFAULT_REPLAY_WINDOW_MS = 5 * 60_000;

/** Default cap on the signed execute message: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Default cap on concurrent exchanges: 16. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 16;

/** Default cap on requests still being authenticated at once: 32. */
export const DEFAULT_MAX_PENDING_AUTH = 32;

/** Default time the signed execute message may take to arrive: 5 s. */
export const DEFAULT_FIRST_MESSAGE_TIMEOUT_MS = 5_000;

/** Default time a response's output may wait on a client that takes none of it: 30 s. */
export const DEFAULT_WRITE_STALL_TIMEOUT_MS = 30_000;

/** Options of {@link createRemoteRuntimeHandler}. */
export interface RemoteRuntimeHandlerOptions {
  /** Runs the snippets (routing by profile). Give this or `backend`. */
  runtime?: Runtime;
  /** Runs the snippets. Give this or `runtime`. */
  backend?: RuntimeBackend;
  /** The shared secret (one client key). Give this or `secrets`. */
  secret?: RemoteSecret;
  /** Secrets by key id (key rotation, several clients); requests must then send a known key id. */
  secrets?: Readonly<Record<string, RemoteSecret>>;
  /** How far a request's timestamp may be from the server's clock. @defaultValue 300000 (5 min) */
  replayWindowMs?: number;
  /** Largest signed execute message (`413`, `RESOURCE_LIMIT` on the client). @defaultValue 1 MiB */
  maxBodyBytes?: number;
  /** Largest later message in either direction (gateway requests and replies, the result). @defaultValue 8 MiB */
  maxMessageBytes?: number;
  /** Authenticated exchanges at once; more get `503` (`RUNTIME_UNAVAILABLE`, `busy`). @defaultValue 16 */
  maxConcurrentRuns?: number;
  /**
   * Requests being authenticated at once (their signed execute message still arriving). They hold
   * no run slot; when all are taken, the one waiting longest is dropped (`503`, `auth_busy`) for the
   * newcomer, so connections that trickle bytes and never sign cannot keep signed clients out.
   * @defaultValue 32
   */
  maxPendingAuth?: number;
  /** How long the signed execute message may take to arrive (`408`). @defaultValue 5000 */
  firstMessageTimeoutMs?: number;
  /** Nonces remembered within the window; when full, new requests get `503`. @defaultValue 100000 */
  maxReplayEntries?: number;
  /** Per gateway call deadline on the server side; 0 = none. @defaultValue 0 */
  gatewayRequestTimeoutMs?: number;
  /**
   * How long, in milliseconds, an exchange's output may wait on a client that takes none of it (a
   * client that stopped reading its response) before the exchange is dropped: its connection is
   * closed, its run aborted and its run slot freed, rather than held until node's `requestTimeout`.
   * Every write the client takes restarts the clock; a client that reads never meets it. Progress
   * is seen as the socket completes writes, so allow for the largest message (`maxMessageBytes`)
   * at the slowest client served.
   * @defaultValue 30000 (30 s)
   */
  writeStallTimeoutMs?: number;
  /**
   * Pass a client's `metadata.unsafeOptIn` through to the runtime. Off by default: whether host
   * execution is allowed is the server operator's decision (configure the backend with `optIn`).
   * @defaultValue false
   */
  allowUnsafeOptIn?: boolean;
  /** @internal Test seams. */
  _internal?: { now?: () => number };
}

/** {@link RemoteRuntimeHandlerOptions} with defaults applied. */
export interface Resolved {
  target: { execute(request: ExecuteRequest): Promise<ExecuteResult> };
  secret: Buffer | undefined;
  secrets: Map<string, Buffer> | undefined;
  replayWindowMs: number;
  maxBodyBytes: number;
  maxMessageBytes: number;
  maxConcurrentRuns: number;
  maxPendingAuth: number;
  firstMessageTimeoutMs: number;
  gatewayRequestTimeoutMs: number;
  writeStallTimeoutMs: number;
  allowUnsafeOptIn: boolean;
  now: () => number;
  replay: ReplayCache;
}

const OPTION = 'remote handler';

/** Applies the defaults of {@link RemoteRuntimeHandlerOptions}. @throws `CONFIGURATION` for a bad option. */
export function resolveOptions(options: RemoteRuntimeHandlerOptions): Resolved {
  if (options === null || typeof options !== 'object') throw optionError(OPTION, 'options', 'must be an object', options);
  const target = options.backend ?? options.runtime;
  if ((options.backend !== undefined) === (options.runtime !== undefined) || typeof target?.execute !== 'function') {
    throw optionError(OPTION, 'runtime', 'or backend (exactly one, with execute()) is required', typeof target);
  }
  if ((options.secret !== undefined) === (options.secrets !== undefined)) {
    throw optionError(OPTION, 'secret', 'or secrets (exactly one) is required', 'secret');
  }
  let secrets: Map<string, Buffer> | undefined;
  if (options.secrets !== undefined) {
    secrets = new Map();
    for (const [keyId, value] of Object.entries(options.secrets)) secrets.set(keyId, secretBytes(value, `secrets.${keyId}`));
    if (secrets.size === 0) throw optionError(OPTION, 'secrets', 'must hold at least one secret', 0);
  }
  const read = new OptionReader(OPTION, options);
  const replayWindowMs = read.positiveInteger('replayWindowMs', DEFAULT_REPLAY_WINDOW_MS);
  return {
    target,
    secret: options.secret === undefined ? undefined : secretBytes(options.secret),
    secrets,
    replayWindowMs,
    maxBodyBytes: read.positiveInteger('maxBodyBytes', DEFAULT_MAX_BODY_BYTES),
    maxMessageBytes: read.positiveInteger('maxMessageBytes', DEFAULT_MAX_MESSAGE_BYTES),
    maxConcurrentRuns: read.positiveInteger('maxConcurrentRuns', DEFAULT_MAX_CONCURRENT_RUNS),
    maxPendingAuth: read.positiveInteger('maxPendingAuth', DEFAULT_MAX_PENDING_AUTH),
    firstMessageTimeoutMs: read.positiveInteger('firstMessageTimeoutMs', DEFAULT_FIRST_MESSAGE_TIMEOUT_MS),
    gatewayRequestTimeoutMs: read.nonNegativeInteger('gatewayRequestTimeoutMs', 0),
    writeStallTimeoutMs: read.positiveInteger('writeStallTimeoutMs', DEFAULT_WRITE_STALL_TIMEOUT_MS),
    allowUnsafeOptIn: options.allowUnsafeOptIn === true,
    now: options._internal?.now ?? Date.now,
    replay: new ReplayCache(replayWindowMs, read.positiveInteger('maxReplayEntries', 100_000)),
  };
}
