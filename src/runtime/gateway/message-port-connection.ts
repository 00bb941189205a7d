/**
 * The gateway protocol over a worker_threads MessagePort: by structured clone, or as JSON text
 * (a string crosses threads far cheaper than a structured clone of the same object, and a relay —
 * the wasm worker between the QuickJS VM and the host — can pass it on without parsing it).
 */
import { AsyncQueue, encodeMessage, type GatewayConnection, type IncomingItem } from './connection.js';
import { connectionClosedError, protocolError, type WireMessage } from './wire.js';

/** The parts of a `node:worker_threads` MessagePort (or Worker) the connection uses. */
export interface MessagePortLike {
  /** Sends one message (structured-cloned by the port). */
  postMessage(value: unknown): void;
  /** Listens for the peer's messages. */
  on(event: 'message', listener: (value: unknown) => void): unknown;
  /** Listens for the port closing. */
  on(event: 'close', listener: () => void): unknown;
  /** Removes a message listener. */
  off(event: 'message', listener: (value: unknown) => void): unknown;
  /** Removes a close listener. */
  off(event: 'close', listener: () => void): unknown;
  /** Closes the port; called when the connection closes (unless `closePort: false`). */
  close?(): void;
}

/** Options of {@link createMessagePortConnection}. */
export interface MessagePortConnectionOptions {
  /** Close the port when the connection closes. @defaultValue true */
  closePort?: boolean;
  /**
   * How messages are sent: `'clone'` posts the message object, `'json'` posts its JSON text.
   * Either way both forms are read (objects as they are, strings parsed as JSON).
   * @defaultValue 'clone'
   */
  encoding?: 'clone' | 'json';
  /**
   * With `encoding: 'json'`, the largest message sent, in bytes of its JSON text: a larger one is
   * refused with `PROTOCOL` (`message of N bytes exceeds the M-byte limit`), as on a stream
   * connection. @defaultValue no limit
   */
  maxMessageBytes?: number;
}

class MessagePortConnection implements GatewayConnection {
  readonly #port: MessagePortLike;
  readonly #closePort: boolean;
  readonly #json: boolean;
  readonly #maxMessageBytes: number;
  readonly #queue = new AsyncQueue<IncomingItem>();
  #closed = false;
  readonly #onMessage = (value: unknown) => this.#receive(value);
  readonly #onClose = () => this.#detach();

  constructor(port: MessagePortLike, options: MessagePortConnectionOptions) {
    this.#port = port;
    this.#closePort = options.closePort ?? true;
    this.#json = options.encoding === 'json';
    this.#maxMessageBytes = options.maxMessageBytes ?? Infinity;
    port.on('message', this.#onMessage);
    port.on('close', this.#onClose);
  }

  get incoming(): AsyncIterable<IncomingItem> {
    return this.#queue;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async send(message: WireMessage): Promise<void> {
    if (this.#closed) throw connectionClosedError();
    const value: unknown = this.#json ? encodeMessage(message, this.#maxMessageBytes) : message;
    try {
      this.#port.postMessage(value);
    } catch (err) {
      const name = err instanceof Error ? err.name : '';
      if (name === 'DataCloneError') {
        throw protocolError(`message cannot be cloned: ${(err as Error).message}`, undefined, err);
      }
      throw connectionClosedError('gateway connection closed while sending', err);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#detach();
    if (this.#closePort) this.#port.close?.();
  }

  #detach(): void {
    this.#closed = true;
    this.#port.off('message', this.#onMessage);
    this.#port.off('close', this.#onClose);
    this.#queue.end();
  }

  #receive(received: unknown): void {
    let value = received;
    if (typeof received === 'string') {
      try {
        value = JSON.parse(received);
      } catch (err) {
        this.#queue.push({
          kind: 'malformed',
          error: protocolError('a message must be JSON text', undefined, err),
          text: received.slice(0, 4096),
          bytes: Buffer.byteLength(received),
        });
        return;
      }
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const message = value as Record<string, unknown>;
      const idOk = message.id === undefined || typeof message.id === 'string';
      if (typeof message.type === 'string' && message.type !== '' && idOk) {
        this.#queue.push({ kind: 'message', message: message as WireMessage });
        return;
      }
    }
    let text: string;
    try {
      text = JSON.stringify(value)?.slice(0, 4096) ?? String(value);
    } catch {
      text = String(value);
    }
    const id = (value as { id?: unknown } | null)?.id;
    this.#queue.push({
      kind: 'malformed',
      error: protocolError('a message must be an object with a string "type" (and a string "id", if any)'),
      text,
      bytes: text.length,
      ...(typeof id === 'string' ? { id } : {}),
    });
  }
}

/**
 * A {@link GatewayConnection} over a `node:worker_threads` MessagePort: messages travel by
 * structured clone (or as JSON text, `encoding: 'json'`); anything that is not an object with a
 * string `type` (or JSON text of one) is a `malformed` item.
 */
export function createMessagePortConnection(port: MessagePortLike, options: MessagePortConnectionOptions = {}): GatewayConnection {
  return new MessagePortConnection(port, options);
}
