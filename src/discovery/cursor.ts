/**
 * Opaque page cursors: base64url of `{"o":offset,"v":version,"f":fingerprint}`. The version ties a
 * cursor to one index state and the fingerprint to one listing (a search query or the namespace
 * list), so a cursor is rejected after any change and cannot be replayed for another listing.
 */
import { discoveryErrors as errors } from './errors.js';

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAX_CURSOR_LENGTH = 512;

interface CursorPayload {
  o: number;
  v: number;
  f: string;
}

const { invalidCursor } = errors;

/** A short, stable fingerprint of a listing key (53-bit cyrb53 hash, base-36). */
export function fingerprint(key: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** Encodes the cursor of the page starting at `offset`. */
export function encodeCursor(offset: number, version: number, listing: string): string {
  const payload: CursorPayload = { o: offset, v: version, f: listing };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/**
 * Decodes a cursor and checks it belongs to `version` and `listing` (a {@link fingerprint}).
 *
 * @returns the offset it points at.
 * @throws {@link ToolexecError} `INVALID_CURSOR` when it is malformed, stale or for another listing.
 */
export function decodeCursor(cursor: unknown, version: number, listing: string): number {
  if (typeof cursor !== 'string') throw invalidCursor('cursor must be a string');
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw invalidCursor('not a cursor this index issued');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch (error) {
    throw invalidCursor('not a cursor this index issued', error);
  }
  if (payload === null || typeof payload !== 'object') throw invalidCursor('not a cursor this index issued');
  const { o, v, f } = payload as Partial<CursorPayload>;
  if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0 || typeof v !== 'number' || typeof f !== 'string') {
    throw invalidCursor('not a cursor this index issued');
  }
  if (f !== listing) throw invalidCursor('the cursor belongs to another query or listing');
  if (v !== version) throw invalidCursor('the index changed since the cursor was issued; start again without a cursor');
  return o;
}
