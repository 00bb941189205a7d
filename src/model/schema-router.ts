/**
 * Which engine evaluates a schema, decided once, when it is compiled, by looking at what the
 * schema uses. Ajv (compiled code, the fast path) evaluates almost every schema; the few
 * constructs that Ajv 8 is known to get wrong go to the spec engine (`@exodus/schemasafe`), and
 * the one combination neither engine gets right is refused with `INVALID_SCHEMA` naming it.
 *
 * The rule (measured on the official JSON Schema Test Suite, see docs/schemas.md):
 *
 * | the schema (or a known document it refers to) uses | engine |
 * |---|---|
 * | `unevaluatedItems`/`unevaluatedProperties` whose result depends on a `$dynamicRef` (one beside it or reached in place) | refused |
 * | `$dynamicRef`/`$dynamicAnchor` with a `$ref` to `uri#/pointer` (into the middle of another resource) | refused |
 * | `$dynamicRef` or `$dynamicAnchor` | spec |
 * | `unevaluatedItems` or `unevaluatedProperties` | spec |
 * | an empty `enum` | spec |
 * | `__proto__` as a name (a key or a string anywhere) | spec |
 * | `''` (the empty name) in `required`, `dependentRequired` or draft-07 `dependencies` | spec |
 * | an `$id` below the root (a nested schema resource) | spec |
 * | draft-07: `$id` beside `$ref` | spec |
 * | anything else | Ajv |
 */
import { SchemaProblem, type Dialect, type SchemaDocument } from './schema-source.js';

/** The engines behind the validator. */
export type EngineName = 'ajv' | 'spec';

/** What the router found in a schema document. */
export interface SchemaFeatures {
  /** `$dynamicRef` / `$dynamicAnchor` (or the 2019-09 `$recursiveRef` / `$recursiveAnchor`). */
  readonly dynamic: boolean;
  /** `unevaluatedItems` / `unevaluatedProperties`, by name. */
  readonly unevaluated: readonly string[];
  /** `enum: []`. */
  readonly emptyEnum: boolean;
  /** `__proto__` as an object key or a string. */
  readonly protoName: boolean;
  /** `''` listed as a required name (`required`, `dependentRequired`, `dependencies`). */
  readonly emptyRequiredName: boolean;
  /** An `$id` string below the root. */
  readonly nestedId: boolean;
  /** An object with both `$id` and `$ref`. */
  readonly idBesideRef: boolean;
  /** A `$ref` that leaves the document (not a plain `#...` fragment). */
  readonly externalRef: boolean;
  /** Those references. */
  readonly externalRefs: readonly string[];
  /** Every `format` name the schema uses. */
  readonly formats: ReadonlySet<string>;
}

/** The engine chosen for a schema, and why (for messages and tests). */
export interface SchemaRoute {
  readonly engine: EngineName;
  /** Why the spec engine was chosen; `''` for Ajv. */
  readonly because: string;
  /** The `format` names the schema uses (the spec engine must know each of them). */
  readonly formats: ReadonlySet<string>;
}

const MAX_DEPTH = 1000;

/** Walks a schema document once and notes the constructs that decide the engine. */
export function schemaFeatures(document: SchemaDocument): SchemaFeatures {
  const found = {
    dynamic: false,
    unevaluated: new Set<string>(),
    emptyEnum: false,
    protoName: false,
    emptyRequiredName: false,
    nestedId: false,
    idBesideRef: false,
    externalRef: false,
    externalRefs: [] as string[],
    formats: new Set<string>(),
  };
  const visit = (value: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (typeof value === 'string') {
      if (value === '__proto__') found.protoName = true;
      return;
    }
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const node = value as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      const item = node[key];
      switch (key) {
        case '__proto__':
          found.protoName = true;
          break;
        case '$dynamicRef':
        case '$dynamicAnchor':
        case '$recursiveRef':
        case '$recursiveAnchor':
          if (typeof item === 'string' || typeof item === 'boolean') found.dynamic = true;
          break;
        case 'unevaluatedItems':
        case 'unevaluatedProperties':
          if (typeof item === 'boolean' || (item !== null && typeof item === 'object' && !Array.isArray(item))) found.unevaluated.add(key);
          break;
        case 'enum':
          if (Array.isArray(item) && item.length === 0) found.emptyEnum = true;
          break;
        case 'required':
          if (Array.isArray(item) && item.includes('')) found.emptyRequiredName = true;
          break;
        case 'dependentRequired':
        case 'dependencies':
          if (namesEmptyRequired(item)) found.emptyRequiredName = true;
          break;
        case '$id':
          if (typeof item === 'string' && depth > 0) found.nestedId = true;
          if (typeof item === 'string' && typeof node.$ref === 'string') found.idBesideRef = true;
          break;
        case '$ref':
          if (typeof item === 'string' && !item.startsWith('#')) {
            found.externalRef = true;
            found.externalRefs.push(item);
          }
          break;
        case 'format':
          if (typeof item === 'string') found.formats.add(item);
          break;
        default:
          break;
      }
      visit(item, depth + 1);
    }
  };
  visit(document, 0);
  return { ...found, unevaluated: [...found.unevaluated] };
}

/** True when `value` is a `dependentRequired`/`dependencies` map with `''` in one of its name lists. */
function namesEmptyRequired(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const map = value as Record<string, unknown>;
  for (const key of Object.keys(map)) {
    const names = map[key];
    if (Array.isArray(names) && names.includes('')) return true;
  }
  return false;
}

/**
 * The engine for a document in `dialect`. A schema that may refer to a known document (the
 * `schemas` option) follows that document: to the spec engine when it needs it, refused when it
 * is refused.
 *
 * @throws {@link SchemaProblem} for a schema neither engine evaluates correctly.
 */
export function routeSchema(document: SchemaDocument, dialect: Dialect, known: KnownDocuments = NO_KNOWN): SchemaRoute {
  if (typeof document === 'boolean') return { engine: 'ajv', because: '', formats: new Set() };
  const features = schemaFeatures(document);
  const targets = features.externalRefs.flatMap((ref) => known.traitsOf(ref));
  const refused = targets.find((target) => target.refusal !== undefined);
  if (refused?.refusal !== undefined) throw new SchemaProblem(`a $ref to ${refused.uri}, which is refused: ${refused.refusal}`);
  if (features.dynamic && features.unevaluated.length > 0) {
    const keyword = dynamicFeedsUnevaluated(document, known);
    if (keyword !== undefined) {
      throw new SchemaProblem(
        `${keyword} that depends on a $dynamicRef is not supported: neither validation engine evaluates that combination correctly`,
      );
    }
  }
  // Measured: a pointer into a known document's dynamic anchors is fine; the scope breaks when
  // the schema's own resources are entered in the middle.
  if (features.dynamic && features.externalRefs.some((ref) => /^[^#]+#\//.test(ref))) {
    throw new SchemaProblem(
      '$dynamicRef with a $ref into the middle of another schema resource (uri#/pointer) is not supported: neither validation engine keeps that dynamic scope correctly',
    );
  }
  const because = specReason(
    features,
    dialect,
    targets.some((target) => target.needsSpec),
  );
  return { engine: because === '' ? 'ajv' : 'spec', because, formats: features.formats };
}

/** What the router knows of one known document. */
interface KnownTraits {
  readonly uri: string;
  readonly needsSpec: boolean;
  readonly refusal?: string;
}

/** The known documents (the `schemas` option), as the router sees them. */
export class KnownDocuments {
  readonly #documents: ReadonlyMap<string, SchemaDocument>;
  readonly #traits: readonly KnownTraits[];

  constructor(documents: ReadonlyMap<string, SchemaDocument>) {
    this.#documents = documents;
    this.#traits = [...documents].map(([uri, document]) => traitsOf(uri, document, this));
  }

  /** The known document a reference may name: its URI ends with the reference (fragment left out). */
  find(ref: string): SchemaDocument | undefined {
    const uri = withoutFragment(ref);
    if (uri === '') return undefined;
    for (const [known, document] of this.#documents) if (endsWithPath(known, uri)) return document;
    return undefined;
  }

  /** What is known of the documents a reference may name. */
  traitsOf(ref: string): KnownTraits[] {
    const uri = withoutFragment(ref);
    return uri === '' ? [] : this.#traits.filter((traits) => endsWithPath(traits.uri, uri));
  }
}

const NO_KNOWN = new KnownDocuments(new Map());

function withoutFragment(ref: string): string {
  const hash = ref.indexOf('#');
  return (hash < 0 ? ref : ref.slice(0, hash)).replace(/^\.\//, '');
}

function endsWithPath(uri: string, ref: string): boolean {
  const bare = uri.replace(/#$/, '');
  return bare === ref || bare.endsWith(`/${ref}`) || ref.endsWith(bare);
}

/** In-place applicators: their subschemas see the same instance, so their annotations count for `unevaluated*`. */
const IN_PLACE_SINGLE = ['not', 'if', 'then', 'else'] as const;
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * The `unevaluated*` keyword whose result depends on a `$dynamicRef` (one reached in place: beside
 * it, or through `allOf`/`anyOf`/`oneOf`/`not`/`if`/`then`/`else`/`dependentSchemas`/`$ref`), if
 * any. A reference that cannot be followed counts as such a dependency.
 */
function dynamicFeedsUnevaluated(document: Record<string, JsonLike>, known: KnownDocuments): string | undefined {
  const ids = new Map<string, Record<string, JsonLike>>();
  const holders: Record<string, JsonLike>[] = [];
  const collect = (value: JsonLike, depth: number): void => {
    if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) collect(item, depth + 1);
      return;
    }
    if (typeof value.$id === 'string') ids.set(withoutFragment(value.$id), value);
    if ('unevaluatedItems' in value || 'unevaluatedProperties' in value) holders.push(value);
    for (const key of Object.keys(value)) collect(value[key] as JsonLike, depth + 1);
  };
  collect(document, 0);
  const resolve = (ref: string): JsonLike | undefined => {
    const hash = ref.indexOf('#');
    const path = withoutFragment(ref);
    const fragment = hash < 0 ? '' : ref.slice(hash + 1);
    let root: JsonLike | undefined = path === '' ? document : undefined;
    if (root === undefined) for (const [id, node] of ids) if (endsWithPath(id, path)) root = node;
    root ??= known.find(ref) as JsonLike | undefined;
    if (root === undefined || fragment === '') return root;
    if (!fragment.startsWith('/')) return undefined;
    let node: JsonLike | undefined = root;
    for (const part of fragment.slice(1).split('/')) {
      const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      node = node !== null && typeof node === 'object' ? (node as Record<string, JsonLike>)[key] : undefined;
      if (node === undefined) return undefined;
    }
    return node;
  };
  const seen = new Set<unknown>();
  const dependsOnDynamic = (node: JsonLike | undefined): boolean => {
    if (node === undefined) return true;
    if (node === null || typeof node !== 'object' || Array.isArray(node) || seen.has(node)) return false;
    seen.add(node);
    if ('$dynamicRef' in node || '$recursiveRef' in node) return true;
    if (typeof node.$ref === 'string' && dependsOnDynamic(resolve(node.$ref))) return true;
    for (const key of IN_PLACE_SINGLE) if (key in node && dependsOnDynamic(node[key])) return true;
    for (const key of IN_PLACE_LISTS) {
      const list = node[key];
      if (Array.isArray(list) && list.some((item) => dependsOnDynamic(item))) return true;
    }
    const dependent = node.dependentSchemas;
    if (dependent !== null && typeof dependent === 'object' && !Array.isArray(dependent)) {
      if (Object.values(dependent).some((item) => dependsOnDynamic(item))) return true;
    }
    return false;
  };
  for (const holder of holders) {
    seen.clear();
    if (dependsOnDynamic(holder)) return 'unevaluatedItems' in holder ? 'unevaluatedItems' : 'unevaluatedProperties';
  }
  return undefined;
}

type JsonLike = null | boolean | number | string | JsonLike[] | { [key: string]: JsonLike };

/** Why a document needs the spec engine (`''`: it does not), or a refusal. */
export function specReason(features: SchemaFeatures, dialect: Dialect, knownNeedsSpec: boolean): string {
  const unevaluated = features.unevaluated[0];
  if (features.dynamic) return '$dynamicRef/$dynamicAnchor (Ajv resolves dynamic scope only partly)';
  if (unevaluated !== undefined) return `${unevaluated} (Ajv misses annotations from contains, nested items and if)`;
  if (features.emptyEnum) return 'an empty enum (Ajv refuses to compile it)';
  if (features.protoName) return '__proto__ as a name (Ajv skips it)';
  if (features.emptyRequiredName) return "'' as a required name (Ajv never finds it missing)";
  if (features.nestedId) return 'an $id below the root (Ajv loops on some relative and URN references)';
  if (dialect === 'draft-07' && features.idBesideRef) return 'draft-07 $id beside $ref (Ajv changes the base URI)';
  if (features.externalRef && knownNeedsSpec) return 'a $ref to a known document that needs the spec engine';
  return '';
}

/** A known document's traits; its dialect is read from its own `$schema`, its references are not followed. */
function traitsOf(uri: string, document: SchemaDocument, known: KnownDocuments): KnownTraits {
  if (typeof document === 'boolean') return { uri, needsSpec: false };
  const dialect: Dialect = typeof document.$schema === 'string' && document.$schema.includes('draft-07') ? 'draft-07' : '2020-12';
  const features = schemaFeatures(document);
  const needsSpec = specReason(features, dialect, false) !== '';
  if (features.dynamic && features.unevaluated.length > 0) {
    const keyword = dynamicFeedsUnevaluated(document, known);
    if (keyword !== undefined) return { uri, needsSpec, refusal: `${keyword} depends on a $dynamicRef` };
  }
  return { uri, needsSpec };
}
