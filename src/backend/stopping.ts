import type { ToolexecError } from '../model/index.js';
import type { Deadline } from '../model/internal.js';
import { callDeadline, handedOptions, readCallOptions, settleEachUnder, type ReadCallOptions } from './call-deadline.js';
import { backendFailure } from './failures.js';
import type { Backend, BackendCallOptions } from './types.js';

/**
 * How {@link BackendRegistry.stopAll} and {@link BackendRegistry.unregister} stop backends: every
 * `stop` called at once under one deadline of the model's deadline module (the caller's, or
 * {@link DEFAULT_STOP_TIMEOUT_MS} from the call), which is never waited past.
 *
 * @internal
 * @module
 */

/**
 * How long {@link BackendRegistry.stopAll} and {@link BackendRegistry.unregister} wait for the
 * backends' `stop` when the caller gives no `deadline`: 10 seconds, counted from the call. Long
 * enough for a backend to close its connections, short enough that a shutdown goes on within the
 * grace period a process manager gives (Docker's `stop`: 10 s, Kubernetes: 30 s) — the deadline
 * also aborts the signal each `stop` is handed, telling it to cut its work short.
 */
export const DEFAULT_STOP_TIMEOUT_MS = 10_000;

/** The options of a stop, read as every call's are, with the default deadline when they set none. */
export function readStopOptions(options: BackendCallOptions | undefined): ReadCallOptions {
  const read = readCallOptions(options);
  return read.deadline !== undefined ? read : { ...read, deadline: Date.now() + DEFAULT_STOP_TIMEOUT_MS };
}

/**
 * Calls `stop` of every backend at once (in the order given) under one deadline made from `read`,
 * and resolves with each one's failure (`undefined` when it stopped or has no `stop`); rejects
 * with ABORTED / TIMEOUT as {@link settleEachUnder} does. Nothing stays on the caller's signal.
 */
export async function stopEach(
  backends: ReadonlyArray<readonly [string, Backend]>,
  read: ReadCallOptions,
): Promise<Array<ToolexecError | undefined>> {
  // `read` always has a deadline (the caller's or the default): there is always a Deadline
  const stop = callDeadline(read) as Deadline;
  try {
    return await settleEachUnder(
      stop,
      // each backend by the name it was registered under: a backend's own `name` is never read again
      backends.map(([name, backend]) => {
        const details = { backend: name, op: 'stop' };
        return {
          what: `stop ${name}`,
          label: name,
          details,
          // an options object of its own: a backend that changes it changes no other's
          work: () => backend.stop?.(handedOptions(read, stop)),
          failure: (err: unknown) => backendFailure(err, `stop ${name} failed`, details),
        };
      }),
    );
  } finally {
    stop.dispose();
  }
}
