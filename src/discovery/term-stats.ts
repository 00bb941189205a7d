/**
 * How many documents hold each indexed term: the engine's vocabulary, used to tell a query word
 * that matches a word whole from one that does not (which then may match as a prefix or with a
 * typo), and to pick the rarest words of a long query.
 */
export class TermStats {
  readonly #documentCounts = new Map<string, number>();
  /** The terms of the document being added or removed, while MiniSearch processes it. */
  #collecting: Set<string> | undefined;

  /** Records `term` for the document being processed (called from MiniSearch's `processTerm`). */
  see(term: string): void {
    this.#collecting?.add(term);
  }

  /** Runs `process` (a MiniSearch add or remove) and counts the terms it saw once, by `change` (+1 / -1). */
  track(change: 1 | -1, process: () => void): void {
    const terms = new Set<string>();
    this.#collecting = terms;
    try {
      process();
    } finally {
      this.#collecting = undefined;
    }
    const counts = this.#documentCounts;
    for (const term of terms) {
      const count = (counts.get(term) ?? 0) + change;
      if (count > 0) counts.set(term, count);
      else counts.delete(term);
    }
  }

  /** How many documents hold `term` (0 when none). */
  documentCount(term: string): number {
    return this.#documentCounts.get(term) ?? 0;
  }
}
