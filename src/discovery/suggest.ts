import { guardCall } from '../model/internal.js';
import { guardErrors } from './errors.js';
import { editDistance, typoBudget } from '../model/internal.js';
import { compareCodePoints } from './compare.js';
import { indexLookups } from './index-lookups.js';
import type { ToolIndex } from './types.js';

/** Most tool IDs a suggestion looks through within the unknown ID's namespace. */
const MAX_SCANNED_IDS = 10_000;

/**
 * Most tool IDs a suggestion looks through across the whole index beyond those (the same name in
 * another namespace is looked up directly): a failed lookup stays cheap on a large index.
 */
const MAX_SCANNED_ELSEWHERE = 1_000;

/** The shortest name part that may count as a prefix or word of another name. */
const MIN_RELATED_LENGTH = 3;

/** The shortest shared prefix that relates two names (`conversion` and `convert` share `conver`). */
const MIN_SHARED_PREFIX = 4;

const WORD_SEPARATORS = /[_.\-\s]+/;

/** A tool ID, lowercased, in parts: `namespace:name[:version]`, or a bare name. */
interface IdParts {
  readonly whole: string;
  readonly namespace: string | undefined;
  readonly name: string;
}

function partsOf(id: string): IdParts {
  const whole = id.toLowerCase();
  const colon = whole.indexOf(':');
  if (colon < 0) return { whole, namespace: undefined, name: whole };
  const rest = whole.slice(colon + 1);
  const second = rest.indexOf(':');
  return { whole, namespace: whole.slice(0, colon), name: second < 0 ? rest : rest.slice(0, second) };
}

/** How sure a suggestion is: the tier first (lower is surer), then its score (lower is better). */
interface Candidate {
  readonly id: string;
  /** 0: same name (or same ID in another case); 1: a typo away; 2: a prefix, word or stem of the name. */
  readonly tier: 0 | 1 | 2;
  readonly score: number;
  /** In the namespace the unknown ID names. */
  readonly sameNamespace: boolean;
}

function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.tier === 2 && a.sameNamespace !== b.sameNamespace) return a.sameNamespace ? -1 : 1;
  return a.score - b.score || (a.sameNamespace === b.sameNamespace ? 0 : a.sameNamespace ? -1 : 1) || compareCodePoints(a.id, b.id);
}

function sharedPrefixLength(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * How closely two names are related without being a typo apart, from 0 (not at all) to 1: one is
 * a prefix of the other (`greet` / `greeting`), one is a word of the other (`rates` /
 * `fetch_rates`), or they share a long stem (`conversion` / `convert`).
 */
function relatedness(a: string, b: string): number {
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  if (shorter.length < MIN_RELATED_LENGTH) return 0;
  if (longer.startsWith(shorter)) return shorter.length / longer.length;
  if (longer.split(WORD_SEPARATORS).includes(shorter)) return (0.9 * shorter.length) / longer.length;
  const shared = sharedPrefixLength(shorter, longer);
  if (shared >= MIN_SHARED_PREFIX && shared >= Math.ceil(0.6 * shorter.length)) return (0.8 * shared) / longer.length;
  return 0;
}

/**
 * The registered tool IDs closest to `toolId`, best first, at most `max` (for "did you mean"
 * hints on `TOOL_NOT_FOUND`):
 *
 * 1. the IDs whose name equals the unknown ID's name in another namespace
 *    (`read_text_file` → `fs:read_text_file`), or that differ from it only in case;
 * 2. the IDs whose name (or whole ID) is within a small edit distance (`fx:convrt` → `fx:convert`);
 * 3. the IDs whose name is a prefix, a word or a stem of the unknown name or the other way round
 *    (`fx:greeting` → `fx:greet`, `fx:rates` → `fx:fetch_rates`, `fx:conversion` → `fx:convert`),
 *    those in the same namespace first;
 * 4. only when none of those finds any: the index's own search for the words of the unknown
 *    name (and of its namespace, when no tool has that namespace; a namespace alone never
 *    suggests its tools).
 *
 * Names are compared within the namespace: the tools of the unknown ID's namespace are all looked
 * at (up to 10,000), besides the tools of the same name and the first 1,000 IDs of the index. Computed only when asked; an index
 * that throws gives `[]`.
 */
export function suggestToolIds(index: ToolIndex, toolId: string, max = 3): string[] {
  return guardCall(guardErrors, 'suggestToolIds arguments', () => suggest(index, toolId, max));
}

function suggest(index: ToolIndex, toolId: string, max: number): string[] {
  if (typeof toolId !== 'string' || toolId === '' || !(max > 0)) return [];
  const wanted = partsOf(toolId);
  const ids = candidateIds(index, toolId, wanted);
  if (ids === undefined) return [];
  const budget = typoBudget(wanted.name);
  const found: Candidate[] = [];
  for (const id of ids) {
    if (id === toolId) continue;
    const candidate = partsOf(id);
    const sameNamespace = candidate.namespace === wanted.namespace;
    if (candidate.whole === wanted.whole) {
      found.push({ id, tier: 0, score: -1, sameNamespace });
      continue;
    }
    if (candidate.name === wanted.name) {
      found.push({ id, tier: 0, score: 0, sameNamespace });
      continue;
    }
    const distance = Math.min(editDistance(wanted.whole, candidate.whole, budget), editDistance(wanted.name, candidate.name, budget));
    if (distance <= budget) {
      found.push({ id, tier: 1, score: distance, sameNamespace });
      continue;
    }
    const related = relatedness(wanted.name, candidate.name);
    if (related > 0) found.push({ id, tier: 2, score: -related, sameNamespace });
  }
  if (found.length > 0) {
    // A sure match (same name, a typo) is not crowded out by looser ones.
    const surest = Math.min(...found.map((candidate) => candidate.tier)) === 2 ? 2 : 1;
    return found
      .filter((candidate) => candidate.tier <= surest)
      .sort(compareCandidates)
      .slice(0, max)
      .map((candidate) => candidate.id);
  }
  return searched(index, toolId, wanted, max);
}

/**
 * The IDs to compare: those of the unknown ID's namespace, those with the same name, and the
 * first IDs of the index; `undefined` when the index cannot list them.
 */
function candidateIds(index: ToolIndex, toolId: string, wanted: IdParts): Iterable<string> | undefined {
  const ids = new Set<string>();
  const namespace = wanted.namespace === undefined ? undefined : toolId.slice(0, toolId.indexOf(':'));
  const lookups = indexLookups(index);
  try {
    if (lookups !== undefined) {
      if (namespace !== undefined) for (const id of lookups.idsInNamespace(namespace, MAX_SCANNED_IDS)) ids.add(id);
      for (const id of lookups.idsNamed(wanted.name)) ids.add(id);
      for (const id of lookups.ids().slice(0, MAX_SCANNED_ELSEWHERE)) ids.add(id);
      return ids;
    }
    if (namespace !== undefined) {
      for (const summary of index.search(namespace, MAX_SCANNED_IDS)) if (summary.namespace === namespace) ids.add(summary.id);
    }
    for (const summary of index.search('', MAX_SCANNED_ELSEWHERE)) ids.add(summary.id);
  } catch {
    return ids.size > 0 ? ids : undefined;
  }
  return ids;
}

/**
 * The last resort: the index's search for the unknown name's words, and its namespace's words
 * only when no tool has that namespace (a registered namespace matches every tool in it equally).
 */
function searched(index: ToolIndex, toolId: string, wanted: IdParts, max: number): string[] {
  const out = new Set<string>();
  try {
    const colon = toolId.indexOf(':');
    const namespace = colon < 0 ? undefined : toolId.slice(0, colon);
    let words = colon < 0 ? toolId : wanted.name;
    if (namespace !== undefined && !index.listNamespaces().includes(namespace)) words = `${namespace} ${words}`;
    const query = words.replace(/[:_\-.]+/g, ' ').trim();
    if (query === '') return [];
    for (const summary of index.search(query, max + 1)) if (summary.id !== toolId) out.add(summary.id);
  } catch {
    // The search is a last resort: no hint rather than a failure.
  }
  return [...out].slice(0, max);
}
