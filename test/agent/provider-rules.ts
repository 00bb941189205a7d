/**
 * The providers' published rules for tool definitions, as checks: names, and the shape strict mode
 * demands (OpenAI structured outputs, Anthropic strict tool use). The keyword lists are the
 * providers' (see the comments of src/agent/adapters/*.ts), written out again here so a change
 * in the adapters cannot silently change the test.
 */
import { expect } from 'vitest';

/** OpenAI and Anthropic tool names. */
export const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/u;
/** Gemini function names. */
export const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/u;
/** MCP tool names (SEP-986). */
export const MCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/u;

const OPENAI_STRICT = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'pattern',
  'format',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
]);
const ANTHROPIC_STRICT = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'allOf',
  '$ref',
  '$defs',
  'definitions',
  'default',
  'description',
  'title',
  'format',
  'pattern',
  'minItems',
]);

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function children(node: Node): unknown[] {
  const out: unknown[] = [];
  for (const key of ['properties', '$defs', 'definitions']) if (isNode(node[key])) out.push(...Object.values(node[key]));
  for (const key of ['anyOf', 'allOf', 'oneOf', 'prefixItems']) if (Array.isArray(node[key])) out.push(...(node[key] as unknown[]));
  for (const key of ['items', 'additionalProperties', 'not']) if (isNode(node[key])) out.push(node[key]);
  return out;
}

/** Asserts the strict-mode rules of one provider over a whole schema. */
export function expectStrictSchema(schema: unknown, provider: 'openai' | 'anthropic'): void {
  const allowed = provider === 'openai' ? OPENAI_STRICT : ANTHROPIC_STRICT;
  expect(isNode(schema)).toBe(true);
  const root = schema as Node;
  expect(root.type).toBe('object');
  expect(root.anyOf).toBeUndefined();
  const walk = (node: unknown, path: string): void => {
    if (!isNode(node)) return;
    for (const key of Object.keys(node)) expect(allowed.has(key), `${path}/${key} is not a ${provider} strict keyword`).toBe(true);
    const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || isNode(node.properties);
    if (isObject) {
      expect(node.additionalProperties, `${path} must be closed`).toBe(false);
      expect([...((node.required as string[] | undefined) ?? [])].sort(), `${path} must require every property`).toEqual(
        Object.keys((node.properties as Node | undefined) ?? {}).sort(),
      );
    }
    if (provider === 'anthropic' && typeof node.minItems === 'number') expect(node.minItems).toBeLessThanOrEqual(1);
    for (const child of children(node)) walk(child, path);
  };
  walk(root, '');
}
