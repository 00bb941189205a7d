/**
 * The checks of the arguments the index and the doc store share (a tool ID, a query): one check
 * each, so that both answer the same code and message for the same bad input.
 *
 * @internal
 * @module
 */
import { discoveryErrors as errors } from './errors.js';

/**
 * Asserts that a tool ID is a string: `INVALID_ARGUMENT` (`tool ID must be a string`,
 * `details.toolId`: the value's type) otherwise. Any string, `''` too, is an ID to look up.
 */
export function checkToolId(id: unknown): asserts id is string {
  if (typeof id !== 'string') throw errors.invalidArgument('tool ID must be a string', { toolId: typeof id });
}

/** Asserts that a search query is a string: `INVALID_ARGUMENT` otherwise. */
export function checkQuery(query: unknown): asserts query is string {
  if (typeof query !== 'string') throw errors.invalidArgument('query must be a string', { query: typeof query });
}
