/**
 * The `tools` object a snippet sees, the same in every sandbox (node guest, QuickJS prelude): six
 * methods that send gateway requests through the guest's channel and settle when the host replies.
 * A failed call rejects with an `Error` rebuilt from the wire (its `code`, `details`, `toolId`,
 * `steps`), whose stack points at the snippet's call site.
 *
 * A tool's definition (its `tool` and `backend`) crosses once per run: `run_tool` requests say
 * which revision of it the guest holds, and the host sends it again only when it changed. Every
 * result of that tool in the run shares the one definition, frozen. (QuickJS parses JSON at tens
 * of nanoseconds a byte; a definition with a real schema is kilobytes.)
 */
import {
  completeRunResult,
  decodeWireStep,
  mapItems,
  readWireError,
  type GatewayRequestType,
  type GuestPendingCall,
  type HeldDefinition,
  type WireMessage,
} from '../../gateway/codec.js';
import {
  GuestError,
  GuestMap,
  captureStackTrace,
  GuestNumber,
  GuestPromise,
  GuestString,
  GuestTypeError,
  GuestWeakMap,
  apply,
  defineProperty,
  isArray,
  mapDelete,
  mapForEach,
  mapGet,
  mapSet,
  promiseReject,
  promiseThen,
  weakMapGet,
  weakMapSet,
} from './primordials.js';
import { guardTools } from './tools-guard.js';

/** The global `tools` of a snippet. */
export interface GuestTools {
  /** `search_tools` (`limit` defaults to 10): the results. */
  searchTools(query?: unknown, limit?: unknown): Promise<unknown>;
  /** `list_namespaces`: the namespaces. */
  listNamespaces(): Promise<unknown>;
  /** `describe_tool` (`level` defaults to `summary`): the tool's doc. */
  describeTool(id: unknown, level?: unknown): Promise<unknown>;
  /** `list_tool_examples` (`max` defaults to 0, all): the examples. */
  listToolExamples(id: unknown, max?: unknown): Promise<unknown>;
  /** `run_tool`: the run result. */
  runTool(id: unknown, args?: unknown): Promise<unknown>;
  /** `run_chain`: `{ result, steps }`, each step's error a plain object. */
  runChain(steps: unknown): Promise<unknown>;
}

/** What the bridge needs from its guest. */
export interface ToolsChannel {
  /** Sends a request to the host. May throw: the call then rejects with that error. */
  send(id: string, message: WireMessage): void;
  /** The stack of a failed call's error, from the error and the call site. */
  stackOf(error: Error, site: CallSite): string | undefined;
}

/** The `tools` object and what the guest drives it with. */
export interface ToolsBridge {
  /** The frozen object the snippet gets as `tools`, behind the guard of {@link guardTools}. */
  tools: GuestTools;
  /** Settles the call a reply (`response` or `error`, already parsed) is for; others are ignored. */
  deliver: (message: unknown) => void;
  /** The request id of a failed call's error, while the snippet still holds that error. */
  requestIdOf: (error: unknown) => string | undefined;
  /** The calls sent and not yet answered, in the order they were made. */
  pendingCalls: () => GuestPendingCall[];
}

/**
 * Where the snippet made a call: the engine's stack at that moment, without the `tools` method's
 * own frames (V8 puts a header line first, QuickJS the frames only).
 */
export interface CallSite {
  stack?: unknown;
}

interface PendingCall {
  resolve: (payload: unknown) => void;
  reject: (error: unknown) => void;
  site: CallSite;
  type: GatewayRequestType;
  toolId: string | undefined;
  /** A `run_tool` call's definition of the tool held when it was sent. */
  held: HeldDefinition | undefined;
}

/** The request types whose payload names a tool in `id`. */
function namesTool(type: GatewayRequestType): boolean {
  return type === 'run_tool' || type === 'describe_tool' || type === 'list_tool_examples';
}

/** A chain step's error inside the sandbox: a plain object, not an `Error`. */
function guestStepError(wire: unknown): Record<string, unknown> {
  const fields = readWireError(wire);
  const out: Record<string, unknown> = { name: fields.name ?? 'Error', code: fields.code, message: fields.message };
  if (fields.details !== undefined) out.details = fields.details;
  return out;
}

function guestStep(step: unknown): unknown {
  return decodeWireStep(step, guestStepError);
}

/** The `Error` a failed call rejects with. */
function guestError(wire: unknown): Error {
  const fields = readWireError(wire);
  const error = new GuestError(fields.message);
  const extra = error as unknown as Record<string, unknown>;
  if (fields.name !== undefined) error.name = fields.name;
  if (fields.code !== undefined) extra.code = fields.code;
  if (fields.details !== undefined) extra.details = fields.details;
  if (fields.toolId !== undefined) extra.toolId = fields.toolId;
  if (fields.steps !== undefined) extra.steps = mapItems(fields.steps, guestStep);
  return error;
}

/** An `Error` with a library code, as a failed call rebuilds one from the wire. */
function codedError(code: string, message: string): Error {
  const error = new GuestError(message);
  (error as unknown as Record<string, unknown>).code = code;
  return error;
}

/**
 * What a call whose request could not be sent rejects with: a `TypeError` from encoding the
 * request (a BigInt, a cycle, a throwing `toJSON`) becomes `INVALID_ARGUMENT`, as the host answers
 * other arguments it cannot take; anything else (the guest's own refusals) as it was.
 */
function sendError(error: unknown): unknown {
  if (!(error instanceof GuestTypeError)) return error;
  return codedError('INVALID_ARGUMENT', `runtime: the request cannot be sent as JSON: ${GuestString(error.message)}`);
}

/** The payload's `field`, or `[]` when it has none. */
function listOf(payload: unknown, field: string): unknown {
  const value = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>)[field] : undefined;
  return value ?? [];
}

/** Builds the tools bridge of one guest. */
export function createToolsBridge(channel: ToolsChannel): ToolsBridge {
  const pending = new GuestMap<string, PendingCall>();
  const requestIds = new GuestWeakMap<object, string>();
  /** The definitions the host sent in this run, by the tool ID the snippet named. */
  const definitions = new GuestMap<string, HeldDefinition>();
  let nextId = 1;

  function call(type: GatewayRequestType, payload: unknown, site: CallSite): Promise<unknown> {
    const id = GuestString(nextId);
    nextId += 1;
    // the payload is the bridge's own object literal: its `id` is an own property
    const toolId = namesTool(type) ? (payload as { id: string }).id : undefined;
    // a `run_tool` request names the revision of the definition held now; its reply is completed
    // from that one, whatever replies come in between
    const held: HeldDefinition | undefined = type === 'run_tool' ? apply(mapGet, definitions, [toolId]) : undefined;
    if (held !== undefined) (payload as { toolRev: number }).toolRev = held.revision;
    // the Map methods are applied directly (not through helpers): this is every tool call's path
    return new GuestPromise((resolve, reject) => {
      apply(mapSet, pending, [id, { resolve, reject, site, type, toolId, held }]);
      try {
        channel.send(id, payload === undefined ? { type, id } : { type, id, payload });
      } catch (error) {
        apply(mapDelete, pending, [id]);
        throw sendError(error);
      }
    });
  }

  // Each method returns a promise and never throws synchronously (like an async function), without
  // the extra promise an async function would add to every call. The call site is captured here,
  // while the snippet's frame is still on the stack: a failure points at its line. Only the frames
  // below `method` (the snippet's) are recorded, on a plain object: in QuickJS an `Error` made here
  // would also format this bridge's frames, microseconds on every call.
  function request(
    type: GatewayRequestType,
    method: (...args: never[]) => unknown,
    build: () => unknown,
    after?: (payload: unknown) => unknown,
  ): Promise<unknown> {
    try {
      const site: CallSite = {};
      captureStackTrace(site, method);
      const promise = call(type, build(), site);
      if (after === undefined) return promise;
      const then: Promise<unknown> = apply(promiseThen, promise, [after]);
      return then;
    } catch (error) {
      return apply(promiseReject, GuestPromise, [error]);
    }
  }

  function searchTools(query?: unknown, limit: unknown = 10): Promise<unknown> {
    return request(
      'search_tools',
      searchTools,
      () => ({ query: GuestString(query ?? ''), limit: GuestNumber(limit) }),
      (payload) => listOf(payload, 'results'),
    );
  }

  function listNamespaces(): Promise<unknown> {
    return request(
      'list_namespaces',
      listNamespaces,
      () => undefined,
      (payload) => listOf(payload, 'namespaces'),
    );
  }

  function describeTool(id: unknown, level: unknown = 'summary'): Promise<unknown> {
    return request('describe_tool', describeTool, () => ({ id: GuestString(id), level: GuestString(level) }));
  }

  function listToolExamples(id: unknown, max: unknown = 0): Promise<unknown> {
    return request(
      'list_tool_examples',
      listToolExamples,
      () => ({ id: GuestString(id), max: GuestNumber(max) }),
      (payload) => listOf(payload, 'examples'),
    );
  }

  function runTool(id: unknown, args?: unknown): Promise<unknown> {
    // `toolRev`: 0 while no definition is held (`call` puts in the one held)
    return request('run_tool', runTool, () =>
      args === undefined || args === null ? { id: GuestString(id), toolRev: 0 } : { id: GuestString(id), toolRev: 0, args },
    );
  }

  function runChain(steps: unknown): Promise<unknown> {
    return request(
      'run_chain',
      runChain,
      () => {
        if (!isArray(steps)) throw codedError('INVALID_ARGUMENT', 'runtime: steps must be an array of chain steps');
        return { steps };
      },
      (payload) => {
        const reply = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>) : undefined;
        const results = reply?.steps;
        return { result: reply?.result, steps: isArray(results) ? mapItems(results, guestStep) : [] };
      },
    );
  }

  const tools: GuestTools = guardTools({ searchTools, listNamespaces, describeTool, listToolExamples, runTool, runChain });

  function deliver(message: unknown): void {
    if (message === null || typeof message !== 'object') return;
    const { type, id, payload, toolRev } = message as WireMessage;
    if (typeof id !== 'string') return;
    const entry: PendingCall | undefined = apply(mapGet, pending, [id]);
    if (entry === undefined) return;
    apply(mapDelete, pending, [id]);
    if (type === 'response') {
      if (typeof toolRev === 'number' && entry.type === 'run_tool') {
        const definition = completeRunResult(payload, entry.held, toolRev, apply(mapGet, definitions, [entry.toolId]));
        if (definition !== undefined) apply(mapSet, definitions, [entry.toolId, definition]);
      }
      entry.resolve(payload);
      return;
    }
    const error = guestError(payload);
    try {
      const stack = channel.stackOf(error, entry.site);
      if (stack !== undefined) defineProperty(error, 'stack', { value: stack, writable: true, configurable: true });
    } catch {
      // keep the error's own stack
    }
    apply(weakMapSet, requestIds, [error, id]);
    entry.reject(error);
  }

  function requestIdOf(error: unknown): string | undefined {
    if (error === null || (typeof error !== 'object' && typeof error !== 'function')) return undefined;
    const id: string | undefined = apply(weakMapGet, requestIds, [error]);
    return id;
  }

  function pendingCalls(): GuestPendingCall[] {
    const out: GuestPendingCall[] = [];
    let count = 0;
    apply(mapForEach, pending, [
      (entry: PendingCall) => {
        const call: GuestPendingCall = entry.toolId === undefined ? { type: entry.type } : { type: entry.type, toolId: entry.toolId };
        // defined, not assigned: a setter a snippet put on Array.prototype is never called
        defineProperty(out, count, { value: call, writable: true, enumerable: true, configurable: true });
        count += 1;
      },
    ]);
    return out;
  }

  return { tools, deliver, requestIdOf, pendingCalls };
}
