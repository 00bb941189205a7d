/**
 * Namespaces found by a piece of their name (`mail` finds the tools of `gmail`, `hub` those of
 * `github`), as Go's lexical searcher found them: the one kind of word-internal match the built-in
 * engine keeps, because namespaces are few (scanning them costs little per query) and an agent
 * often knows only part of a server's name. Such hits get a tiny score, below every word match.
 */
import type { EngineHit } from './search-fields.js';
import { normalizeTerm } from './tokenize.js';

/** The score of a tool found only through a piece of its namespace. */
export const NAMESPACE_SUBSTRING_SCORE = 1e-6;
/** Shortest query word looked for inside namespaces. */
export const MIN_SUBSTRING_LENGTH = 3;

/** The tools of each namespace, by normalized namespace ({@link normalizeTerm}). */
export class NamespaceMembers {
  readonly #members = new Map<string, Set<string>>();

  add(namespace: string, id: string): void {
    const key = normalizeTerm(namespace);
    let ids = this.#members.get(key);
    if (ids === undefined) this.#members.set(key, (ids = new Set()));
    ids.add(id);
  }

  remove(namespace: string, id: string): void {
    const key = normalizeTerm(namespace);
    const ids = this.#members.get(key);
    if (ids === undefined) return;
    ids.delete(id);
    if (ids.size === 0) this.#members.delete(key);
  }

  /**
   * The tools whose namespace holds one of `words` (normalized, {@link MIN_SUBSTRING_LENGTH}+
   * characters) after its start (a namespace that starts with the word is already a prefix match),
   * each with {@link NAMESPACE_SUBSTRING_SCORE}.
   */
  hits(words: readonly string[]): EngineHit[] {
    const wanted = words.filter((word) => word.length >= MIN_SUBSTRING_LENGTH);
    if (wanted.length === 0) return [];
    const out: EngineHit[] = [];
    for (const [namespace, ids] of this.#members) {
      if (!wanted.some((word) => namespace.indexOf(word, 1) > 0 && !namespace.startsWith(word))) continue;
      for (const id of ids) out.push({ id, score: NAMESPACE_SUBSTRING_SCORE });
    }
    return out;
  }
}
