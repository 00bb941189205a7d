import { describe, expect, it } from 'vitest';
import { layerErrors } from '../../src/model/internal.js';
import {
  ERROR_CODES,
  SchemaValidationError,
  ToolexecError,
  errorMessage,
  findError,
  hasErrorCode,
  isErrorCode,
  toErrorShape,
} from '../../src/model/index.js';

describe('ToolexecError', () => {
  it('keeps code, cause and details, and names its class', () => {
    const cause = new Error('disk full');
    const err = new ToolexecError('EXECUTION', 'write failed', { cause, details: { path: '/tmp/x' } });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ToolexecError');
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(cause);
    expect(err.details).toEqual({ path: '/tmp/x' });
    expect(err.toJSON()).toEqual({
      name: 'ToolexecError',
      code: 'EXECUTION',
      message: 'write failed',
      details: { path: '/tmp/x' },
      cause: { name: 'Error', message: 'disk full' },
    });
    expect(new ToolexecError('ABORTED', 'stop', { cause: 'reason' }).toJSON().cause).toBe('reason');
    expect('cause' in new ToolexecError('ABORTED', 'stop')).toBe(false);
  });

  it('isInstance recognises errors from another copy of the package by their marker', () => {
    const fake = Object.assign(new Error('from another copy'), { code: 'VALIDATION' });
    Object.defineProperty(fake, Symbol.for('toolexec.error'), { value: true });
    expect(fake instanceof ToolexecError).toBe(false);
    expect(ToolexecError.isInstance(fake)).toBe(true);
    expect(hasErrorCode(fake, 'VALIDATION')).toBe(true);
    expect(hasErrorCode({ cause: fake }, 'VALIDATION')).toBe(true);
    expect(toErrorShape(fake)).toEqual({ status: 'Error', error: { code: 'VALIDATION', message: 'from another copy' } });
    // The marker alone, or a code alone, is not enough.
    expect(ToolexecError.isInstance({ [Symbol.for('toolexec.error')]: true })).toBe(false);
    expect(ToolexecError.isInstance({ code: 'VALIDATION' })).toBe(false);
    expect(ToolexecError.isInstance(null)).toBe(false);
    expect(ToolexecError.isInstance(new SchemaValidationError('VALIDATION', []))).toBe(true);
  });
});

describe('hasErrorCode / findError', () => {
  it('walks the cause chain and AggregateErrors, and stops on cycles', () => {
    const inner = new ToolexecError('TOOL_NOT_FOUND', 'no such tool');
    const outer = new ToolexecError('EXECUTION', 'failed', { cause: new Error('wrapped', { cause: inner }) });
    expect(hasErrorCode(outer, 'EXECUTION')).toBe(true);
    expect(hasErrorCode(outer, 'TOOL_NOT_FOUND')).toBe(true);
    expect(findError(outer, 'TOOL_NOT_FOUND')).toBe(inner);
    expect(hasErrorCode(outer, 'TIMEOUT')).toBe(false);
    expect(hasErrorCode(new AggregateError([new Error('x'), inner]), 'TOOL_NOT_FOUND')).toBe(true);
    const a: { cause?: unknown } = {};
    const b = { cause: a };
    a.cause = b;
    expect(hasErrorCode(a, 'EXECUTION')).toBe(false);
    for (const value of [undefined, null, 'TIMEOUT', 42]) expect(hasErrorCode(value, 'TIMEOUT')).toBe(false);
  });
});

describe('toErrorShape / errorMessage / isErrorCode', () => {
  it('gives the seed-004 envelope for any thrown value', () => {
    const err = new ToolexecError('INVALID_TOOL', 'invalid tool: name is required', { details: { reason: 'name is required' } });
    expect(toErrorShape(err)).toEqual({
      status: 'Error',
      error: { code: 'INVALID_TOOL', message: 'invalid tool: name is required', details: { reason: 'name is required' } },
    });
    expect(toErrorShape(new TypeError('boom'))).toEqual({ status: 'Error', error: { code: 'EXECUTION', message: 'boom' } });
    expect(toErrorShape('plain')).toEqual({ status: 'Error', error: { code: 'EXECUTION', message: 'plain' } });
  });

  it('describes anything in one line', () => {
    expect(errorMessage(new Error('x'))).toBe('x');
    expect(errorMessage('y')).toBe('y');
    expect(errorMessage({ a: 1 })).toBe('{"a":1}');
    expect(errorMessage(10n)).toBe('10');
    expect(errorMessage(undefined)).toBe('undefined');
  });

  it('knows its codes', () => {
    expect(ERROR_CODES).toContain('VALIDATION');
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    expect(isErrorCode('OUTPUT_VALIDATION')).toBe(true);
    expect(isErrorCode('NOPE')).toBe(false);
    expect(isErrorCode(1)).toBe(false);
  });

  it('describes causes that cannot be turned into strings', () => {
    const hostile = Object.create(null) as object;
    const error = new ToolexecError('EXECUTION', 'outer', { cause: new ToolexecError('TIMEOUT', 'inner', { cause: hostile }) });
    expect(error.toJSON()).toEqual({
      name: 'ToolexecError',
      code: 'EXECUTION',
      message: 'outer',
      cause: { name: 'ToolexecError', code: 'TIMEOUT', message: 'inner', cause: '[object Object]' },
    });
    expect(
      errorMessage(
        Object.assign(Object.create(null) as object, {
          toJSON: () => {
            throw new Error('no');
          },
        }),
      ),
    ).toBe('[object Object]');
  });
});

describe('layerErrors (the one place a layer makes its errors)', () => {
  it('prefixes every message with the layer and picks the code by what was wrong', () => {
    const errors = layerErrors('run');
    const any = errors('TOOL_NOT_FOUND', 'tool "x" not found', { details: { toolId: 'x' } });
    expect(any).toBeInstanceOf(ToolexecError);
    expect([any.code, any.message, any.details]).toEqual(['TOOL_NOT_FOUND', 'run: tool "x" not found', { toolId: 'x' }]);
    const argument = errors.invalidArgument('timeoutMs', 'must be a number ≥ 0, got -1');
    expect([argument.code, argument.message]).toEqual(['INVALID_ARGUMENT', 'run: timeoutMs must be a number ≥ 0, got -1']);
    const cause = new Error('boom');
    const option = errors.configuration('local', 'must be an object', { cause });
    expect([option.code, option.message, option.cause]).toEqual(['CONFIGURATION', 'run: option local must be an object', cause]);
  });
});
