/**
 * A custom {@link Searcher}'s call: its failures and malformed answers as library errors.
 */
import { ToolexecError, errorMessage } from '../model/index.js';
import { discoveryErrors as errors } from './errors.js';
import { copySummary } from './summary.js';
import type { SearchDoc, Searcher, ToolSummary } from './types.js';

/**
 * The best `limit` summaries `searcher` gives for `query` over `docs` (`Infinity`: every doc),
 * as copies the searcher no longer reaches.
 *
 * @remarks The searcher is asked for `limit` summaries (`docs.length` for `Infinity`). An answer
 * with more entries is cut to that many before anything reads it (so its length costs nothing);
 * every entry kept must be present (no hole) and a summary: an object with a string `id` and
 * `name`, readable without throwing.
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
  const asked = limit === Infinity ? docs.length : limit;
  let results: unknown;
  try {
    results = searcher.search(query, asked, docs);
  } catch (error) {
    if (ToolexecError.isInstance(error)) throw error;
    throw errors.searcherFailed(errorMessage(error), error);
  }
  try {
    return summariesOf(results, asked);
  } catch (error) {
    if (ToolexecError.isInstance(error)) throw error;
    throw errors.searcherFailed(`search() answer could not be read: ${errorMessage(error)}`, error);
  }
}

/** Copies of the first `count` entries of a searcher's answer; throws when they are not summaries. */
function summariesOf(results: unknown, count: number): ToolSummary[] {
  if (!Array.isArray(results)) throw errors.searcherFailed('search() must return an array of summaries');
  const answer = results as readonly unknown[];
  const kept = Math.min(answer.length, count);
  const summaries: ToolSummary[] = [];
  for (let i = 0; i < kept; i++) {
    if (!(i in answer)) throw errors.searcherFailed(`search() must return an array of summaries (entry ${i} is missing)`);
    const item = answer[i];
    if (item === null || typeof item !== 'object') {
      throw errors.searcherFailed(`search() must return an array of summaries (entry ${i} is not an object)`);
    }
    const summary = copySummary(item as ToolSummary);
    if (typeof summary.id !== 'string' || typeof summary.name !== 'string') {
      throw errors.searcherFailed(`search() must return an array of summaries (entry ${i} has no string id and name)`);
    }
    summaries.push(summary);
  }
  return summaries;
}
