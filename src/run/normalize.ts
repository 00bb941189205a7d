import type { CallToolResult } from './types.js';

/**
 * The structured value of an MCP tool result, as the runner puts it in `RunResult.structured`.
 *
 * @remarks
 * The rules:
 * 1. `structuredContent`, when present (not `null`/`undefined`), is returned unchanged.
 * 2. Otherwise, from `content`:
 *    - no items → `undefined`;
 *    - exactly one item with non-empty text → that text parsed as JSON (`"42"` → `42`,
 *      `"null"` → `null`), or the raw text when it is not JSON;
 *    - any other case → the non-empty texts: none → `undefined`, one → that string (not parsed),
 *      several → an array of strings (not parsed).
 *
 * The text of an item is its `text` for text content and, for any other item, a top-level string
 * `text` field if it has one, else `''` (so images, audio and resources carry no text).
 * `isError` is not looked at here; the runner handles it before normalizing.
 */
export function normalizeMcpResult(result: CallToolResult | null | undefined): unknown {
  if (result === null || typeof result !== 'object') return undefined;
  const structured: unknown = result.structuredContent;
  if (structured !== undefined && structured !== null) return structured;
  const content: unknown = result.content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  if (content.length === 1) {
    const text = itemText(content[0]);
    if (text !== '') return parseJsonOr(text);
  }
  const texts: string[] = [];
  for (const item of content) {
    const text = itemText(item);
    if (text !== '') texts.push(text);
  }
  if (texts.length === 0) return undefined;
  if (texts.length === 1) return texts[0];
  return texts;
}

/** The texts of an MCP result's content items, non-empty ones only, in order. */
export function mcpResultTexts(result: CallToolResult | null | undefined): string[] {
  const content: unknown = result?.content;
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const item of content) {
    const text = itemText(item);
    if (text !== '') texts.push(text);
  }
  return texts;
}

function itemText(item: unknown): string {
  if (item === null || typeof item !== 'object') return '';
  const text = (item as { text?: unknown }).text;
  return typeof text === 'string' ? text : '';
}

/** Characters a JSON text can start with (after JSON whitespace): `{ [ " - 0-9 t f n`. */
const JSON_START = /^[ \t\n\r]*[{["\-0-9tfn]/;

function parseJsonOr(text: string): unknown {
  // Plain text is common; JSON.parse throwing on it costs microseconds, a regex test nanoseconds.
  if (!JSON_START.test(text)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
