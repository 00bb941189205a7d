/**
 * A light English stemmer for search terms: folds plurals and the common verb and noun endings
 * onto one stem, applied alike to indexed words and to query words, so `users` finds `user`,
 * `comments` finds `comment` (not `commits`), `translation` finds `translate` and `created` finds
 * `create`. It is deliberately small (a few rules in the spirit of Porter's first and last steps)
 * so that it never merges words a reader would call different; see {@link stem}.
 */

/** Words this short are kept as they are (`aws`, `pr`, `s3`, `k8s`, `api`). */
const MIN_STEMMED_LENGTH = 4;
/** Fewest letters left before `-ing` / `-ion` is removed (`string`, `thing`, `ion` are kept). */
const MIN_STEM = 3;
/** Fewest letters left before `-ed` is removed (`need`, `speed`, `embed` are kept). */
const MIN_ED_STEM = 4;

const LOWER_ASCII_WORD = /^[a-z]+$/;
const VOWEL = /[aeiouy]/;

function isVowel(char: string | undefined): boolean {
  return char === 'a' || char === 'e' || char === 'i' || char === 'o' || char === 'u';
}

/** The singular of a plural noun (or the base of a third-person verb), else `word` itself. */
function singular(word: string): string {
  if (!word.endsWith('s')) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`; // queries → query
  if (word.endsWith('sses')) return word.slice(0, -2); // addresses → address
  if (/(?:x|ch|sh|zz)es$/.test(word)) return word.slice(0, -2); // boxes → box, matches → match
  if (/(?:ss|us|is)$/.test(word)) return word; // address, status, analysis
  return word.slice(0, -1); // users → user, files → file
}

/** `word` without a doubled final consonant (`runn` → `run`, `committ` → `commit`; not `-ll`, `-ss`, `-zz`). */
function undouble(word: string): string {
  const last = word[word.length - 1];
  if (word.length < 3 || last !== word[word.length - 2] || isVowel(last) || last === 'l' || last === 's' || last === 'z') {
    return word;
  }
  return word.slice(0, -1);
}

/** `word` without one derivational or inflectional ending: `-ing`, `-ed`, `-ion` (after `t` / `s`). */
function withoutEnding(word: string): string {
  if (word.endsWith('ing')) {
    const base = word.slice(0, -3);
    return base.length >= MIN_STEM && VOWEL.test(base) ? undouble(base) : word;
  }
  if (word.endsWith('ed') && !word.endsWith('eed')) {
    const base = word.slice(0, -2);
    return base.length >= MIN_ED_STEM && VOWEL.test(base) ? undouble(base) : word;
  }
  if (word.endsWith('tion') || word.endsWith('sion')) {
    const base = word.slice(0, -3);
    return base.length >= MIN_STEM + 1 ? base : word; // translation → translat, compression → compress
  }
  return word;
}

/**
 * The stem of a normalized (lowercased) word. Only words of plain ASCII letters of
 * {@link MIN_STEMMED_LENGTH}+ characters are changed, by these rules in order:
 *
 * 1. plurals: `-ies` → `-y`, `-sses` / `-xes` / `-ches` / `-shes` / `-zzes` lose `-es`, a final
 *    `-s` is dropped unless the word ends in `-ss`, `-us` or `-is`;
 * 2. one ending: `-ing` (3+ letters left, with a vowel), `-ed` (4+ letters left, not `-eed`),
 *    `-tion` / `-sion` lose `-ion`; a doubled final consonant left behind is undoubled
 *    (`running` → `run`);
 * 3. a final single `-e` is dropped when 3+ letters remain (`translate` → `translat`, the stem of
 *    `translation` too; `file` → `fil`; `free` and `use` are kept).
 *
 * Digits, other scripts and short words are returned unchanged.
 */
export function stem(word: string): string {
  if (word.length < MIN_STEMMED_LENGTH || !LOWER_ASCII_WORD.test(word)) return word;
  let result = withoutEnding(singular(word));
  if (result.length > MIN_STEM && result.endsWith('e') && !result.endsWith('ee')) result = result.slice(0, -1);
  return result;
}
