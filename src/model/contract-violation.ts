// The shape of one schema violation, on its own so that the error details (error-details.ts) can
// name it without importing the validator's interfaces (which would close an import cycle).

/** The seed-004 taxonomy of schema violations. */
export type ViolationCode =
  'RequiredMissing' | 'InvalidType' | 'InvalidFormat' | 'InvalidEnumValue' | 'DiscriminatorMismatch' | 'ConstraintViolation';

/** Every {@link ViolationCode}, in the taxonomy's order. @internal */
export const VIOLATION_CODES: readonly ViolationCode[] = [
  'RequiredMissing',
  'InvalidType',
  'InvalidFormat',
  'InvalidEnumValue',
  'DiscriminatorMismatch',
  'ConstraintViolation',
];

/**
 * One way a value breaks its schema, in a form a model can act on.
 *
 * @remarks `field` is a JSON-pointer-like path (`/items/0/id`, `''` for the root).
 */
export interface ContractViolation {
  /** The kind of violation, from the seed-004 taxonomy. */
  code: ViolationCode;
  /** JSON pointer of the offending value (`/items/0/id`); `''` is the whole value. */
  field: string;
  /** "Field '/path' is required.", "Field '/age' must be integer, got string.", ... */
  message: string;
  /** What the schema wanted: a type name, a format, a bound, the candidate summary of a oneOf. */
  expected?: unknown;
  /** What was found: the JSON type of the value, or the value itself when small. */
  actual?: unknown;
  /**
   * The allowed values of an enum or const: at most 20, then a last item `"… and N more"` saying
   * how many were left out.
   */
  allowed?: unknown[];
  /** The JSON Schema keyword that failed (`required`, `type`, `minimum`, ...). */
  keyword?: string;
  /**
   * What would likely fix it: `rename` when an argument the schema does not declare is a near
   * spelling of a missing required one (`from` the pointer sent, `to` the pointer expected).
   */
  suggestion?: {
    /** What to do: rename the argument. */
    action: 'rename';
    /** The pointer of the argument as sent (`/pth`). */
    from: string;
    /** The pointer the schema expects (`/path`). */
    to: string;
  };
}
