import { createHash } from 'node:crypto';
import {
  budgetMs,
  Deadline,
  layerErrors,
  readDeadline,
  readField,
  readFunction,
  readOptionsObject,
  readSignal,
  readTimeoutMs,
} from '../model/internal.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH, readIdempotencyKey } from '../backend/internal.js';
import { readRetryPolicy, type ResolvedRetryPolicy } from './retry.js';
import type { ProgressEvent } from './types.js';

const errors = layerErrors('run');

/**
 * The idempotency key of step `index` of a chain called with `key`: `<key>:<index>`, so that a
 * server recording keys tells the steps (different operations) apart while every attempt of one
 * step repeats its own key. A key too long for the suffix is replaced by its SHA-256 (base64url).
 *
 * @internal
 */
export function stepIdempotencyKey(key: string, index: number): string {
  const suffix = `:${index}`;
  const base = key.length + suffix.length <= MAX_IDEMPOTENCY_KEY_LENGTH ? key : createHash('sha256').update(key).digest('base64url');
  return base + suffix;
}

/**
 * One call's options, read once: the budget is the earlier of `timeoutMs` and `deadline`.
 *
 * @internal
 */
export interface CallOptions {
  signal: AbortSignal | undefined;
  /** Milliseconds left for the call (`<= 0`: its deadline has passed); `undefined`: no budget. */
  budgetMs: number | undefined;
  /**
   * The budget was measured from an absolute `deadline` when the options were read: the call's
   * {@link Deadline} starts its clock at once (see {@link callDeadline}), so that no wait before the
   * call first waits (a GC pause, a busy event loop) is added to the caller's deadline.
   */
  fromDeadline: boolean;
  onProgress: ((progress: ProgressEvent) => void) | undefined;
  idempotencyKey: string | undefined;
  retry: ResolvedRetryPolicy | false | undefined;
}

/**
 * Reads the per-call options of `run`, `runStream` and `runChain` through the model's option
 * reader: `undefined` / `null` → `undefined`; anything but an object, a field that cannot be read,
 * `timeoutMs <= 0` or `NaN`, a deadline that is not a date, a signal that is not one → `INVALID_ARGUMENT`.
 * A `timeoutMs` of `Infinity` (or above the timer limit) means no budget.
 *
 * @internal
 */
export function readRunOptions(options: unknown): CallOptions | undefined {
  const given = readOptionsObject(errors, 'options', options);
  if (given === undefined) return undefined;
  return frozenReads.get(given) ?? readCallOptions(given);
}

/** {@link readRunOptions} of an options object not read before. */
function readCallOptions(given: object): CallOptions {
  const fields = readFields(given);
  const timeoutMs = readTimeoutMs(errors, fields.timeoutMs);
  const deadline = readDeadline(errors, fields.deadline);
  const call: CallOptions = {
    signal: readSignal(errors, fields.signal),
    budgetMs: budgetMs(timeoutMs, deadline),
    fromDeadline: deadline !== undefined,
    onProgress: readFunction(errors, fields.onProgress, 'onProgress'),
    idempotencyKey: readIdempotencyKey(errors, fields.idempotencyKey),
    retry: readRetryPolicy(errors, fields.retry),
  };
  // A frozen options object without an absolute deadline reads the same every time (the facade
  // hands its default `{ timeoutMs }` to every call): read it once.
  if (deadline === undefined && Object.isFrozen(given)) frozenReads.set(given, call);
  return call;
}

/**
 * The deadline of one call (`undefined` when it has neither a signal nor a budget). Lazy; a budget
 * measured from an absolute deadline counts from now (its due time is fixed at once), a relative
 * `timeoutMs` from the call's first wait.
 *
 * @internal
 */
export function callDeadline(call: CallOptions | undefined): Deadline | undefined {
  if (call === undefined || (call.signal === undefined && call.budgetMs === undefined)) return undefined;
  return new Deadline(call.signal, call.budgetMs, call.fromDeadline);
}

/** What frozen options objects without a `deadline` read as. */
const frozenReads = new WeakMap<object, CallOptions>();

/** The fields `readRunOptions` reads. */
const FIELDS = ['timeoutMs', 'deadline', 'signal', 'onProgress', 'idempotencyKey', 'retry'] as const;

/**
 * The six fields of a caller's options, read by name in one go (a caller's plain object reads
 * fast this way); when one cannot be read (a throwing getter, a revoked proxy), each is read on its
 * own so that the error names it.
 */
function readFields(given: object): Record<(typeof FIELDS)[number], unknown> {
  try {
    const o = given as Record<(typeof FIELDS)[number], unknown>;
    return {
      timeoutMs: o.timeoutMs,
      deadline: o.deadline,
      signal: o.signal,
      onProgress: o.onProgress,
      idempotencyKey: o.idempotencyKey,
      retry: o.retry,
    };
  } catch {
    for (const key of FIELDS) readField(errors, given, key);
    throw errors.invalidArgument('options', 'could not be read');
  }
}
