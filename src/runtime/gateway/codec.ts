/**
 * The gateway wire codec: the shapes of the messages that cross a sandbox boundary and the one
 * reading of an error reply. The host (`wire.ts` rebuilds library errors from it) and every guest
 * bundle (the node guest, the wasm worker, the QuickJS prelude) import this module.
 *
 * It imports nothing, so a guest bundle that compiles it in stays self-contained. Guests evaluate
 * it before a snippet runs; the intrinsics it calls are captured then, so a snippet that replaces
 * `Array.isArray` or `Object.defineProperty` still gets its replies decoded.
 */

const isArray = Array.isArray;
const defineProperty = Object.defineProperty;
const objectKeys = Object.keys;
const freeze = Object.freeze;

/** The request types a gateway client sends. */
export const GATEWAY_REQUEST_TYPES = [
  'search_tools',
  'list_namespaces',
  'describe_tool',
  'list_tool_examples',
  'run_tool',
  'run_chain',
] as const;

/** A gateway request type. */
export type GatewayRequestType = (typeof GATEWAY_REQUEST_TYPES)[number];

/** The `tools` method a snippet calls for each request type (`run_tool` → `runTool`). */
export const GATEWAY_METHODS: Readonly<Record<GatewayRequestType, string>> = {
  search_tools: 'searchTools',
  list_namespaces: 'listNamespaces',
  describe_tool: 'describeTool',
  list_tool_examples: 'listToolExamples',
  run_tool: 'runTool',
  run_chain: 'runChain',
};

/** The reply types: `response` (success) and `error`. */
export type GatewayReplyType = 'response' | 'error';

/**
 * One protocol message: `{ type, id, payload? }`. Requests and replies always carry an `id`;
 * other messages on the same channel (guest output, start, result) may not.
 *
 * A client that keeps tool definitions puts `toolRev` in a `run_tool` request's payload: the
 * revision of the definition it holds for that tool ID (0 when none). The `response` then carries
 * `toolRev` beside `payload`, the revision of the result's `tool` and `backend`; when it is the one
 * the client holds, the payload's `tool` and `backend` are `null` and the client puts its own back.
 * A request without `toolRev` gets the whole result, as before. Revisions are numbered by the
 * server of one connection and mean nothing on another: a client keeps definitions for one
 * connection only (a guest serves one run; a proxy is bound to its connection).
 */
export interface WireMessage {
  /** A {@link GatewayRequestType}, a {@link GatewayReplyType}, or another message type of the channel. */
  type: string;
  /** Pairs a reply with its request; absent on messages that are neither. */
  id?: string;
  /** The request's arguments, the reply's value, or a {@link WireError} for `error`. */
  payload?: unknown;
  /** Other fields of channel-specific messages. */
  [key: string]: unknown;
}

/**
 * The JSON text of a gateway request made by a guest (`type` one of {@link GATEWAY_REQUEST_TYPES},
 * `id` a count's digits, both the guest's own): the envelope is written out and only the payload
 * goes through `stringify` (a guest passes the `JSON.stringify` it captured before the snippet ran).
 * In QuickJS every object `JSON.stringify` walks costs microseconds, and this is every tool call's path.
 */
export function encodeRequest(message: WireMessage, stringify: (value: unknown) => string): string {
  const head = `{"type":"${message.type}","id":"${String(message.id)}"`;
  return message.payload === undefined ? `${head}}` : `${head},"payload":${stringify(message.payload)}}`;
}

/** The payload of an `error` reply. Everything but `error` is optional. */
export interface WireError {
  /** The message. */
  error: string;
  /** The library error code (`TOOL_NOT_FOUND`, ...). */
  code?: string;
  /** The error class name (`ToolError`, `ChainError`, ...). */
  name?: string;
  /** JSON-safe details. */
  details?: Record<string, unknown>;
  /** ToolError fields, when present. */
  toolId?: string;
  /** The failed pipeline stage of a ToolError (`resolve`, `execute`, ...). */
  op?: string;
  /** The backend of a ToolError, when one had been selected. */
  backend?: unknown;
  /** ChainError step results (each step's error serialized the same way). */
  steps?: unknown[];
  /** The cause chain, a few levels deep. */
  cause?: WireError;
}

/** A tool's definition (a `run_tool` result's `tool` and `backend`) as a client holds it, with its revision. */
export interface HeldDefinition {
  /** The revision the host gave it (a `response`'s `toolRev`). */
  revision: number;
  /** The tool, frozen. */
  tool: unknown;
  /** The backend, frozen. */
  backend: unknown;
}

/** `value`, frozen with everything it holds (a definition is plain JSON: no cycles). */
function freezeDeep(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const keys = objectKeys(value);
  for (let i = 0; i < keys.length; i += 1) freezeDeep((value as Record<string, unknown>)[keys[i] as string]);
  return freeze(value);
}

/**
 * Completes a `run_tool` result for a client that keeps definitions (see {@link WireMessage}):
 * `revision` is the reply's `toolRev`, `held` what the client held for the tool when it sent the
 * request, `current` what it holds now. When `held` matches, its tool and backend take the place
 * of the `null`s; when the reply carries the definition that `current` already is (concurrent
 * calls sent before the first reply came back), `current`'s take the place of the copies;
 * otherwise the result's own are frozen, and returned for the client to hold from now on. Every
 * result of one tool thus shares one read-only definition.
 */
export function completeRunResult(
  result: unknown,
  held: HeldDefinition | undefined,
  revision: number,
  current: HeldDefinition | undefined,
): HeldDefinition | undefined {
  if (result === null || typeof result !== 'object') return undefined;
  const fields = result as { tool: unknown; backend: unknown };
  const same =
    held !== undefined && held.revision === revision ? held : current !== undefined && current.revision === revision ? current : undefined;
  if (same !== undefined) {
    fields.tool = same.tool;
    fields.backend = same.backend;
    return undefined;
  }
  return { revision, tool: freezeDeep(fields.tool), backend: freezeDeep(fields.backend) };
}

/** The message of an error reply that has none. */
export const UNKNOWN_ERROR_MESSAGE = 'unknown error';

/**
 * The fields of an error reply, read defensively from whatever arrived: each is present only
 * when it has the right type, and `message` is never empty.
 */
export interface WireErrorFields {
  /** The message ({@link UNKNOWN_ERROR_MESSAGE} when missing or empty). */
  message: string;
  /** The error class name, when a non-empty string. */
  name?: string;
  /** The error code, when a string (not checked against the library's codes). */
  code?: string;
  /** The details, when a plain object. */
  details?: Record<string, unknown>;
  /** The ToolError tool id. */
  toolId?: string;
  /** The ToolError pipeline stage. */
  op?: string;
  /** The ToolError backend. */
  backend?: unknown;
  /** The ChainError step results, still in wire form. */
  steps?: unknown[];
  /** The cause, still in wire form. */
  cause?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !isArray(value);
}

/** Reads an `error` reply's payload (anything: a malformed one yields just the default message). */
export function readWireError(payload: unknown): WireErrorFields {
  const wire: Partial<Record<keyof WireError, unknown>> = isRecord(payload) ? payload : {};
  const fields: WireErrorFields = {
    message: typeof wire.error === 'string' && wire.error !== '' ? wire.error : UNKNOWN_ERROR_MESSAGE,
  };
  if (typeof wire.name === 'string' && wire.name !== '') fields.name = wire.name;
  if (typeof wire.code === 'string') fields.code = wire.code;
  if (isRecord(wire.details)) fields.details = wire.details;
  if (typeof wire.toolId === 'string') fields.toolId = wire.toolId;
  if (typeof wire.op === 'string') fields.op = wire.op;
  if (wire.backend !== undefined) fields.backend = wire.backend;
  if (isArray(wire.steps)) fields.steps = wire.steps;
  if (wire.cause !== undefined) fields.cause = wire.cause;
  return fields;
}

/**
 * A new array of `fn(item)` for each item. Indexes are defined, not assigned, so a setter a
 * snippet put on `Array.prototype` is never called.
 */
export function mapItems<T, U>(items: readonly T[], fn: (item: T) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < items.length; i += 1) {
    defineProperty(out, i, { value: fn(items[i] as T), writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/**
 * A chain step result from the wire: the same fields, with its `error` (if any) decoded by
 * `decodeError`. Anything that is not an object is returned as is.
 */
export function decodeWireStep(step: unknown, decodeError: (wire: unknown) => unknown): unknown {
  if (step === null || typeof step !== 'object') return step;
  const { error, ...rest } = step as { error?: unknown } & Record<string, unknown>;
  if (error === undefined) return rest;
  return { ...rest, error: decodeError(error) };
}

// ---- the guest channel: what a host and a guest say around the gateway requests ----

/** Host → node guest, first line on stdin when the guest starts through the loader: its program. */
export interface GuestProgramMessage {
  type: 'program';
  /** The node guest bundle's source. */
  source: string;
}

/** Host → node guest: run this snippet. */
export interface GuestStartMessage {
  type: 'start';
  /** The prepared JavaScript snippet (the body of an async function). */
  code: string;
  /** The largest result, as JSON bytes. @defaultValue unlimited */
  maxResultBytes?: number;
  /** The largest message the host accepts, in bytes: a larger request is refused in the guest (`PROTOCOL`). @defaultValue 8 MiB */
  maxMessageBytes?: number;
}

/** Guest → host: output the snippet printed. */
export interface GuestOutputMessage {
  type: 'stdout' | 'stderr';
  /** The text. */
  data: string;
}

/** A `tools.*` call still pending when the snippet returned (a missing `await`?). */
export interface GuestPendingCall {
  /** The request type (`run_tool`, ...). */
  type: GatewayRequestType;
  /** The tool ID the call named (`runTool`, `describeTool`, `listToolExamples`). */
  toolId?: string;
}

/** Guest → host: the run succeeded. */
export interface GuestResultMessage {
  type: 'result';
  /** The calls still pending when the snippet returned; absent when none. */
  pending?: GuestPendingCall[];
  /** The snippet's value (node guest); absent when it returned nothing. */
  value?: unknown;
  /** The snippet's value as JSON text (wasm worker); absent when it returned nothing. */
  json?: string;
  /** A WASI module's exit code. */
  exitCode?: number;
  /** A WASI module's memory size at the end, in bytes. */
  memoryBytes?: number;
}

/**
 * Why a snippet failed, as the guest saw it. The host turns it into the run's failure (code,
 * message, details); every field but `name` and `message` is optional.
 */
export interface GuestFailureReport {
  /** The error's name (`TypeError`, `InternalError`, ...). */
  name: string;
  /** The error's message. */
  message: string;
  /** The snippet line the error points at (1-based). */
  line?: number;
  /** The column on that line. */
  column?: number;
  /** The error's stack (the host keeps the snippet's frames). */
  stack?: string;
  /** `compile` when the snippet did not parse. */
  phase?: 'compile';
  /** The error's `code` property (a failed tool call's error code). */
  code?: string;
  /** The id of the tool call whose error this is: the host reports that call's original error. */
  requestId?: string;
  /** The limit the run hit. */
  limit?: 'stack' | 'output' | 'memory' | 'result';
  /** `console` when the output limit was hit by printing. */
  what?: 'console';
  /** True when the run was stopped by its deadline. */
  timeout?: true;
  /** True when the run was cancelled. */
  cancelled?: true;
  /** What an idle run was waiting on when it was cancelled. */
  waiting?: { toolCalls: number; timers: number };
  /** A WASI module's exit code. */
  exitCode?: number;
  /** A WASI module's memory size at the end, in bytes. */
  memoryBytes?: number;
}

/** Guest → host: the run failed. */
export interface GuestFailedMessage {
  type: 'failed';
  /** What went wrong. */
  error: GuestFailureReport;
}

/** The one message that ends a run. */
export type GuestOutcomeMessage = GuestResultMessage | GuestFailedMessage;
