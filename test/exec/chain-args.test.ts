/** exec.runChain and code mode's tools.runChain: a step's arguments taken from the previous step's result. */
import { afterAll, describe, expect, it } from 'vitest';
import { ExecChainError, createExec } from '../../src/exec/index.js';
import { localTools, rejection } from './helpers.js';

const exec = createExec({ tools: localTools().tools });
afterAll(() => exec.close());

describe('exec.runChain with argsFrom', () => {
  it("step 2's arguments come from step 1's result (JSON pointers)", async () => {
    const out = await exec.runChain([
      { toolId: 'test:greet', args: { name: 'World' } },
      { toolId: 'test:greet', argsFrom: { name: '/greeting' } },
    ]);
    expect(out.result.value).toEqual({ greeting: 'Hello, Hello, World!!' });
    expect(out.steps.map((s) => s.value)).toEqual([{ greeting: 'Hello, World!' }, { greeting: 'Hello, Hello, World!!' }]);
  });

  it('and from a function of the result', async () => {
    const out = await exec.runChain([
      { toolId: 'math:add', args: { a: 3, b: 4 } },
      { toolId: 'math:add', args: { b: 1 }, argsFrom: (previous) => ({ a: (previous as number) * 10 }) },
    ]);
    expect(out.result.value).toBe(71);
  });

  it('an unresolved pointer stops the chain with INVALID_ARGUMENT naming the pointer', async () => {
    const err = await rejection(
      exec.runChain([
        { toolId: 'test:greet', args: { name: 'World' } },
        { toolId: 'test:greet', argsFrom: { name: '/salutation' } },
      ]),
    );
    expect(err).toBeInstanceOf(ExecChainError);
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain("JSON pointer '/salutation' does not resolve");
    expect(err.details).toEqual({ argument: 'name', pointer: '/salutation', missing: '/salutation' });
  });

  it('a failing step names the arguments from the previous step', async () => {
    const err = await rejection(
      exec.runChain([
        { toolId: 'math:add', args: { a: 3, b: 4 } },
        { toolId: 'test:greet', argsFrom: { name: '' } },
      ]),
    );
    expect(err.code).toBe('VALIDATION');
    expect(err.message).toContain('(arguments from the previous step: name)');
    expect(err.details?.fromPrevious).toEqual(['name']);
  });
});

describe("code mode's tools.runChain with argsFrom (through the gateway)", () => {
  it('sends the pointer mapping across and runs step 2 on step 1’s result', async () => {
    const result = await exec.executeCode({
      code: `
        const out = await tools.runChain([
          { toolId: 'test:greet', args: { name: 'World' } },
          { toolId: 'test:greet', argsFrom: { name: '/greeting' } },
        ]);
        return out.result.structured;`,
    });
    expect(result.value).toEqual({ greeting: 'Hello, Hello, World!!' });
    // The trace records what each step ran with: step 2's name came from step 1's result.
    expect(result.toolCalls.map((call) => call.args)).toEqual([{ name: 'World' }, { name: 'Hello, World!' }]);
  });
});
