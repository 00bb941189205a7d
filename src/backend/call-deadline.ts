import type { ToolexecError } from '../model/index.js';
import {
  ABORTED,
  Deadline,
  abortError,
  budgetMs,
  readDeadline,
  readField,
  readFunction,
  readOptionsObject,
  readShortString,
  readSignal,
  type LayerErrors,
} from '../model/internal.js';
import { errors } from './failures.js';
import type { BackendCallOptions, BackendProgressListener } from './types.js';

/**
 * How the backend layer stops a call: its `signal` and `deadline` (a {@link BackendCallOptions})
 * become one {@link Deadline} of the model's deadline module, the work is raced against it, and
 * a stop becomes the error the runner gives for one: `ABORTED` for the caller's abort (`cause` =
 * the signal's reason), `TIMEOUT` for the deadline (or a `TimeoutError` reason).
 *
 * @internal
 * @module
 */

/** Longest idempotency key (the runner's `RunOptions.idempotencyKey` and the backend layer's). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

/**
 * An idempotency key as every layer reads it: `undefined`, or a string of 1 to
 * {@link MAX_IDEMPOTENCY_KEY_LENGTH} characters; anything else is `INVALID_ARGUMENT` from `errors`.
 * The one check of the runner's and the backend layer's options.
 */
export function readIdempotencyKey(layer: LayerErrors, value: unknown): string | undefined {
  return readShortString(layer, value, 'idempotencyKey', MAX_IDEMPOTENCY_KEY_LENGTH);
}

/** A call's options as read once: a signal, an epoch-ms deadline, an idempotency key and a progress listener, each when given. */
export interface ReadCallOptions {
  /** The caller's signal. */
  signal: AbortSignal | undefined;
  /** The call's deadline in epoch milliseconds. */
  deadline: number | undefined;
  /** The caller's idempotency key. */
  idempotencyKey: string | undefined;
  /** The caller's progress listener. */
  onProgress: BackendProgressListener | undefined;
}

const NO_OPTIONS: ReadCallOptions = Object.freeze({
  signal: undefined,
  deadline: undefined,
  idempotencyKey: undefined,
  onProgress: undefined,
});

/**
 * Reads a call's options: `INVALID_ARGUMENT` for options that are not an object, a signal that is
 * not an AbortSignal, a deadline that is not a finite number or a Date, an idempotency key that is
 * not a string of 1 to 256 characters (the runner's check), an `onProgress` that is not a
 * function, or a field whose getter throws.
 */
export function readCallOptions(options: BackendCallOptions | undefined): ReadCallOptions {
  const object = readOptionsObject(errors, 'options', options);
  if (object === undefined) return NO_OPTIONS;
  return {
    signal: readSignal(errors, readField(errors, object, 'signal')),
    deadline: readDeadline(errors, readField(errors, object, 'deadline')),
    idempotencyKey: readIdempotencyKey(errors, readField(errors, object, 'idempotencyKey')),
    onProgress: readFunction<BackendProgressListener>(errors, readField(errors, object, 'onProgress'), 'onProgress'),
  };
}

/**
 * The {@link Deadline} that stops a call with these options, its due time fixed now (so the
 * deadline stays where the caller put it; the timer and the listener on the caller's signal are
 * attached when the call first waits); `undefined` when there is neither a signal nor a deadline.
 * The caller disposes it (through {@link settleUnder}).
 */
export function callDeadline(read: ReadCallOptions): Deadline | undefined {
  if (read.signal === undefined && read.deadline === undefined) return undefined;
  return new Deadline(read.signal, budgetMs(undefined, read.deadline), true);
}

/**
 * The options to hand on to the work: those read, with the signal of `stop` when the call has a
 * deadline (so the work is told to stop when the deadline passes, not only when the caller aborts).
 * Reading the signal creates it: call this only when the work is about to start.
 */
export function handedOptions(read: ReadCallOptions, stop: Deadline | undefined): BackendCallOptions {
  const options: BackendCallOptions = {};
  const signal = read.deadline !== undefined && stop !== undefined ? stop.signal : read.signal;
  if (signal !== undefined) options.signal = signal;
  if (read.deadline !== undefined) options.deadline = read.deadline;
  if (read.idempotencyKey !== undefined) options.idempotencyKey = read.idempotencyKey;
  if (read.onProgress !== undefined) options.onProgress = read.onProgress;
  return options;
}

/**
 * The error of a call `stop` ended: `backend: <what> aborted: …` / `… timed out: …`, `cause` = the
 * reason. A reason that cannot be read (a revoked proxy, a throwing `name` getter) is the caller's
 * abort all the same: `ABORTED` with it as `cause` (see `isTimeoutReason`).
 */
export function stoppedFailure(stop: Deadline, what: string, details: Record<string, unknown>): ToolexecError {
  return abortError(errors, stop.reason, what, { details });
}

/**
 * Runs `work` and waits for its result under `stop`: the result, or, as soon as `stop` fires
 * (the caller's abort, the deadline), the ABORTED/TIMEOUT error of {@link stoppedFailure} — the work
 * is not waited for then. A synchronous result is returned as it is. Anything the work throws or
 * rejects with becomes `failure(err)`, unless `stop` fired meanwhile (work that gave up because it
 * was told to stop is reported as stopped). Refuses to start when `stop` has already fired.
 * Disposes `stop` in every case: no timer and no listener on the caller's signal stay behind.
 */
export async function settleUnder(
  stop: Deadline | undefined,
  what: string,
  details: Record<string, unknown>,
  work: () => unknown,
  failure: (err: unknown) => ToolexecError,
): Promise<unknown> {
  try {
    return await raceUnder(stop, what, details, work, failure);
  } finally {
    stop?.dispose();
  }
}

/**
 * {@link settleUnder} for one step of an operation made of several (listing every backend,
 * starting them in turn): the same race, but `stop` is left for the operation to dispose.
 */
export async function raceUnder(
  stop: Deadline | undefined,
  what: string,
  details: Record<string, unknown>,
  work: () => unknown,
  failure: (err: unknown) => ToolexecError,
): Promise<unknown> {
  if (stop === undefined) {
    try {
      return await work();
    } catch (err) {
      throw failure(err);
    }
  }
  if (stop.aborted) throw stoppedFailure(stop, what, details);
  let value: unknown;
  try {
    const out = work();
    if (!isThenable(out)) return out;
    value = await stop.race(out);
  } catch (err) {
    throw stop.aborted ? stoppedFailure(stop, what, details) : failure(err);
  }
  if (value === ABORTED) throw stoppedFailure(stop, what, details);
  return value;
}

/** One piece of work of {@link settleEachUnder}: the work, how it is named when it is still running, and how its failure reads. */
export interface ConcurrentStep {
  /** What the work is, for the stopped error's message (`stop <backend>`). */
  what: string;
  /** The name of what it works on, listed in the stopped error's `details.running`. */
  label: string;
  /** The details of the stopped error when this is the first step still running. */
  details: Record<string, unknown>;
  /** Starts the work: called once, synchronously, by {@link settleEachUnder}. */
  work: () => unknown;
  /** The error `work` failed with (a synchronous throw or a rejection) as a library error. */
  failure: (err: unknown) => ToolexecError;
}

/**
 * Starts every step at once, in order, none waiting for the one before (a step that never settles
 * keeps none of the others from starting), then waits for all of them under `stop`.
 *
 * @remarks
 * Every step is started even when `stop` has already fired: it is the work's signal that tells
 * it to be quick then. Resolves, once every step has settled, with each step's failure in step
 * order (`undefined` for a step that succeeded). As soon as `stop` fires (or when it had already),
 * rejects with the ABORTED / TIMEOUT error of {@link stoppedFailure} naming the first step still
 * running (its `what` and `details`, with `running`: the `label` of every step still running); the
 * steps are not waited for then. When every step has settled by then, nothing was cut short: it
 * resolves as above. `stop` is left for the caller to dispose.
 */
export async function settleEachUnder(stop: Deadline, steps: readonly ConcurrentStep[]): Promise<Array<ToolexecError | undefined>> {
  if (steps.length === 0) return [];
  const running = new Set<ConcurrentStep>(steps);
  const outcomes = steps.map((step): Promise<ToolexecError | undefined> => {
    const settled = (failure: ToolexecError | undefined): ToolexecError | undefined => {
      running.delete(step);
      return failure;
    };
    try {
      // a `then` that cannot be read rejects here, as any other failure of the work
      return Promise.resolve(step.work()).then(
        () => settled(undefined),
        (err: unknown) => settled(step.failure(err)),
      );
    } catch (err) {
      return Promise.resolve(settled(step.failure(err)));
    }
  });
  const all = Promise.all(outcomes);
  if ((await stop.race(all)) !== ABORTED) return all;
  const first = steps.find((step) => running.has(step));
  // every step had settled by the time the race was lost: nothing was cut short
  if (first === undefined) return all;
  const names = steps.filter((step) => running.has(step)).map((step) => step.label);
  throw stoppedFailure(stop, first.what, { ...first.details, running: names });
}

/** True for a promise or any object with a `then` method (reading `then` may throw: the caller catches). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    ((typeof value === 'object' && value !== null) || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
