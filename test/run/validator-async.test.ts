import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { SchemaValidator, Tool } from '../../src/model/index.js';
import { createRunner } from '../../src/run/index.js';
import { indexWith, localBackend, rejectionOf, tool } from './helpers.js';

/** Unhandled rejections seen while a test runs. */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
process.on('unhandledRejection', onUnhandled);
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});
afterEach(() => {
  unhandled.length = 0;
});

function asyncValidator(): SchemaValidator {
  // Type-checks: an async method is assignable to a void-returning one.
  /* eslint-disable @typescript-eslint/no-misused-promises -- the mistake under test */
  return {
    validateInput: async (_t: Tool, args: unknown) => {
      if ((args as { ok?: boolean }).ok !== true) throw new Error('async input invalid');
    },
    validateOutput: async () => {
      throw new Error('async output invalid');
    },
    validate: async () => {},
  };
  /* eslint-enable @typescript-eslint/no-misused-promises */
}

describe('a SchemaValidator that answers with a promise', () => {
  it('fails input validation with CONFIGURATION naming validateInput, and its rejection is observed', async () => {
    const index = indexWith([tool('echo', { namespace: 'svc' }), localBackend('echo')]);
    const runner = createRunner({ index, local: { echo: (a) => a }, validator: asyncValidator() });
    const err = await rejectionOf(runner.run('svc:echo', { ok: false }));
    expect(err.code).toBe('CONFIGURATION');
    expect(err.message).toContain('validateInput returned a promise; a SchemaValidator must be synchronous');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
  });

  it('fails output validation with CONFIGURATION naming validateOutput, even in warn mode', async () => {
    const index = indexWith([tool('echo', { namespace: 'svc' }), localBackend('echo')]);
    for (const validateOutput of [true, 'warn'] as const) {
      const runner = createRunner({ index, local: { echo: (a) => a }, validator: asyncValidator(), validateInput: false, validateOutput });
      const err = await rejectionOf(runner.run('svc:echo', { ok: true }));
      expect(err.code).toBe('CONFIGURATION');
      expect(err.message).toContain('validateOutput returned a promise');
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
  });

  it('fails a stream before dispatch too', async () => {
    const index = indexWith([tool('echo', { namespace: 'svc' }), localBackend('echo')]);
    let called = false;
    const runner = createRunner({
      index,
      local: {
        echo: (a) => {
          called = true;
          return a;
        },
      },
      validator: asyncValidator(),
    });
    const iterator = runner.runStream('svc:echo', { ok: true })[Symbol.asyncIterator]();
    const err = await rejectionOf(iterator.next());
    expect(err.code).toBe('CONFIGURATION');
    expect(called).toBe(false);
  });

  it('still treats throws of non-errors as validation failures', async () => {
    const index = indexWith([tool('echo', { namespace: 'svc' }), localBackend('echo')]);
    const validator = {
      validateInput: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- a validator that throws a non-error
        throw 'str';
      },
      validateOutput: () => {},
      validate: () => {},
    } as unknown as SchemaValidator;
    const runner = createRunner({ index, local: { echo: (a) => a }, validator });
    expect((await rejectionOf(runner.run('svc:echo', {}))).code).toBe('VALIDATION');
  });
});
