/**
 * The built-in full-text engine: a MiniSearch (BM25+) index kept in step with the tool index, one
 * document per tool, with field boosts that favour names, then IDs, titles, namespaces and tags.
 * Words are indexed and searched by their stem ({@link stem}: `users` finds `user`); the whole of
 * a compound word (`getWeather`, `get_weather`), and each pair of neighbouring words of a compound
 * of three or more (`getUserName` → `getuser`, `username`), is indexed apart from its words and
 * matched whole only, so that a name scores the same in every spelling.
 */
import MiniSearch, { type Query, type SearchResult } from 'minisearch';
import { COMPOUND_MARK, STOP_WORDS, idLikeWords, normalizeTerm, tokenize } from './tokenize.js';
import { stem } from './stem.js';
import { TermStats } from './term-stats.js';
import { NamespaceMembers } from './namespace-substrings.js';
import { FIELDS, FIELD_BOOSTS, PROSE_FIELDS, type EngineDoc, type EngineHit } from './search-fields.js';

export { FIELD_BOOSTS, type EngineDoc, type EngineHit } from './search-fields.js';

const WORD_FIELDS = FIELDS.filter((field) => field !== 'id');
const ID_FIELDS = ['id'];
const NAME_FIELDS = ['name'];

/**
 * Query words of at least this many characters also match as prefixes (`add` finds `address`);
 * a word of exactly this many does only when it is no indexed word itself (`pr`, a tag, does not
 * also find `profile`).
 */
export const MIN_PREFIX_LENGTH = 2;
/** Query words of at least this many characters that match nothing may match with one typo (two from 8 characters). */
export const MIN_FUZZY_LENGTH = 4;
/**
 * The weight of a match through two swapped neighbouring letters (`emial` → `email`), as of a
 * one-letter typo of a 4-letter word in MiniSearch (`0.45 × 4/5`): below an exact match.
 */
export const TRANSPOSITION_WEIGHT = 0.36;
/** A query with more words than this is long: only its rarest words are scored, whole. */
export const LONG_QUERY_WORDS = 6;
/** Most words of a long query that are scored. */
export const MAX_SCORED_WORDS = 8;
/**
 * A word of a long query held by more than this share of the tools is not scored when rarer
 * words are (it tells the tools apart little and costs the most); when none is rarer, only the
 * {@link MAX_COMMON_WORDS} rarest are.
 */
export const COMMON_WORD_SHARE = 0.5;
/** Most words scored of a long query whose indexed words are all common. */
export const MAX_COMMON_WORDS = 2;

const splitTerms = (text: string): string[] => text.split(' ');
const identity = (term: string): string => term;
const fuzzyFor = (term: string): number | false => {
  const length = term.startsWith(COMPOUND_MARK) ? term.length - COMPOUND_MARK.length : term.length;
  return length >= 8 ? 2 : length >= MIN_FUZZY_LENGTH ? 1 : false;
};
/** Each term, and the same as a compound's whole (see {@link COMPOUND_MARK}): a query word matches either. */
const withWholes = (terms: Iterable<string>): string => [...terms].flatMap((term) => [term, COMPOUND_MARK + term]).join(' ');
const SEARCH_BASE = { tokenize: splitTerms, processTerm: identity, boost: FIELD_BOOSTS, combineWith: 'OR' as const };

/** A query word: as typed (normalized) and its stem. */
interface Word {
  typed: string;
  stem: string;
}

/** Keeps a MiniSearch index of tools; all operations are synchronous and exact (no vacuuming). */
export class TextEngine {
  readonly #terms = new TermStats();
  readonly #mini = new MiniSearch<EngineDoc>({
    fields: FIELDS as (keyof EngineDoc)[],
    idField: 'id',
    storeFields: [],
    autoVacuum: false,
    tokenize: (text, field) => (field === 'id' ? [text] : tokenize(text, true)),
    processTerm: (term, field) => {
      if (field === 'id') return normalizeTerm(term);
      // A compound's whole (`getWeather`, `get_weather`) and pairs (`getUser`, `UserName`) are kept apart from
      // words (marked), so that a query word matches them whole, never as a prefix (`get` would count twice in `getWeather`).
      const mark = term.startsWith(COMPOUND_MARK) ? COMPOUND_MARK : '';
      const normal = normalizeTerm(mark === '' ? term : term.slice(mark.length));
      if (field !== undefined && PROSE_FIELDS.has(field) && STOP_WORDS.has(normal)) return null;
      const stemmed = stem(normal);
      this.#terms.see(stemmed);
      if (field !== 'name' || !inflected(normal, stemmed)) return mark + stemmed;
      // A name's inflected words as written are indexed too, so that a query that has one exactly ranks it higher.
      return [mark + stemmed, mark + normal];
    },
  });
  readonly #docs = new Map<string, EngineDoc>();
  readonly #namespaces = new NamespaceMembers();

  /** Adds the document, or replaces the one with the same ID when any field differs. */
  upsert(doc: EngineDoc): void {
    const current = this.#docs.get(doc.id);
    if (current !== undefined) {
      if (FIELDS.every((field) => current[field] === doc[field])) return;
      this.remove(doc.id);
    }
    this.#terms.track(1, () => this.#mini.add(doc));
    this.#docs.set(doc.id, doc);
    this.#namespaces.add(doc.namespace, doc.id);
  }

  /** Removes the document with this ID, if any. */
  remove(id: string): void {
    const current = this.#docs.get(id);
    if (current === undefined) return;
    this.#terms.track(-1, () => this.#mini.remove(current));
    this.#docs.delete(id);
    this.#namespaces.remove(current.namespace, id);
  }

  /**
   * Scores documents against a query's terms (OR-combined). Word terms are looked up by their
   * stem in every field but the ID, and also as prefixes when they have {@link MIN_PREFIX_LENGTH}+
   * characters (the word as typed, so `file` finds `filesystem` but not `filter`); ID-like terms
   * (`ns:name`) only in the ID field, exactly or as a prefix. A word that matches nothing that
   * way, of {@link MIN_FUZZY_LENGTH}+ characters, then matches with a typo (`reed` → `read`) or two
   * swapped letters (`emial` → `email`, {@link TRANSPOSITION_WEIGHT}), at a lower weight, even
   * when the other words matched. A long query (more than
   * {@link LONG_QUERY_WORDS} words) is scored by its {@link MAX_SCORED_WORDS} rarest indexed
   * words, whole, leaving out those most tools hold ({@link COMMON_WORD_SHARE}), which bounds
   * its cost. Namespaces holding a word after their start add a tiny
   * score (see namespace-substrings.ts).
   *
   * @returns the hits, highest score first (ties in no particular order).
   */
  search(terms: QueryTerms): readonly EngineHit[] {
    const { ids } = terms;
    if (terms.words.length === 0 && ids.length === 0) return [];
    const { words, long } = this.#scoredWords(terms.words);
    const prefixed = new Set<string>();
    const stems = new Set<string>();
    const asWritten: string[] = [];
    for (const word of words) {
      stems.add(word.stem);
      // An inflected word (`files`) is a whole word: its stem, and the form itself in names (which
      // hold their words as written too), so that a name with the query's form ranks higher. Only
      // a word that is its own stem can be a word being typed (`fil`, `depl`) and match as a prefix.
      if (inflected(word.typed, word.stem)) asWritten.push(word.typed);
      else if (word.stem === word.typed && !long && this.#prefixes(word)) prefixed.add(word.typed);
    }
    const queries: Query[] = [];
    // Compound wholes are matched exactly: `prefixed` holds words as typed, never marked.
    if (stems.size > 0) {
      queries.push({ queries: [withWholes(stems)], fields: WORD_FIELDS, prefix: (term) => prefixed.has(term), fuzzy: false });
    }
    if (asWritten.length > 0) queries.push({ queries: [withWholes(asWritten)], fields: NAME_FIELDS, prefix: false, fuzzy: false });
    if (ids.length > 0) queries.push({ queries: [ids.join(' ')], fields: ID_FIELDS, prefix: true, fuzzy: false });
    const exact = this.#mini.search({ queries, combineWith: 'OR' }, SEARCH_BASE);

    const unmatched = long ? [] : this.#unmatched(words, exact);
    const typos =
      unmatched.length === 0
        ? []
        : this.#mini.search(
            { queries: [withWholes(unmatched.map((word) => word.stem))], fields: WORD_FIELDS, prefix: false, fuzzy: fuzzyFor },
            SEARCH_BASE,
          );
    const swapped = this.#transposed(unmatched);
    const swaps =
      swapped.length === 0
        ? []
        : scaled(
            this.#mini.search({ queries: [withWholes(swapped)], fields: WORD_FIELDS, prefix: false, fuzzy: false }, SEARCH_BASE),
            TRANSPOSITION_WEIGHT,
          );
    const inNamespaces = this.#namespaces.hits(terms.words);
    // MiniSearch results carry `id` and `score` already, sorted by score (highest first).
    if (typos.length === 0 && swaps.length === 0 && inNamespaces.length === 0) return exact;
    return merged([exact, typos, swaps, inNamespaces]);
  }

  /**
   * The indexed words (stems) that a typo-candidate word becomes with two neighbouring letters
   * swapped (`emial` → `email`, `sned` → `send`): two edits to Levenshtein, so the fuzzy search misses them.
   */
  #transposed(words: readonly Word[]): string[] {
    const found = new Set<string>();
    for (const { typed } of words) {
      for (let i = 0; i + 1 < typed.length; i++) {
        if (typed[i] === typed[i + 1]) continue;
        const variant = stem(`${typed.slice(0, i)}${typed[i + 1] as string}${typed[i] as string}${typed.slice(i + 2)}`);
        if (this.#terms.documentCount(variant) > 0) found.add(variant);
      }
    }
    return [...found];
  }

  /** The words to score: all of a short query, the rarest indexed ones of a long query. */
  #scoredWords(typed: readonly string[]): { words: Word[]; long: boolean } {
    const seen = new Set<string>();
    const words: Word[] = [];
    for (const word of typed) {
      const stemmed = stem(word);
      if (seen.has(stemmed)) continue;
      seen.add(stemmed);
      words.push({ typed: word, stem: stemmed });
    }
    if (words.length <= LONG_QUERY_WORDS) return { words, long: false };
    const known = words
      .map((word) => ({ word, count: this.#terms.documentCount(word.stem) }))
      .filter(({ count }) => count > 0)
      .sort((a, b) => a.count - b.count);
    // No word of the query is indexed whole: score its first words as a short query would.
    if (known.length === 0) return { words: words.slice(0, MAX_SCORED_WORDS), long: false };
    const common = COMMON_WORD_SHARE * this.#docs.size;
    const rare = known.filter(({ count }) => count <= common);
    const scored = rare.length > 0 ? rare.slice(0, MAX_SCORED_WORDS) : known.slice(0, MAX_COMMON_WORDS);
    return { words: scored.map(({ word }) => word), long: true };
  }

  /** Whether `word` also matches as a prefix. */
  #prefixes(word: Word): boolean {
    if (word.typed.length > MIN_PREFIX_LENGTH) return true;
    return word.typed.length === MIN_PREFIX_LENGTH && this.#terms.documentCount(word.stem) === 0;
  }

  /** The words long enough for typos that matched nothing, whole or as a prefix. */
  #unmatched(words: readonly Word[], results: readonly SearchResult[]): Word[] {
    const candidates = words.filter((word) => word.typed.length >= MIN_FUZZY_LENGTH && this.#terms.documentCount(word.stem) === 0);
    if (candidates.length === 0) return [];
    const missing = new Set(candidates.map((word) => word.stem));
    for (const result of results) {
      for (const term of result.queryTerms) missing.delete(term);
      if (missing.size === 0) return [];
    }
    return candidates.filter((word) => missing.has(word.stem));
  }
}

/** True when `word` is an inflected form of `stemmed` (`files`, `created`): not itself, nor itself less a final `e` (`file`). */
function inflected(word: string, stemmed: string): boolean {
  return word !== stemmed && word !== `${stemmed}e`;
}

/** `hits` with their scores multiplied by `weight`. */
function scaled(hits: readonly EngineHit[], weight: number): EngineHit[] {
  return hits.map(({ id, score }) => ({ id, score: score * weight }));
}

/** The hits of several lists, each tool's scores added, highest first. */
function merged(lists: readonly (readonly EngineHit[])[]): EngineHit[] {
  const scores = new Map<string, number>();
  for (const list of lists) for (const { id, score } of list) scores.set(id, (scores.get(id) ?? 0) + score);
  return Array.from(scores, ([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

/** Longest part of a query that is tokenized, in UTF-16 units. */
export const MAX_QUERY_CHARS = 1024;
/** Most distinct terms of a query that are kept (a long query is then scored by its rarest words). */
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
