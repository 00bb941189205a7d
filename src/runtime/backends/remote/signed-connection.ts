/**
 * An authenticated message channel over any {@link GatewayConnection}: every message travels as
 * `{ type: 'sig', seq, mac, body }` where `body` is the message's JSON text, `seq` counts up from 1
 * per direction and `mac` = HMAC(sessionKey, direction, seq, body). Nothing can be injected,
 * dropped, replayed or reordered without the session key.
 */
import type { ToolexecError } from '../../../model/index.js';
import { AsyncQueue, encodeMessage, type GatewayConnection, type IncomingItem } from '../../gateway/connection.js';
import { protocolError, type WireMessage } from '../../gateway/wire.js';
import { macEquals, messageMac } from './signing.js';

/** Options of {@link createSignedConnection}. */
export interface SignedConnectionOptions {
  /** The exchange's session key. */
  key: Uint8Array;
  /** The direction label of outgoing messages (`c2s` on the client, `s2c` on the server). */
  sendLabel: string;
  /** The direction label of incoming messages. */
  receiveLabel: string;
  /** Largest message body (its JSON text) sent or accepted. */
  maxMessageBytes: number;
  /**
   * Called once when the channel ends on a bad incoming message: one that fails authentication, or
   * one the connection cut short (see {@link SignedConnection.failure}).
   */
  onFailure?: (error: ToolexecError) => void;
}

/** A {@link GatewayConnection} whose messages are authenticated. */
export interface SignedConnection extends GatewayConnection {
  /**
   * What ended the channel early, if anything: an authentication failure (`PROTOCOL`), or the
   * connection lost in the middle of a message (the transport's `CONNECTION_CLOSED`, its cause kept).
   */
  readonly failure: ToolexecError | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

class Signed implements SignedConnection {
  readonly #inner: GatewayConnection;
  readonly #options: SignedConnectionOptions;
  readonly #queue = new AsyncQueue<IncomingItem>();
  #sendSeq = 0;
  #receiveSeq = 0;
  #failure: ToolexecError | undefined;
  #closed = false;

  constructor(inner: GatewayConnection, options: SignedConnectionOptions) {
    this.#inner = inner;
    this.#options = options;
    void this.#pump();
  }

  get incoming(): AsyncIterable<IncomingItem> {
    return this.#queue;
  }

  get closed(): boolean {
    return this.#closed || this.#inner.closed;
  }

  get failure(): ToolexecError | undefined {
    return this.#failure;
  }

  async send(message: WireMessage): Promise<void> {
    const body = encodeMessage(message, this.#options.maxMessageBytes);
    // the sequence number is taken synchronously, and the inner send writes synchronously: order is kept
    this.#sendSeq += 1;
    const seq = this.#sendSeq;
    const mac = messageMac(this.#options.key, this.#options.sendLabel, seq, body);
    await this.#inner.send({ type: 'sig', seq, mac, body });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.end();
    await this.#inner.close();
  }

  async #pump(): Promise<void> {
    try {
      for await (const item of this.#inner.incoming) {
        const message = this.#verify(item);
        if (message === undefined) break;
        this.#queue.push({ kind: 'message', message });
      }
    } catch {
      // a failing transport ends the channel
    }
    this.#queue.end();
    if (this.#failure !== undefined) await this.#inner.close();
  }

  #fail(reason: string | ToolexecError, details?: Record<string, unknown>): undefined {
    this.#failure = typeof reason === 'string' ? protocolError(`unauthenticated message: ${reason}`, details) : reason;
    try {
      this.#options.onFailure?.(this.#failure);
    } catch {
      // a throwing hook must not break the channel teardown
    }
    return undefined;
  }

  #verify(item: IncomingItem): WireMessage | undefined {
    if (item.kind === 'malformed') {
      // a line the connection cut short is a lost connection, not a forgery
      return item.truncated === true ? this.#fail(item.error) : this.#fail(item.error.message, { bytes: item.bytes });
    }
    const envelope = item.message;
    if (envelope.type !== 'sig' || typeof envelope.body !== 'string' || typeof envelope.seq !== 'number') {
      return this.#fail(`expected a signed envelope, got type "${envelope.type}"`);
    }
    const expected = this.#receiveSeq + 1;
    if (envelope.seq !== expected) return this.#fail(`sequence ${String(envelope.seq)} where ${expected} was due`);
    const mac = messageMac(this.#options.key, this.#options.receiveLabel, expected, envelope.body);
    if (!macEquals(mac, envelope.mac)) return this.#fail(`bad MAC on message ${expected}`);
    this.#receiveSeq = expected;
    if (Buffer.byteLength(envelope.body) > this.#options.maxMessageBytes) {
      return this.#fail(`message ${expected} exceeds the ${this.#options.maxMessageBytes}-byte limit`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(envelope.body);
    } catch {
      return this.#fail(`message ${expected} is not JSON`);
    }
    if (
      !isObject(parsed) ||
      typeof parsed.type !== 'string' ||
      parsed.type === '' ||
      (parsed.id !== undefined && typeof parsed.id !== 'string')
    ) {
      return this.#fail(`message ${expected} is not a protocol message`);
    }
    return parsed as WireMessage;
  }
}

/**
 * Wraps `inner` so that every message is authenticated with the exchange's session key. An
 * incoming message that is malformed, unsigned, out of sequence or carries a bad MAC ends the
 * channel: `incoming` ends, the inner connection closes and {@link SignedConnection.failure}
 * holds a `PROTOCOL` error; a message cut short by the connection's end (`truncated`) ends it the
 * same way, with the inner connection's `CONNECTION_CLOSED` error as the failure. The envelope is
 * JSON, so give `inner` a `maxMessageBytes` about twice this connection's (escaping).
 */
export function createSignedConnection(inner: GatewayConnection, options: SignedConnectionOptions): SignedConnection {
  return new Signed(inner, options);
}
