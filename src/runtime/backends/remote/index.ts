/**
 * The `remote` backend and its server side: signed, full-duplex HTTP exchanges whose gateway
 * calls travel back to the caller; with the signing protocol for servers written elsewhere.
 *
 * @module toolexec/runtime/remote
 */
export { RemoteBackend, createRemoteBackend } from './client.js';
export { DEFAULT_REMOTE_CONNECT_TIMEOUT_MS, DEFAULT_REMOTE_TIMEOUT_OVERHEAD_MS } from './client-options.js';
export type { RemoteBackendOptions } from './client-options.js';
export { createRemoteRuntimeHandler } from './handler.js';
export {
  DEFAULT_FIRST_MESSAGE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_MAX_PENDING_AUTH,
  DEFAULT_REPLAY_WINDOW_MS,
} from './handler-options.js';
export type { RemoteRuntimeHandlerOptions } from './handler-options.js';
export type { RemoteRuntimeHandler, RemoteRuntimeHandlerStats } from './handler.js';
export {
  MIN_SECRET_BYTES,
  REMOTE_HEADERS,
  REMOTE_PROTOCOL,
  canonicalRemoteRequest,
  deriveSessionKey,
  messageMac,
  newNonce,
  remoteRequestHeaders,
  signRemoteRequest,
  verifyRemoteSignature,
} from './signing.js';
export type { RemoteSecret, RemoteSignedFields } from './signing.js';
export { createSignedConnection } from './signed-connection.js';
export type { SignedConnection, SignedConnectionOptions } from './signed-connection.js';
export { executeMessage, parseExecuteMessage } from './messages.js';
export type { RemoteExecuteMessage, RemoteExecutePayload, RemoteResultPayload } from './messages.js';
