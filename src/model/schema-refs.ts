/**
 * References inside one schema document, resolved as the validator resolves them, so that an
 * error found through a reference can quote the schema it broke: JSON pointers (`#/$defs/Id`),
 * anchors (`#node`, `$anchor` and `$dynamicAnchor`), and URIs relative to an enclosing `$id`
 * (`item.json`, `item.json#/properties/a`). A `$dynamicRef` is followed to the anchor it names in
 * its own resource (the usual recursive-schema case). References outside the document resolve to
 * nothing: the validator refuses them before any error is reported.
 */
import { isPlainObject, type SchemaDocument } from './schema-source.js';

/** The base URI of a document without an `$id` of its own. */
const DOCUMENT_BASE = 'https://toolexec.invalid/schema.json';

/** Every identified resource and anchor of one document, by absolute URI. */
interface RefIndex {
  /** `$id` (absolute, without fragment) → the resource's schema. */
  readonly resources: Map<string, unknown>;
  /** `<resource URI>#<anchor>` → the schema carrying the anchor. */
  readonly anchors: Map<string, unknown>;
  /** The base URI each object schema is in. */
  readonly bases: WeakMap<object, string>;
}

const indexes = new WeakMap<object, RefIndex>();

/** Keywords whose values are data, not schemas: nothing inside them identifies a resource. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'default', 'examples']);

/** The base URI `node` (a schema object of `root`) is in: its own `$id`, or its enclosing resource's. */
export function baseUriOf(root: SchemaDocument, node: object): string {
  return indexOf(root).bases.get(node) ?? rootBase(root);
}

/**
 * The schema `ref` points at, read from `base` (the base URI where the reference sits);
 * `undefined` when it points outside the document or at nothing.
 */
export function resolveRef(root: SchemaDocument, ref: string, base: string): unknown {
  const hash = ref.indexOf('#');
  const uriPart = hash < 0 ? ref : ref.slice(0, hash);
  const fragment = hash < 0 ? '' : ref.slice(hash + 1);
  const index = indexOf(root);
  const resourceUri = uriPart === '' ? stripFragment(base) : absolute(uriPart, base);
  if (resourceUri === undefined) return undefined;
  const resource = resourceUri === rootBase(root) ? root : index.resources.get(resourceUri);
  if (resource === undefined) return undefined;
  if (fragment === '') return resource;
  if (fragment.startsWith('/')) return atPointer(resource, fragment);
  return index.anchors.get(`${resourceUri}#${decodeURIComponent(fragment)}`);
}

function rootBase(root: SchemaDocument): string {
  const id = isPlainObject(root) && typeof root.$id === 'string' ? absolute(root.$id, DOCUMENT_BASE) : undefined;
  return id ?? DOCUMENT_BASE;
}

function indexOf(root: SchemaDocument): RefIndex {
  const key = root as object;
  let index = indexes.get(key);
  if (index === undefined) {
    index = { resources: new Map(), anchors: new Map(), bases: new WeakMap() };
    walk(root, rootBase(root), index, new Set());
    indexes.set(key, index);
  }
  return index;
}

function walk(node: unknown, parentBase: string, index: RefIndex, seen: Set<object>): void {
  if (Array.isArray(node)) {
    for (const item of node as unknown[]) walk(item, parentBase, index, seen);
    return;
  }
  if (!isPlainObject(node) || seen.has(node)) return;
  seen.add(node);
  let base = parentBase;
  if (typeof node.$id === 'string') {
    base = absolute(node.$id, parentBase) ?? parentBase;
    index.resources.set(base, node);
  }
  index.bases.set(node, base);
  for (const anchor of [node.$anchor, node.$dynamicAnchor]) {
    if (typeof anchor === 'string') index.anchors.set(`${base}#${anchor}`, node);
  }
  for (const [key, value] of Object.entries(node)) {
    if (!DATA_KEYWORDS.has(key)) walk(value, base, index, seen);
  }
}

function absolute(uri: string, base: string): string | undefined {
  try {
    return stripFragment(new URL(uri, base).href);
  } catch {
    return undefined;
  }
}

function stripFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash < 0 ? uri : uri.slice(0, hash);
}

function atPointer(node: unknown, pointer: string): unknown {
  let current = node;
  for (const raw of pointer.slice(1).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) current = current[Number(part)];
    else if (isPlainObject(current) && Object.hasOwn(current, part)) current = current[part];
    else return undefined;
  }
  return current;
}
