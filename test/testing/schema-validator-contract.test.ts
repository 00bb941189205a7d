/**
 * The schema validator contract against the library's own validator, with its default options and
 * with formats asserted and a small cache (every schema compiled again once it is dropped).
 */
import { createSchemaValidator } from '../../src/model/index.js';
import { schemaValidatorContract } from '../../src/testing/index.js';

schemaValidatorContract('JsonSchemaValidator', () => createSchemaValidator());

schemaValidatorContract('JsonSchemaValidator with formats asserted and a cache of one schema', () =>
  createSchemaValidator({ formats: 'assert', maxCachedSchemas: 1 }),
);
