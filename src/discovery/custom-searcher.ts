/**
 * A custom {@link Searcher}'s call: its failures and malformed answers as library errors.
 */
import { ToolexecError, errorMessage } from '../model/index.js';
import { discoveryErrors as errors } from './errors.js';
import type { SearchDoc, Searcher, ToolSummary } from './types.js';

/**
 * The best `limit` summaries `searcher` gives for `query` over `docs` (`Infinity`: every doc).
 *
 * @throws the searcher's own {@link ToolexecError} unchanged; `EXECUTION` when it throws anything
 * else or answers something that is not an array of summaries.
 */
export function runSearcher(
  searcher: Searcher,
  query: string,
  limit: number,
  docs: readonly SearchDoc[],
): readonly Readonly<ToolSummary>[] {
  let results: unknown;
  try {
    results = searcher.search(query, limit === Infinity ? docs.length : limit, docs);
  } catch (error) {
    if (ToolexecError.isInstance(error)) throw error;
    throw errors.searcherFailed(errorMessage(error), error);
  }
  if (!Array.isArray(results) || results.some((item) => item === null || typeof item !== 'object')) {
    throw errors.searcherFailed('search() must return an array of summaries');
  }
  const summaries = results as Readonly<ToolSummary>[];
  return limit < summaries.length ? summaries.slice(0, limit) : summaries;
}
