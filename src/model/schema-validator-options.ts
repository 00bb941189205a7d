/**
 * The schema validator's options, checked and with their defaults filled in.
 */
import { ToolexecError } from './errors.js';
import { SchemaProblem, copySchemaDocument, describeType, isPlainObject, safeJson, type SchemaDocument } from './schema-source.js';
import type { SchemaValidatorOptions } from './schema.js';

/** Default of {@link SchemaValidatorOptions.maxCachedSchemas}. */
export const DEFAULT_MAX_CACHED_SCHEMAS = 1000;
/** Default of {@link SchemaValidatorOptions.maxViolations}. */
export const DEFAULT_MAX_VIOLATIONS = 50;

export interface ResolvedOptions {
  formats: 'annotate' | 'assert';
  maxCachedSchemas: number;
  maxViolations: number;
  schemas: Map<string, SchemaDocument>;
}

function invalidArgument(message: string): ToolexecError {
  return new ToolexecError('INVALID_ARGUMENT', message);
}

function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw invalidArgument(`${name} must be a positive integer, got ${safeJson(value)}`);
  }
  return value;
}

export function resolveOptions(options: SchemaValidatorOptions | undefined): ResolvedOptions {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw invalidArgument(`schema validator options must be an object, got ${describeType(options)}`);
  }
  const { formats = 'annotate', maxCachedSchemas, maxViolations, schemas } = options ?? {};
  if (formats !== 'annotate' && formats !== 'assert') {
    throw invalidArgument(`formats must be 'annotate' or 'assert', got ${safeJson(formats)}`);
  }
  const known = new Map<string, SchemaDocument>();
  if (schemas !== undefined) {
    if (!isPlainObject(schemas)) throw invalidArgument(`schemas must be an object of URI → schema, got ${describeType(schemas)}`);
    for (const [uri, document] of Object.entries(schemas)) {
      try {
        known.set(uri, copySchemaDocument(document));
      } catch (err) {
        const reason = err instanceof SchemaProblem ? err.reason : String(err);
        throw new ToolexecError('INVALID_SCHEMA', `invalid JSON Schema: known schema ${uri}: ${reason}`, {
          cause: err instanceof SchemaProblem ? err.cause : err,
          details: { reason, uri },
        });
      }
    }
  }
  return {
    formats,
    maxCachedSchemas: positiveInteger('maxCachedSchemas', maxCachedSchemas, DEFAULT_MAX_CACHED_SCHEMAS),
    maxViolations: positiveInteger('maxViolations', maxViolations, DEFAULT_MAX_VIOLATIONS),
    schemas: known,
  };
}
