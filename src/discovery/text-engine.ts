/**
 * The built-in full-text engine: a MiniSearch (BM25+) index kept in step with the tool index, one
 * document per tool, with field boosts that favour names, then IDs, namespaces and tags.
 */
import MiniSearch, { type Query } from 'minisearch';
import { STOP_WORDS, idLikeWords, normalizeTerm, tokenize } from './tokenize.js';

/** The searchable fields of one tool. */
export interface EngineDoc {
  id: string;
  name: string;
  namespace: string;
  description: string;
  /** `_meta.summary` when it adds something to the description, else `''`. */
  summary: string;
  /** Normalized tags, space-joined. */
  tags: string;
  category: string;
}

/** One hit of the engine. */
export interface EngineHit {
  id: string;
  score: number;
}

const FIELDS: (keyof EngineDoc)[] = ['id', 'name', 'namespace', 'tags', 'category', 'summary', 'description'];

/** Field boosts: a match in the name counts most, then the ID, namespace and tags. */
export const FIELD_BOOSTS: Readonly<Record<keyof EngineDoc, number>> = Object.freeze({
  name: 6,
  id: 4,
  namespace: 3,
  tags: 3,
  category: 2,
  summary: 1.2,
  description: 1,
});

const PROSE_FIELDS: ReadonlySet<string> = new Set(['description', 'summary']);
const WORD_FIELDS = FIELDS.filter((field) => field !== 'id');
const ID_FIELDS = ['id'];

/** Query terms of at least this many characters also match as prefixes (`add` finds `address`). */
export const MIN_PREFIX_LENGTH = 2;
/** Query terms of at least this many characters may match with one typo (two from 8 characters). */
export const MIN_FUZZY_LENGTH = 5;

const splitTerms = (text: string): string[] => text.split(' ');
const identity = (term: string): string => term;
const prefixFor = (term: string): boolean => term.length >= MIN_PREFIX_LENGTH;
const fuzzyFor = (term: string): number | false => (term.length >= 8 ? 2 : term.length >= MIN_FUZZY_LENGTH ? 1 : false);

/** Keeps a MiniSearch index of tools; all operations are synchronous and exact (no vacuuming). */
export class TextEngine {
  readonly #mini = new MiniSearch<EngineDoc>({
    fields: FIELDS,
    idField: 'id',
    storeFields: [],
    autoVacuum: false,
    tokenize: (text, field) => (field === 'id' ? [text] : tokenize(text)),
    processTerm: (term, field) => {
      const normal = normalizeTerm(term);
      return field !== undefined && PROSE_FIELDS.has(field) && STOP_WORDS.has(normal) ? null : normal;
    },
  });
  readonly #docs = new Map<string, EngineDoc>();

  /** Adds the document, or replaces the one with the same ID when any field differs. */
  upsert(doc: EngineDoc): void {
    const current = this.#docs.get(doc.id);
    if (current !== undefined) {
      if (FIELDS.every((field) => current[field] === doc[field])) return;
      this.#mini.remove(current);
    }
    this.#mini.add(doc);
    this.#docs.set(doc.id, doc);
  }

  /** Removes the document with this ID, if any. */
  remove(id: string): void {
    const current = this.#docs.get(id);
    if (current === undefined) return;
    this.#mini.remove(current);
    this.#docs.delete(id);
  }

  /**
   * Scores documents against a query's terms (OR-combined). Word terms are looked up in every
   * field but the ID, also as prefixes when they have {@link MIN_PREFIX_LENGTH}+ characters;
   * ID-like terms (`ns:name`) only in the ID field, exactly or as a prefix. Typo-tolerant
   * matching is tried only when nothing matches otherwise, so it never reorders real matches.
   *
   * @returns the hits, highest score first (ties in no particular order).
   */
  search(terms: QueryTerms): readonly EngineHit[] {
    const { words, ids } = terms;
    if (words.length === 0 && ids.length === 0) return [];
    const base = { tokenize: splitTerms, processTerm: identity, boost: FIELD_BOOSTS, combineWith: 'OR' as const };
    const query = (fuzzy: typeof fuzzyFor | false): Query => {
      const queries: Query[] = [];
      if (words.length > 0) queries.push({ queries: [words.join(' ')], fields: WORD_FIELDS, prefix: prefixFor, fuzzy });
      if (ids.length > 0) queries.push({ queries: [ids.join(' ')], fields: ID_FIELDS, prefix: true, fuzzy: false });
      return { queries, combineWith: 'OR' };
    };
    let results = this.#mini.search(query(false), base);
    if (results.length === 0 && words.some((term) => term.length >= MIN_FUZZY_LENGTH)) {
      results = this.#mini.search(query(fuzzyFor), base);
    }
    // MiniSearch results carry `id` and `score` already, sorted by score (highest first).
    return results;
  }
}

/** Longest part of a query that is tokenized, in UTF-16 units. */
export const MAX_QUERY_CHARS = 1024;
/** Most distinct terms of a query that are searched. */
export const MAX_QUERY_TERMS = 32;

/** The terms of a query, as {@link queryTerms} derives them. */
export interface QueryTerms {
  /** Normalized word tokens, matched against every field but the ID. */
  words: string[];
  /** Normalized ID-like words (`ns:name`), matched against the ID field. */
  ids: string[];
}

/**
 * The search terms of a query: its tokens normalized ({@link normalizeTerm}: lowercased, accents
 * removed) and deduplicated, stop words dropped unless
 * the query has nothing else, and its ID-like words whole; at most {@link MAX_QUERY_TERMS} in all.
 */
export function queryTerms(query: string): QueryTerms {
  const text = query.length > MAX_QUERY_CHARS ? query.slice(0, MAX_QUERY_CHARS) : query;
  const seen = new Set<string>();
  for (const token of tokenize(text)) seen.add(normalizeTerm(token));
  const all = [...seen];
  const meaningful = all.filter((term) => !STOP_WORDS.has(term));
  const words = (meaningful.length > 0 ? meaningful : all).slice(0, MAX_QUERY_TERMS);
  const ids = [...new Set(idLikeWords(text))].slice(0, MAX_QUERY_TERMS - words.length);
  return { words, ids };
}
