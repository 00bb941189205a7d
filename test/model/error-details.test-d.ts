import { describe, expectTypeOf, it } from 'vitest';
import {
  ToolexecError,
  findError,
  hasErrorCode,
  type ContractViolation,
  type ErrorCode,
  type LimitName,
  type ToolexecErrorDetails,
} from '../../src/model/index.js';
import type { ToolError } from '../../src/run/index.js';
import { codeResultOf, type CodeResult } from '../../src/code/index.js';

describe('ToolexecError.details typed per code', () => {
  it('the details map has one entry per error code', () => {
    expectTypeOf<keyof ToolexecErrorDetails>().toEqualTypeOf<ErrorCode>();
  });

  it('findError types the matched error by its code', () => {
    const read = (err: unknown) => {
      const notFound = findError(err, 'TOOL_NOT_FOUND');
      expectTypeOf(notFound).toEqualTypeOf<ToolexecError<'TOOL_NOT_FOUND'> | undefined>();
      expectTypeOf(notFound?.code).toEqualTypeOf<'TOOL_NOT_FOUND' | undefined>();
      expectTypeOf(notFound?.details?.suggestions).toEqualTypeOf<string[] | undefined>();
      const invalid = findError(err, 'VALIDATION');
      if (invalid?.details !== undefined) expectTypeOf(invalid.details.violations).toEqualTypeOf<ContractViolation[]>();
      expectTypeOf(findError(err, 'SERVER_UNAVAILABLE')?.details?.server).toEqualTypeOf<string | undefined>();
      expectTypeOf(findError(err, 'LIMIT_EXCEEDED')?.details?.limit).toEqualTypeOf<LimitName | undefined>();
      expectTypeOf(findError(err, 'RESOURCE_LIMIT')?.details?.limit).toEqualTypeOf<LimitName | undefined>();
      expectTypeOf(findError(err, 'CODE_EXECUTION')?.details?.line).toEqualTypeOf<number | undefined>();
      expectTypeOf(findError(err, 'EXECUTION')?.details?.fromPrevious).toEqualTypeOf<string[] | undefined>();
    };
    expectTypeOf(read).toBeFunction();
  });

  it('ToolexecError.isInstance with a code narrows the error itself', () => {
    const read = (err: unknown): string[] => {
      if (ToolexecError.isInstance(err, 'TOOL_NOT_FOUND')) {
        expectTypeOf(err.code).toEqualTypeOf<'TOOL_NOT_FOUND'>();
        return err.details?.suggestions ?? [];
      }
      if (ToolexecError.isInstance(err)) expectTypeOf(err.code).toEqualTypeOf<ErrorCode>();
      return [];
    };
    expectTypeOf(read).returns.toEqualTypeOf<string[]>();
    const fromRunner = (err: ToolError) => {
      if (ToolexecError.isInstance(err, 'VALIDATION'))
        expectTypeOf(err.details?.violations).toEqualTypeOf<ContractViolation[] | undefined>();
      expectTypeOf(err.op).toBeString();
    };
    expectTypeOf(fromRunner).toBeFunction();
  });

  it('an error of any code keeps open details, and hasErrorCode stays a boolean (the match may be a cause)', () => {
    expectTypeOf<ToolexecError['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<NonNullable<ToolexecError['details']>>().toExtend<Record<string, unknown>>();
    expectTypeOf(hasErrorCode).returns.toEqualTypeOf<boolean>();
    expectTypeOf<ToolexecError<'TIMEOUT'>>().toExtend<ToolexecError>();
    expectTypeOf<ToolError>().toExtend<ToolexecError>();
    const made = new ToolexecError('LIMIT_EXCEEDED', 'limit exceeded: x', { details: { limit: 'maxToolCalls', max: 3 } });
    expectTypeOf(made).toEqualTypeOf<ToolexecError<'LIMIT_EXCEEDED'>>();
    expectTypeOf(made.details?.max).toEqualTypeOf<number | undefined>();
  });

  it("a snippet's partial result (details.result, unknown in the model layer) reads typed through codeResultOf", () => {
    expectTypeOf(codeResultOf).returns.toEqualTypeOf<CodeResult | undefined>();
    expectTypeOf(findError(new Error('x'), 'LIMIT_EXCEEDED')?.details?.result).toEqualTypeOf<unknown>();
  });
});
