/**
 * How much of a tool's result a model reads: the `maxResultChars` option of every adapter that
 * hands results to a model (`agentTools`, `aiSdkTools`, `codeTool`, `createMcpServer`), resolved
 * once when the adapter is made, and the one cut every model-facing text goes through
 * ({@link limitTexts}). What goes back to the app's own code (the AI SDK tool's `output`, a
 * `SelectedTool`'s `Result`) is never cut.
 */
import { describeValue, layerErrors } from '../model/internal.js';
import type { ResultPart } from './result-parts.js';

const errors = layerErrors('agent');

/** The default of {@link ResultLimitOptions.maxResultChars}: 100,000 characters (some 25,000 tokens). */
export const DEFAULT_MAX_RESULT_CHARS = 100_000;

/** The option of every adapter that gives tool results to a model. */
export interface ResultLimitOptions {
  /**
   * Most characters of one tool result's text that a model is sent (a failure's text too). Beyond
   * it the text is cut and ends with a note telling the model how much was cut and to ask for
   * less: `[Result truncated: showing the first 100,000 of 5,242,880 characters; 5,142,880 were
   * cut. ...]`. Media (images, audio, files) are not counted. A positive integer, or `Infinity`
   * for no cap; anything else is `CONFIGURATION`. @defaultValue 100000
   */
  maxResultChars?: number;
}

/**
 * The resolved `maxResultChars`: the default when unset.
 *
 * @throws `CONFIGURATION` for anything but a positive integer or `Infinity`.
 */
export function readMaxResultChars(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_RESULT_CHARS;
  if (typeof value !== 'number' || !(value > 0) || !(Number.isSafeInteger(value) || value === Infinity)) {
    throw errors.configuration('maxResultChars', `must be a positive integer or Infinity, got ${describeValue(value)}`);
  }
  return value;
}

const count = new Intl.NumberFormat('en-US');

/** The note that ends a cut text: what was shown, what was cut, and what to do about it. */
export function truncationNote(shown: number, total: number): string {
  return (
    `\n\n[Result truncated: showing the first ${count.format(shown)} of ${count.format(total)} characters; ` +
    `${count.format(total - shown)} were cut. To see the rest, ask for less at a time (a filter, a smaller page or range, fewer fields).]`
  );
}

/** Where to cut `text` to keep at most `chars` characters without splitting a surrogate pair. */
function cutAt(text: string, chars: number): number {
  const last = text.charCodeAt(chars - 1);
  return chars > 0 && last >= 0xd800 && last <= 0xdbff ? chars - 1 : chars;
}

/**
 * The one cut of what a model reads. The texts of `items` (`textOf`; `undefined` for an item
 * without text, a medium, which is kept as it is) are kept whole, in order, while their total
 * stays within `maxChars`; the text that crosses it is cut there (`withText`) and ends with the
 * {@link truncationNote}; the texts after it are left out. Returns `items` itself when nothing is
 * cut, so a caller can tell.
 */
export function limitTexts<T>(
  items: readonly T[],
  maxChars: number,
  textOf: (item: T) => string | undefined,
  withText: (item: T, text: string) => T,
): readonly T[] {
  if (maxChars === Infinity) return items;
  let total = 0;
  for (const item of items) total += textOf(item)?.length ?? 0;
  if (total <= maxChars) return items;
  const out: T[] = [];
  let left = maxChars;
  let cut = false;
  for (const item of items) {
    const text = textOf(item);
    if (text === undefined) out.push(item);
    else if (cut) continue;
    else if (text.length <= left) {
      out.push(item);
      left -= text.length;
    } else {
      const end = cutAt(text, left);
      out.push(withText(item, `${text.slice(0, end)}${truncationNote(maxChars - left + end, total)}`));
      cut = true;
    }
  }
  return out;
}

/** {@link limitTexts} of result parts (their text parts). */
export function limitParts(parts: readonly ResultPart[], maxChars: number): readonly ResultPart[] {
  return limitTexts(
    parts,
    maxChars,
    (part) => (part.kind === 'text' ? part.text : undefined),
    (part, text) => ({ ...part, text }),
  );
}

/** {@link limitTexts} of one text. */
export function limitText(text: string, maxChars: number): string {
  return (
    limitTexts(
      [text],
      maxChars,
      (item) => item,
      (_item, cut) => cut,
    )[0] ?? text
  );
}
