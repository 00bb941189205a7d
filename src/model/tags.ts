import { layerErrors } from './error-factory.js';
import { guardCall } from './options-reader.js';

const guardErrors = layerErrors('model');

/** Longest normalized tag, in bytes. */
export const MAX_TAG_LENGTH = 64;
/** Most tags kept by {@link normalizeTags}. */
export const MAX_TAGS = 20;

// Unicode White_Space, written out (JS `\s` differs on U+0085 and U+FEFF).
const SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRIM = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, 'gu');
const RUNS = new RegExp(`[${SPACE}]+`, 'gu');
const DISALLOWED = /[^a-z0-9\-_.]/g;

/**
 * Normalizes discovery tags: lowercase, trim, whitespace runs to `-`, keep only `[a-z0-9-_.]`,
 * cut to 64 characters, drop empties and duplicates (keeping the first), at most 20 tags.
 *
 * @remarks Never returns null; non-string entries are skipped.
 */
export function normalizeTags(tags: readonly string[] | undefined | null): string[] {
  return guardCall(guardErrors, 'tags', () => normalize(tags));
}

function normalize(tags: readonly string[] | undefined | null): string[] {
  const out: string[] = [];
  if (!Array.isArray(tags)) return out;
  const seen = new Set<string>();
  for (const raw of tags as readonly unknown[]) {
    if (out.length >= MAX_TAGS) break;
    if (typeof raw !== 'string') continue;
    const trimmed = raw.toLowerCase().replace(TRIM, '');
    if (trimmed === '') continue;
    let tag = trimmed.replace(RUNS, '-').replace(DISALLOWED, '');
    if (tag === '') continue;
    if (tag.length > MAX_TAG_LENGTH) tag = tag.slice(0, MAX_TAG_LENGTH);
    if (seen.has(tag)) continue;
    seen.add(tag);
    out.push(tag);
  }
  return out;
}
