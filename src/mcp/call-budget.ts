/**
 * What one `tools/call` is given from its caller's options: the request's timeout and total bound
 * within the call's deadline (the time left is the server's budget), and the idempotency key in
 * the request's `_meta`.
 *
 * @internal
 * @module
 */
import { MAX_TIMER_MS, readDeadline, readTimeoutMs } from '../model/internal.js';
import type { RunOptions } from '../run/index.js';
import { errors } from './errors.js';
import type { ResolvedMcpExecutorOptions } from './options.js';

/** The `_meta` key that carries a call's idempotency key to the server. */
export const IDEMPOTENCY_KEY_META = 'toolexec/idempotencyKey';

/** A request's budget: the timeout restarted by progress, and the total bound (if any). */
export interface CallBudget {
  timeoutMs: number;
  totalMs: number | undefined;
}

/**
 * The budget of one call: `timeoutMs` (else the executor's `requestTimeoutMs`) and the executor's
 * `maxTotalTimeoutMs`, both cut to the time left before `options.deadline`. A deadline already
 * past is `TIMEOUT` before anything is sent.
 */
export function readCallBudget(options: RunOptions, resolved: ResolvedMcpExecutorOptions, serverName: string, tool: string): CallBudget {
  // The one reading of a call's budget (model/options-reader.ts): the same words as every other call.
  const given = readTimeoutMs(errors, options.timeoutMs);
  const timeoutMs = given === undefined ? resolved.requestTimeoutMs : Math.min(given, MAX_TIMER_MS);
  const deadlineMs = readDeadline(errors, options.deadline);
  if (deadlineMs === undefined) return { timeoutMs, totalMs: resolved.maxTotalTimeoutMs };
  const leftMs = Math.floor(deadlineMs - Date.now());
  if (leftMs <= 0) {
    throw errors('TIMEOUT', `tools/call "${tool}" on MCP server "${serverName}" was not sent: its deadline had passed`, {
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
