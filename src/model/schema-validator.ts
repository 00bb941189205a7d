/**
 * The JSON Schema validator of tool inputs and outputs: compiled once per schema (by Ajv 8, or by
 * the spec engine for the constructs schema-router.ts sends there), with failures reported as
 * seed-004 violations a model can act on.
 */
import { layerErrors } from './error-factory.js';
import { asLibraryError, guardCall } from './options-reader.js';

/** Errors for a caller's value that cannot be read at all (a throwing getter, a revoked proxy). */
const guardErrors = layerErrors('model');
import { errorText, invalidSchema, noInputSchema, noTool, toolIdOf, type SchemaContext } from './invalid-schema.js';
import { LruCache } from './lru-cache.js';
import { SchemaCompiler, type CompiledSchema } from './schema-compiler.js';
import {
  SchemaProblem,
  describeType,
  isPlainObject,
  parseSchemaText,
  schemaDocument,
  schemaKey,
  type CustomDialect,
} from './schema-source.js';
import { SchemaValidationError } from './schema-validation-error.js';
import { resolveOptions } from './schema-validator-options.js';
import type { ContractViolation, SchemaValidator, SchemaValidatorOptions, ToolSchemaChecks } from './schema.js';
import type { Tool } from './tool.js';
import { toViolations } from './violations.js';
import { customDialects, inDialect } from './schema-vocabulary.js';

const SCHEMA_CONTEXT: SchemaContext = { slot: 'schema' };
const EMPTY_ARGS: Readonly<Record<string, never>> = Object.freeze({});

function noCheck(): void {}

/** True for a tool (an object) without an output schema: its output check passes everything. */
function hasNoOutputSchema(tool: Tool): boolean {
  return tool !== null && typeof tool === 'object' && (tool.outputSchema === undefined || tool.outputSchema === null);
}

/** Set by {@link JsonSchemaValidator}'s static block: see {@link compileToolSchema}. */
let compileSlot: (validator: JsonSchemaValidator, tool: Tool, slot: 'inputSchema' | 'outputSchema') => void;

/**
 * Compiles one of `tool`'s schemas now with `validator` (or finds it in its cache), exactly as the
 * validator's first {@link JsonSchemaValidator.validateInput} / {@link JsonSchemaValidator.validateOutput}
 * (or {@link JsonSchemaValidator.forTool}) on `tool` would: the compiled form is kept for that
 * schema object, so the first check of it compiles nothing. A missing `outputSchema` is nothing to compile.
 *
 * @throws `INVALID_SCHEMA` with the message and `details` (`reason`, `tool`, `schema`: the slot)
 * that check would throw.
 * @internal
 */
export function compileToolSchema(validator: JsonSchemaValidator, tool: Tool, slot: 'inputSchema' | 'outputSchema'): void {
  try {
    compileSlot(validator, tool, slot);
  } catch (err) {
    throw asLibraryError(guardErrors, 'tool', err);
  }
}

/**
 * The default {@link SchemaValidator}.
 *
 * @remarks
 * - Dialects: 2020-12 (no `$schema`, or any URI under `https://json-schema.org/draft/2020-12/`) and
 *   draft-07 (`http://json-schema.org/draft-07/schema[#]` or any URI under it), each with its own
 *   Ajv instance, so draft-07 tuple `items: [...]` keeps its meaning. A schema without `$schema`
 *   that is only valid as draft-07 is compiled as draft-07. A `$schema` naming a 2020-12
 *   meta-schema given in `schemas` that declares `$vocabulary` is evaluated with only the
 *   keywords of the vocabularies it lists. Any other `$schema` is `INVALID_SCHEMA`.
 * - Two engines, one chosen per schema when it is compiled: Ajv 8 for ordinary schemas (the fast
 *   path), and `@exodus/schemasafe` for the constructs Ajv evaluates wrongly (`$dynamicRef`,
 *   `unevaluated*`, an empty `enum`, `__proto__` as a name, `''` as a required name, nested `$id`s,
 *   draft-07 `$id` beside `$ref`). The two combinations neither evaluates correctly are `INVALID_SCHEMA`. Both report
 *   violations the same way. See docs/schemas.md, "Schema support".
 * - `$ref` resolves inside the schema and to the documents of the `schemas` option, never over the
 *   network or the file system.
 * - `formats: 'annotate'` (default) never fails on `format`. `'assert'` checks the formats of
 *   ajv-formats (date-time, email, uri, uuid, ipv4, ...); a format it does not know stays an
 *   annotation (the schema still compiles and the value passes), silently.
 * - Compiled once: a schema object is found again by identity (a WeakMap, no serialization), and
 *   an equal schema in a fresh object by content (a stable serialization, in an LRU bounded by
 *   `maxCachedSchemas`). A schema object must not be mutated after its first use: the compiled
 *   form of the first content is kept for that object.
 * - Never mutates a schema or an instance; deterministic (a schema's `$id`s are visible only to itself).
 */
export class JsonSchemaValidator implements SchemaValidator {
  readonly #compiler: SchemaCompiler;
  readonly #maxViolations: number;
  readonly #byIdentity = new WeakMap<object, CompiledSchema>();
  readonly #problems = new WeakMap<object, SchemaProblem>();
  readonly #byContent: LruCache<string, CompiledSchema | SchemaProblem>;
  readonly #byText: LruCache<string, CompiledSchema | SchemaProblem>;
  /** Dialects defined by known meta-schemas (with `$vocabulary`). */
  readonly #customDialects: ReadonlyMap<string, CustomDialect>;
  #compilations = 0;

  static {
    compileSlot = (validator, tool, slot) => validator.#compileSlot(tool, slot);
  }

  constructor(options?: SchemaValidatorOptions) {
    const resolved = resolveOptions(options);
    this.#compiler = new SchemaCompiler({
      formats: resolved.formats,
      schemas: resolved.schemas,
      // Twice the cache: most retired instances hold little that is still cached.
      compilationsPerInstance: Math.max(200, 2 * resolved.maxCachedSchemas),
    });
    this.#maxViolations = resolved.maxViolations;
    this.#customDialects = customDialects(resolved.schemas);
    this.#byContent = new LruCache(resolved.maxCachedSchemas, (_key, entry) => {
      if (!(entry instanceof SchemaProblem)) this.#compiler.release(entry);
    });
    this.#byText = new LruCache(resolved.maxCachedSchemas);
  }

  validateInput(tool: Tool, args: unknown): void {
    try {
      this.#validateInput(tool, args);
    } catch (err) {
      throw asLibraryError(guardErrors, 'tool', err);
    }
  }

  #validateInput(tool: Tool, args: unknown): void {
    if (tool === null || typeof tool !== 'object') throw noTool(tool);
    const schema: unknown = tool.inputSchema;
    if (schema === undefined || schema === null) throw noInputSchema(tool);
    const compiled =
      (typeof schema === 'object' ? this.#byIdentity.get(schema) : undefined) ??
      this.#resolve(schema, { tool: toolIdOf(tool), slot: 'inputSchema' });
    const data = args === undefined ? EMPTY_ARGS : args;
    let valid: boolean;
    try {
      valid = compiled.validate(data, compiled.context);
    } catch (err) {
      throw this.#crashed(err, 'VALIDATION', { tool: toolIdOf(tool), slot: 'inputSchema' });
    }
    if (valid) return;
    throw this.#failure(compiled, data, 'VALIDATION', { tool: toolIdOf(tool), slot: 'inputSchema' });
  }

  validateOutput(tool: Tool, value: unknown): void {
    try {
      this.#validateOutput(tool, value);
    } catch (err) {
      throw asLibraryError(guardErrors, 'tool', err);
    }
  }

  #validateOutput(tool: Tool, value: unknown): void {
    if (tool === null || typeof tool !== 'object') throw noTool(tool);
    const schema: unknown = tool.outputSchema;
    if (schema === undefined || schema === null) return;
    const compiled =
      (typeof schema === 'object' ? this.#byIdentity.get(schema) : undefined) ??
      this.#resolve(schema, { tool: toolIdOf(tool), slot: 'outputSchema' });
    const data = value === undefined ? null : value;
    let valid: boolean;
    try {
      valid = compiled.validate(data, compiled.context);
    } catch (err) {
      throw this.#crashed(err, 'OUTPUT_VALIDATION', { tool: toolIdOf(tool), slot: 'outputSchema' });
    }
    if (valid) return;
    throw this.#failure(compiled, data, 'OUTPUT_VALIDATION', { tool: toolIdOf(tool), slot: 'outputSchema' });
  }

  /**
   * The checks of `tool`'s two schemas, compiled now and bound to them, so that a caller that
   * validates the same tool again and again (the runner) skips finding the compiled schema each
   * time. They behave exactly like {@link JsonSchemaValidator.validateInput} and
   * {@link JsonSchemaValidator.validateOutput} on `tool`. Never throws: a schema that does not
   * compile (or a missing input schema) fails when its check is called, as those methods do.
   */
  forTool(tool: Tool): ToolSchemaChecks {
    const input = this.#compiledOrUndefined(tool, 'inputSchema');
    const output = hasNoOutputSchema(tool) ? undefined : this.#compiledOrUndefined(tool, 'outputSchema');
    return {
      validateInput: this.#boundInput(tool, input),
      validateOutput: this.#boundOutput(tool, output),
    };
  }

  // The two bound checks are separate function literals on purpose: each then has its own call
  // site into Ajv, which V8 can inline (Ajv's functions allocate their default options otherwise).

  #boundInput(tool: Tool, compiled: CompiledSchema | undefined): (args: unknown) => void {
    if (compiled === undefined) return (args) => this.validateInput(tool, args);
    const context: SchemaContext = { tool: toolIdOf(tool), slot: 'inputSchema' };
    return (args) => {
      const data = args === undefined ? EMPTY_ARGS : args;
      let valid: boolean;
      try {
        valid = compiled.validate(data, compiled.context);
      } catch (err) {
        throw this.#crashed(err, 'VALIDATION', context);
      }
      if (!valid) throw this.#failure(compiled, data, 'VALIDATION', context);
    };
  }

  #boundOutput(tool: Tool, compiled: CompiledSchema | undefined): (value: unknown) => void {
    if (hasNoOutputSchema(tool)) return noCheck;
    if (compiled === undefined) return (value) => this.validateOutput(tool, value);
    const context: SchemaContext = { tool: toolIdOf(tool), slot: 'outputSchema' };
    return (value) => {
      const data = value === undefined ? null : value;
      let valid: boolean;
      try {
        valid = compiled.validate(data, compiled.context);
      } catch (err) {
        throw this.#crashed(err, 'OUTPUT_VALIDATION', context);
      }
      if (!valid) throw this.#failure(compiled, data, 'OUTPUT_VALIDATION', context);
    };
  }

  /** As the checks of `slot` compile it: see {@link compileToolSchema}. */
  #compileSlot(tool: Tool, slot: 'inputSchema' | 'outputSchema'): void {
    if (tool === null || typeof tool !== 'object') throw noTool(tool);
    const schema: unknown = tool[slot];
    if (schema === undefined || schema === null) {
      if (slot === 'inputSchema') throw noInputSchema(tool);
      return;
    }
    if (typeof schema === 'object' && this.#byIdentity.has(schema)) return;
    this.#resolve(schema, { tool: toolIdOf(tool), slot });
  }

  /** The compiled form of one of the tool's schemas; `undefined` when there is none or it fails. */
  #compiledOrUndefined(tool: Tool, slot: 'inputSchema' | 'outputSchema'): CompiledSchema | undefined {
    if (tool === null || typeof tool !== 'object') return undefined;
    const schema: unknown = tool[slot];
    if (schema === undefined || schema === null) return undefined;
    try {
      return (typeof schema === 'object' ? this.#byIdentity.get(schema) : undefined) ?? this.#lookup(schema);
    } catch {
      return undefined;
    }
  }

  /**
   * Validates any instance against any schema (object, boolean, or JSON text); an `undefined`
   * instance counts as `null`.
   *
   * @throws `VALIDATION` with `details.violations`, or `INVALID_SCHEMA`.
   */
  validate(schema: unknown, instance: unknown): void {
    const compiled =
      (typeof schema === 'object' && schema !== null ? this.#byIdentity.get(schema) : undefined) ?? this.#resolve(schema, SCHEMA_CONTEXT);
    const data = instance === undefined ? null : instance;
    let valid: boolean;
    try {
      valid = compiled.validate(data, compiled.context);
    } catch (err) {
      throw this.#crashed(err, 'VALIDATION', SCHEMA_CONTEXT);
    }
    if (valid) return;
    throw this.#failure(compiled, data, 'VALIDATION', SCHEMA_CONTEXT);
  }

  /**
   * Compiles `schema` now (or finds it in the cache) without validating anything.
   *
   * @throws `INVALID_SCHEMA`.
   */
  compile(schema: unknown): void {
    if (typeof schema === 'object' && schema !== null && this.#byIdentity.has(schema)) return;
    this.#resolve(schema, SCHEMA_CONTEXT);
  }

  /** Cache figures: compiled schemas held by content, and compilations done so far. */
  cacheStats(): {
    /** Compiled schemas currently held, keyed by content. */
    cachedSchemas: number;
    /** Schema compilations done since the validator was created. */
    compilations: number;
  } {
    return { cachedSchemas: this.#byContent.size, compilations: this.#compilations };
  }

  #resolve(schema: unknown, context: SchemaContext): CompiledSchema {
    try {
      return this.#lookup(schema);
    } catch (err) {
      if (err instanceof SchemaProblem) throw invalidSchema(err, context);
      throw invalidSchema(new SchemaProblem(`the schema could not be compiled: ${errorText(err)}`, err), context);
    }
  }

  #lookup(schema: unknown): CompiledSchema {
    if (typeof schema === 'object' && schema !== null && !(schema instanceof Uint8Array)) {
      const problem = this.#problems.get(schema);
      if (problem !== undefined) throw problem;
      try {
        const compiled = this.#fromValue(schema);
        this.#byIdentity.set(schema, compiled);
        return compiled;
      } catch (err) {
        if (err instanceof SchemaProblem) this.#problems.set(schema, err);
        throw err;
      }
    }
    if (typeof schema === 'string' || schema instanceof Uint8Array) {
      // Bytes are decoded first so that equal text shares one entry.
      const text = typeof schema === 'string' ? schema : undefined;
      const cached = text === undefined ? undefined : this.#byText.get(text);
      if (cached instanceof SchemaProblem) throw cached;
      if (cached !== undefined) return cached;
      let entry: CompiledSchema | SchemaProblem;
      try {
        const parsed = parseSchemaText(schema);
        if (typeof parsed !== 'boolean' && !isPlainObject(parsed)) {
          throw new SchemaProblem(`expected a JSON Schema object or boolean, got ${describeType(parsed)}`);
        }
        entry = this.#fromValue(parsed);
      } catch (err) {
        if (!(err instanceof SchemaProblem)) throw err;
        entry = err;
      }
      if (text !== undefined) this.#byText.set(text, entry);
      if (entry instanceof SchemaProblem) throw entry;
      return entry;
    }
    if (typeof schema === 'boolean') return this.#fromValue(schema);
    if (schema === null || schema === undefined) throw new SchemaProblem(`schema is ${String(schema)}`);
    throw new SchemaProblem(`expected a JSON Schema object, a boolean or JSON text, got ${describeType(schema)}`);
  }

  #fromValue(schema: unknown): CompiledSchema {
    const { key, dialect, implicitDialect, custom } = schemaKey(schema, this.#customDialects);
    const cached = this.#byContent.get(key);
    if (cached instanceof SchemaProblem) throw cached;
    if (cached !== undefined) return cached;
    let entry: CompiledSchema | SchemaProblem;
    try {
      this.#compilations++;
      const document = custom === undefined ? schemaDocument(schema) : inDialect(schemaDocument(schema), custom);
      entry = this.#compiler.compile(document, dialect, implicitDialect);
    } catch (err) {
      entry = err instanceof SchemaProblem ? err : new SchemaProblem(`the schema could not be compiled: ${errorText(err)}`, err);
    }
    this.#byContent.set(key, entry);
    if (entry instanceof SchemaProblem) throw entry;
    return entry;
  }

  #failure(
    compiled: CompiledSchema,
    data: unknown,
    code: 'VALIDATION' | 'OUTPUT_VALIDATION',
    context: SchemaContext,
  ): SchemaValidationError {
    const details = context.tool === undefined ? undefined : { tool: context.tool, schema: context.slot };
    try {
      const errors = this.#compiler.explain(compiled, data);
      const { violations, omitted } = toViolations(errors, compiled.document, data, this.#maxViolations);
      return new SchemaValidationError(code, violations, { omitted, details });
    } catch (err) {
      const violation: ContractViolation = {
        code: 'ConstraintViolation',
        field: '',
        message: "Field '(root)' does not match the schema.",
      };
      return new SchemaValidationError(code, [violation], { details, cause: err });
    }
  }

  #crashed(err: unknown, code: 'VALIDATION' | 'OUTPUT_VALIDATION', context: SchemaContext): SchemaValidationError {
    const violation: ContractViolation = {
      code: 'ConstraintViolation',
      field: '',
      message: `Field '(root)' could not be validated: ${errorText(err)}.`,
    };
    const details = context.tool === undefined ? undefined : { tool: context.tool, schema: context.slot };
    return new SchemaValidationError(code, [violation], { details, cause: err });
  }
}

/**
 * Creates the default {@link SchemaValidator} (Ajv 8, with a second, spec-compliant engine for the
 * constructs Ajv gets wrong; see {@link JsonSchemaValidator}).
 *
 * @throws `INVALID_ARGUMENT` for bad options, `INVALID_SCHEMA` for a bad document in `schemas`.
 */
export function createSchemaValidator(options?: SchemaValidatorOptions): JsonSchemaValidator {
  return guardCall(guardErrors, 'validator options', () => new JsonSchemaValidator(options));
}
