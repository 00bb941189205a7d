/**
 * The stdio wire: newline-delimited JSON-RPC messages read from a byte stream, checked by the
 * SDK's `JSONRPCMessageSchema` except for the message nearly every read is, a plain result
 * response, which passes a direct check instead.
 *
 * @internal
 * @module
 */
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { standInResponse } from './invalid-response.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * True for a message the SDK's schema accepts as a result response and gives back equal:
 * exactly the keys `jsonrpc` (`"2.0"`), `id` (a string, or a safe integer as zod's `int()` has
 * it) and `result` (a plain object without `_meta`, which the schema checks, and without an own
 * `"__proto__"` key, which it would not copy as it is). Anything else is left to the schema, which
 * also says what is wrong.
 */
export function isPlainResultResponse(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  let keys = 0;
  for (const key in message) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return false;
    keys++;
  }
  if (keys !== 3 || message.jsonrpc !== '2.0') return false;
  const id = message.id;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  const result = message.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return false;
  for (const key in result) {
    if (key === '_meta' || key === '__proto__') return false;
  }
  return true;
}

/** One line of the stream as a JSON-RPC message. @throws when it is not JSON or not JSON-RPC. */
export function parseJsonRpcLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return isPlainResultResponse(value) ? (value as JSONRPCMessage) : JSONRPCMessageSchema.parse(value);
}

/**
 * Splits a byte stream into lines and parses each as a JSON-RPC message, as the SDK's
 * `ReadBuffer` does (a trailing `\r` is dropped; a line may be at most the SDK's 10 MB), but
 * without copying: complete lines are decoded where they lie in the chunk, and the pieces of an
 * unfinished line are joined once, when its end arrives. (The SDK appends every chunk to what is
 * unread, which copies a 5 MB message arriving in 64 KB chunks ~80 times.)
 */
export class JsonRpcLineReader {
  /** The pieces of the unfinished line, in order. */
  #pieces: Buffer[] = [];
  #pieceBytes = 0;
  readonly #maxBytes: number;

  constructor(maxBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Reads the lines that `chunk` completes and hands each message to `onMessage`, or a line's parse
   * error to `onBadLine` (then goes on with the next line).
   *
   * @returns an error when a line grows past the bound (what was unread is then dropped).
   */
  push(chunk: Buffer, onMessage: (message: JSONRPCMessage) => void, onBadLine: (error: Error) => void): Error | undefined {
    let start = 0;
    let end = chunk.indexOf(NEWLINE);
    if (end !== -1 && this.#pieces.length > 0) {
      // the unfinished line ends in this chunk
      if (this.#pieceBytes + end > this.#maxBytes) return this.#overflow();
      const line = Buffer.concat([...this.#pieces, chunk.subarray(0, end)]);
      this.#pieces = [];
      this.#pieceBytes = 0;
      readLine(line, 0, line.length, onMessage, onBadLine);
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    for (; end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      if (end - start > this.#maxBytes) return this.#overflow();
      readLine(chunk, start, end, onMessage, onBadLine);
      start = end + 1;
    }
    if (start === chunk.length) return undefined;
    if (this.#pieceBytes + chunk.length - start > this.#maxBytes) return this.#overflow();
    this.#pieces.push(start === 0 ? chunk : chunk.subarray(start));
    this.#pieceBytes += chunk.length - start;
    return undefined;
  }

  /** Drops the unfinished line. */
  clear(): void {
    this.#pieces = [];
    this.#pieceBytes = 0;
  }

  #overflow(): Error {
    this.clear();
    return new Error(`a message from the server is over the ${this.#maxBytes}-byte limit`);
  }
}

/** Parses the line `buffer[start, end)` (without a trailing `\r`) and hands on the message or the error. */
function readLine(
  buffer: Buffer,
  start: number,
  end: number,
  onMessage: (message: JSONRPCMessage) => void,
  onBadLine: (error: Error) => void,
): void {
  const stop = end > start && buffer[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
  let value: unknown;
  let message: JSONRPCMessage;
  try {
    value = JSON.parse(buffer.toString('utf8', start, stop));
  } catch (error) {
    onBadLine(error as Error);
    return;
  }
  try {
    message = isPlainResultResponse(value) ? (value as JSONRPCMessage) : JSONRPCMessageSchema.parse(value);
  } catch (error) {
    // A malformed answer to a request: the request fails at once instead of waiting for its timeout.
    const standIn = standInResponse(value, error);
    if (standIn === undefined) onBadLine(error as Error);
    else onMessage(standIn);
    return;
  }
  onMessage(message);
}
