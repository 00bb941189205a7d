/**
 * The server side of the gateway protocol: answers the requests arriving on a connection with a
 * real {@link ToolGateway}.
 */
import { setMaxListeners } from 'node:events';
import type { ChainStep } from '../../run/index.js';
import type { ToolexecError } from '../../model/index.js';
import { describeValue, noop, onAbort } from '../../model/internal.js';
import { runtimeErrors } from '../core/errors.js';
import { contextFromCarrier, withContext } from '../../run/internal.js';
import type { ToolGateway } from '../core/types.js';
import { GATEWAY_METHODS } from './codec.js';
import type { GatewayConnection } from './connection.js';
import {
  isGatewayRequestType,
  protocolError,
  serializeError,
  serializeStep,
  toJsonReply,
  type GatewayRequestType,
  type WireMessage,
} from './wire.js';

/** Options of {@link serveGateway}. */
export interface ServeGatewayOptions {
  /**
   * Receives every well-formed message that is not a gateway request or `cancel` (guest output,
   * results, ...). When absent, such a message with an `id` gets a `PROTOCOL` error reply and one
   * without is ignored.
   */
  onMessage?: (message: WireMessage) => void;
  /**
   * Receives input that could not be decoded (bad JSON, too large, not a message). Without an
   * `id`, it is otherwise ignored; with one, it also gets a `PROTOCOL` error reply.
   */
  onMalformed?: (error: ToolexecError, text: string, bytes: number) => void;
  /** Receives the original error of every failed request, before the error reply is sent. */
  onRequestError?: (id: string, error: unknown) => void;
  /** Stops serving when aborted (like {@link GatewayServer.close}). */
  signal?: AbortSignal;
  /**
   * Whether a `cancel` message can stop one request. When true, each request gets its own signal,
   * aborted by a `cancel` for its id or when the server closes. When false, every request gets the
   * server's one signal, which aborts only when the server closes, and `cancel` messages are ignored.
   * Use false for a client that never cancels a single request (the wasm sandbox's guest): on
   * Node 20 an AbortController costs several microseconds, a large share of a fast tool call.
   * @defaultValue true
   */
  cancellableRequests?: boolean;
}

/** Counters of a {@link GatewayServer}. */
export interface GatewayServerStats {
  /** Requests answered (response or error). */
  requests: number;
  /** Requests answered with an error reply. */
  errors: number;
  /** Malformed input and unknown messages (with or without a reply). */
  protocolErrors: number;
  /** Input ignored because no reply could be addressed (no id). */
  ignored: number;
}

/** A running gateway server. */
export interface GatewayServer {
  /** Resolves (never rejects) once the connection ended or the server closed and every in-flight call settled. */
  readonly done: Promise<void>;
  /** Aborts in-flight calls, stops serving and closes the connection. Idempotent. */
  close(): Promise<void>;
  /** A copy of the counters. */
  readonly stats: GatewayServerStats;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function badRequest(type: string, reason: string): ToolexecError {
  return protocolError(`bad ${type} request: ${reason}`);
}

/**
 * A request field of the wrong kind: what the caller passed (`tools.runTool(id, 'a=1')`), so
 * `INVALID_ARGUMENT` naming the field and the method, which the snippet (or the model writing it)
 * can fix. A message that is not a request at all stays `PROTOCOL`.
 */
function badField(type: GatewayRequestType, name: string, problem: string): ToolexecError {
  return runtimeErrors.invalidArgument(name, `of tools.${GATEWAY_METHODS[type]} ${problem}`);
}

function field<T>(payload: Record<string, unknown>, type: GatewayRequestType, name: string, kind: 'string' | 'number'): T {
  const value = payload[name];
  if (typeof value !== kind || (kind === 'number' && !Number.isFinite(value))) {
    throw badField(type, name, `must be a ${kind === 'number' ? 'finite number' : kind}, got ${describeValue(value)}`);
  }
  return value as T;
}

function argsField(payload: Record<string, unknown>, type: GatewayRequestType, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw badField(type, 'args', `must be an object, got ${describeValue(value)}`);
  return value;
}

function chainSteps(payload: Record<string, unknown>): ChainStep[] {
  const steps = payload.steps;
  if (!Array.isArray(steps)) throw badField('run_chain', 'steps', `must be an array, got ${describeValue(steps)}`);
  return steps.map((step: unknown, i) => {
    if (!isObject(step) || typeof step.toolId !== 'string') {
      throw badField('run_chain', `steps[${i}]`, 'must be an object with a string "toolId"');
    }
    const out: ChainStep = { toolId: step.toolId };
    const args = argsField(payload, 'run_chain', step.args);
    if (args !== undefined) out.args = args;
    if (step.usePrevious === true) out.usePrevious = true;
    // The pointer mapping is checked by the chain itself (INVALID_ARGUMENT on the step).
    if (step.argsFrom !== undefined && step.argsFrom !== null) out.argsFrom = step.argsFrom as Record<string, string>;
    return out;
  });
}

/** A `run_tool` result for a client that keeps definitions: the reply says the revision. */
class RevisedResult {
  constructor(
    readonly payload: unknown,
    readonly toolRev: number,
  ) {}
}

/**
 * The revisions of the tool definitions (a `run_tool` result's `tool` and `backend`) one server
 * has sent, by the identity of the frozen tool object (a runner returns the index's own tool on
 * every call). A number is given to one pair only, so a client holding it holds exactly that
 * definition; numbering per server tells a guest nothing about other runs.
 */
class Revisions {
  readonly #known = new WeakMap<object, { backend: object; revision: number }>();
  #last = 0;

  /**
   * `result` for a client holding revision `held` of the tool's definition (0: none yet): with the
   * revision, and with `tool` and `backend` sent as `null` when the client holds the current one.
   * A result whose tool and backend are not both frozen objects goes as it is.
   */
  revise(result: unknown, held: number): unknown {
    const revision = this.#revisionOf(result);
    if (revision === undefined) return result;
    if (revision !== held) return new RevisedResult(result, revision);
    return new RevisedResult({ ...(result as object), tool: null, backend: null }, revision);
  }

  #revisionOf(result: unknown): number | undefined {
    if (result === null || typeof result !== 'object') return undefined;
    const { tool, backend } = result as { tool?: unknown; backend?: unknown };
    if (tool === null || typeof tool !== 'object' || !Object.isFrozen(tool)) return undefined;
    if (backend === null || typeof backend !== 'object' || !Object.isFrozen(backend)) return undefined;
    const known = this.#known.get(tool);
    if (known !== undefined && known.backend === backend) return known.revision;
    this.#last += 1;
    this.#known.set(tool, { backend, revision: this.#last });
    return this.#last;
  }
}

async function dispatch(
  gateway: ToolGateway,
  revisions: Revisions,
  type: GatewayRequestType,
  raw: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  const payload = isObject(raw) ? raw : {};
  if (raw !== undefined && raw !== null && !isObject(raw)) throw badRequest(type, 'payload must be an object');
  const options = { signal };
  switch (type) {
    case 'search_tools': {
      const query = field<string>(payload, type, 'query', 'string');
      const limit = field<number>(payload, type, 'limit', 'number');
      return { results: await gateway.searchTools(query, limit, options) };
    }
    case 'list_namespaces':
      return { namespaces: await gateway.listNamespaces(options) };
    case 'describe_tool': {
      const id = field<string>(payload, type, 'id', 'string');
      const level = field<string>(payload, type, 'level', 'string');
      return gateway.describeTool(id, level as Parameters<ToolGateway['describeTool']>[1], options);
    }
    case 'list_tool_examples': {
      const id = field<string>(payload, type, 'id', 'string');
      const max = field<number>(payload, type, 'max', 'number');
      return { examples: await gateway.listToolExamples(id, max, options) };
    }
    case 'run_tool': {
      const id = field<string>(payload, type, 'id', 'string');
      const result = await gateway.runTool(id, argsField(payload, type, payload.args), options);
      const held = payload.toolRev;
      return typeof held === 'number' ? revisions.revise(result, held) : result;
    }
    case 'run_chain': {
      const chain = await gateway.runChain(chainSteps(payload), options);
      return { result: chain.result, steps: chain.steps.map((step) => serializeStep(step, 'keep')) };
    }
  }
}

class Server implements GatewayServer {
  readonly #gateway: ToolGateway;
  readonly #connection: GatewayConnection;
  readonly #options: ServeGatewayOptions;
  readonly #inFlight = new Map<string, AbortController>();
  readonly #revisions = new Revisions();
  readonly #settling = new Set<Promise<void>>();
  readonly #stats: GatewayServerStats = { requests: 0, errors: 0, protocolErrors: 0, ignored: 0 };
  #closed = false;
  /** The one signal of every request when `cancellableRequests` is false (made on first use). */
  #shared: AbortController | undefined;
  readonly done: Promise<void>;

  constructor(gateway: ToolGateway, connection: GatewayConnection, options: ServeGatewayOptions) {
    this.#gateway = gateway;
    this.#connection = connection;
    this.#options = options;
    const signal = options.signal;
    const stopListening = signal === undefined || signal.aborted ? noop : onAbort(signal, () => void this.close());
    this.done = this.#serve().finally(stopListening);
    if (signal?.aborted === true) void this.close();
  }

  get stats(): GatewayServerStats {
    return { ...this.#stats };
  }

  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      for (const controller of this.#inFlight.values()) controller.abort(protocolError('gateway server closed'));
      this.#shared?.abort(protocolError('gateway server closed'));
      await this.#connection.close();
    }
    await this.done;
  }

  async #serve(): Promise<void> {
    try {
      for await (const item of this.#connection.incoming) {
        if (this.#closed) break;
        if (item.kind === 'malformed') {
          this.#stats.protocolErrors += 1;
          this.#safely(() => this.#options.onMalformed?.(item.error, item.text, item.bytes));
          if (item.id === undefined) this.#stats.ignored += 1;
          else this.#reply(item.id, 'error', serializeError(item.error));
          continue;
        }
        this.#route(item.message);
      }
    } catch {
      // a failing connection ends serving
    }
    while (this.#settling.size > 0) await Promise.all([...this.#settling]);
  }

  #route(message: WireMessage): void {
    if (isGatewayRequestType(message.type)) {
      if (message.id === undefined || message.id === '') {
        this.#stats.protocolErrors += 1;
        this.#stats.ignored += 1;
        return;
      }
      if (this.#inFlight.has(message.id)) {
        this.#stats.protocolErrors += 1;
        this.#reply(message.id, 'error', serializeError(protocolError(`duplicate request id "${message.id}"`)));
        return;
      }
      // a guest that propagates W3C trace context sends `traceparent`: its call continues that trace
      const { type, id, payload } = message;
      const parent = typeof message.traceparent === 'string' ? contextFromCarrier(message) : undefined;
      if (parent === undefined) this.#handle(type, id, payload);
      else withContext(parent, () => this.#handle(type, id, payload));
      return;
    }
    if (message.type === 'cancel') {
      if (message.id !== undefined && this.#options.cancellableRequests !== false) {
        this.#inFlight.get(message.id)?.abort(protocolError('request cancelled by the client'));
      }
      return;
    }
    if (this.#options.onMessage !== undefined) {
      this.#safely(() => this.#options.onMessage?.(message));
      return;
    }
    this.#stats.protocolErrors += 1;
    if (message.id === undefined) this.#stats.ignored += 1;
    else this.#reply(message.id, 'error', serializeError(protocolError(`unknown message type "${message.type}"`)));
  }

  #handle(type: GatewayRequestType, id: string, payload: unknown): void {
    const controller = this.#options.cancellableRequests === false ? this.#sharedController() : new AbortController();
    this.#inFlight.set(id, controller);
    const task = (async () => {
      try {
        const result = await dispatch(this.#gateway, this.#revisions, type, payload, controller.signal);
        this.#stats.requests += 1;
        if (controller.signal.aborted) return;
        if (result instanceof RevisedResult) this.#reply(id, 'response', toJsonReply(result.payload), result.toolRev);
        else this.#reply(id, 'response', toJsonReply(result));
      } catch (err) {
        this.#stats.requests += 1;
        this.#stats.errors += 1;
        this.#safely(() => this.#options.onRequestError?.(id, err));
        if (!controller.signal.aborted) this.#reply(id, 'error', serializeError(err));
      } finally {
        this.#inFlight.delete(id);
      }
    })();
    this.#settling.add(task);
    void task.finally(() => this.#settling.delete(task));
  }

  #sharedController(): AbortController {
    let shared = this.#shared;
    if (shared === undefined) {
      shared = new AbortController();
      // every in-flight call may listen on it: concurrent calls are not a leak
      setMaxListeners(0, shared.signal);
      this.#shared = shared;
    }
    return shared;
  }

  #reply(id: string, type: 'response' | 'error', payload: unknown, toolRev?: number): void {
    if (this.#closed) return;
    const message: WireMessage =
      toolRev !== undefined ? { type, id, toolRev, payload } : payload === undefined ? { type, id } : { type, id, payload };
    this.#connection.send(message).catch((err: unknown) => {
      // a reply too large to send still owes the client an answer
      if (type === 'response' && (err as { code?: unknown }).code === 'PROTOCOL') {
        // the call failed after all: the host reports an uncaught failure of it with this error's code
        this.#stats.errors += 1;
        this.#safely(() => this.#options.onRequestError?.(id, err));
        this.#connection.send({ type: 'error', id, payload: serializeError(err) }).catch(() => undefined);
      }
    });
  }

  #safely(fn: () => void): void {
    try {
      fn();
    } catch {
      // a throwing hook must not stop the server
    }
  }
}

/**
 * Serves `gateway` on `connection`: each request (`search_tools`, `list_namespaces`,
 * `describe_tool`, `list_tool_examples`, `run_tool`, `run_chain`) is answered concurrently with a
 * `response` (the full result, JSON-safe) or an `error` reply (`{ error, code, details?, ... }`,
 * see {@link serializeError}). A `cancel` message aborts the call with that id (unless
 * `cancellableRequests` is false).
 *
 * @remarks
 * Never throws into the host: a malformed request with an id gets a `PROTOCOL` error reply; one
 * without an id is ignored and counted ({@link GatewayServer.stats}); oversized input is a
 * `PROTOCOL` error. Each call gets a `signal` that aborts when the server closes.
 */
export function serveGateway(gateway: ToolGateway, connection: GatewayConnection, options: ServeGatewayOptions = {}): GatewayServer {
  return new Server(gateway, connection, options);
}
