/**
 * Retries of one call after a transient failure: which calls have a policy, what counts as
 * transient, the waits between attempts (exponential backoff with decorrelated jitter, from
 * cockatiel) and the records of each attempt. Every attempt runs under the call's one deadline, so
 * the deadline bounds them all together.
 *
 * @internal
 * @module
 */
import { ExponentialBackoff, decorrelatedJitterGenerator, type IBackoff } from 'cockatiel';
import { ToolexecError, errorMessage, isErrorCode, type Tool } from '../model/index.js';
import { ABORTED, callListener, describeValue, readField, readOptionsObject, type Deadline, type LayerErrors } from '../model/internal.js';
import { ToolError } from './errors.js';
import { abortToolError } from './failures.js';
import { addSpanEvent } from './spans.js';
import type { AttemptEvent, AttemptRecord, RetryCondition, RetryPolicy, RunResult } from './types.js';

/** The policy of tools annotated `readOnlyHint` / `idempotentHint`: 3 attempts, 100 ms doubling up to 2 s, with jitter. */
export const DEFAULT_RETRY_POLICY: Readonly<Required<RetryPolicy>> = Object.freeze({
  maxAttempts: 3,
  initialDelayMs: 100,
  maxDelayMs: 2_000,
  retryOn: Object.freeze(['TIMEOUT', 'SERVER_UNAVAILABLE', 'CONNECTION_LOST'] as const),
});

/** Most attempts a policy may ask for. */
const MAX_ATTEMPTS = 100;

/** A checked policy. @internal */
export interface ResolvedRetryPolicy {
  readonly maxAttempts: number;
  readonly backoff: ExponentialBackoff<unknown>;
  readonly retryOn: ReadonlySet<string>;
}

/** Network error codes that mean the connection was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET']);

function resolvePolicy(policy: Required<RetryPolicy>): ResolvedRetryPolicy {
  return {
    maxAttempts: policy.maxAttempts,
    backoff: new ExponentialBackoff({
      initialDelay: policy.initialDelayMs,
      maxDelay: policy.maxDelayMs,
      generator: decorrelatedJitterGenerator,
    }),
    retryOn: new Set(policy.retryOn),
  };
}

/** The default policy, resolved once. @internal */
export const DEFAULT_RESOLVED_RETRY = resolvePolicy(DEFAULT_RETRY_POLICY);

/**
 * Reads a `retry` option: `false`, `undefined`, or a {@link RetryPolicy} checked field by field
 * (`INVALID_ARGUMENT`, or `CONFIGURATION` for a runner's option) with the defaults filled in.
 *
 * @internal
 */
export function readRetryPolicy(errors: LayerErrors, value: unknown, configuration = false): ResolvedRetryPolicy | false | undefined {
  if (value === undefined || value === false) return value;
  const fail = (field: string, problem: string): never => {
    const name = field === '' ? 'retry' : `retry.${field}`;
    throw configuration ? errors.configuration(name, problem) : errors.invalidArgument(`option ${name}`, problem);
  };
  if (value === true || value === null || typeof value !== 'object')
    fail('', `must be a retry policy or false, got ${describeValue(value)}`);
  const given = readOptionsObject(errors, 'option retry', value) as object;
  const count = (field: keyof RetryPolicy, min: number, max: number, fallback: number): number => {
    const raw = readField(errors, given, field);
    if (raw === undefined) return fallback;
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > max) {
      fail(field, `must be an integer from ${min} to ${max}, got ${describeValue(raw)}`);
    }
    return raw as number;
  };
  const maxAttempts = count('maxAttempts', 1, MAX_ATTEMPTS, DEFAULT_RETRY_POLICY.maxAttempts);
  const initialDelayMs = count('initialDelayMs', 0, 3_600_000, DEFAULT_RETRY_POLICY.initialDelayMs);
  const maxDelayMs = count('maxDelayMs', 0, 3_600_000, Math.max(initialDelayMs, DEFAULT_RETRY_POLICY.maxDelayMs));
  // Both given and crossed: the cap would be silently raised (as `mcpReconnect` refuses it too).
  if (initialDelayMs > maxDelayMs) fail('initialDelayMs', `(${initialDelayMs}) must not exceed retry.maxDelayMs (${maxDelayMs})`);
  const rawRetryOn = readField(errors, given, 'retryOn');
  let retryOn: readonly RetryCondition[] = DEFAULT_RETRY_POLICY.retryOn;
  if (rawRetryOn !== undefined) {
    if (!Array.isArray(rawRetryOn) || rawRetryOn.length > 64 || !rawRetryOn.every((c) => typeof c === 'string')) {
      fail('retryOn', `must be an array of error codes, got ${describeValue(rawRetryOn)}`);
    }
    // A misspelt code would silently turn retries off for it.
    const unknown = (rawRetryOn as string[]).find((code) => code !== 'CONNECTION_LOST' && !isErrorCode(code));
    if (unknown !== undefined)
      fail('retryOn', `names an unknown error code: ${JSON.stringify(unknown)} (see ERROR_CODES, or CONNECTION_LOST)`);
    retryOn = rawRetryOn as RetryCondition[];
  }
  return resolvePolicy({ maxAttempts, initialDelayMs, maxDelayMs, retryOn });
}

/**
 * The policy of one call: the call's own (`retry: false` → none, a policy → that one), else the
 * runner's default for a tool whose annotations say `readOnlyHint` or `idempotentHint`, else none.
 *
 * @internal
 */
export function retryPolicyFor(
  tool: Tool,
  callRetry: ResolvedRetryPolicy | false | undefined,
  runnerRetry: ResolvedRetryPolicy | false,
): ResolvedRetryPolicy | undefined {
  if (callRetry !== undefined) return callRetry === false || callRetry.maxAttempts < 2 ? undefined : callRetry;
  if (runnerRetry === false || runnerRetry.maxAttempts < 2) return undefined;
  const annotations = tool.annotations;
  if (annotations === undefined || annotations === null) return undefined;
  return annotations.readOnlyHint === true || annotations.idempotentHint === true ? runnerRetry : undefined;
}

/**
 * True when `err`, a failure of the execute step, is one the policy retries: its code or a code on
 * its `cause` chain is listed, or (`CONNECTION_LOST`) the chain shows a lost connection (an MCP
 * error with `details.connectionLost`, a network error code).
 */
export function isTransient(err: unknown, policy: ResolvedRetryPolicy): boolean {
  if (!ToolError.isToolError(err) || err.op !== 'execute') return false;
  const lost = policy.retryOn.has('CONNECTION_LOST');
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    if (ToolexecError.isInstance(current)) {
      if (policy.retryOn.has(current.code)) return true;
      if (lost && current.details?.connectionLost === true) return true;
    } else if (lost) {
      const code = (current as { code?: unknown }).code;
      if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** What a retried call needs besides its attempts. @internal */
export interface RetryContext {
  toolId: string;
  policy: ResolvedRetryPolicy;
  deadline: Deadline | undefined;
  idempotencyKey: string | undefined;
  onAttempt: ((event: AttemptEvent) => void) | undefined;
  /** Scrubs the call's redacted argument values out of an attempt's failure (in place) before it is recorded or reported. */
  redact: (error: unknown) => unknown;
}

const clock = performance;

/**
 * Runs `attempt` until it succeeds, fails with something that is not transient, runs out of
 * attempts, or the deadline leaves no time for the next wait. A first attempt that finishes
 * synchronously is returned (or thrown) synchronously. The failure after retries carries every
 * attempt in `details.attempts`; a success after retries, in `attempts`.
 *
 * @internal
 */
export function withRetries(attempt: () => RunResult | Promise<RunResult>, context: RetryContext): RunResult | Promise<RunResult> {
  const startedMs = clock.now();
  let out: RunResult | Promise<RunResult>;
  try {
    out = attempt();
  } catch (err) {
    if (!isTransient(err, context.policy)) throw notifyLast(err, 1, startedMs, context);
    return retryAfter(err, startedMs, attempt, context);
  }
  if (!(out instanceof Promise)) return out;
  return out.then(undefined, (err: unknown) => {
    if (!isTransient(err, context.policy)) throw notifyLast(err, 1, startedMs, context);
    return retryAfter(err, startedMs, attempt, context);
  });
}

async function retryAfter(
  firstError: unknown,
  firstStartedMs: number,
  attempt: () => RunResult | Promise<RunResult>,
  context: RetryContext,
): Promise<RunResult> {
  const { policy, deadline } = context;
  const records: AttemptRecord[] = [];
  let backoff: IBackoff<unknown> | undefined;
  let error = firstError;
  let startedMs = firstStartedMs;
  for (let n = 1; ; n++) {
    const durationMs = Math.round((clock.now() - startedMs) * 1000) / 1000;
    let delayMs: number | undefined;
    if (n < policy.maxAttempts && isTransient(error, policy) && (deadline === undefined || !deadline.aborted)) {
      backoff = backoff === undefined ? policy.backoff.next() : backoff.next(undefined);
      delayMs = Math.round(backoff.duration);
      const leftMs = deadline?.remainingMs();
      // No time left for the wait and another attempt: give up now with the real failure.
      if (leftMs !== undefined && leftMs <= delayMs) delayMs = undefined;
    }
    error = context.redact(error);
    const record = recordOf(n, error, durationMs, delayMs);
    records.push(record);
    notify(context, record, error, delayMs !== undefined);
    if (delayMs === undefined) throw withAttempts(error, records);
    if ((await wait(delayMs, deadline)) === ABORTED) {
      const stopped = abortToolError(context.toolId, 'execute', ToolError.isToolError(error) ? error.backend : undefined, deadline?.reason);
      throw withAttempts(stopped, records);
    }
    startedMs = clock.now();
    try {
      const result = await attempt();
      return { ...result, attempts: records };
    } catch (err) {
      error = err;
    }
  }
}

/** Reports a first attempt that is not retried (a call with a policy), and returns its error unchanged. */
function notifyLast(err: unknown, n: number, startedMs: number, context: RetryContext): unknown {
  context.redact(err);
  notify(context, recordOf(n, err, Math.round((clock.now() - startedMs) * 1000) / 1000, undefined), err, false);
  return err;
}

function recordOf(n: number, error: unknown, durationMs: number, delayMs: number | undefined): AttemptRecord {
  const record: AttemptRecord = {
    attempt: n,
    code: ToolexecError.isInstance(error) ? error.code : 'EXECUTION',
    message: errorMessage(error),
    durationMs,
  };
  if (delayMs !== undefined) record.delayMs = delayMs;
  return record;
}

function notify(context: RetryContext, record: AttemptRecord, error: unknown, willRetry: boolean): void {
  // Every failed attempt is an event on the call's span (when tracing is on); the code, never the
  // message, which may quote the arguments.
  addSpanEvent('toolexec.retry.attempt', {
    'toolexec.attempt': record.attempt,
    'error.type': record.code,
    'toolexec.attempt.duration_ms': record.durationMs,
    'toolexec.attempt.will_retry': willRetry,
    ...(record.delayMs === undefined ? {} : { 'toolexec.attempt.delay_ms': record.delayMs }),
  });
  const listener = context.onAttempt;
  if (listener === undefined) return;
  const event: AttemptEvent = {
    ...record,
    toolId: context.toolId,
    error: ToolexecError.isInstance(error) ? error : new ToolexecError('EXECUTION', errorMessage(error), { cause: error }),
    willRetry,
  };
  if (context.idempotencyKey !== undefined) event.idempotencyKey = context.idempotencyKey;
  // A listener's failure (a throw, a rejected promise) never fails the call.
  callListener(listener, event);
}

/** The last attempt's error with every attempt in `details.attempts` (a ToolError stays one). */
function withAttempts(error: unknown, records: AttemptRecord[]): unknown {
  if (records.length < 2 || !ToolError.isToolError(error)) return error;
  const init: ConstructorParameters<typeof ToolError>[0] = {
    code: error.code,
    op: error.op,
    toolId: error.toolId,
    reason: `${error.reason} (after ${records.length} attempts)`,
    details: { ...error.details, attempts: records },
  };
  if (error.backend !== undefined) init.backend = error.backend;
  if (error.cause !== undefined) init.cause = error.cause;
  return new ToolError(init);
}

/** Waits `delayMs`, or resolves {@link ABORTED} as soon as the deadline stops the call. */
async function wait(delayMs: number, deadline: Deadline | undefined): Promise<void | typeof ABORTED> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const sleep = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, delayMs);
  });
  try {
    return deadline === undefined ? await sleep : await deadline.race(sleep);
  } finally {
    clearTimeout(timer);
  }
}
