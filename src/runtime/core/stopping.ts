/**
 * How the runtime stops work: a caller's abort, a run's deadline, a wait bounded by a grace
 * period. Built on the deadline module of the model layer (`Deadline`, `onAbort`, `abortError`),
 * so the runtime holds no timer / listener / abort → error logic of its own.
 */
import { ToolexecError } from '../../model/index.js';
import { ABORTED, Deadline, abortError as layerAbortError, noop, onAbort } from '../../model/internal.js';
import type { RunFailure } from './failure.js';
import { runtimeErrors } from './errors.js';

/**
 * The error of work stopped by `reason`: `runtime: <what> timed out: …` (`TIMEOUT`, for a
 * `TimeoutError` reason) or `runtime: <what> aborted: …` (`ABORTED`), `cause` = the reason.
 *
 * @remarks
 * Unlike the deadline module's `abortError`, a reason that is already a library `TIMEOUT` or
 * `ABORTED` error is returned as it is: the runtime aborts its own signals with the error a run
 * must end with (a start deadline, "the client closed the exchange", "the remote runtime is
 * shutting down"), and wrapping it again would bury its message and details under a second one.
 */
export function stoppedError(reason: unknown, what = 'operation'): ToolexecError {
  if (ToolexecError.isInstance(reason) && (reason.code === 'TIMEOUT' || reason.code === 'ABORTED')) return reason;
  return layerAbortError(runtimeErrors, reason, what);
}

/** The error for an aborted signal ({@link stoppedError} of its reason). */
export function abortError(signal: AbortSignal, what = 'operation'): ToolexecError {
  return stoppedError(signal.reason, what);
}

/** The failure of a run whose `signal` aborted: {@link abortError}'s code, message and cause. */
export function abortedFailure(signal: AbortSignal): RunFailure {
  const error = abortError(signal, 'execution');
  return { code: error.code, message: error.message, cause: error.cause };
}

/** Throws {@link abortError} when `signal` is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, what?: string): void {
  if (signal?.aborted === true) throw abortError(signal, what);
}

/**
 * Waits for `step()` under `signal`: rejects with {@link abortError} as soon as the signal aborts,
 * even if the step ignores it (a late result is then passed to `discard`). Without a signal, just
 * the step.
 */
export async function underSignal<T>(
  signal: AbortSignal | undefined,
  what: string,
  step: () => Promise<T>,
  discard?: (value: T) => void,
): Promise<T> {
  if (signal === undefined) return step();
  throwIfAborted(signal, what);
  const deadline = new Deadline(signal, undefined);
  const work = step();
  try {
    const value = await deadline.race(work);
    if (value !== ABORTED) return value;
    if (discard !== undefined) work.then(discard, noop);
    throw abortError(signal, what);
  } catch (err) {
    if (signal.aborted) throw abortError(signal, what);
    throw err;
  } finally {
    deadline.dispose();
  }
}

/** Why a run's wall clock stopped it: its own deadline (`timeout`) or the caller (`aborted`). */
export type StopKind = 'timeout' | 'aborted';

/**
 * Calls `stopped` once when `timeoutMs` passes (`timeout`) or `signal` aborts (`aborted`) — at
 * once, before returning, when the signal is already aborted. Returns the function that stops
 * watching (call it when the run has settled).
 */
export function watchDeadline(signal: AbortSignal | undefined, timeoutMs: number, stopped: (kind: StopKind) => void): () => void {
  const deadline = new Deadline(signal, timeoutMs);
  const own = deadline.signal;
  const stop = (): void => stopped(deadline.timedOut ? 'timeout' : 'aborted');
  if (own.aborted) {
    deadline.dispose();
    stop();
    return noop;
  }
  const unlisten = onAbort(own, stop);
  return () => {
    unlisten();
    deadline.dispose();
  };
}

/** Resolves `true` when `promise` settles (either way) within `ms`, `false` otherwise; never rejects. */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const deadline = new Deadline(undefined, ms);
  return deadline
    .race(promise)
    .then(
      (value) => value !== ABORTED,
      () => true,
    )
    .finally(() => deadline.dispose());
}
