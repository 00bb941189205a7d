/**
 * Schemas that would validate forever. Keywords that apply a subschema to the same value (`$ref`,
 * `$dynamicRef`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`, the
 * schema form of draft-07's `dependencies`) never descend into the value: a cycle of them
 * (`{ "$ref": "#" }`, `{ "allOf": [{ "$ref": "#" }] }`) recurses until the stack runs out, whatever
 * the value is. Such a schema is refused when it is compiled (`INVALID_SCHEMA`, naming where the
 * cycle closes), instead of failing every call as if its arguments were wrong.
 *
 * A cycle through a keyword that descends (`properties`, `items`, ...) is ordinary recursion and
 * stays allowed. References to other documents are not followed.
 *
 * @internal
 * @module
 */
import { baseUriOf, resolveRef } from './schema-refs.js';
import { isPlainObject, SchemaProblem, type SchemaDocument } from './schema-source.js';

/** Keywords holding a list of subschemas applied to the same value. */
const SAME_VALUE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
/** Keywords holding one subschema applied to the same value. */
const SAME_VALUE_SCHEMAS = ['not', 'if', 'then', 'else'] as const;
/** Keywords holding subschemas by property name, applied to the same value. */
const SAME_VALUE_MAPS = ['dependentSchemas', 'dependencies'] as const;
/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'default', 'examples']);

/** The subschemas `node` applies to the value it is applied to, with their JSON pointers. */
function sameValueChildren(root: SchemaDocument, node: Record<string, unknown>, pointer: string): [unknown, string][] {
  const out: [unknown, string][] = [];
  for (const keyword of ['$ref', '$dynamicRef'] as const) {
    const ref = node[keyword];
    if (typeof ref === 'string') out.push([resolveRef(root, ref, baseUriOf(root, node)), `${pointer}/${keyword}`]);
  }
  for (const keyword of SAME_VALUE_LISTS) {
    const list = node[keyword];
    if (Array.isArray(list)) list.forEach((child: unknown, i) => out.push([child, `${pointer}/${keyword}/${i}`]));
  }
  for (const keyword of SAME_VALUE_SCHEMAS) if (keyword in node) out.push([node[keyword], `${pointer}/${keyword}`]);
  for (const keyword of SAME_VALUE_MAPS) {
    const map = node[keyword];
    if (isPlainObject(map)) for (const [name, child] of Object.entries(map)) out.push([child, `${pointer}/${keyword}/${escape(name)}`]);
  }
  return out;
}

function escape(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Every schema object of `root` with its pointer (data keywords skipped). */
function schemaNodes(root: Record<string, unknown>): [Record<string, unknown>, string][] {
  const nodes: [Record<string, unknown>, string][] = [];
  const seen = new Set<object>();
  const pending: [unknown, string][] = [[root, '']];
  while (pending.length > 0) {
    const [value, pointer] = pending.pop() as [unknown, string];
    if (Array.isArray(value)) {
      value.forEach((item: unknown, i) => pending.push([item, `${pointer}/${i}`]));
      continue;
    }
    if (!isPlainObject(value) || seen.has(value)) continue;
    seen.add(value);
    nodes.push([value, pointer]);
    for (const [key, child] of Object.entries(value)) if (!DATA_KEYWORDS.has(key)) pending.push([child, `${pointer}/${escape(key)}`]);
  }
  return nodes;
}

/**
 * @throws {@link SchemaProblem} when some subschema of `document` reaches itself through keywords
 * that apply to the same value only.
 */
export function checkNoSameValueLoop(document: SchemaDocument): void {
  if (!isPlainObject(document)) return;
  const nodes = schemaNodes(document);
  /** Where each schema object sits in the document: a loop is named by the keyword that closes it. */
  const pointers = new Map<object, string>(nodes);
  /** Nodes whose same-value closure has no cycle. */
  const done = new Set<object>();
  for (const [start, startPointer] of nodes) {
    if (done.has(start)) continue;
    // an iterative depth-first search: the nodes on the current path, and their children left
    const onPath = new Set<object>([start]);
    const stack: { node: Record<string, unknown>; children: [unknown, string][] }[] = [
      { node: start, children: sameValueChildren(document, start, startPointer) },
    ];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as (typeof stack)[number];
      const next = top.children.pop();
      if (next === undefined) {
        stack.pop();
        onPath.delete(top.node);
        done.add(top.node);
        continue;
      }
      const [child, pointer] = next;
      if (!isPlainObject(child) || done.has(child)) continue;
      if (onPath.has(child)) {
        throw new SchemaProblem(
          `the schema applies itself to the same value in a loop (closed at ${pointer}): validating any value would never end`,
        );
      }
      onPath.add(child);
      stack.push({ node: child, children: sameValueChildren(document, child, pointers.get(child) ?? pointer) });
    }
  }
}
