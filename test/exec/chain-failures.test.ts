/**
 * What `exec.runChain` blames on the caller: only steps it cannot read are INVALID_ARGUMENT, and
 * they are refused before any step runs. Anything else thrown inside the chain that is not a
 * library error (a bug) gets the code `runTool` gives the same failure: EXECUTION (502), the thrown
 * error as `cause`. A telemetry context manager of the service's own that throws costs the trace
 * context only.
 */
import { ROOT_CONTEXT, context, trace, type ContextManager } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExec, type DefaultExec, type Step } from '../../src/exec/index.js';
import { ToolexecError, errorStatus } from '../../src/model/index.js';
import { unexpectedFailure } from '../../src/exec/server-failures.js';
import { localTools, rejection } from './helpers.js';

const open: DefaultExec[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

function exec(): { e: DefaultExec; calls: Record<string, number> } {
  const { tools, calls } = localTools();
  const e = createExec({ tools });
  open.push(e);
  return { e, calls };
}

describe('a chain whose steps cannot be read', () => {
  it('a step whose getter throws: INVALID_ARGUMENT naming the step, before any step runs', async () => {
    const { e, calls } = exec();
    const exploded = new Error('stopOnError getter exploded');
    const bad = Object.defineProperty({ toolId: 'math:add', args: { a: 1, b: 2 } }, 'stopOnError', {
      get(): never {
        throw exploded;
      },
    });
    const error = await rejection(e.runChain([{ toolId: 'math:add', args: { a: 1, b: 1 } }, bad]));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'exec: chain step 1 could not be read', details: { stepIndex: 1 } });
    expect(error.cause).toBe(exploded);
    expect(errorStatus(error)).toBe(400);
    // refused up front: step 0 never ran
    expect(calls.add).toBeUndefined();
  });

  it('a revoked proxy as a step, or as the steps: INVALID_ARGUMENT, nothing runs', async () => {
    const { e, calls } = exec();
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(await rejection(e.runChain([{ toolId: 'math:add', args: { a: 1, b: 1 } }, proxy as Step]))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'exec: chain step 1 could not be read',
    });
    expect(await rejection(e.runChain(proxy as Step[]))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'exec: chain steps could not be read',
    });
    expect(calls.add).toBeUndefined();
  });

  it('every step field is read once, and the chain runs on what was read', async () => {
    const { e } = exec();
    const reads: Record<string, number> = {};
    const step = {};
    for (const [field, values] of Object.entries({
      toolId: ['math:add', 'test:fail'],
      args: [
        { a: 2, b: 3 },
        { a: 0, b: 0 },
      ],
    })) {
      Object.defineProperty(step, field, {
        enumerable: true,
        get: () => values[Math.min((reads[field] = (reads[field] ?? 0) + 1) - 1, 1)],
      });
    }
    const { result, steps } = await e.runChain([step as Step]);
    expect(result).toMatchObject({ toolId: 'math:add', value: 5 });
    expect(steps[0]).toMatchObject({ toolId: 'math:add', args: { a: 2, b: 3 }, value: 5 });
    expect(reads).toEqual({ toolId: 1, args: 1 });
  });
});

/** A context manager (the service's own, registered with the OpenTelemetry API) that throws. */
const throwingManager: ContextManager = {
  active: () => ROOT_CONTEXT,
  with: () => {
    throw new Error('context manager exploded');
  },
  bind: <T>(_context: unknown, target: T): T => target,
  enable() {
    return this;
  },
  disable() {
    return this;
  },
};

describe("a context manager of the service's own that throws", () => {
  beforeAll(() => {
    context.setGlobalContextManager(throwingManager);
    trace.setGlobalTracerProvider(new TracerProvider());
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });

  it('costs the trace context only: runChain, runTool and runToolStream run, each tool once', async () => {
    const { e, calls } = exec();
    const chain = await e.runChain([{ toolId: 'math:add', args: { a: 1, b: 2 } }]);
    expect(chain.result).toMatchObject({ toolId: 'math:add', value: 3 });
    const run = await e.runTool('math:add', { a: 1, b: 2 });
    expect(run.value).toBe(3);
    const kinds: string[] = [];
    for await (const event of e.runToolStream('math:add', { a: 1, b: 2 })) kinds.push(event.kind);
    expect(kinds).toContain('done');
    expect(calls.add).toBe(3);
  });
});

// No input reaches the facade's last resort (a library error by then), so it is checked on its own.
describe("the facade's last resort for a failure that is nobody's input", () => {
  it('is EXECUTION (502), "<method> failed: unexpected failure: <message>", the thrown error as cause; never INVALID_ARGUMENT', () => {
    const bug = new TypeError('emit is not a function');
    for (const method of ['runTool', 'runChain', 'runToolStream']) {
      const error = unexpectedFailure(method, bug);
      expect(ToolexecError.isInstance(error)).toBe(true);
      expect(error.code).toBe('EXECUTION');
      expect(errorStatus(error)).toBe(502);
      expect(error.message).toBe(`exec: ${method} failed: unexpected failure: emit is not a function`);
      expect(error.cause).toBe(bug);
    }
    const known = new ToolexecError('TIMEOUT', 'late');
    expect(unexpectedFailure('runTool', known)).toBe(known);
  });
});

describe("a chain's options are checked whatever the steps", () => {
  it('an empty chain refuses an onProgress that is not a function, as a chain with steps does', async () => {
    const { e, calls } = exec();
    const options = { onProgress: 5 } as never;
    const withSteps = await rejection(e.runChain([{ toolId: 'math:add', args: { a: 1, b: 2 } }], options));
    const empty = await rejection(e.runChain([], options));
    expect(withSteps.code).toBe('INVALID_ARGUMENT');
    expect(empty).toMatchObject({ code: 'INVALID_ARGUMENT', message: withSteps.message });
    expect(calls).toEqual({});
  });
});
