/**
 * What the explainers of one kind of failure (composite-violations.ts, constraint-violations.ts)
 * need from the collector of violations.ts, on its own so that they need not import it.
 */
import type { ErrorObject } from 'ajv';
import type { ContractViolation, ViolationCode } from './schema.js';
import type { SchemaDocument } from './schema-source.js';

/** The collector of one failure's violations, as an explainer sees it. */
export interface ViolationSink {
  /** The schema document the errors point into. */
  readonly root: SchemaDocument;
  /** Records one violation (duplicates and those past the limit are counted, not kept). */
  add(code: ViolationCode, field: string, message: string, extra?: Partial<ContractViolation>): void;
  /** Explains each of `errors` in turn. */
  addAll(errors: readonly ErrorObject[]): void;
  /** The value an error is about. */
  value(error: ErrorObject): unknown;
}
