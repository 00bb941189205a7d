/**
 * What `runner.runChain` blames on the caller: only steps it cannot read are INVALID_ARGUMENT.
 * Anything else thrown inside the chain that is not a library error (a bug) is EXECUTION (502)
 * with it as `cause`, as `runner.run` reports a non-library throw and as the facade's `runChain`
 * does: `run: runChain failed: unexpected failure: <message>`.
 */
import { describe, expect, it } from 'vitest';
import { ToolexecError, errorStatus } from '../../src/model/index.js';
import { unexpectedFailure } from '../../src/run/failures.js';
import { createRunner, type ChainStep } from '../../src/run/index.js';
import { indexWith, localBackend, rejectionOf, tool } from './helpers.js';

function runner(calls: string[]) {
  return createRunner({
    index: indexWith([tool('add'), localBackend('add')]),
    local: {
      add: ({ a, b }) => {
        calls.push('add');
        return (a as number) + (b as number);
      },
    },
  });
}

// No input reaches runChain's last resort (every failure of a caller's object or of an injected
// part is a library error by then), so it is checked on its own.
describe("runChain's last resort for a failure that is nobody's input", () => {
  it('is EXECUTION (502) with the thrown error as cause, never "chain steps could not be read"; a library error stays as it is', () => {
    const bug = new TypeError('emit is not a function');
    const err = unexpectedFailure('runChain', bug);
    expect(err.code).toBe('EXECUTION');
    expect(errorStatus(err)).toBe(502);
    expect(err.message).toBe('run: runChain failed: unexpected failure: emit is not a function');
    expect(err.cause).toBe(bug);
    const known = new ToolexecError('TIMEOUT', 'late');
    expect(unexpectedFailure('runChain', known)).toBe(known);
  });

  it('a chain of readable steps runs', async () => {
    const calls: string[] = [];
    const chain = await runner(calls).runChain([{ toolId: 'add', args: { a: 1, b: 2 } }], { onProgress: () => undefined });
    expect(chain.result?.structured).toBe(3);
    expect(calls).toEqual(['add']);
  });
});

describe('steps runner.runChain cannot read', () => {
  it('a revoked proxy as the steps: INVALID_ARGUMENT "chain steps could not be read", nothing runs', async () => {
    const calls: string[] = [];
    const { proxy, revoke } = Proxy.revocable<ChainStep[]>([], {});
    revoke();
    const err = await rejectionOf(runner(calls).runChain(proxy));
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'run: chain steps could not be read' });
    expect(err.cause).toBeInstanceOf(TypeError);
    expect(calls).toEqual([]);
  });

  it('a step that cannot be read: INVALID_ARGUMENT naming the step (details.stepIndex), before any step runs', async () => {
    const calls: string[] = [];
    const exploded = new Error('index getter exploded');
    const steps = new Proxy([{ toolId: 'add', args: { a: 1, b: 1 } }, { toolId: 'add' }], {
      get(target, key, receiver) {
        if (key === '1') throw exploded;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const err = await rejectionOf(runner(calls).runChain(steps));
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'run: chain step 1 could not be read', details: { stepIndex: 1 } });
    expect(err.cause).toBe(exploded);
    expect(errorStatus(err)).toBe(400);
    expect(calls).toEqual([]);
  });
});

describe("runChain's options are checked whatever the steps", () => {
  it('an empty chain refuses unusable options as a one-step chain does (INVALID_ARGUMENT), and nothing runs', async () => {
    const calls: string[] = [];
    for (const options of [{ timeoutMs: -1 }, 'fast', { onProgress: 5 }]) {
      const oneStep = await rejectionOf(runner(calls).runChain([{ toolId: 'add', args: { a: 1, b: 2 } }], options as never));
      const empty = await rejectionOf(runner(calls).runChain([], options as never));
      expect(empty).toBeInstanceOf(ToolexecError);
      expect(empty.code).toBe('INVALID_ARGUMENT');
      expect(empty.message).toBe(oneStep.message);
    }
    expect(calls).toEqual([]);
    // Usable options still give the empty result.
    expect(await runner(calls).runChain([], { timeoutMs: 50 })).toEqual({ result: undefined, steps: [] });
  });
});
