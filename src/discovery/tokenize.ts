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

/**
 * Splits text into raw (not yet lowercased) tokens: each word, or the parts of a word joined by
 * connectors, plus the pieces of camelCase words.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const chunk of text.split(SEPARATORS)) {
    if (chunk === '') continue;
    const word = trimConnectors(chunk);
    if (word === '') continue;
    if (!HAS_CONNECTOR.test(word)) {
      out.push(word);
      pushCamelParts(word, out);
      continue;
    }
    for (const part of word.split(CONNECTORS)) {
      if (part === '') continue;
      out.push(part);
      pushCamelParts(part, out);
    }
  }
  return out;
}

/**
 * The words of a query that look like tool IDs (`ns:name`, `ns:name:1.0.0`), lowercased: they
 * are matched against the ID field as a whole (exactly or as a prefix).
 */
export function idLikeWords(text: string): string[] {
  const out: string[] = [];
  for (const chunk of text.split(SEPARATORS)) {
    if (!chunk.includes(':')) continue;
    const word = trimConnectors(chunk);
    if (word.includes(':')) out.push(word.toLowerCase());
  }
  return out;
}
