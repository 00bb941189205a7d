import { describe, expect, it } from 'vitest';
import { layerErrors } from '../../src/model/internal.js';
import {
  ERROR_CODES,
  SchemaValidationError,
  ToolexecError,
  ERROR_STATUS,
  errorMessage,
  errorStatus,
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

  it('toJSON ends a cause chain that loops back on itself, and cuts a very long one', () => {
    const outer = new ToolexecError('EXECUTION', 'outer');
    const inner = new ToolexecError('TIMEOUT', 'inner', { cause: outer });
    Object.defineProperty(outer, 'cause', { value: inner });
    const json = outer.toJSON();
    expect(json).toEqual({
      name: 'ToolexecError',
      code: 'EXECUTION',
      message: 'outer',
      cause: { name: 'ToolexecError', code: 'TIMEOUT', message: 'inner' },
    });
    expect(() => JSON.stringify(outer)).not.toThrow();

    let chain = new ToolexecError('EXECUTION', 'link 0');
    for (let i = 1; i <= 50; i++) chain = new ToolexecError('EXECUTION', `link ${i}`, { cause: chain });
    let links = 0;
    for (let link: unknown = chain.toJSON(); link !== undefined; link = (link as { cause?: unknown }).cause) links++;
    expect(links).toBe(9);
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

  it('keeps the cause chain: messages, codes and details, AggregateErrors, and stops on cycles', () => {
    const connect = new ToolexecError('TIMEOUT', 'mcp: did not answer initialize', { details: { serverName: 's' } });
    const err = new ToolexecError('SERVER_UNAVAILABLE', 'exec: MCP server "s" is unavailable', {
      details: { server: 's' },
      cause: new Error('wrapped', { cause: connect }),
    });
    expect(toErrorShape(err)).toEqual({
      status: 'Error',
      error: {
        code: 'SERVER_UNAVAILABLE',
        message: 'exec: MCP server "s" is unavailable',
        details: { server: 's' },
        cause: {
          message: 'wrapped',
          cause: { code: 'TIMEOUT', message: 'mcp: did not answer initialize', details: { serverName: 's' } },
        },
      },
    });
    const aggregate = new ToolexecError('EXECUTION', 'both failed', { cause: new AggregateError([new Error('a'), 'b'], 'all') });
    expect(toErrorShape(aggregate).error.cause).toEqual({ message: 'all', errors: [{ message: 'a' }, { message: 'b' }] });
    const top = new AggregateError([new Error('a'), new ToolexecError('TIMEOUT', 'b')], 'agg');
    expect(toErrorShape(top)).toEqual({
      status: 'Error',
      error: { code: 'EXECUTION', message: 'agg', errors: [{ message: 'a' }, { code: 'TIMEOUT', message: 'b' }] },
    });
    expect(errorStatus(top)).toBe(500);
    const loop: Error & { cause?: unknown } = new Error('loop');
    loop.cause = new Error('inner', { cause: loop });
    expect(toErrorShape(loop)).toEqual({ status: 'Error', error: { code: 'EXECUTION', message: 'loop', cause: { message: 'inner' } } });
    expect(JSON.parse(JSON.stringify(toErrorShape(err)))).toEqual(toErrorShape(err));
  });

  it('gives JSON-safe details: bigints as strings, cycles cut, functions and symbols dropped, throwing getters reported', () => {
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    const details: Record<string, unknown> = {
      n: 10n,
      list: [1n, () => 1, Symbol('s'), undefined, NaN],
      cycle,
      fn: () => 1,
      sym: Symbol('s'),
      missing: undefined,
      when: new Date(0),
      inner: new TypeError('bad input'),
      get broken(): never {
        throw new Error('getter exploded');
      },
      toJsonThrows: {
        toJSON(): never {
          throw new Error('toJSON exploded');
        },
      },
    };
    const expected = {
      n: '10',
      list: ['1', null, null, null, null],
      cycle: { name: 'loop', self: '[Circular]' },
      when: '1970-01-01T00:00:00.000Z',
      inner: { name: 'TypeError', message: 'bad input' },
      broken: '[Unreadable: getter exploded]',
      toJsonThrows: '[Unreadable: toJSON exploded]',
    };
    const cause = new ToolexecError('TIMEOUT', 'inner', { details: { big: 2n, cycle } });
    const shape = toErrorShape(new ToolexecError('EXECUTION', 'x', { details, cause }));
    expect(shape.error.details).toEqual(expected);
    expect(shape.error.cause?.details).toEqual({ big: '2', cycle: { name: 'loop', self: '[Circular]' } });
    expect(JSON.parse(JSON.stringify(shape))).toEqual(shape);
    const plainCause = toErrorShape(new Error('outer', { cause }));
    expect(() => JSON.stringify(plainCause)).not.toThrow();
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(toErrorShape(new ToolexecError('EXECUTION', 'x', { details: { proxy } })).error.details).toEqual({
      proxy: expect.stringMatching(/^\[Unreadable: .*revoked/u) as unknown,
    });
    expect(JSON.parse(JSON.stringify(new ToolexecError('EXECUTION', 'x', { details })))).toMatchObject({ details: expected });
  });

  it('leaves details that are already plain JSON as they are', () => {
    const details = { server: 's', retryInMs: 1874, nested: { list: [1, 'two', null, true, { deep: [] }] }, empty: {}, zero: -0 };
    const shape = toErrorShape(new ToolexecError('SERVER_UNAVAILABLE', 'x', { details }));
    expect(JSON.stringify(shape.error.details)).toBe(JSON.stringify(details));
    expect(shape.error.details).toEqual(details);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i++) deep = { d: deep };
    expect(JSON.stringify(toErrorShape(new ToolexecError('EXECUTION', 'x', { details: { deep } })))).toContain('"[Truncated]"');
  });

  it('errorStatus maps every code to an HTTP status, and anything else to 500', () => {
    for (const code of ERROR_CODES) expect([400, 404, 408, 429, 500, 502, 503, 504]).toContain(ERROR_STATUS[code]);
    const status = (code: (typeof ERROR_CODES)[number]): number => errorStatus(new ToolexecError(code, 'x'));
    expect(status('VALIDATION')).toBe(400);
    expect(status('INVALID_ARGUMENT')).toBe(400);
    expect(status('TOOL_NOT_FOUND')).toBe(404);
    expect(status('ABORTED')).toBe(408);
    expect(status('LIMIT_EXCEEDED')).toBe(429);
    expect(status('EXECUTION')).toBe(502);
    expect(status('PROTOCOL')).toBe(502);
    expect(status('SERVER_UNAVAILABLE')).toBe(503);
    expect(status('TIMEOUT')).toBe(504);
    expect(status('CONFIGURATION')).toBe(500);
    expect(errorStatus(new Error('plain'))).toBe(500);
    expect(errorStatus('thrown string')).toBe(500);
    expect(errorStatus(undefined)).toBe(500);
  });

  it('describes anything in one line', () => {
    expect(errorMessage(new Error('x'))).toBe('x');
    expect(errorMessage('y')).toBe('y');
    expect(errorMessage({ a: 1 })).toBe('{"a":1}');
    expect(errorMessage(10n)).toBe('10');
    expect(errorMessage(undefined)).toBe('undefined');
  });

  it("quotes at most 4 KiB of another party's text, never half a surrogate pair", () => {
    const huge = 'x'.repeat(1_000_000);
    const quoted = errorMessage(new Error(huge));
    expect(quoted).toBe(`${'x'.repeat(4096)}… (1000000 characters)`);
    expect(errorMessage('y'.repeat(4096))).toBe('y'.repeat(4096));
    // a pair straddling the cut is left out whole
    const paired = errorMessage(`${'z'.repeat(4095)}😀${'z'.repeat(10)}`);
    expect(paired).toBe(`${'z'.repeat(4095)}… (4107 characters)`);
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
