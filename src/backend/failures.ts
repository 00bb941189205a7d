import { ToolexecError, errorMessage } from '../model/index.js';

/**
 * A backend's own failure as a {@link ToolexecError}: a library error passes through unchanged,
 * anything else becomes `EXECUTION` with the original as `cause`.
 *
 * @internal
 */
export function backendFailure(err: unknown, what: string, details: Record<string, unknown>): ToolexecError {
  if (ToolexecError.isInstance(err)) return err;
  return new ToolexecError('EXECUTION', `backend: ${what}: ${errorMessage(err)}`, { cause: err, details });
}

/** ABORTED (or TIMEOUT for a `TimeoutError` reason) for an already-aborted signal. @internal */
export function abortedFailure(signal: AbortSignal, details: Record<string, unknown>): ToolexecError {
  const reason: unknown = signal.reason;
  const timedOut = typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
  return new ToolexecError(timedOut ? 'TIMEOUT' : 'ABORTED', `backend: ${timedOut ? 'timed out' : 'aborted'}: ${errorMessage(reason)}`, {
    cause: reason,
    details,
  });
}
