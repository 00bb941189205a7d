/**
 * The tool index contract against the library's own index: the default one, and one with a custom
 * (deterministic) searcher and backend selector, which must keep the contract too.
 */
import { createToolIndex, defaultBackendSelector, type SearchDoc, type ToolSummary } from '../../src/discovery/index.js';
import { toolIndexContract } from '../../src/testing/index.js';

toolIndexContract('InMemoryToolIndex', () => createToolIndex());

/** A plain searcher: exact ID, then exact name, then any doc whose text holds the query, ties by ID. */
const substringSearcher = {
  deterministic: true,
  search(query: string, limit: number, docs: readonly SearchDoc[]): ToolSummary[] {
    if (limit <= 0) return [];
    const q = query.trim().toLowerCase();
    const rank = (doc: SearchDoc): number => (doc.id.toLowerCase() === q ? 0 : doc.summary.name.toLowerCase() === q ? 1 : 2);
    const hits = q === '' ? [...docs] : docs.filter((doc) => doc.docText.includes(q) || rank(doc) < 2);
    return hits
      .sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit)
      .map((doc) => doc.summary);
  },
};

toolIndexContract('InMemoryToolIndex with a custom searcher and backend selector', () =>
  createToolIndex({ searcher: substringSearcher, backendSelector: (backends) => defaultBackendSelector(backends) }),
);
