import { guardCall } from '../model/internal.js';
import { guardErrors } from './errors.js';
import { editDistance, typoBudget } from '../model/internal.js';
import type { ToolIndex } from './types.js';

/** Most tool IDs a suggestion looks through (the index lists them in ID order). */
const MAX_SCANNED_IDS = 10_000;

/** `namespace:name[:version]` → `name`; a bare name is itself. */
function namePart(id: string): string {
  const parts = id.split(':');
  return parts.length >= 2 ? (parts[1] as string) : id;
}

/**
 * The registered tool IDs closest to `toolId`, best first, at most `max` (for "did you mean"
 * hints on `TOOL_NOT_FOUND`): the IDs whose name equals the unknown ID's name in another namespace
 * (`read_text_file` → `fs:read_text_file`), then IDs or names within a small edit distance, then
 * (only when neither finds any) the index's own search for the ID's words. Computed only when asked; an index that throws gives `[]`.
 */
export function suggestToolIds(index: ToolIndex, toolId: string, max = 3): string[] {
  return guardCall(guardErrors, 'suggestToolIds arguments', () => suggest(index, toolId, max));
}

function suggest(index: ToolIndex, toolId: string, max: number): string[] {
  if (typeof toolId !== 'string' || toolId === '' || !(max > 0)) return [];
  let ids: string[];
  try {
    ids = index.search('', MAX_SCANNED_IDS).map((summary) => summary.id);
  } catch {
    return [];
  }
  const wanted = toolId.toLowerCase();
  const wantedName = namePart(wanted);
  const budget = typoBudget(wantedName);
  const qualified: string[] = [];
  const close: { id: string; distance: number }[] = [];
  for (const id of ids) {
    if (id === toolId) continue;
    const lower = id.toLowerCase();
    const name = namePart(lower);
    if (name === wantedName || lower === wanted) {
      qualified.push(id);
      continue;
    }
    const distance = Math.min(editDistance(wanted, lower, budget), editDistance(wantedName, name, budget));
    if (distance <= budget) close.push({ id, distance });
  }
  close.sort((a, b) => a.distance - b.distance);
  const out = new Set<string>(qualified);
  for (const { id } of close) out.add(id);
  // The search only when nothing closer was found: its loose matches would crowd out a sure one.
  if (out.size === 0) {
    try {
      for (const summary of index.search(toolId.replace(/[:_\-.]+/g, ' '), max)) if (summary.id !== toolId) out.add(summary.id);
    } catch {
      // The search is a last resort: the hints found so far stand.
    }
  }
  return [...out].slice(0, max);
}
