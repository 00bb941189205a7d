/**
 * The options of the in-memory tool index, resolved in one place.
 */
import { warnListenerFailure } from '../model/internal.js';
import { defaultBackendSelector } from './backend-selector.js';
import type { BackendSelector, ChangeEvent, Searcher, ToolIndexOptions } from './types.js';
import { discoveryErrors as errors } from './errors.js';

/** {@link ToolIndexOptions} with every default filled in. */
export interface ResolvedToolIndexOptions {
  backendSelector: BackendSelector;
  searcher: Searcher | undefined;
  onListenerError: (error: unknown, event: ChangeEvent) => void;
}

/**
 * Checks the options and fills in the defaults.
 *
 * @throws {@link ToolexecError} `CONFIGURATION` when an option has the wrong type.
 */
export function resolveToolIndexOptions(options: ToolIndexOptions | undefined): ResolvedToolIndexOptions {
  const { backendSelector, searcher, onListenerError } = options ?? {};
  if (backendSelector !== undefined && typeof backendSelector !== 'function') {
    throw errors.configuration('backendSelector must be a function');
  }
  if (searcher !== undefined && (searcher === null || typeof searcher.search !== 'function')) {
    throw errors.configuration('searcher must have a search(query, limit, docs) method');
  }
  if (onListenerError !== undefined && typeof onListenerError !== 'function') {
    throw errors.configuration('onListenerError must be a function');
  }
  return {
    backendSelector: backendSelector ?? defaultBackendSelector,
    searcher,
    onListenerError: onListenerError ?? warnListenerError,
  };
}

/** The default listener-error report: a process warning carrying the listener's error as `cause`. */
export function warnListenerError(error: unknown, event: ChangeEvent): void {
  warnListenerFailure(`a ToolIndex change listener threw on "${event.type}"${event.toolId ? ` for ${event.toolId}` : ''}`, error);
}
