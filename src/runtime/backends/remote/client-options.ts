/**
 * The options of the `remote` backend, and the one place their defaults are resolved.
 */
import type { Agent } from 'node:http';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../gateway/stream-connection.js';
import { DEFAULT_TIMEOUT_MS } from '../../core/request.js';
import { OptionReader, optionError } from '../../core/option-reader.js';
import { newNonce, secretBytes, type RemoteSecret } from './signing.js';

/** Time added to a run's timeout for the network: 5 s. */
export const DEFAULT_REMOTE_TIMEOUT_OVERHEAD_MS = 5_000;

/** How long the server may take to answer the request (status line): 10 s. */
export const DEFAULT_REMOTE_CONNECT_TIMEOUT_MS = 10_000;

/** Options of {@link createRemoteBackend}. */
export interface RemoteBackendOptions {
  /**
   * The runtime service (`http:` or `https:`), e.g. a server running `createRemoteRuntimeHandler` (toolexec/runtime/remote).
   * Without `url` and `secret` the backend is unconfigured: every run fails with `RUNTIME_UNAVAILABLE`.
   */
  url?: string | URL;
  /** The shared secret (at least 16 bytes). Required with `url`. */
  secret?: RemoteSecret;
  /** The key id, when the server holds several secrets. */
  keyId?: string;
  /** The run's timeout when the request has none (the server applies its own default too). @defaultValue 30000 */
  defaultTimeoutMs?: number;
  /** Added to the run's timeout for the client's own deadline. @defaultValue 5000 */
  timeoutOverheadMs?: number;
  /**
   * How long the server may take to answer (`RUNTIME_UNAVAILABLE` after); also how long a
   * refusal's body may take (after it, the refusal goes by its status alone). @defaultValue 10000
   */
  connectTimeoutMs?: number;
  /** Largest message in either direction; also caps the execute message (`RESOURCE_LIMIT`). @defaultValue 8 MiB */
  maxMessageBytes?: number;
  /** The `http.Agent` / `https.Agent` (TLS options, keep-alive, proxies). @defaultValue node's global agent */
  agent?: Agent;
  /** Extra request headers (e.g. for a reverse proxy). The protocol headers always win. */
  headers?: Readonly<Record<string, string>>;
  /** @internal Test seams. */
  _internal?: { now?: () => number; nonce?: () => string };
}

/** {@link RemoteBackendOptions} with defaults applied. */
export interface Resolved {
  url: URL;
  endpoint: string;
  secret: Buffer;
  keyId: string | undefined;
  defaultTimeoutMs: number;
  timeoutOverheadMs: number;
  connectTimeoutMs: number;
  maxMessageBytes: number;
  agent: Agent | undefined;
  headers: Record<string, string>;
  now: () => number;
  nonce: () => string;
}

/** Applies the defaults of {@link RemoteBackendOptions}; `undefined` when neither `url` nor `secret` is set. @throws `CONFIGURATION` for a bad option. */
export function resolveOptions(options: RemoteBackendOptions): Resolved | undefined {
  if (options === null || typeof options !== 'object') throw optionError('remote', 'options', 'must be an object', options);
  if (options.url === undefined && options.secret === undefined) return undefined;
  if (options.url === undefined) throw optionError('remote', 'url', 'is required with secret', undefined);
  if (options.secret === undefined) throw optionError('remote', 'secret', 'is required with url', undefined);
  let url: URL;
  try {
    url = new URL(options.url);
  } catch (err) {
    throw optionError('remote', 'url', 'must be an absolute http(s) URL', String(options.url));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw optionError('remote', 'url', 'must be an http: or https: URL', url.protocol);
  if (options.keyId !== undefined && (typeof options.keyId !== 'string' || options.keyId === '' || /[\r\n]/.test(options.keyId))) {
    throw optionError('remote', 'keyId', 'must be a non-empty single-line string', options.keyId);
  }
  const read = new OptionReader('remote', options);
  const endpoint = `${url.origin}${url.pathname}`;
  return {
    url,
    endpoint,
    secret: secretBytes(options.secret),
    keyId: options.keyId,
    defaultTimeoutMs: read.positiveInteger('defaultTimeoutMs', DEFAULT_TIMEOUT_MS),
    timeoutOverheadMs: read.nonNegativeInteger('timeoutOverheadMs', DEFAULT_REMOTE_TIMEOUT_OVERHEAD_MS),
    connectTimeoutMs: read.positiveInteger('connectTimeoutMs', DEFAULT_REMOTE_CONNECT_TIMEOUT_MS),
    maxMessageBytes: read.positiveInteger('maxMessageBytes', DEFAULT_MAX_MESSAGE_BYTES),
    agent: options.agent,
    headers: { ...options.headers },
    now: options._internal?.now ?? Date.now,
    nonce: options._internal?.nonce ?? newNonce,
  };
}
