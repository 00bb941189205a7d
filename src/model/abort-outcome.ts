/**
 * The one decision abort → `TIMEOUT` / `ABORTED`, and the error of an operation stopped by an abort.
 *
 * @internal
 * @module
 */
import { ToolexecError, errorMessage, type ToolexecErrorOptions } from './errors.js';
import type { LayerErrors } from './error-factory.js';

/** True when an abort reason means a deadline passed (a `TimeoutError`, or a TIMEOUT error). */
export function isTimeoutReason(reason: unknown): boolean {
  if (typeof reason !== 'object' || reason === null) return false;
  try {
    if ((reason as { name?: unknown }).name === 'TimeoutError') return true;
    return ToolexecError.isInstance(reason) && reason.code === 'TIMEOUT';
  } catch {
    // a reason that cannot be read (a revoked proxy, a throwing getter) is no timeout: an abort
    return false;
  }
}

/** How an abort reads: its code and `timed out: <reason>` / `aborted: <reason>`. */
export interface AbortOutcome {
  code: 'TIMEOUT' | 'ABORTED';
  /** `timed out: <reason's message>` or `aborted: <reason's message>`. */
  text: string;
}

/** The one decision abort → error: TIMEOUT for a deadline (see {@link isTimeoutReason}), else ABORTED. */
export function abortOutcome(reason: unknown): AbortOutcome {
  return isTimeoutReason(reason)
    ? { code: 'TIMEOUT', text: `timed out: ${errorMessage(reason)}` }
    : { code: 'ABORTED', text: `aborted: ${errorMessage(reason)}` };
}

/**
 * The error of an operation stopped by `reason`, made by the layer's factory: `<layer>: <what>
 * timed out: …` (TIMEOUT) or `<layer>: <what> aborted: …` (ABORTED); `cause` is the reason. Pass a
 * function as `what` to word the message per outcome.
 */
export function abortError(
  errors: LayerErrors,
  reason: unknown,
  what: string | ((outcome: AbortOutcome) => string),
  options?: Omit<ToolexecErrorOptions, 'cause'>,
): ToolexecError {
  const outcome = abortOutcome(reason);
  const message = typeof what === 'function' ? what(outcome) : `${what} ${outcome.text}`;
  return errors(outcome.code, message, { ...options, cause: reason });
}
