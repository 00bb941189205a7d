import { BACKEND_KINDS, type ToolBackend } from '../model/index.js';
import { asLibraryError } from '../model/internal.js';
import { discoveryErrors as errors, guardErrors } from './errors.js';

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
