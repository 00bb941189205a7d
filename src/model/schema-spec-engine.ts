/**
 * The spec engine: `@exodus/schemasafe` in its `spec` mode, for the schemas the router sends away
 * from Ajv (see schema-router.ts). It compiles a schema to a synchronous function, as Ajv does;
 * its errors (a keyword location and an instance location) are turned into Ajv-shaped errors
 * here, so that one violation builder (violations.ts) reports failures of both engines alike.
 */
import type { ErrorObject } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { validator as specValidator, type Schema as SpecSchema } from '@exodus/schemasafe';
import { isPlainObject, type Dialect, SchemaProblem, type SchemaDocument } from './schema-source.js';
import { DIALECT_2020_12, DIALECT_DRAFT_07 } from './schema.js';
import { toAjvErrors, type SpecError } from './schema-spec-errors.js';
import { specEngineCopy } from './schema-spec-rewrite.js';

/** A compiled check: true when `data` is valid. */
export type SpecCheck = (data: unknown) => boolean;

/** What the spec engine needs from the validator's options. */
export interface SpecEngineOptions {
  readonly formats: 'annotate' | 'assert';
  /** Known documents by URI. */
  readonly schemas: ReadonlyMap<string, SchemaDocument>;
}

type SpecFunction = ((data: unknown) => boolean) & { errors?: SpecError[] | null };
type FormatCheck = (value: string) => boolean;

const ACCEPT_ANY: FormatCheck = () => true;

/** The string formats of ajv-formats, as functions: `formats: 'assert'` means the same on both engines. */
const ASSERTED_FORMATS: ReadonlyMap<string, FormatCheck> = new Map(
  Object.entries(fullFormats).flatMap(([name, definition]): [string, FormatCheck][] => {
    const spec = definition as unknown;
    if (spec instanceof RegExp) return [[name, (value) => spec.test(value)]];
    if (typeof spec === 'function') return [[name, spec as FormatCheck]];
    if (isPlainObject(spec) && (spec.type === undefined || spec.type === 'string')) {
      const check = spec.validate;
      if (check instanceof RegExp) return [[name, (value) => check.test(value)]];
      if (typeof check === 'function') return [[name, check as FormatCheck]];
    }
    return [];
  }),
);

/** The format table for one schema: every name it uses is known (asserted, or accepted as an annotation). */
function formatTable(used: ReadonlySet<string>, assert: boolean): Record<string, FormatCheck> {
  const table: Record<string, FormatCheck> = {};
  for (const name of used) {
    const check = assert ? ASSERTED_FORMATS.get(name) : undefined;
    Object.defineProperty(table, name, { value: check ?? ACCEPT_ANY, enumerable: true, writable: true, configurable: true });
  }
  return table;
}

/** Compiles with schemasafe; its refusals become {@link SchemaProblem}s. */
function build(
  document: SchemaDocument,
  dialect: Dialect,
  options: SpecEngineOptions,
  formats: ReadonlySet<string>,
  errors: 'none' | 'first' | 'all',
): SpecFunction {
  const root =
    typeof document === 'boolean' ? document : { $schema: dialect === '2020-12' ? DIALECT_2020_12 : DIALECT_DRAFT_07, ...document };
  try {
    // Our JSON documents are the library's `Schema` (its typings spell out only some keywords).
    return specValidator(root, {
      mode: 'spec',
      schemas: knownFor(document, options.schemas),
      formats: formatTable(formats, options.formats === 'assert'),
      formatAssertion: options.formats === 'assert',
      includeErrors: errors !== 'none',
      allErrors: errors === 'all',
    }) as SpecFunction;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/failed to resolve \$ref/.test(message)) {
      const uri = /"([^"]*)"/.exec(message)?.[1] ?? message;
      throw new SchemaProblem(`external $ref resolution is disabled: ${uri}`, err);
    }
    throw new SchemaProblem(`the spec engine cannot evaluate this schema: ${message}`, err);
  }
}

/**
 * The known documents for one schema: a root `$id` equal to a known document's URI stands for the
 * schema itself (as with Ajv), so that document is left out.
 */
function knownFor(document: SchemaDocument, schemas: ReadonlyMap<string, SchemaDocument>): Map<string, SpecSchema> {
  const id = typeof document === 'object' && typeof document.$id === 'string' ? document.$id.replace(/#$/, '') : undefined;
  const known = new Map<string, SpecSchema>();
  for (const [uri, schema] of schemas) if (uri.replace(/#$/, '') !== id) known.set(uri, schema);
  return known;
}

/** A schema compiled by the spec engine: the yes/no check and the explanation of a failure. */
export class SpecCompiled {
  readonly #document: SchemaDocument;
  readonly #dialect: Dialect;
  readonly #options: SpecEngineOptions;
  readonly #formats: ReadonlySet<string>;
  readonly #check: SpecFunction;
  #explain: SpecFunction | undefined;
  #firstError: SpecFunction | undefined;

  /** @throws {@link SchemaProblem} when the engine refuses the schema. */
  constructor(document: SchemaDocument, dialect: Dialect, options: SpecEngineOptions, formats: ReadonlySet<string>) {
    this.#document = specEngineCopy(document);
    this.#dialect = dialect;
    this.#options = options;
    this.#formats = formats;
    this.#check = build(this.#document, dialect, options, formats, 'none');
  }

  /** The yes/no check (no error list). */
  get check(): SpecCheck {
    return this.#check;
  }

  /** The explaining check: valid or not, with every error kept for {@link SpecCompiled.errors}. */
  explainCheck(): SpecCheck {
    return this.#explaining();
  }

  #explaining(): SpecFunction {
    if (this.#explain === undefined) {
      try {
        this.#explain = build(this.#document, this.#dialect, this.#options, this.#formats, 'all');
      } catch {
        // schemasafe cannot generate every all-errors validator (an `if` whose `else` is an
        // `anyOf` of empty schemas): one that stops at the first error still explains the failure.
        this.#explain = this.#firstErrorOnly();
      }
    }
    return this.#explain;
  }

  #firstErrorOnly(): SpecFunction {
    this.#firstError ??= build(this.#document, this.#dialect, this.#options, this.#formats, 'first');
    return this.#firstError;
  }

  /** Why `data` fails, as Ajv-shaped errors (empty when it does not fail). */
  errors(data: unknown): ErrorObject[] {
    let explain = this.#explaining();
    try {
      if (explain(data)) return [];
    } catch {
      // schemasafe's all-errors mode can trip over a value an earlier keyword already rejected
      // (`required` after a failed `type: "object"` in another allOf branch): take its first error.
      explain = this.#firstErrorOnly();
      if (explain(data)) return [];
    }
    return toAjvErrors(explain.errors ?? [], this.#document, data);
  }
}
