/**
 * The providers' published rules for tool definitions, as checks: names, property keys, the shape
 * OpenAI's function validator demands without strict mode, and the shape strict mode demands
 * (OpenAI structured outputs, Anthropic strict tool use). The keyword lists are the providers'
 * (see the comments of src/agent/adapters/*.ts), written out again here so a change in the
 * adapters cannot silently change the test.
 */
import { expect } from 'vitest';

/** OpenAI and Anthropic tool names. */
export const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/u;
/** Gemini function names. */
export const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/u;
/** MCP tool names (SEP-986). */
export const MCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/u;
/** Anthropic `input_schema` property keys. */
export const ANTHROPIC_PROPERTY_KEY = /^[a-zA-Z0-9_.-]{1,64}$/u;
/** Gemini parameter names (`@google/genai` `FunctionDeclaration.parameters`). */
export const GEMINI_PROPERTY_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/u;

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

/** The keywords that type a subschema in strict mode (a node with none is "any JSON value"). */
const TYPING = ['type', '$ref', 'anyOf', 'allOf', 'enum', 'const'];

function isArrayNode(node: Node): boolean {
  return node.type === 'array' || (Array.isArray(node.type) && node.type.includes('array'));
}

/** Every subschema of a schema, each once, with its path (the root first). */
function nodes(schema: unknown): [string, Node][] {
  const out: [string, Node][] = [];
  const walk = (node: unknown, path: string): void => {
    if (!isNode(node)) return;
    out.push([path, node]);
    for (const key of ['properties', '$defs', 'definitions']) {
      if (isNode(node[key])) for (const [name, child] of Object.entries(node[key])) walk(child, `${path}/${key}/${name}`);
    }
    for (const key of ['anyOf', 'allOf', 'oneOf', 'prefixItems']) {
      if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((child, i) => walk(child, `${path}/${key}/${i}`));
    }
    for (const key of ['items', 'additionalProperties', 'not']) if (isNode(node[key])) walk(node[key], `${path}/${key}`);
  };
  walk(schema, '');
  return out;
}

/**
 * Asserts what OpenAI's function validator demands of `parameters` without strict mode: a root of
 * `type: 'object'` with no `anyOf` / `oneOf` / `allOf` / `enum` / `not` at the top, and `items` on
 * every array ("array schema missing items").
 */
export function expectOpenAIPlainSchema(schema: unknown): void {
  expect(isNode(schema)).toBe(true);
  const root = schema as Node;
  expect(root.type).toBe('object');
  for (const keyword of ['anyOf', 'oneOf', 'allOf', 'enum', 'not']) expect(root[keyword], `root ${keyword}`).toBeUndefined();
  for (const [path, node] of nodes(root)) if (isArrayNode(node)) expect(node.items, `${path || '/'} has no items`).toBeDefined();
}

/** Asserts that every property key of a schema, at any depth, matches a provider's rule. */
export function expectPropertyKeys(schema: unknown, rule: RegExp): void {
  for (const [path, node] of nodes(schema)) {
    if (!isNode(node.properties)) continue;
    for (const key of Object.keys(node.properties)) expect(key, `${path}/properties`).toMatch(rule);
    for (const key of (node.required as string[] | undefined) ?? []) expect(key, `${path}/required`).toMatch(rule);
  }
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
    if (provider === 'openai' && isArrayNode(node)) expect(node.items, `${path}: array schema missing items`).toBeDefined();
    for (const child of children(node)) {
      // "schema must have a 'type' key" (OpenAI); "JSON schema must have a type defined" (Anthropic)
      if (child !== node.additionalProperties) {
        expect(isNode(child) && TYPING.some((key) => child[key] !== undefined), `${path}: a subschema without a type`).toBe(true);
      }
      walk(child, path);
    }
  };
  walk(root, '');
}
