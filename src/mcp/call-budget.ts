/**
 * What one `tools/call` is given from its caller's options: the request's timeout and total bound
 * within the call's deadline (the time left is the server's budget), and the idempotency key in
 * the request's `_meta`.
 *
 * @internal
 * @module
 */
import { readIdempotencyKey } from '../backend/internal.js';
import {
  MAX_TIMER_MS,
  callListener,
  describeValue,
  readDeadline,
  readField,
  readFunction,
  readOptionsObject,
  readSignal,
  readTimeoutMs,
  textOf,
  warnListenerFailure,
} from '../model/internal.js';
import type { ProgressEvent } from '../run/index.js';
import { errors } from './errors.js';
import type { ResolvedMcpExecutorOptions } from './options.js';

/** The `_meta` key that carries a call's idempotency key to the server. */
export const IDEMPOTENCY_KEY_META = 'toolexec/idempotencyKey';

/** A request's budget: the timeout restarted by progress, and the total bound (if any). */
export interface CallBudget {
  timeoutMs: number;
  totalMs: number | undefined;
}

/** A call's options as read once (see {@link readMcpCallOptions}). */
export interface McpCallOptionsRead {
  signal: AbortSignal | undefined;
  timeoutMs: unknown;
  deadline: unknown;
  idempotencyKey: string | undefined;
  /** The caller's progress listener, called so that a throw or a rejection never reaches the SDK. */
  onProgress: ((progress: ProgressEvent) => void) | undefined;
}

const NO_OPTIONS: McpCallOptionsRead = Object.freeze({
  signal: undefined,
  timeoutMs: undefined,
  deadline: undefined,
  idempotencyKey: undefined,
  onProgress: undefined,
});

/**
 * Reads a direct call's options as the runner reads its own: options that are not an object (a
 * string), a field whose getter throws, a signal that is not an AbortSignal, an `onProgress` that
 * is not a function, an idempotency key that is not a string of 1 to 256 characters are
 * `INVALID_ARGUMENT`. `timeoutMs` and `deadline` are checked by {@link readCallBudget}.
 */
export function readMcpCallOptions(options: unknown): McpCallOptionsRead {
  const given = readOptionsObject(errors, 'options', options);
  if (given === undefined) return NO_OPTIONS;
  const listener = readFunction<(progress: ProgressEvent) => unknown>(errors, readField(errors, given, 'onProgress'), 'onProgress');
  return {
    signal: readSignal(errors, readField(errors, given, 'signal')),
    timeoutMs: readField(errors, given, 'timeoutMs'),
    deadline: readField(errors, given, 'deadline'),
    idempotencyKey: readIdempotencyKey(errors, readField(errors, given, 'idempotencyKey')),
    // The SDK calls the listener inside its notification handling: a throw there would be reported
    // as the connection's last transport error, and a rejection would be unhandled.
    onProgress: listener === undefined ? undefined : (progress) => callListener(listener, progress, reportListenerFailure),
  };
}

function reportListenerFailure(error: unknown): void {
  warnListenerFailure("an MCP call's onProgress listener threw", error);
}

/** A direct call's parameters: an object with a non-empty string `name` and, when given, an object of `arguments`. */
export function readCallParams(params: unknown): { name: string; arguments: Record<string, unknown> } {
  const given = readOptionsObject(errors, 'params', params);
  if (given === undefined) throw errors.invalidArgument('params', `must be an object with a tool name, got ${describeValue(params)}`);
  const name = readParam(given, 'name');
  if (typeof name !== 'string' || name === '') {
    throw errors.invalidArgument('params.name', `must be a non-empty string, got ${describeValue(name)}`);
  }
  const args = readParam(given, 'arguments');
  if (args === undefined || args === null) return { name, arguments: {} };
  let isObject: boolean;
  try {
    isObject = typeof args === 'object' && !Array.isArray(args);
  } catch (error) {
    throw errors.invalidArgument('params.arguments', 'could not be read (a revoked proxy?)', { cause: error });
  }
  if (!isObject) {
    throw errors.invalidArgument('params.arguments', `of tools/call "${textOf(name)}" must be an object, got ${describeValue(args)}`);
  }
  return { name, arguments: args as Record<string, unknown> };
}

function readParam(params: object, key: 'name' | 'arguments'): unknown {
  try {
    return (params as Record<string, unknown>)[key];
  } catch (error) {
    throw errors.invalidArgument(`params.${key}`, 'could not be read', { cause: error });
  }
}

/**
 * The budget of one call: `timeoutMs` (else the executor's `requestTimeoutMs`) and the executor's
 * `maxTotalTimeoutMs`, both cut to the time left before `options.deadline`. A deadline already
 * past is `TIMEOUT` before anything is sent.
 */
export function readCallBudget(
  options: Pick<McpCallOptionsRead, 'timeoutMs' | 'deadline'>,
  resolved: ResolvedMcpExecutorOptions,
  serverName: string,
  tool: string,
): CallBudget {
  // The one reading of a call's budget (model/options-reader.ts): the same words as every other call.
  const given = readTimeoutMs(errors, options.timeoutMs);
  const timeoutMs = given === undefined ? resolved.requestTimeoutMs : Math.min(given, MAX_TIMER_MS);
  const deadlineMs = readDeadline(errors, options.deadline);
  if (deadlineMs === undefined) return { timeoutMs, totalMs: resolved.maxTotalTimeoutMs };
  const leftMs = Math.floor(deadlineMs - Date.now());
  if (leftMs <= 0) {
    throw errors('TIMEOUT', `tools/call "${textOf(tool)}" on MCP server "${serverName}" was not sent: its deadline had passed`, {
      details: { serverName, tool, deadline: deadlineMs },
    });
  }
  const total = resolved.maxTotalTimeoutMs;
  return { timeoutMs: Math.min(timeoutMs, leftMs), totalMs: total === undefined || leftMs < total ? leftMs : total };
}

/** `params` with `_meta[toolexec/idempotencyKey]` set when there is a key. */
export function withIdempotencyKey<P extends object>(params: P, idempotencyKey: string | undefined): P {
  if (idempotencyKey === undefined) return params;
  return { ...params, _meta: { [IDEMPOTENCY_KEY_META]: idempotencyKey } };
}
