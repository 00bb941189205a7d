import type { Tool } from './tool.js';

export type { ContractViolation, ViolationCode } from './contract-violation.js';

/**
 * Validates tool input and output against the tool's JSON Schemas.
 *
 * @remarks A schema is compiled on its first use and the compiled form is kept for that schema
 * object (the default validator): a schema edited in place afterwards (an `enum` extended, a
 * `required` cleared) is still validated as it was. To change a tool's schema, register the tool
 * again with a new schema object.
 */
export interface SchemaValidator {
  /**
   * Validates `args` against `tool.inputSchema`; `undefined` args count as `{}`.
   *
   * @throws `VALIDATION` with `details.violations`, or `INVALID_SCHEMA` when the schema itself is bad.
   */
  validateInput(tool: Tool, args: unknown): void;
  /**
   * Validates `value` against `tool.outputSchema`; returns at once when there is none.
   * An `undefined` value counts as `null`.
   *
   * @throws `OUTPUT_VALIDATION` with `details.violations`, or `INVALID_SCHEMA`.
   */
  validateOutput(tool: Tool, value: unknown): void;
  /**
   * Validates any instance against any schema (an object, a boolean, or JSON text as a string or
   * UTF-8 bytes). An `undefined` instance counts as `null`.
   *
   * @throws `VALIDATION` with `details.violations`, or `INVALID_SCHEMA`.
   */
  validate(schema: unknown, instance: unknown): void;
  /**
   * Optional: the checks of one tool's two schemas, bound once, for callers that validate the same
   * tool many times (the runner keeps them with a cached resolution). They behave exactly like
   * {@link SchemaValidator.validateInput} and {@link SchemaValidator.validateOutput} on `tool`,
   * without finding the compiled schema again on every call. Never throws: a schema that does not
   * compile fails (`INVALID_SCHEMA`) when its check is called.
   */
  forTool?(tool: Tool): ToolSchemaChecks;
}

/**
 * The input and output checks of one tool, bound to its schemas (see {@link SchemaValidator.forTool}).
 *
 * @remarks Bound to the schema objects the tool had when the checks were made; a tool whose
 * schemas change needs new checks.
 */
export interface ToolSchemaChecks {
  /** As {@link SchemaValidator.validateInput} on the bound tool. */
  validateInput(args: unknown): void;
  /** As {@link SchemaValidator.validateOutput} on the bound tool. */
  validateOutput(value: unknown): void;
}

/** Options of {@link createSchemaValidator}. */
export interface SchemaValidatorOptions {
  /**
   * `'annotate'` (default) treats `format` as an annotation that never fails. `'assert'` enforces
   * the formats ajv-formats knows (date-time, date, time, duration, email, hostname, ipv4, ipv6,
   * uri, uri-reference, uri-template, uuid, json-pointer, regex, ...); a format it does not know
   * (a custom name, or idn-email, iri, ...) stays an annotation, silently.
   * @defaultValue 'annotate'
   */
  formats?: 'annotate' | 'assert';
  /**
   * Most compiled schemas kept by content (least recently used are dropped). Schema objects seen
   * before are also found by identity, which holds them only as long as the caller does.
   * @defaultValue 1000
   */
  maxCachedSchemas?: number;
  /**
   * Known schema documents, by URI, that a `$ref` may name (`{ 'https://example.com/point.json': {...} }`).
   * Nothing else is ever resolved: a `$ref` to any other document fails with `INVALID_SCHEMA`
   * (`external $ref resolution is disabled: <uri>`). A 2020-12 meta-schema among them that declares
   * `$vocabulary` may be named in a schema's `$schema`. Documents are copied when the validator is created.
   */
  schemas?: Record<string, unknown>;
  /** Most violations reported for one failure (Ajv collects all errors; the list is cut here). @defaultValue 50 */
  maxViolations?: number;
}

export { DIALECT_2020_12, DIALECT_DRAFT_07 } from './schema-dialects.js';
