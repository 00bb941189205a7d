/**
 * One document compiled by an Ajv instance without leaving global traces, and what Ajv throws
 * while compiling turned into a {@link SchemaProblem}.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { SchemaProblem, type SchemaDocument } from './schema-source.js';

export type AjvInstance = Ajv | Ajv2020;

interface MissingRef {
  missingRef: string;
  missingSchema: string;
}

function isMissingRef(err: unknown): err is Error & MissingRef {
  return (
    err instanceof Error &&
    typeof (err as Partial<MissingRef>).missingRef === 'string' &&
    typeof (err as Partial<MissingRef>).missingSchema === 'string'
  );
}

/** Removes a compiled document from Ajv's private identity cache (Ajv never drops it by itself). */
export function forget(ajv: AjvInstance, document: SchemaDocument): void {
  const cache = (ajv as unknown as { _cache?: unknown })._cache;
  if (cache instanceof Map) cache.delete(document);
}

/**
 * Compiles with Ajv without leaving global traces: the `$id`s a schema declares are registered
 * in Ajv's registry while it compiles and removed afterwards, so two tools may use the same `$id`
 * with different content, and one schema can never resolve a `$ref` through another. A root `$id`
 * equal to a known document's URI stands for the schema itself while it compiles.
 */
export function compileIsolated(ajv: AjvInstance, document: SchemaDocument): ValidateFunction {
  const registries = [ajv.refs, ajv.schemas] as Record<string, unknown>[];
  const snapshots = registries.map((registry) => new Map(Object.entries(registry)));
  if (typeof document === 'object' && typeof document.$id === 'string') {
    const id = normalizeId(document.$id);
    for (const registry of registries) delete registry[id];
  }
  try {
    return ajv.compile(document);
  } catch (err) {
    forget(ajv, document);
    throw err;
  } finally {
    registries.forEach((registry, i) => {
      const before = snapshots[i] as Map<string, unknown>;
      for (const key of Object.keys(registry)) if (!before.has(key)) delete registry[key];
      for (const [key, value] of before) registry[key] = value;
    });
  }
}

function normalizeId(id: string): string {
  return id.replace(/#\/?$/, '');
}

export function problemFrom(err: unknown, document: SchemaDocument): SchemaProblem {
  if (err instanceof SchemaProblem) return err;
  if (isMissingRef(err)) {
    const rootId = typeof document === 'object' && typeof document.$id === 'string' ? normalizeId(document.$id) : '';
    if (err.missingSchema !== '' && err.missingSchema !== rootId) {
      return new SchemaProblem(`external $ref resolution is disabled: ${err.missingRef}`, err);
    }
    return new SchemaProblem(`cannot resolve $ref ${err.missingRef}`, err);
  }
  if (err instanceof RangeError) {
    return new SchemaProblem(`schema could not be compiled (too deeply nested, or a $ref cycle Ajv cannot follow): ${err.message}`, err);
  }
  const message = err instanceof Error ? err.message : String(err);
  // Ajv names the schema being checked `data`: say where in the schema instead.
  return new SchemaProblem(message.replace(/\bdata\//g, '/').replace(/\bdata(?=\s)/g, '(root)'), err);
}
