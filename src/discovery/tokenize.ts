/**
 * The tokenizer shared by indexing and queries. A compound word gives the same tokens however it
 * is joined, camelCase, snake_case, kebab-case or dotted: its whole (its words run together), then
 * each word (`getWeather`, `get_weather`, `get-weather`, `get.weather` → `getWeather` /
 * `getweather`, `get`, `weather`), so that the same words score the same in any spelling and
 * `get weather`, `getweather` and `weather` find all four. Indexed, a compound of three or more
 * words also gives each pair of neighbouring words run together (`getUserName` → `getUser`,
 * `UserName`), so that `username` finds it. A colon separates words (`ns:tool` → `ns`, `tool`).
 * The engine indexes wholes and pairs apart from words ({@link COMPOUND_MARK}).
 */

// Everything but letters, marks, digits and the connectors `_ . - :` separates words.
const SEPARATORS = /[^\p{L}\p{M}\p{N}_.\-:]+/u;
/** The connectors that join the words of one compound (`snake_case`, `kebab-case`, `a.b`). */
const JOINERS = /[_.-]+/;
const HAS_JOINER = /[_.-]/;
/** A camelCase boundary: `aB`, `2B` (`s3Bucket`), and `ABc` (`HTTPServer` → `HTTP`, `Server`). */
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const INNER_UPPER = /.\p{Lu}/u;
const LETTER = /\p{L}/u;

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

/** The camelCase words of `word` (`readFile` → `read`, `File`); `[word]` when it has one. */
function camelParts(word: string): string[] {
  if (!hasInnerUpper(word)) return [word];
  const pieces = word.split(CAMEL).filter((piece) => piece !== '');
  return pieces.length > 1 ? pieces : [word];
}

/**
 * Marks the whole of a compound word in the tokens {@link tokenize} gives for indexing
 * (`getWeather` → `\u0001getWeather`): it cannot occur in a token otherwise (it separates words).
 */
export const COMPOUND_MARK = '\u0001';

/**
 * Pushes, when indexing (`mark` set), each pair of neighbouring words of a compound of three or more
 * words run together, marked as a whole (`get`, `User`, `Name` → `getUser`, `UserName`): a query
 * word (`username`) then finds the compound whole, never as a prefix. A pair with no letter is not
 * pushed (as a whole is not); pairs with a stop word are (`log_in_user` → `login`, `inuser`).
 */
function pushPairs(words: readonly string[], mark: string, out: string[]): void {
  if (mark === '' || words.length < 3) return;
  for (let i = 1; i < words.length; i++) {
    const pair = (words[i - 1] as string) + (words[i] as string);
    if (LETTER.test(pair)) out.push(mark + pair);
  }
}

/** Pushes a word that has no connector: itself, or its whole (marked), camelCase words and pairs of them. */
function pushCamel(word: string, mark: string, out: string[]): void {
  const parts = camelParts(word);
  if (parts.length === 1) {
    out.push(word);
    return;
  }
  out.push(mark + word, ...parts);
  pushPairs(parts, mark, out);
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

/** Pushes `word` (split into its words when its script has no spaces) as {@link pushCamel} does. */
function pushWord(word: string, mark: string, out: string[]): void {
  const words = hasUnspacedScript(word) ? segmenter() : null;
  if (words === null) {
    pushCamel(word, mark, out);
    return;
  }
  for (const { segment, isWordLike } of words.segment(word)) {
    if (isWordLike === true) pushCamel(segment, mark, out);
  }
}

/**
 * Pushes a word of joined parts (`get_weather`, `get_userName`) as a camelCase word is pushed: its
 * parts run together (`getweather`, `getuserName`; only when they have a letter, so `1.0.0` gives
 * no `100`), then each part's words (`get`, `user`, `Name`), then (indexing) the pairs of those
 * words ({@link pushPairs}: `getuser`, `userName`). A part in a script written without spaces is
 * split by {@link pushWord}, and its compound gets no pairs.
 */
function pushJoined(parts: readonly string[], mark: string, out: string[]): void {
  const whole = parts.join('');
  if (LETTER.test(whole)) out.push(mark + whole);
  const words: string[] = [];
  let unspaced = false;
  for (const part of parts) {
    if (hasUnspacedScript(part)) {
      unspaced = true;
      pushWord(part, mark, out);
    } else {
      const partWords = camelParts(part);
      out.push(...partWords);
      words.push(...partWords);
    }
  }
  if (!unspaced) pushPairs(words, mark, out);
}

/**
 * Splits text into raw (not yet lowercased) tokens. A compound word, camelCase or joined by `_`,
 * `-` or `.`, gives its whole (its words run together) and each of its words, the same in every
 * spelling (`readFile` and `read_file` → `readFile` / `readfile`, `read`, `File` / `file`); `:`
 * separates words. Text in a script written without spaces (Chinese, Japanese, Thai, ...) is split
 * into its words by `Intl.Segmenter` (`東京の天気を検索する` → `東京`, `の`, `天気`, `を`, `検索`, `する`).
 *
 * @param markCompounds - prefix each compound's whole with {@link COMPOUND_MARK}, and give each
 * compound of three or more words its pairs of neighbouring words run together, marked too
 * (`getUserName` → `getUser`, `UserName`) (for indexing: the engine keeps wholes apart from words,
 * so that a word never matches as a prefix of a whole it starts, `get` of `getWeather`; a query
 * word matches a whole or pair whole). Queries are tokenized without, so that they keep their terms.
 */
export function tokenize(text: string, markCompounds = false): string[] {
  const mark = markCompounds ? COMPOUND_MARK : '';
  const out: string[] = [];
  for (const chunk of text.split(SEPARATORS)) {
    if (chunk === '') continue;
    for (const piece of chunk.includes(':') ? chunk.split(':') : [chunk]) {
      const word = trimConnectors(piece);
      if (word === '') continue;
      const parts = HAS_JOINER.test(word) ? word.split(JOINERS).filter((part) => part !== '') : [word];
      if (parts.length === 1) pushWord(parts[0] as string, mark, out);
      else pushJoined(parts, mark, out);
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
