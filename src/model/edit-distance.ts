/**
 * Edit distance for "did you mean" hints (misspelled tool IDs and argument names). Only failures
 * call it, never a successful call.
 *
 * @internal
 * @module
 */

/**
 * Edit distance between `a` and `b` (insert, delete, substitute, swap two neighbours; optimal string
 * alignment, case-sensitive), capped at `max + 1`.
 */
export function editDistance(a: string, b: string, max = Number.MAX_SAFE_INTEGER): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const width = b.length + 1;
  let before = new Array<number>(width).fill(0);
  let previous = new Array<number>(width);
  let current = new Array<number>(width);
  for (let j = 0; j < width; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j < width; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        value = Math.min(value, (before[j - 2] as number) + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[b.length] as number, max + 1);
}

/**
 * The largest distance still taken for a typo of `word`: none below 3 characters (any one-letter
 * name is one edit from any other), 1 for short words, about a third of longer ones.
 */
export function typoBudget(word: string): number {
  return word.length < 3 ? 0 : Math.max(1, Math.floor(word.length / 3));
}
