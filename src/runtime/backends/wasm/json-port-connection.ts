/**
 * The gateway protocol over a run's MessagePort, encoded as JSON text: the wasm worker relays that
 * text between the QuickJS VM and the host without parsing it, and a string crosses threads far
 * cheaper than a structured clone of the same object. Objects the worker posts itself (output,
 * the run's outcome) are accepted as they are.
 */
import type { MessagePort } from 'node:worker_threads';
import { AsyncQueue, type GatewayConnection, type IncomingItem } from '../../gateway/connection.js';
import { connectionClosedError, protocolError, type WireMessage } from '../../gateway/wire.js';

function isMessage(value: unknown): value is WireMessage {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  return typeof message.type === 'string' && message.type !== '' && (message.id === undefined || typeof message.id === 'string');
}

class JsonPortConnection implements GatewayConnection {
  readonly #port: MessagePort;
  readonly #queue = new AsyncQueue<IncomingItem>();
  #closed = false;
  readonly #onMessage = (value: unknown) => this.#receive(value);
  readonly #onClose = () => this.#detach();

  constructor(port: MessagePort) {
    this.#port = port;
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
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (err) {
      throw protocolError(`message cannot be encoded: ${err instanceof Error ? err.message : String(err)}`, undefined, err);
    }
    this.#port.postMessage(text);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#detach();
    this.#port.close();
  }

  #detach(): void {
    this.#closed = true;
    this.#port.off('message', this.#onMessage);
    this.#port.off('close', this.#onClose);
    this.#queue.end();
  }

  #receive(value: unknown): void {
    if (typeof value !== 'string') {
      if (isMessage(value)) this.#queue.push({ kind: 'message', message: value });
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      this.#malformed(protocolError('a message must be JSON text', undefined, err), value);
      return;
    }
    if (isMessage(parsed)) this.#queue.push({ kind: 'message', message: parsed });
    else this.#malformed(protocolError('a message must be an object with a string "type" (and a string "id", if any)'), value, parsed);
  }

  #malformed(error: ReturnType<typeof protocolError>, text: string, parsed?: unknown): void {
    const id = (parsed as { id?: unknown } | null | undefined)?.id;
    this.#queue.push({
      kind: 'malformed',
      error,
      text: text.slice(0, 4096),
      bytes: Buffer.byteLength(text),
      ...(typeof id === 'string' ? { id } : {}),
    });
  }
}

/** A {@link GatewayConnection} over `port` that sends JSON text and reads JSON text or objects. */
export function createJsonPortConnection(port: MessagePort): GatewayConnection {
  return new JsonPortConnection(port);
}
