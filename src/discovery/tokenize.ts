/**
 * The tokenizer shared by indexing and queries: words joined by connectors (`git-commit`,
 * `snake_case`, `a.b`, `ns:tool`) become their parts (`git`, `commit`), and camelCase words are
 * kept whole and also split (`readFile` → `readFile`, `read`, `File`), so `git-commit`,
 * `git commit` and `commit` all find a tool named `git-commit`.
 */

// Everything but letters, marks, digits and the connectors `_ . - :` separates words.
const SEPARATORS = /[^\p{L}\p{M}\p{N}_.\-:]+/u;
const CONNECTORS = /[_.\-:]+/;
const HAS_CONNECTOR = /[_.\-:]/;
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const INNER_UPPER = /.\p{Lu}/u;

/** English words too common to carry meaning in a description (dropped from prose fields). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by for from has have if in into is it its of on or that the their then there these ' +
    'this to was were will with which who can does do not no so such than too very'
  ).split(' '),
);

function isConnector(code: number): boolean {
  // _ . - :
  return code === 95 || code === 46 || code === 45 || code === 58;
}

/** `word` without leading and trailing connectors. */
function trimConnectors(word: string): string {
  let start = 0;
  let end = word.length;
  while (start < end && isConnector(word.charCodeAt(start))) start++;
  while (end > start && isConnector(word.charCodeAt(end - 1))) end--;
  return start === 0 && end === word.length ? word : word.slice(start, end);
}

/** True when an uppercase letter follows the first character (a possible camelCase join). */
function hasInnerUpper(word: string): boolean {
  for (let i = 1; i < word.length; i++) {
    const code = word.charCodeAt(i);
    if (code >= 65 && code <= 90) return true;
    if (code > 127) return INNER_UPPER.test(word);
  }
  return false;
}

function pushCamelParts(word: string, out: string[]): void {
  if (!hasInnerUpper(word)) return;
  const pieces = word.split(CAMEL);
  if (pieces.length > 1) for (const piece of pieces) if (piece !== '') out.push(piece);
}

// Scripts written without spaces between words: a run of them is split by Intl.Segmenter.
const UNSPACED_SCRIPT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;
/** The first code unit of the scripts above (Thai, U+0E00): anything below needs no look. */
const FIRST_UNSPACED_UNIT = 0x0e00;

let wordSegmenter: Intl.Segmenter | null | undefined;

/** The word segmenter, made on first use; `null` when this runtime has none (a small-ICU build). */
function segmenter(): Intl.Segmenter | null {
  if (wordSegmenter === undefined) {
    try {
      wordSegmenter = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter('en', { granularity: 'word' }) : null;
    } catch {
      wordSegmenter = null;
    }
  }
  return wordSegmenter;
}

/** True when `word` has a character of a script written without spaces (CJK, Thai, ...). */
function hasUnspacedScript(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    if (word.charCodeAt(i) >= FIRST_UNSPACED_UNIT) return UNSPACED_SCRIPT.test(word);
  }
  return false;
}

/** Pushes `word` (split into its words when its script has no spaces) and its camelCase pieces. */
function pushWord(word: string, out: string[]): void {
  const words = hasUnspacedScript(word) ? segmenter() : null;
  if (words === null) {
    out.push(word);
    pushCamelParts(word, out);
    return;
  }
  for (const { segment, isWordLike } of words.segment(word)) {
    if (isWordLike !== true) continue;
    out.push(segment);
    pushCamelParts(segment, out);
  }
}

/**
 * Splits text into raw (not yet lowercased) tokens: each word, or the parts of a word joined by
 * connectors, plus the pieces of camelCase words. Text in a script written without spaces
 * (Chinese, Japanese, Thai, ...) is split into its words by `Intl.Segmenter`
 * (`東京の天気を検索する` → `東京`, `の`, `天気`, `を`, `検索`, `する`).
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const chunk of text.split(SEPARATORS)) {
    if (chunk === '') continue;
    const word = trimConnectors(chunk);
    if (word === '') continue;
    if (!HAS_CONNECTOR.test(word)) {
      pushWord(word, out);
      continue;
    }
    for (const part of word.split(CONNECTORS)) {
      if (part !== '') pushWord(part, out);
    }
  }
  return out;
}

/** True when `text` has a character outside ASCII. */
function hasNonAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
}

const COMBINING_DIACRITICS = /[\u0300-\u036f]+/g;

/**
 * A token as it is indexed and searched: lowercased, with the accents of Latin, Greek and
 * Cyrillic letters removed (`Résumé` → `resume`), so that a query finds text with or without them.
 */
export function normalizeTerm(term: string): string {
  const lower = term.toLowerCase();
  if (!hasNonAscii(lower)) return lower;
  const stripped = lower.normalize('NFD').replace(COMBINING_DIACRITICS, '');
  return stripped.normalize('NFC');
}

/**
 * The words of a query that look like tool IDs (`ns:name`, `ns:name:1.0.0`), normalized as
 * {@link normalizeTerm} does: they are matched against the ID field as a whole (exactly or as a prefix).
 */
export function idLikeWords(text: string): string[] {
  const out: string[] = [];
  for (const chunk of text.split(SEPARATORS)) {
    if (!chunk.includes(':')) continue;
    const word = trimConnectors(chunk);
    if (word.includes(':')) out.push(normalizeTerm(word));
  }
  return out;
}
