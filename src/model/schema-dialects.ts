/**
 * The JSON Schema dialects the validator evaluates, by their `$schema` URIs (a leaf module: the
 * schema readers and the tool checks both use them).
 *
 * @module
 */

/** The `$schema` URI of JSON Schema 2020-12, the default dialect. */
export const DIALECT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
/** The `$schema` URI of JSON Schema draft-07. */
export const DIALECT_DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
