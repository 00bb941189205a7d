/**
 * Search summaries and search-doc text (Go: `index` summaries and search docs).
 */
import { truncateUtf8, type Tool } from '../model/index.js';
import { category, modes, securitySummary, summaryText } from './tool-facts.js';
import type { ToolSummary } from './types.js';

/** Longest `shortDescription` / `summary` of a {@link ToolSummary}, in UTF-8 bytes. */
export const SUMMARY_MAX_BYTES = 120;

/**
 * The frozen summary of a registered tool. Empty fields are left out; the text is cut to
 * {@link SUMMARY_MAX_BYTES} without splitting a character.
 */
export function buildSummary(tool: Tool, id: string, tags: readonly string[]): Readonly<ToolSummary> {
  const summary: ToolSummary = { id, name: tool.name };
  if (tool.namespace) summary.namespace = tool.namespace;
  const text = truncateUtf8(summaryText(tool), SUMMARY_MAX_BYTES);
  if (text !== '') {
    summary.shortDescription = text;
    summary.summary = text;
  }
  const cat = category(tool);
  if (cat !== undefined) summary.category = cat;
  const inputModes = modes(tool, 'inputModes');
  if (inputModes.length > 0) summary.inputModes = Object.freeze(inputModes) as string[];
  const outputModes = modes(tool, 'outputModes');
  if (outputModes.length > 0) summary.outputModes = Object.freeze(outputModes) as string[];
  const security = securitySummary(tool);
  if (security !== '') summary.securitySummary = security;
  if (tags.length > 0) summary.tags = Object.freeze([...tags]) as string[];
  return Object.freeze(summary);
}

/** A caller-owned copy of a summary (its arrays copied too). */
export function copySummary(summary: Readonly<ToolSummary>): ToolSummary {
  const copy: ToolSummary = { ...summary };
  if (summary.tags !== undefined) copy.tags = [...summary.tags];
  if (summary.inputModes !== undefined) copy.inputModes = [...summary.inputModes];
  if (summary.outputModes !== undefined) copy.outputModes = [...summary.outputModes];
  return copy;
}

/**
 * The lowercased search text of a tool: name, namespace, description, summary text, category,
 * security summary, input modes, output modes and the normalized tags, space-joined (the
 * description appears twice when there is no `_meta.summary`).
 */
export function buildDocText(tool: Tool, tags: readonly string[]): string {
  const parts = [
    tool.name,
    tool.namespace ?? '',
    typeof tool.description === 'string' ? tool.description : '',
    summaryText(tool),
    category(tool) ?? '',
    securitySummary(tool),
  ];
  const inputModes = modes(tool, 'inputModes');
  if (inputModes.length > 0) parts.push(inputModes.join(' '));
  const outputModes = modes(tool, 'outputModes');
  if (outputModes.length > 0) parts.push(outputModes.join(' '));
  parts.push(...tags);
  return parts.join(' ').toLowerCase();
}
