/**
 * What the backend layer shares with the layers above it but not with users: imported by other
 * layers as `../backend/internal.js`, never listed in package.json `exports`.
 *
 * @internal
 * @module
 */
export { MAX_IDEMPOTENCY_KEY_LENGTH, readIdempotencyKey } from './call-deadline.js';
export { bridgedStreamOf, type BridgedStream } from './bridged-stream.js';
