import { BACKEND_KINDS, ToolexecError, validateBackend, type ToolBackend } from '../model/index.js';
import { asLibraryError } from '../model/internal.js';
import { discoveryErrors as errors, guardErrors } from './errors.js';
import type { BackendSelector } from './types.js';

/**
 * The default {@link BackendSelector}: the first `local` backend in list order, else the first
 * `provider`, else the first `mcp`, else the first backend of any kind.
 *
 * @throws {@link toolexec/model!ToolexecError} `NO_BACKENDS` when the list is empty.
 */
export function defaultBackendSelector(backends: ToolBackend[]): ToolBackend {
  try {
    return select(backends);
  } catch (err) {
    throw asLibraryError(guardErrors, 'backends', err);
  }
}

function select(backends: ToolBackend[]): ToolBackend {
  if (!Array.isArray(backends) || backends.length === 0) {
    throw errors.noBackends();
  }
  for (const kind of BACKEND_KINDS) {
    const match = backends.find((backend) => backend?.kind === kind);
    if (match !== undefined) return match;
  }
  return backends[0] as ToolBackend;
}

/**
 * Runs an index's selector over a copy of the tool's backends.
 *
 * @throws the selector's own {@link ToolexecError} unchanged; `EXECUTION` (`backend selector
 * failed: ...`, the error as `cause`) when it throws anything else; `CONFIGURATION` when it
 * returns something that is not a valid backend (`undefined`, `{}`).
 */
export function selectBackend(selector: BackendSelector, backends: readonly ToolBackend[], id: string): ToolBackend {
  let chosen: unknown;
  try {
    chosen = selector(backends.slice());
  } catch (error) {
    if (ToolexecError.isInstance(error)) throw error;
    throw errors.selectorFailed(id, error);
  }
  try {
    validateBackend(chosen as ToolBackend);
  } catch (error) {
    throw errors.selectorReturned(id, chosen, error);
  }
  return chosen as ToolBackend;
}
