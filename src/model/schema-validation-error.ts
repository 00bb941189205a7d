/**
 * The error of a value that does not match its schema: `VALIDATION` / `OUTPUT_VALIDATION`, with
 * the violations in its message and details.
 */
import { ToolexecError, type ToolexecErrorOptions } from './errors.js';
import type { ContractViolation } from './schema.js';
import { summarizeViolations } from './violations.js';

/** The codes a {@link SchemaValidationError} carries. */
export type SchemaValidationCode = 'VALIDATION' | 'OUTPUT_VALIDATION';

/** Options of {@link SchemaValidationError}. */
export interface SchemaValidationErrorOptions extends ToolexecErrorOptions {
  /** Violations found beyond those listed (the list is capped); counted in the message. */
  omitted?: number;
}

const MESSAGE_PREFIX: Record<SchemaValidationCode, string> = {
  VALIDATION: 'validation error: ',
  OUTPUT_VALIDATION: 'output validation error: ',
};

/**
 * A value that does not match its schema.
 *
 * @remarks
 * Code `VALIDATION` (input, or {@link SchemaValidator.validate}) or `OUTPUT_VALIDATION` (a tool's
 * result). The message is `validation error: ` / `output validation error: ` plus the first few
 * violation messages; every violation is in {@link SchemaValidationError.violations} and in
 * `details.violations`.
 */
export class SchemaValidationError extends ToolexecError {
  /** Each way the value breaks its schema, in schema order; capped (see `maxViolations`). */
  readonly violations: ContractViolation[];

  constructor(code: SchemaValidationCode, violations: ContractViolation[], options: SchemaValidationErrorOptions = {}) {
    const { omitted = 0, details, cause } = options;
    super(code, `${MESSAGE_PREFIX[code]}${summarizeViolations(violations, omitted)}`, {
      cause,
      details: { ...details, violations, ...(omitted > 0 ? { omittedViolations: omitted } : {}) },
    });
    this.violations = violations;
  }
}
