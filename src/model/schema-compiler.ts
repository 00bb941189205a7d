/**
 * Ajv 8 behind the validator. Instances are created lazily per flavor: the dialect (2020-12 or
 * draft-07), own-property checks or not, and the purpose: the fast yes/no check (first error
 * only) or the explanation of a failure (all errors, verbose, and `oneOf`/`anyOf` errors that
 * keep each branch's own errors apart). A busy instance is retired after a number of
 * compilations, since Ajv never frees what it compiled.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { compileIsolated, forget, problemFrom, type AjvInstance } from './schema-ajv-compile.js';
import { compositeKeyword } from './schema-composite-keyword.js';
import { exactMultipleOf, linearUniqueItems } from './schema-exact-keywords.js';
import { checkNoSameValueLoop } from './schema-loops.js';
import { patternEngine } from './schema-patterns.js';
import { KnownDocuments, routeSchema, type EngineName } from './schema-router.js';
import { SchemaProblem, type Dialect, type SchemaDocument } from './schema-source.js';
import { SpecCompiled } from './schema-spec-engine.js';

/** The optional second argument of Ajv's validate functions. */
type DataValidationCxt = NonNullable<Parameters<ValidateFunction>[1]>;
type FormatsPlugin = (ajv: AjvInstance, options: { keywords: boolean }) => unknown;

// ajv-formats is CommonJS with `exports.default`; ESM and bundlers hand over either shape.
const addFormats = ((ajvFormats as unknown as { default?: FormatsPlugin }).default ?? ajvFormats) as unknown as FormatsPlugin;

/**
 * A compiled yes/no check, with the shape of Ajv's validate functions (which are one): the
 * optional second argument is Ajv's context, `errors` the errors of the last call.
 */
export type CheckFunction = ((data: unknown, context?: DataValidationCxt) => boolean) & { errors?: ErrorObject[] | null };

/** A schema compiled for one validator: the fast check plus what explaining a failure needs. */
export interface CompiledSchema {
  /** The engine that evaluates the schema, chosen once when it was compiled (see schema-router.ts). */
  readonly engine: EngineName;
  /** The fast check (Ajv's validate function, first error only; or the spec engine's check). */
  readonly validate: CheckFunction;
  /** The dialect the schema was compiled with. */
  readonly dialect: Dialect;
  /** Whether property checks are own-property checks (the schema names an inherited name). */
  readonly ownProperties: boolean;
  /** The private JSON copy Ajv compiled (error `schema`/`parentSchema` values point into it). */
  readonly document: SchemaDocument;
  /** The explaining validate function, once built; `null` when it could not be built. */
  explain?: CheckFunction | null;
  /** The spec engine's compiled form, for schemas it evaluates. */
  readonly spec?: SpecCompiled;
  /**
   * The second argument to pass to {@link CompiledSchema.validate}: one shared, frozen context
   * when nothing the schema can reach uses `$dynamicAnchor` (the only thing Ajv writes into it),
   * else `undefined`. Ajv's functions otherwise allocate two objects per call for their defaulted
   * context whenever V8 does not inline them.
   */
  readonly context: DataValidationCxt | undefined;
  /** The Ajv instances that hold the compiled functions (to release them on eviction). */
  readonly owner: AjvInstance;
  explainOwner?: AjvInstance;
}

/** What {@link SchemaCompiler} needs from the validator's options. */
export interface SchemaCompilerOptions {
  readonly formats: 'annotate' | 'assert';
  /** Known documents by URI (already copied and checked). */
  readonly schemas: ReadonlyMap<string, SchemaDocument>;
  /**
   * Compilations after which an Ajv instance is retired and a fresh one takes over. Ajv keeps
   * every function it compiled for as long as the instance lives, so this bounds the memory of a
   * validator that sees an endless stream of new schemas. @defaultValue 1000
   */
  readonly compilationsPerInstance?: number;
}

/** The context every call of a schema without dynamic anchors shares (see {@link CompiledSchema.context}). */
const SHARED_CONTEXT: DataValidationCxt = Object.freeze({
  instancePath: '',
  parentData: undefined as unknown as DataValidationCxt['parentData'],
  parentDataProperty: undefined as unknown as DataValidationCxt['parentDataProperty'],
  // `undefined` makes Ajv default it to the validated value.
  rootData: undefined as unknown as DataValidationCxt['rootData'],
  dynamicAnchors: Object.freeze({}) as DataValidationCxt['dynamicAnchors'],
});

/** True when a document may set dynamic anchors (checked on its JSON text: cheap, conservative). */
function usesDynamicAnchors(document: SchemaDocument): boolean {
  if (typeof document !== 'object') return false;
  try {
    const text = JSON.stringify(document);
    return text.includes('"$dynamicAnchor"') || text.includes('"$recursiveAnchor"');
  } catch {
    return true;
  }
}

const META_INVALID = /^schema is invalid:/;

/** Names that every object inherits: a schema naming one needs own-property checks. */
const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * True when a schema mentions (as a key or a string) a name every object inherits, such as
 * `constructor` or `toString`. Ajv's fast property checks (`data.x !== undefined`) would see
 * those on any object, so such schemas are compiled with own-property checks, which are correct
 * but about 3× slower.
 */
function mentionsInheritedName(value: unknown, depth = 0): boolean {
  if (depth > 200) return true;
  if (typeof value === 'string') return INHERITED_NAMES.has(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((item) => mentionsInheritedName(item, depth + 1));
  for (const key of Object.keys(value)) {
    if (INHERITED_NAMES.has(key) || mentionsInheritedName((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/** Which Ajv instance compiles a document. */
interface Flavor {
  readonly dialect: Dialect;
  readonly ownProperties: boolean;
  readonly explaining: boolean;
}

interface InstanceSlot {
  readonly ajv: AjvInstance;
  compilations: number;
}

/** Owns the Ajv instances of one validator and compiles documents with them. */
export class SchemaCompiler {
  readonly #options: SchemaCompilerOptions;
  readonly #compilationsPerInstance: number;
  readonly #instances = new Map<string, InstanceSlot>();
  /** Whether a known document uses dynamic anchors (then no schema shares a context). */
  readonly #knownDynamic: boolean;
  /** The known documents, as the router sees them. */
  readonly #known: KnownDocuments;

  constructor(options: SchemaCompilerOptions) {
    this.#options = options;
    this.#compilationsPerInstance = options.compilationsPerInstance ?? 1000;
    this.#knownDynamic = [...options.schemas.values()].some(usesDynamicAnchors);
    this.#known = new KnownDocuments(options.schemas);
  }

  /**
   * Compiles `document` in `dialect`. A document that named no dialect and is not valid 2020-12
   * but is valid draft-07 (tuple `items: [...]` from older generators) is compiled as draft-07.
   *
   * @throws {@link SchemaProblem}, also for a schema that would validate forever (schema-loops.ts).
   */
  compile(document: SchemaDocument, dialect: Dialect, implicitDialect: boolean): CompiledSchema {
    checkNoSameValueLoop(document);
    const route = routeSchema(document, dialect, this.#known);
    if (route.engine === 'spec') return this.#compileSpec(document, dialect, implicitDialect, route.formats);
    const ownProperties = mentionsInheritedName(document);
    const context = this.#knownDynamic || usesDynamicAnchors(document) ? undefined : SHARED_CONTEXT;
    try {
      const { validate, ajv } = this.#compileWith({ dialect, ownProperties, explaining: false }, document);
      return { engine: 'ajv', validate, dialect, ownProperties, document, context, owner: ajv };
    } catch (err) {
      const problem = problemFrom(err, document);
      if (implicitDialect && dialect === '2020-12' && META_INVALID.test(problem.reason)) {
        try {
          const { validate, ajv } = this.#compileWith({ dialect: 'draft-07', ownProperties, explaining: false }, document);
          return { engine: 'ajv', validate, dialect: 'draft-07', ownProperties, document, context, owner: ajv };
        } catch {
          // report the 2020-12 problem: that is the dialect the schema was read in
        }
      }
      throw problem;
    }
  }

  /**
   * A schema for the spec engine: checked against its dialect's meta-schema by Ajv (the same
   * `INVALID_SCHEMA` messages as every other schema), then compiled by the spec engine.
   */
  #compileSpec(document: SchemaDocument, dialect: Dialect, implicitDialect: boolean, formats: ReadonlySet<string>): CompiledSchema {
    let used = dialect;
    let ajv = this.#metaCheck(dialect, document);
    if (ajv instanceof SchemaProblem) {
      const fallback = implicitDialect && dialect === '2020-12' ? this.#metaCheck('draft-07', document) : ajv;
      if (fallback instanceof SchemaProblem) throw ajv;
      ajv = fallback;
      used = 'draft-07';
    }
    const spec = new SpecCompiled(document, used, this.#options, formats);
    const check = spec.check;
    const validate: CheckFunction = (data) => check(data);
    return { engine: 'spec', validate, dialect: used, ownProperties: false, document, context: undefined, owner: ajv, spec };
  }

  /** Ajv's meta-schema check of `document` in `dialect`: the instance that checked it, or the problem. */
  #metaCheck(dialect: Dialect, document: SchemaDocument): AjvInstance | SchemaProblem {
    const flavor: Flavor = { dialect, ownProperties: false, explaining: false };
    const key = flavorKey(flavor);
    const { ajv } = this.#instances.get(key) ?? this.#createSlot(key, flavor);
    if (ajv.validateSchema(document) === true) return ajv;
    return problemFrom(new Error(`schema is invalid: ${ajv.errorsText(ajv.errors)}`), document);
  }

  /**
   * The errors explaining why `data` fails `compiled`: all of them, verbose, with composite
   * errors carrying their branches (`CompositeParams` of composite-violations.ts). Falls back to the fast check's
   * first error when the explaining validator cannot be built or disagrees.
   */
  explain(compiled: CompiledSchema, data: unknown): ErrorObject[] {
    if (compiled.spec !== undefined) {
      compiled.explain ??= compiled.spec.explainCheck();
      return compiled.spec.errors(data);
    }
    if (compiled.explain === undefined) {
      try {
        const flavor = { dialect: compiled.dialect, ownProperties: compiled.ownProperties, explaining: true };
        const { validate, ajv } = this.#compileWith(flavor, compiled.document);
        compiled.explain = validate;
        compiled.explainOwner = ajv;
      } catch {
        compiled.explain = null;
      }
    }
    const explain = compiled.explain;
    if (explain !== null) {
      try {
        if (!explain(data) && explain.errors) return explain.errors;
      } catch {
        // fall back below
      }
    }
    compiled.validate(data);
    return compiled.validate.errors ?? [];
  }

  /** Drops what the Ajv instances hold for a compiled schema that left the cache. */
  release(compiled: CompiledSchema): void {
    forget(compiled.owner, compiled.document);
    if (compiled.explainOwner) forget(compiled.explainOwner, compiled.document);
  }

  #compileWith(flavor: Flavor, document: SchemaDocument): { validate: ValidateFunction; ajv: AjvInstance } {
    const key = flavorKey(flavor);
    const slot = this.#instances.get(key) ?? this.#createSlot(key, flavor);
    const validate = compileIsolated(slot.ajv, document);
    slot.compilations++;
    // Retire a busy instance: its functions stay valid; it is freed once they are all dropped.
    if (slot.compilations >= this.#compilationsPerInstance) this.#instances.delete(key);
    return { validate, ajv: slot.ajv };
  }

  #createSlot(key: string, flavor: Flavor): InstanceSlot {
    const { dialect, ownProperties, explaining } = flavor;
    const assert = this.#options.formats === 'assert';
    const options: Options = {
      strict: false,
      logger: false,
      validateFormats: assert,
      ownProperties,
      // NaN and ±Infinity are not JSON numbers: `type: 'number'` / `'integer'` refuse them.
      strictNumbers: true,
      // Draft-07: keywords beside `$ref` are ignored (2020-12 applies them).
      ignoreKeywordsWithRef: dialect === 'draft-07',
      allErrors: explaining,
      verbose: explaining,
      // Documents reach the explainer only after the fast instance validated them.
      validateSchema: !explaining,
      // `pattern` that could backtrack for seconds runs on RE2 (schema-patterns.ts)
      code: { regExp: patternEngine },
    };
    const ajv: AjvInstance = dialect === '2020-12' ? new Ajv2020(options) : new Ajv(options);
    if (assert) addFormats(ajv, { keywords: false });
    // exact `multipleOf` and linear-time `uniqueItems` (schema-exact-keywords.ts)
    for (const definition of [exactMultipleOf, linearUniqueItems]) {
      ajv.removeKeyword(definition.keyword as string);
      ajv.addKeyword(definition);
    }
    if (explaining) {
      for (const keyword of ['oneOf', 'anyOf'] as const) {
        ajv.removeKeyword(keyword);
        ajv.addKeyword(compositeKeyword(keyword));
      }
    }
    for (const [uri, document] of this.#options.schemas) {
      try {
        ajv.addSchema(document, uri, undefined, false);
      } catch (err) {
        throw new SchemaProblem(
          `the known schema ${uri} could not be registered: ${err instanceof Error ? err.message : String(err)}`,
          err,
        );
      }
    }
    const slot = { ajv, compilations: 0 };
    this.#instances.set(key, slot);
    return slot;
  }
}

function flavorKey({ dialect, ownProperties, explaining }: Flavor): string {
  return `${dialect}|${ownProperties ? 'own' : 'any'}|${explaining ? 'explain' : 'check'}`;
}
