/**
 * The final ordering of search hits: exact ID matches, then exact name matches, then by score,
 * ties by ID in code-point order.
 */
import { compareCodePoints } from './compare.js';
import type { EngineHit } from './text-engine.js';

/** A hit with its final-ordering rank. */
export interface RankedEntry {
  id: string;
  score: number;
  /** 2 = exact ID match, 1 = exact name match, 0 = other. */
  rank: number;
}

function compareRanked(a: RankedEntry, b: RankedEntry): number {
  return b.rank - a.rank || b.score - a.score || compareCodePoints(a.id, b.id);
}

/**
 * The best `limit` hits in final order: exact ID matches, then exact name matches, then by
 * score, ties by ID. `hits` come highest score first, so the walk stops once `limit` entries
 * are taken and the score drops below the last one taken (later hits can only rank lower).
 */
export function selectTop(
  hits: readonly EngineHit[],
  limit: number,
  exactIds: readonly string[] | undefined,
  exactNames: readonly string[] | undefined,
): RankedEntry[] {
  const exact: RankedEntry[] = [];
  if (exactIds !== undefined || exactNames !== undefined) {
    const rankOf = (id: string): number => (exactIds?.includes(id) ? 2 : exactNames?.includes(id) ? 1 : 0);
    const found = new Set<string>();
    for (const { id, score } of hits) {
      const rank = rankOf(id);
      if (rank > 0) {
        exact.push({ id, score, rank });
        found.add(id);
      }
    }
    // Exact matches rank first even when the tokenizer cannot see them (a name made only of
    // connectors, an ID whose namespace is punctuation).
    for (const id of [...(exactIds ?? []), ...(exactNames ?? [])]) {
      if (!found.has(id)) {
        exact.push({ id, score: 0, rank: rankOf(id) });
        found.add(id);
      }
    }
    exact.sort(compareRanked);
  }
  const isExact = (id: string): boolean => exactIds?.includes(id) === true || exactNames?.includes(id) === true;
  const wanted = limit - exact.length;
  const rest: RankedEntry[] = [];
  for (const { id, score } of hits) {
    if (rest.length >= wanted && (rest.length === 0 || score < (rest[rest.length - 1] as RankedEntry).score)) break;
    if (!isExact(id)) rest.push({ id, score, rank: 0 });
  }
  rest.sort(compareRanked);
  const all = exact.length === 0 ? rest : exact.concat(rest);
  return limit < all.length ? all.slice(0, limit) : all;
}
