/**
 * The discovery facts derived from a tool's `_meta` and description: shared by the index
 * summaries and the doc store.
 */
import type { Tool } from '../model/index.js';
import { compareCodePoints } from './compare.js';

type Meta = Record<string, unknown> | undefined;

function metaOf(tool: Tool): Meta {
  const meta: unknown = tool._meta;
  return meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `_meta.summary` when it is a non-empty string, else the description (or `''`). */
export function summaryText(tool: Tool): string {
  const summary = metaOf(tool)?.summary;
  if (typeof summary === 'string' && summary !== '') return summary;
  return typeof tool.description === 'string' ? tool.description : '';
}

/** `_meta.summary` when it is a non-empty string. */
export function metaSummary(tool: Tool): string | undefined {
  const summary = metaOf(tool)?.summary;
  return typeof summary === 'string' && summary !== '' ? summary : undefined;
}

/** `_meta.category` when it is a non-empty string. */
export function category(tool: Tool): string | undefined {
  const value = metaOf(tool)?.category;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The string items of `_meta.inputModes` (`inputModes`) or `_meta.outputModes`. */
export function modes(tool: Tool, key: 'inputModes' | 'outputModes'): string[] {
  const value = metaOf(tool)?.[key];
  if (!Array.isArray(value)) return [];
  return (value as unknown[]).filter((item): item is string => typeof item === 'string');
}

/**
 * The security summary: the key names of every entry of `_meta.securityRequirements` (an array
 * of objects) or, when that yields none, of the `_meta.securitySchemes` object; sorted by code
 * point (duplicates kept) and joined with `,`.
 */
export function securitySummary(tool: Tool): string {
  const meta = metaOf(tool);
  if (meta === undefined) return '';
  const names: string[] = [];
  const requirements = meta.securityRequirements;
  if (Array.isArray(requirements)) {
    for (const requirement of requirements as unknown[]) {
      if (isPlainObject(requirement)) names.push(...Object.keys(requirement));
    }
  }
  if (names.length === 0 && isPlainObject(meta.securitySchemes)) names.push(...Object.keys(meta.securitySchemes));
  return names.sort(compareCodePoints).join(',');
}
