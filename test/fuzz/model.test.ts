/** Every public function of toolexec/model, given anything: a value or a ToolexecError, never anything else. */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  backendIdentity,
  cloneTool,
  createSchemaValidator,
  defineTool,
  describeBackend,
  errorMessage,
  errorStatus,
  findError,
  hasErrorCode,
  isErrorCode,
  localBackend,
  mcpBackend,
  normalizeTags,
  parseToolId,
  parsedVersion,
  providerBackend,
  toErrorShape,
  toMcpTool,
  toolId,
  truncateUtf8,
  utf8ByteLength,
  validateBackend,
  validateTool,
  type Tool,
} from '../../src/model/index.js';
import { FUZZ_RUNS, expectSyncContract, hostile, materialize } from './hostile.js';

const sync: Array<[string, (a: unknown, b: unknown) => unknown]> = [
  ['toolId', (a) => toolId(a as Tool)],
  ['parseToolId', (a) => parseToolId(a as string)],
  ['defineTool', (a) => defineTool(a as Tool)],
  ['validateTool', (a) => validateTool(a as Tool)],
  ['cloneTool', (a) => cloneTool(a as Tool)],
  ['toMcpTool', (a) => toMcpTool(a as Tool)],
  ['normalizeTags', (a) => normalizeTags(a as string[])],
  ['parsedVersion', (a) => parsedVersion(a as Tool)],
  ['localBackend', (a) => localBackend(a as string)],
  ['mcpBackend', (a) => mcpBackend(a as string)],
  ['providerBackend', (a, b) => providerBackend(a as string, b as string)],
  ['validateBackend', (a) => validateBackend(a as never)],
  ['describeBackend', (a) => describeBackend(a as never)],
  ['backendIdentity', (a) => backendIdentity(a as never)],
  ['utf8ByteLength', (a) => utf8ByteLength(a as string)],
  ['truncateUtf8', (a, b) => truncateUtf8(a as string, b as number)],
  ['createSchemaValidator', (a) => createSchemaValidator(a as never)],
  ['validator.validate', (a, b) => createSchemaValidator().validate(a, b)],
  ['validator.validateInput', (a, b) => createSchemaValidator().validateInput(a as Tool, b)],
  ['validator.validateOutput', (a, b) => createSchemaValidator().validateOutput(a as Tool, b)],
];

/** Functions that take any thrown value and must never throw at all. */
const total: Array<[string, (a: unknown, b: unknown) => unknown]> = [
  ['toErrorShape', (a) => toErrorShape(a)],
  ['errorStatus', (a) => errorStatus(a)],
  ['errorMessage', (a) => errorMessage(a)],
  ['hasErrorCode', (a, b) => hasErrorCode(a, b as never)],
  ['findError', (a, b) => findError(a, b as never)],
  ['isErrorCode', (a) => isErrorCode(a)],
];

describe('toolexec/model under hostile input', () => {
  for (const [label, call] of sync) {
    it(`${label}: a value or a ToolexecError`, () => {
      fc.assert(
        fc.property(hostile, hostile, (a, b) => expectSyncContract(label, () => call(materialize(a), materialize(b)))),
        { numRuns: FUZZ_RUNS },
      );
    });
  }
  for (const [label, call] of total) {
    it(`${label}: never throws`, () => {
      fc.assert(
        fc.property(hostile, hostile, (a, b) => {
          call(materialize(a), materialize(b));
        }),
        { numRuns: FUZZ_RUNS },
      );
    });
  }
});
