/**
 * The `toolexec:sandbox/host` imports of a component, synchronous for the guest: each call posts a
 * gateway request on the run's port and blocks the worker (`Atomics.wait` on the host's reply
 * counter) until the host's gateway answers; the host enforces the wall clock by terminating the
 * worker, so the wait needs no deadline of its own.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { readWireError, type WireMessage } from '../../gateway/codec.js';

/** A WIT `result<string, string>` as jco's bindings take it from a host function. */
export type WitResult = { tag: 'ok'; val: string } | { tag: 'err'; val: string };

/** How long one sleep on the reply counter lasts before the port is checked again. */
const WAIT_SLICE_MS = 50;

function err(code: string, message: string): WitResult {
  return { tag: 'err', val: JSON.stringify({ code, message }) };
}

/** The host interface of one run. */
export class HostCalls {
  readonly #port: MessagePort;
  readonly #replyCell: Int32Array;
  readonly #maxMessageBytes: number;
  #next = 0;

  constructor(port: MessagePort, replyCell: Int32Array, maxMessageBytes: number) {
    this.#port = port;
    this.#replyCell = replyCell;
    this.#maxMessageBytes = maxMessageBytes;
  }

  /** The import object for `toolexec:sandbox/host`. */
  imports(): Record<string, (...args: never[]) => WitResult> {
    return {
      callTool: (id: string, argsJson: string) => this.callTool(id, argsJson),
      searchTools: (query: string, limit: number) => this.searchTools(query, limit),
    };
  }

  /** `call-tool`: ok is the JSON of the tool's result (what `tools.runTool` resolves to in a JS snippet). */
  callTool(id: string, argsJson: string): WitResult {
    let args: unknown;
    if (argsJson.trim() !== '') {
      try {
        args = JSON.parse(argsJson);
      } catch (error) {
        return err('INVALID_ARGUMENT', `args-json is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const payload = args === undefined || args === null ? { id } : { id, args };
    return this.#request('run_tool', payload, (reply) => reply);
  }

  /** `search-tools`: ok is the JSON array of tool summaries (what `tools.searchTools` resolves to). */
  searchTools(query: string, limit: number): WitResult {
    return this.#request('search_tools', { query, limit }, (reply) => (reply as { results?: unknown } | null)?.results ?? []);
  }

  #request(type: string, payload: unknown, pick: (reply: unknown) => unknown): WitResult {
    this.#next += 1;
    const id = `c${this.#next}`;
    const text = JSON.stringify({ type, id, payload } satisfies WireMessage);
    const bytes = Buffer.byteLength(text);
    if (bytes > this.#maxMessageBytes) {
      return err('PROTOCOL', `protocol error: message of ${bytes} bytes exceeds the ${this.#maxMessageBytes}-byte limit`);
    }
    const seen = Atomics.load(this.#replyCell, 0);
    this.#port.postMessage(text);
    const reply = this.#awaitReply(id, seen);
    if (reply.type === 'response') return { tag: 'ok', val: JSON.stringify(pick(reply.payload)) ?? 'null' };
    const wire = readWireError(reply.payload);
    return err(wire.code ?? 'INTERNAL', wire.message);
  }

  #awaitReply(id: string, seen: number): WireMessage {
    let count = seen;
    for (;;) {
      const received = receiveMessageOnPort(this.#port);
      if (received !== undefined) {
        const raw: unknown = received.message;
        const message = (typeof raw === 'string' ? JSON.parse(raw) : raw) as WireMessage | null;
        if (message !== null && typeof message === 'object' && message.id === id) return message;
        continue;
      }
      Atomics.wait(this.#replyCell, 0, count, WAIT_SLICE_MS);
      count = Atomics.load(this.#replyCell, 0);
    }
  }
}
