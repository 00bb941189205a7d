import { ToolexecError, errorMessage } from '../model/index.js';
import { layerErrors, textOf } from '../model/internal.js';

/**
 * The backend layer's errors: every one is made here or through {@link errors}, so that each reads
 * `backend: <what went wrong>`.
 *
 * @internal
 * @module
 */

/** The backend layer's error factory. */
export const errors = layerErrors('backend');

/**
 * A backend's own failure as a {@link ToolexecError}: a library error passes through unchanged,
 * anything else becomes `EXECUTION` with the original as `cause`.
 */
export function backendFailure(err: unknown, what: string, details: Record<string, unknown>): ToolexecError {
  if (ToolexecError.isInstance(err)) return err;
  return errors('EXECUTION', `${what}: ${errorMessage(err)}`, { cause: err, details });
}

/** BACKEND_NOT_FOUND for `name`. */
export function backendNotFound(name: string): ToolexecError {
  return errors('BACKEND_NOT_FOUND', `backend not found: ${textOf(name)}`, { details: { backend: textOf(name) } });
}

/** BACKEND_DISABLED for `name` (and the tool refused, when a call named one). */
export function backendDisabled(name: string, tool?: string): ToolexecError {
  const details: Record<string, unknown> = { backend: textOf(name) };
  if (tool !== undefined) details.tool = textOf(tool);
  return errors('BACKEND_DISABLED', `backend disabled: ${textOf(name)}`, { details });
}
