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

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * True for a message the SDK's schema accepts as a result response and gives back equal:
 * exactly the keys `jsonrpc` (`"2.0"`), `id` (a string or an integer) and `result` (a plain
 * object without `_meta`, which the schema checks, and without an own `"__proto__"` key, which
 * it would not copy as it is). Anything else is left to the schema, which also says what is wrong.
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
  if (typeof id !== 'string' && !Number.isInteger(id)) return false;
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
 * `ReadBuffer` does (a trailing `\r` is dropped; the unread rest is bounded by the SDK's 10 MB),
 * without copying the stream's bytes for every message.
 */
export class JsonRpcLineReader {
  #rest: Buffer | undefined;
  readonly #maxBytes: number;

  constructor(maxBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Reads the complete lines that `chunk` ends and hands each to `onMessage`, or its parse error
   * to `onBadLine` (and goes on with the next line).
   *
   * @returns an error when the unread rest would exceed the bound (the reader is then emptied).
   */
  push(chunk: Buffer, onMessage: (message: JSONRPCMessage) => void, onBadLine: (error: Error) => void): Error | undefined {
    const rest = this.#rest;
    if (rest !== undefined && rest.length + chunk.length > this.#maxBytes) return this.#overflow();
    const buffer = rest === undefined ? chunk : Buffer.concat([rest, chunk]);
    let start = 0;
    for (let end = buffer.indexOf(NEWLINE); end !== -1; end = buffer.indexOf(NEWLINE, start)) {
      const stop = end > start && buffer[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
      const line = buffer.toString('utf8', start, stop);
      start = end + 1;
      let message: JSONRPCMessage;
      try {
        message = parseJsonRpcLine(line);
      } catch (error) {
        onBadLine(error as Error);
        continue;
      }
      onMessage(message);
    }
    if (start === buffer.length) {
      this.#rest = undefined;
    } else if (buffer.length - start > this.#maxBytes) {
      return this.#overflow();
    } else {
      this.#rest = start === 0 ? buffer : buffer.subarray(start);
    }
    return undefined;
  }

  #overflow(): Error {
    this.#rest = undefined;
    return new Error(`ReadBuffer exceeded maximum size of ${this.#maxBytes} bytes`);
  }

  /** Drops whatever is unread. */
  clear(): void {
    this.#rest = undefined;
  }
}
