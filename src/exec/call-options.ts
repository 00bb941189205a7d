/**
 * A facade call's options, read once through the model's option reader: the caller's fields
 * copied (never spread: a hostile object or a huge string is refused, not iterated), the facade's
 * default deadline applied when the call names neither `timeoutMs` nor `deadline`, and the call's
 * budget for the waits the facade does itself (servers still connecting).
 *
 * @internal
 * @module
 */
import { budgetMs, layerErrors, readDeadline, readField, readOptionsObject, readSignal, readTimeoutMs } from '../model/internal.js';
import { readIdempotencyKey } from '../backend/internal.js';
import type { RunOptions } from '../run/index.js';

const errors = layerErrors('exec');

/** The fields of {@link RunOptions} the facade hands on to the runner. */
const RUN_OPTION_FIELDS = ['signal', 'timeoutMs', 'deadline', 'onProgress', 'idempotencyKey', 'retry'] as const;

/** One call, read. */
export interface ExecCall {
  /** What the runner is given (the default deadline applied). */
  readonly options: RunOptions | undefined;
  /** The caller's signal. */
  readonly signal: AbortSignal | undefined;
  /** Milliseconds the call may take (the earlier of `timeoutMs` and `deadline`); `undefined`: no budget. */
  readonly budgetMs: number | undefined;
}

/** The call of a facade whose default deadline is `defaultTimeoutMs`, when the caller passes no options. */
export function defaultExecCall(defaultTimeoutMs: number | undefined): ExecCall {
  return Object.freeze({
    options: defaultTimeoutMs === undefined ? undefined : Object.freeze({ timeoutMs: defaultTimeoutMs }),
    signal: undefined,
    budgetMs: defaultTimeoutMs,
  });
}

/**
 * Reads a call's options. `timeoutMs: Infinity` removes the default deadline; a `deadline` alone
 * replaces it.
 *
 * @throws `INVALID_ARGUMENT` for options that are not an object, a field that cannot be read, a
 * `timeoutMs` that is not a positive number, a `deadline` that is not a date, a bad signal, an
 * `idempotencyKey` that is not a string of 1 to 256 characters.
 */
export function readExecCall(options: unknown, fallback: ExecCall, defaultTimeoutMs: number | undefined): ExecCall {
  const given = readOptionsObject(errors, 'options', options);
  if (given === undefined) return fallback;
  const picked: Record<string, unknown> = {};
  for (const field of RUN_OPTION_FIELDS) {
    const value = readField(errors, given, field);
    if (value !== undefined) picked[field] = value;
  }
  let timeoutMs = readTimeoutMs(errors, picked.timeoutMs);
  const deadline = readDeadline(errors, picked.deadline);
  if (timeoutMs === Infinity) {
    delete picked.timeoutMs;
    timeoutMs = undefined;
  } else if (timeoutMs === undefined && deadline === undefined && defaultTimeoutMs !== undefined) {
    picked.timeoutMs = timeoutMs = defaultTimeoutMs;
  }
  // read here too, not only by the runner: a chain derives each step's key from it first
  readIdempotencyKey(errors, picked.idempotencyKey);
  return { options: picked, signal: readSignal(errors, picked.signal), budgetMs: budgetMs(timeoutMs, deadline) };
}
