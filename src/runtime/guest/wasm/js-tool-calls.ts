/**
 * The tool calls of one JavaScript run: the gateway requests relayed to the host on the run's
 * port (each within the message cap), the ones not answered yet, and the replies taken off the
 * port in place while the VM waits.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { WireMessage } from '../../gateway/codec.js';
import { protocolError, serializeError } from '../../gateway/wire.js';
import type { JsRunMessage } from './messages.js';
import { byteLength, post, type Output } from './output.js';
import type { ReplyWait } from './reply-wait.js';

/** The `id` of a reply's JSON text (the host writes `{"type":...,"id":"N",...}`), without parsing it all. */
function replyId(json: string): string | undefined {
  const match = /"id":"(\d+)"/.exec(json.slice(0, 64));
  return match === null ? undefined : match[1];
}

/** A run's tool calls in flight. */
export class ToolCalls {
  readonly #port: MessagePort;
  readonly #replyCell: Int32Array | undefined;
  readonly #maxMessageBytes: number;
  readonly #output: Output;
  readonly #replyWait: ReplyWait;
  readonly #inFlight = new Set<string | undefined>();

  /** `output`: the run's output, flushed before each request. */
  constructor(message: JsRunMessage, output: Output, replyWait: ReplyWait) {
    this.#port = message.port;
    this.#replyCell = message.replyCell instanceof Int32Array ? message.replyCell : undefined;
    this.#maxMessageBytes = message.maxMessageBytes;
    this.#output = output;
    this.#replyWait = replyWait;
  }

  /** How many calls wait for their reply. */
  get size(): number {
    return this.#inFlight.size;
  }

  /**
   * Relays request `id` (the JSON text of a protocol message) to the host, unparsed. One over the
   * message cap is not sent: returns the JSON text of its `error` reply, for the VM.
   */
  send(id: string, json: string): string | undefined {
    const bytes = byteLength(json);
    const max = this.#maxMessageBytes;
    if (bytes > max) {
      const payload = serializeError(
        protocolError(`message of ${bytes} bytes exceeds the ${max}-byte limit`, { bytes, maxMessageBytes: max }),
      );
      return JSON.stringify({ type: 'error', id, payload } satisfies WireMessage);
    }
    this.#output.flush();
    this.#inFlight.add(id);
    post(this.#port, json);
    return undefined;
  }

  /** A reply (its JSON text) arrived: its call is answered. */
  answered(reply: string): void {
    this.#inFlight.delete(replyId(reply));
  }

  /**
   * A reply already on the port, or one the host posts within the reply wait: the worker spins
   * briefly, then sleeps, on the host's reply counter (far cheaper than a message through the event
   * loop) and then takes the reply off the port. A slower tool call returns to the event loop.
   */
  take(timersArmed: boolean): { message: unknown } | undefined {
    const cell = this.#replyCell;
    const seen = cell === undefined ? 0 : Atomics.load(cell, 0);
    const received = receiveMessageOnPort(this.#port);
    if (received !== undefined || cell === undefined || timersArmed) return received;
    return this.#replyWait.wait(cell, seen) ? receiveMessageOnPort(this.#port) : undefined;
  }

  /** Forgets every call (the run is over). */
  clear(): void {
    this.#inFlight.clear();
  }
}
