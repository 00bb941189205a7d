/**
 * Opaque page cursors: base64url of `{"o":offset,"v":version,"f":fingerprint,"i":index}`. The
 * index ID (random, one per index) ties a cursor to the index that issued it, the version to one
 * state of that index and the fingerprint to one listing (a search query or the namespace list),
 * so a cursor is rejected by any other index, after any change, and for any other listing.
 */
import { createHash } from 'node:crypto';
import { discoveryErrors as errors } from './errors.js';

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAX_CURSOR_LENGTH = 512;

interface CursorPayload {
  o: number;
  v: number;
  f: string;
  i: string;
}

/** A new random index ID for {@link encodeCursor} (12 base64url characters, 72 bits). */
export function newIndexId(): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(9))).toString('base64url');
}

const { invalidCursor } = errors;

/**
 * A short, stable fingerprint of a listing key: 96 bits of its SHA-256 (of its UTF-16 code units,
 * so lone surrogates stay distinct), base64url. Native hashing keeps a long query cheap to page
 * (about 1 ms per MB of query).
 */
export function fingerprint(key: string): string {
  return createHash('sha256').update(key, 'utf16le').digest('base64url').slice(0, 16);
}

/** Encodes the cursor of the page starting at `offset` of `listing`, issued by index `indexId` at `version`. */
export function encodeCursor(offset: number, version: number, listing: string, indexId: string): string {
  const payload: CursorPayload = { o: offset, v: version, f: listing, i: indexId };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/**
 * Decodes a cursor and checks it was issued by index `indexId` at `version` for `listing` (a {@link fingerprint}).
 *
 * @returns the offset it points at.
 * @throws {@link ToolexecError} `INVALID_CURSOR` when it is malformed, from another index, stale or for another listing.
 */
export function decodeCursor(cursor: unknown, version: number, listing: string, indexId: string): number {
  if (typeof cursor !== 'string') throw invalidCursor('cursor must be a string');
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw invalidCursor('not a cursor this index issued');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch (error) {
    throw invalidCursor('not a cursor this index issued', error);
  }
  if (payload === null || typeof payload !== 'object') throw invalidCursor('not a cursor this index issued');
  const { o, v, f, i } = payload as Partial<CursorPayload>;
  if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0 || typeof v !== 'number' || typeof f !== 'string') {
    throw invalidCursor('not a cursor this index issued');
  }
  if (i !== indexId) throw invalidCursor('not a cursor this index issued (another index issued it)');
  if (f !== listing) throw invalidCursor('the cursor belongs to another query or listing');
  if (v !== version) throw invalidCursor('the index changed since the cursor was issued; start again without a cursor');
  return o;
}

/**
 * `limit` as a count of items: 0 when it is not positive (NaN included).
 *
 * @throws `INVALID_ARGUMENT` when `limit` is not a number at all (`'4'`): a caller's mistake, not an empty request.
 */
export function itemCount(limit: unknown): number {
  if (typeof limit !== 'number') throw errors.invalidArgument('limit must be a number', { limit: typeof limit });
  if (!(limit >= 1)) return 0;
  return limit === Infinity ? Infinity : Math.floor(limit);
}

/** `limit` as a page size. @throws `INVALID_ARGUMENT` when it is not a positive number. */
export function pageSize(limit: unknown): number {
  const count = itemCount(limit);
  if (count === 0) throw errors.invalidArgument('limit must be positive', { limit });
  return count;
}

/** True for the cursor of a first page: none, `null` or `''`. */
export function isAbsentCursor(cursor: unknown): boolean {
  return cursor === undefined || cursor === null || cursor === '';
}
