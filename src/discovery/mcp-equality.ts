/**
 * Whether two registrations of one tool ID describe the same MCP tool (Go: `index.RegisterTool`'s re-registration check).
 */
import type { Tool } from '../model/index.js';

const NOT_JSON = Symbol('not-json');

/**
 * A schema value as JSON: JSON text (a string or UTF-8 bytes) is parsed, anything else is kept.
 * Unparseable text is returned as {@link NOT_JSON} paired with the raw text so it still compares.
 */
function schemaValue(value: unknown): unknown {
  let text: string | undefined;
  if (typeof value === 'string') text = value;
  else if (value instanceof Uint8Array) text = new TextDecoder().decode(value);
  if (text === undefined) return value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return [NOT_JSON, text];
  }
}

/**
 * Structural JSON equality: objects by their defined keys (order ignored), arrays in order,
 * numbers by value (`42` equals `42.0`). Values JSON would drop (`undefined`) count as absent.
 */
export function jsonEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > 256) return false;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const xKeys = Object.keys(x).filter((key) => x[key] !== undefined);
  const yKeys = Object.keys(y).filter((key) => y[key] !== undefined);
  if (xKeys.length !== yKeys.length) return false;
  for (const key of xKeys) {
    if (!Object.prototype.hasOwnProperty.call(y, key) || !jsonEqual(x[key], y[key], depth + 1)) return false;
  }
  return true;
}

function normalizedAnnotations(tool: Tool): Record<string, unknown> {
  const annotations: unknown = tool.annotations;
  const base = annotations !== null && typeof annotations === 'object' ? (annotations as Record<string, unknown>) : {};
  // readOnlyHint and idempotentHint are plain booleans in the model (absent = false); the
  // other hints are tri-state (absent differs from false).
  return { ...base, readOnlyHint: base.readOnlyHint ?? false, idempotentHint: base.idempotentHint ?? false };
}

function orEmpty<T>(value: T | undefined | null, empty: T): T {
  return value === undefined || value === null ? empty : value;
}

/**
 * The MCP fields in which two tools differ (in this order: `name`, `title`, `description`,
 * `inputSchema`, `outputSchema`, `annotations`, `icons`, `_meta`); empty when they are
 * equivalent: name, title and description exactly; input and output schemas structurally (JSON
 * text parsed first); annotations (absent boolean hints read as `false`); icons in order; `_meta`
 * structurally. Namespace, version and tags are not compared.
 */
export function differingMcpFields(a: Tool, b: Tool): string[] {
  const checks: [string, () => boolean][] = [
    ['name', () => a.name === b.name],
    ['title', () => a.title === b.title],
    ['description', () => a.description === b.description],
    ['inputSchema', () => jsonEqual(schemaValue(a.inputSchema), schemaValue(b.inputSchema))],
    ['outputSchema', () => jsonEqual(schemaValue(a.outputSchema), schemaValue(b.outputSchema))],
    ['annotations', () => jsonEqual(normalizedAnnotations(a), normalizedAnnotations(b))],
    ['icons', () => jsonEqual(orEmpty(a.icons, []), orEmpty(b.icons, []))],
    ['_meta', () => jsonEqual(orEmpty(a._meta, {}), orEmpty(b._meta, {}))],
  ];
  return checks.filter(([, same]) => !same()).map(([field]) => field);
}
