import type { ToolexecError } from '../model/index.js';
import { layerErrors } from '../model/internal.js';

const errors = layerErrors('run');

/**
 * Checks the per-call `signal` and `timeoutMs`; the error to reject with, if any.
 *
 * @remarks
 * `timeoutMs` is a number of milliseconds: `<= 0` means the deadline has already passed (the call
 * fails with TIMEOUT before doing anything), `Infinity` (or anything
 * above the ~24.8-day timer limit) means no deadline. `NaN` and non-numbers are rejected.
 *
 * @internal
 */
export function checkRunOptions(signal: unknown, timeoutMs: unknown): ToolexecError | undefined {
  if (signal !== undefined && !isAbortSignal(signal)) {
    return errors.invalidArgument('option signal', 'must be an AbortSignal');
  }
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs))) {
    return errors.invalidArgument(
      'option timeoutMs',
      `must be a number of milliseconds, got ${typeof timeoutMs === 'number' ? String(timeoutMs) : typeof timeoutMs}`,
    );
  }
  return undefined;
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { aborted?: unknown }).aborted === 'boolean' &&
    typeof (value as { addEventListener?: unknown }).addEventListener === 'function' &&
    typeof (value as { removeEventListener?: unknown }).removeEventListener === 'function'
  );
}
