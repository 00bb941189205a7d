/**
 * Request signing of the remote runtime protocol: an HMAC-SHA256 over the method, the path, the
 * timestamp, a nonce, the key id and the SHA-256 of the execute message, plus the per-exchange
 * session key and message MACs that authenticate everything after it.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { runtimeError } from '../../core/errors.js';

/** The protocol name, sent in {@link REMOTE_HEADERS}.protocol and bound into every signature. */
export const REMOTE_PROTOCOL = 'toolexec-remote/1';

/** The HTTP headers of the protocol (lower case). */
export const REMOTE_HEADERS = {
  /** Carries {@link REMOTE_PROTOCOL}. */
  protocol: 'x-toolexec-protocol',
  /** The request's time, milliseconds since the epoch (checked against the server's replay window). */
  timestamp: 'x-toolexec-timestamp',
  /** The request's fresh random nonce (a replayed nonce is refused). */
  nonce: 'x-toolexec-nonce',
  /** The key id, when the server holds several secrets; absent otherwise. */
  keyId: 'x-toolexec-key-id',
  /** The hex HMAC-SHA256 signature of {@link canonicalRemoteRequest}. */
  signature: 'x-toolexec-signature',
} as const;

/** A shared secret: a string (UTF-8) or raw bytes, at least 16 bytes (32 random bytes recommended). */
export type RemoteSecret = string | Uint8Array;

/** The shortest secret accepted, in bytes. */
export const MIN_SECRET_BYTES = 16;

/** What a request signature covers. */
export interface RemoteSignedFields {
  /** `POST`. */
  method: string;
  /** The request target as sent: path and query (`/runtime?x=1`). */
  path: string;
  /** Milliseconds since the epoch. */
  timestampMs: number;
  /** A fresh random value per request (8–128 characters of `[A-Za-z0-9_-]`). */
  nonce: string;
  /** The key id, when the server holds several secrets. */
  keyId?: string;
  /** The execute message exactly as sent (without its newline). */
  body: string | Uint8Array;
}

/** The secret as bytes. @throws `CONFIGURATION` when it is not a string/bytes of at least 16 bytes. */
export function secretBytes(secret: unknown, name = 'secret'): Buffer {
  let bytes: Buffer;
  if (typeof secret === 'string') bytes = Buffer.from(secret, 'utf8');
  else if (secret instanceof Uint8Array) bytes = Buffer.from(secret);
  else throw runtimeError('CONFIGURATION', `configuration error: ${name} must be a string or bytes`, { details: { option: name } });
  if (bytes.length < MIN_SECRET_BYTES) {
    throw runtimeError('CONFIGURATION', `configuration error: ${name} must be at least ${MIN_SECRET_BYTES} bytes`, {
      details: { option: name },
    });
  }
  return bytes;
}

/** The SHA-256 of `body` in hex. */
export function bodyDigest(body: string | Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

/** The canonical string a signature covers: protocol, method, path, timestamp, nonce, key id and body digest, one per line. */
export function canonicalRemoteRequest(fields: RemoteSignedFields): string {
  return [
    REMOTE_PROTOCOL,
    fields.method.toUpperCase(),
    fields.path,
    String(fields.timestampMs),
    fields.nonce,
    fields.keyId ?? '',
    bodyDigest(fields.body),
  ].join('\n');
}

/** The request signature: hex HMAC-SHA256 of {@link canonicalRemoteRequest} with `secret`. */
export function signRemoteRequest(secret: RemoteSecret, fields: RemoteSignedFields): string {
  return createHmac('sha256', secretBytes(secret)).update(canonicalRemoteRequest(fields)).digest('hex');
}

/** A fresh nonce: 16 random bytes, hex. */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/** The protocol headers of a signed request. */
export function remoteRequestHeaders(secret: RemoteSecret, fields: RemoteSignedFields): Record<string, string> {
  return {
    [REMOTE_HEADERS.protocol]: REMOTE_PROTOCOL,
    [REMOTE_HEADERS.timestamp]: String(fields.timestampMs),
    [REMOTE_HEADERS.nonce]: fields.nonce,
    ...(fields.keyId === undefined ? {} : { [REMOTE_HEADERS.keyId]: fields.keyId }),
    [REMOTE_HEADERS.signature]: signRemoteRequest(secret, fields),
  };
}

const HEX_64 = /^[0-9a-f]{64}$/;

/** Compares two hex MACs in constant time (false for malformed or different-length input). */
export function macEquals(expected: string, actual: unknown): boolean {
  if (typeof actual !== 'string' || !HEX_64.test(actual) || !HEX_64.test(expected)) return false;
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(actual, 'hex'));
}

/** True when `signature` is the valid signature of `fields` under `secret` (constant-time). */
export function verifyRemoteSignature(secret: RemoteSecret, fields: RemoteSignedFields, signature: unknown): boolean {
  return macEquals(signRemoteRequest(secret, fields), signature);
}

/**
 * The key that authenticates every later message of one exchange, in both directions:
 * HMAC-SHA256(secret, `toolexec-remote/1 session\n<signature>`). Only holders of the secret can
 * compute it, so the server's replies authenticate the server too.
 */
export function deriveSessionKey(secret: RemoteSecret, signature: string): Buffer {
  return createHmac('sha256', secretBytes(secret)).update(`${REMOTE_PROTOCOL} session\n${signature}`).digest();
}

/** The MAC of one channel message: HMAC-SHA256(sessionKey, `<direction>\n<seq>\n<body>`), hex. */
export function messageMac(sessionKey: Uint8Array, direction: string, seq: number, body: string): string {
  return createHmac('sha256', sessionKey).update(`${direction}\n${seq}\n`).update(body).digest('hex');
}
