/**
 * The client side of the gateway protocol: a {@link ToolGateway} whose calls travel as messages
 * over a {@link GatewayConnection} to a {@link serveGateway} server.
 */
import { ToolexecError } from '../../model/index.js';
import type { DetailLevel, ToolDoc, ToolExample, ToolSummary } from '../../discovery/index.js';
import type { ChainResult, ChainStep, RunResult, StepResult } from '../../run/index.js';
import { ABORTED, Deadline } from '../../model/internal.js';
import { runtimeError } from '../core/errors.js';
import { abortError, stoppedError } from '../core/stopping.js';
import type { GatewayCallOptions, ToolGateway } from '../core/types.js';
import type { GatewayConnection, IncomingItem } from './connection.js';
import { emptyChainResult } from './empty-chain.js';
import { completeRunResult, type HeldDefinition } from './codec.js';
import {
  connectionClosedError,
  deserializeError,
  deserializeStep,
  protocolError,
  type GatewayRequestType,
  type WireMessage,
} from './wire.js';

/** Options of {@link createProxyGateway}. */
export interface ProxyGatewayOptions {
  /** The channel to the server. The gateway owns it from now on (closing the gateway closes it). */
  connection: GatewayConnection;
  /** Per-request deadline in milliseconds (`TIMEOUT`); 0 or absent: none. */
  requestTimeoutMs?: number;
}

/** Counters of a {@link ProxyGateway}'s receive loop. */
export interface ProxyGatewayStats {
  /** Requests sent. */
  sent: number;
  /** Replies for ids with no pending request (late, duplicated or unknown), ignored. */
  unmatched: number;
  /** Undecodable input, ignored (or failing the request whose id it carried). */
  malformed: number;
}

interface Pending {
  type: GatewayRequestType;
  resolve: (reply: WireMessage) => void;
  reject: (err: Error) => void;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function arrayField<T>(payload: unknown, field: string, type: GatewayRequestType): T[] {
  if (!isObject(payload)) throw protocolError(`${type} reply has no payload object`);
  const value = payload[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw protocolError(`${type} reply field "${field}" is not an array`);
  return value as T[];
}

function objectPayload<T>(payload: unknown, type: GatewayRequestType): T {
  if (!isObject(payload)) throw protocolError(`${type} reply has no payload object`);
  return payload as T;
}

/**
 * A {@link ToolGateway} client over a {@link GatewayConnection}.
 *
 * @remarks
 * Runs its own receive loop. Request ids are decimal strings from a counter starting at `"1"`.
 * A reply of type `error` rejects with a {@link ToolexecError} rebuilt with the server's code,
 * message, details and ToolError/ChainError fields; transport failures are `CONNECTION_CLOSED`
 * (closed or ended connection), `TIMEOUT` (`requestTimeoutMs`) and `PROTOCOL` (bad reply).
 * Aborting a call's `signal` rejects it with `ABORTED` (a timeout with `TIMEOUT`) and sends a
 * `cancel` message so the server can stop the work. After {@link ProxyGateway.close} every call rejects with `CONNECTION_CLOSED`
 * first, even an empty chain (which otherwise resolves locally without a round trip).
 *
 * It keeps the tool definitions it received: a tool's definition crosses again only when it
 * changed, and its results share one frozen `tool` and `backend` (as a guest's do).
 */
export class ProxyGateway implements ToolGateway {
  readonly #connection: GatewayConnection;
  readonly #timeoutMs: number;
  readonly #pending = new Map<string, Pending>();
  /** The tool definitions received, by tool ID. */
  readonly #definitions = new Map<string, HeldDefinition>();
  #nextId = 1;
  #closed = false;
  readonly #stats: ProxyGatewayStats = { sent: 0, unmatched: 0, malformed: 0 };
  readonly #loop: Promise<void>;

  constructor(options: ProxyGatewayOptions) {
    this.#connection = options.connection;
    this.#timeoutMs = options.requestTimeoutMs ?? 0;
    this.#loop = this.#receiveLoop();
  }

  /** True once closed, or once the connection ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** A copy of the receive-loop counters. */
  get stats(): ProxyGatewayStats {
    return { ...this.#stats };
  }

  /** Requests waiting for a reply. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  async searchTools(query: string, limit: number, options?: GatewayCallOptions): Promise<ToolSummary[]> {
    const { payload } = await this.#request('search_tools', { query, limit }, options);
    return arrayField<ToolSummary>(payload, 'results', 'search_tools');
  }

  async listNamespaces(options?: GatewayCallOptions): Promise<string[]> {
    const { payload } = await this.#request('list_namespaces', undefined, options);
    return arrayField<string>(payload, 'namespaces', 'list_namespaces');
  }

  async describeTool(id: string, level: DetailLevel, options?: GatewayCallOptions): Promise<ToolDoc> {
    const { payload } = await this.#request('describe_tool', { id, level }, options);
    return objectPayload<ToolDoc>(payload, 'describe_tool');
  }

  async listToolExamples(id: string, max: number, options?: GatewayCallOptions): Promise<ToolExample[]> {
    const { payload } = await this.#request('list_tool_examples', { id, max }, options);
    return arrayField<ToolExample>(payload, 'examples', 'list_tool_examples');
  }

  async runTool(id: string, args?: Record<string, unknown>, options?: GatewayCallOptions): Promise<RunResult> {
    const held = this.#definitions.get(id);
    const toolRev = held === undefined ? 0 : held.revision;
    const reply = await this.#request('run_tool', args === undefined ? { id, toolRev } : { id, toolRev, args }, options);
    const result = objectPayload<RunResult>(reply.payload, 'run_tool');
    if (typeof reply.toolRev === 'number') {
      const definition = completeRunResult(result, held, reply.toolRev, this.#definitions.get(id));
      if (definition !== undefined) this.#definitions.set(id, definition);
    }
    return result;
  }

  async runChain(steps: readonly ChainStep[], options?: GatewayCallOptions): Promise<ChainResult> {
    if (this.#closed) throw connectionClosedError();
    if (options?.signal?.aborted === true) throw abortError(options.signal, 'runChain');
    if (steps === undefined || steps === null || steps.length === 0) return emptyChainResult();
    const { payload } = await this.#request('run_chain', { steps }, options);
    const reply = objectPayload<{ result?: unknown; steps?: unknown }>(payload, 'run_chain');
    const stepResults = arrayField<unknown>(reply, 'steps', 'run_chain').map((step) => deserializeStep(step) as StepResult);
    if (reply.result === undefined && stepResults.length === 0) return emptyChainResult();
    if (!isObject(reply.result)) throw protocolError('run_chain reply has no result object');
    return { result: reply.result as unknown as RunResult, steps: stepResults };
  }

  /**
   * Closes the gateway and its connection: pending and later calls reject with
   * `CONNECTION_CLOSED`. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#failPending(connectionClosedError('gateway closed'));
    await this.#connection.close();
    await this.#loop;
  }

  /** Sends a request; resolves with its `response` message. */
  async #request(type: GatewayRequestType, payload: unknown, options: GatewayCallOptions | undefined): Promise<WireMessage> {
    if (this.#closed) throw connectionClosedError();
    const signal = options?.signal;
    if (signal?.aborted === true) throw abortError(signal, type);
    const id = String(this.#nextId);
    this.#nextId += 1;
    const reply = new Promise<WireMessage>((resolve, reject) => {
      // a settled request leaves the table at once: a second reply to it counts as unmatched
      this.#pending.set(id, {
        type,
        resolve: (value) => {
          this.#pending.delete(id);
          resolve(value);
        },
        reject: (err: Error) => {
          this.#pending.delete(id);
          reject(err);
        },
      });
    });
    const deadline = new Deadline(signal, this.#timeoutMs > 0 ? this.#timeoutMs : undefined);
    const message: WireMessage = payload === undefined ? { type, id } : { type, id, payload };
    this.#stats.sent += 1;
    this.#connection.send(message).catch((err: unknown) => {
      this.#pending.get(id)?.reject(ToolexecError.isInstance(err) ? err : connectionClosedError('gateway connection failed', err));
    });
    try {
      const value = await deadline.race(reply);
      if (value !== ABORTED) return value;
      // tell the server to stop the work; the reply, if any, will be ignored
      this.#pending.delete(id);
      this.#connection.send({ type: 'cancel', id }).catch(() => undefined);
      if (!deadline.timedOut) throw stoppedError(deadline.reason, type);
      throw runtimeError('TIMEOUT', `gateway request ${type} timed out after ${this.#timeoutMs}ms`, {
        details: { type, timeoutMs: this.#timeoutMs },
      });
    } finally {
      this.#pending.delete(id);
      deadline.dispose();
    }
  }

  async #receiveLoop(): Promise<void> {
    try {
      for await (const item of this.#connection.incoming) this.#handle(item);
    } catch {
      // the connection failed: same as an end
    }
    this.#closed = true;
    this.#failPending(connectionClosedError('gateway connection ended'));
  }

  #handle(item: IncomingItem): void {
    if (item.kind === 'malformed') {
      this.#stats.malformed += 1;
      const pending = item.id === undefined ? undefined : this.#pending.get(item.id);
      pending?.reject(item.error);
      return;
    }
    const { message } = item;
    const pending = message.id === undefined ? undefined : this.#pending.get(message.id);
    if (pending === undefined) {
      this.#stats.unmatched += 1;
      return;
    }
    if (message.type === 'response') {
      pending.resolve(message);
    } else if (message.type === 'error') {
      pending.reject(deserializeError(message.payload));
    } else {
      pending.reject(protocolError(`unexpected reply type "${message.type}" for ${pending.type}`));
    }
  }

  #failPending(err: ToolexecError): void {
    for (const pending of [...this.#pending.values()]) pending.reject(err);
  }
}

/** Creates a {@link ProxyGateway} over `options.connection`. */
export function createProxyGateway(options: ProxyGatewayOptions): ProxyGateway {
  return new ProxyGateway(options);
}
