/**
 * The transport abstraction under the gateway protocol, and a small single-consumer async queue
 * the transports share.
 */
import type { ToolexecError } from '../../model/index.js';
import { protocolError, type WireMessage } from './wire.js';

/** Something received on a connection: a decoded message, or input that could not be decoded. */
export type IncomingItem =
  | {
      /** A decoded message. */
      kind: 'message';
      /** The message. */
      message: WireMessage;
    }
  | {
      /** Input that could not be decoded. */
      kind: 'malformed';
      /**
       * A `PROTOCOL` error saying what was wrong (bad JSON, no `type`, too large, ...); for a
       * `truncated` line, a `CONNECTION_CLOSED` error (`details.bytes`; `cause`: the input's own
       * error, when it failed).
       */
      error: ToolexecError;
      /** The offending input (at most the first 4 KiB of a line, 64 KiB of a run of raw text or of a `truncated` line). */
      text: string;
      /** Its full size in bytes. */
      bytes: number;
      /** The request id, when one could be recovered from the input. */
      id?: string;
      /**
       * True when the input ended (or failed) in the middle of this line: the peer went away while
       * writing it. A complete line that is not a message never has it.
       */
      truncated?: true;
    };

/**
 * A bidirectional message channel for the gateway protocol.
 *
 * @remarks `incoming` has a single consumer (the proxy client's or the server's receive loop); it
 * ends when the peer closes the channel or {@link GatewayConnection.close} is called.
 */
export interface GatewayConnection {
  /** Sends one message. Rejects with `PROTOCOL` (not encodable, too large) or `CONNECTION_CLOSED`. */
  send(message: WireMessage): Promise<void>;
  /** Everything the peer sends, in order. */
  readonly incoming: AsyncIterable<IncomingItem>;
  /** Closes both directions. Idempotent. */
  close(): Promise<void>;
  /** True once closed by either side. */
  readonly closed: boolean;
}

/**
 * An unbounded-producer, single-consumer queue exposed as an AsyncIterable. The producer can ask
 * to be told when the backlog is high (`size`) to apply backpressure.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiter: ((result: IteratorResult<T>) => void) | undefined;
  #ended = false;
  #onDrain: (() => void) | undefined;

  /** Items waiting to be consumed. */
  get size(): number {
    return this.#items.length;
  }

  /** True once {@link AsyncQueue.end} was called. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Called when the queue drains: the consumer took the last item, or waits on an empty queue. */
  set onDrain(listener: (() => void) | undefined) {
    this.#onDrain = listener;
  }

  /** Hands `item` to the waiting consumer, or queues it; ignored once the queue has ended. */
  push(item: T): void {
    if (this.#ended) return;
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter({ value: item, done: false });
      return;
    }
    this.#items.push(item);
  }

  /** Ends the queue: the consumer gets the remaining items, then `done`. Idempotent. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }

  /** Drops pending items and ends. */
  clear(): void {
    this.#items.length = 0;
    this.end();
  }

  /**
   * The consumer's iterator (one consumer at a time): queued items in order, then `done` once
   * ended. Leaving a `for await` loop early clears and ends the queue.
   */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.#items.length > 0) {
          const value = this.#items.shift() as T;
          if (this.#items.length === 0) this.#onDrain?.();
          return Promise.resolve({ value, done: false });
        }
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<T>>((resolve) => {
          this.#waiter = resolve;
          this.#onDrain?.();
        });
      },
      return: () => {
        this.clear();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/**
 * A message as its JSON text (one line, for a byte-stream transport or a port carrying text).
 * @throws `PROTOCOL` when the message is not JSON-encodable or is larger than `maxMessageBytes`
 * (`details: { bytes, maxMessageBytes }`).
 */
export function encodeMessage(message: WireMessage, maxMessageBytes: number): string {
  let text: string;
  try {
    text = JSON.stringify(message);
  } catch (err) {
    throw protocolError(`message is not JSON-encodable: ${err instanceof Error ? err.message : String(err)}`, undefined, err);
  }
  // a UTF-16 code unit is at most 3 bytes of UTF-8: a short text is counted only when it could be too large
  if (text.length * 3 <= maxMessageBytes) return text;
  const bytes = Buffer.byteLength(text);
  if (bytes > maxMessageBytes) {
    throw protocolError(`message of ${bytes} bytes exceeds the ${maxMessageBytes}-byte limit`, { bytes, maxMessageBytes });
  }
  return text;
}
