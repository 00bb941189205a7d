/**
 * The runner runs a validator's compiled schema tests (`SCHEMA_TESTS` on the checks of `forTool`)
 * before its checks, and calls a check only when the test does not say yes. Every way through
 * the runner is covered: the first call (resolved on the way), repeated calls (the resolution
 * cache's short path) and calls with a deadline (the general path).
 */
import { describe, expect, it } from 'vitest';
import {
  SCHEMA_TESTS,
  ToolexecError,
  createSchemaValidator,
  type SchemaValidator,
  type TestedSchemaChecks,
  type Tool,
  type ToolSchemaChecks,
} from '../../src/model/index.js';
import { createRunner, type LocalHandler, type RunOptions, type ToolError } from '../../src/run/index.js';
import { indexWith, localBackend, rejectionOf, tool } from './helpers.js';

/** Each call path: the first call, a repeated (cached) call, and a call with a deadline. */
const PATHS: readonly { name: string; options: RunOptions | undefined }[] = [
  { name: 'plain', options: undefined },
  { name: 'with a deadline', options: { timeoutMs: 5_000 } },
];
const CALLS_PER_PATH = 3;

interface Counts {
  inputTest: number;
  outputTest: number;
  inputCheck: number;
  outputCheck: number;
}

const INPUT_CONTEXT = { input: true };
const OUTPUT_CONTEXT = { output: true };

/**
 * A validator whose checks carry tests that answer `verdict()`; the checks throw `checkError`
 * when it is set. The plain methods must not be used.
 */
function testedValidator(verdict: () => unknown, checkError?: () => Error): { validator: SchemaValidator; counts: Counts } {
  const counts: Counts = { inputTest: 0, outputTest: 0, inputCheck: 0, outputCheck: 0 };
  const countingTest = (count: 'inputTest' | 'outputTest', context: object) => ({
    test: (_value: unknown, given: unknown) => {
      counts[count]++;
      expect(given).toBe(context);
      return verdict() as boolean;
    },
    context,
  });
  const checks: TestedSchemaChecks = {
    validateInput() {
      counts.inputCheck++;
      if (checkError !== undefined) throw checkError();
    },
    validateOutput() {
      counts.outputCheck++;
      if (checkError !== undefined) throw checkError();
    },
    [SCHEMA_TESTS]: { input: countingTest('inputTest', INPUT_CONTEXT), output: countingTest('outputTest', OUTPUT_CONTEXT) },
  };
  const unused = (): never => {
    throw new Error('the plain methods are not used when forTool gives checks');
  };
  return { validator: { validateInput: unused, validateOutput: unused, validate: unused, forTool: () => checks }, counts };
}

function runnerWith(validator: SchemaValidator, handler: LocalHandler = () => ({ ok: true })) {
  const index = indexWith([tool('t', { outputSchema: { type: 'object' } }), localBackend('h')]);
  return createRunner({ index, local: { h: handler }, validator });
}

describe('compiled schema tests before the checks', () => {
  it.each(PATHS)('a yes from the test skips the check ($name)', async ({ options }) => {
    const { validator, counts } = testedValidator(() => true);
    const runner = runnerWith(validator);
    for (let i = 0; i < CALLS_PER_PATH; i++) expect((await runner.run('t', { n: i }, options)).structured).toEqual({ ok: true });
    expect(counts).toEqual({ inputTest: CALLS_PER_PATH, outputTest: CALLS_PER_PATH, inputCheck: 0, outputCheck: 0 });
  });

  it.each(PATHS)('anything but true from the test (false, 1, a throw) leaves the verdict to the check ($name)', async ({ options }) => {
    const answers: (() => unknown)[] = [
      () => false,
      () => 1,
      () => 'yes',
      () => {
        throw new RangeError('Maximum call stack size exceeded');
      },
    ];
    for (const answer of answers) {
      // The check passes: the call succeeds although the test did not say yes.
      const passing = testedValidator(answer);
      const runner = runnerWith(passing.validator);
      for (let i = 0; i < CALLS_PER_PATH; i++) await runner.run('t', {}, options);
      expect(passing.counts).toEqual({
        inputTest: CALLS_PER_PATH,
        outputTest: CALLS_PER_PATH,
        inputCheck: CALLS_PER_PATH,
        outputCheck: CALLS_PER_PATH,
      });

      // The check fails: its error is the call's, at the input step.
      const failing = testedValidator(answer, () => new ToolexecError('VALIDATION', "validation error: Field '/n' is required"));
      const rejecting = runnerWith(failing.validator);
      for (let i = 0; i < CALLS_PER_PATH; i++) {
        const err = (await rejectionOf(rejecting.run('t', {}, options))) as ToolError;
        expect(err.code).toBe('VALIDATION');
        expect(err.op).toBe('validate_input');
        expect(err.message).toContain("Field '/n' is required");
        expect(ToolexecError.isInstance(err.cause) && err.cause.code).toBe('VALIDATION');
      }
      expect(failing.counts.outputCheck).toBe(0);
    }
  });

  it.each(PATHS)('tests that cannot be read or are not functions are ignored: the checks alone decide ($name)', async ({ options }) => {
    const shapes: ((checks: ToolSchemaChecks) => void)[] = [
      (checks) =>
        Object.defineProperty(checks, SCHEMA_TESTS, {
          get() {
            throw new Error('tests getter exploded');
          },
        }),
      (checks) => Object.assign(checks, { [SCHEMA_TESTS]: null }),
      (checks) => Object.assign(checks, { [SCHEMA_TESTS]: { input: { test: 'yes' }, output: null } }),
      (checks) => Object.assign(checks, { [SCHEMA_TESTS]: 42 }),
    ];
    for (const shape of shapes) {
      let inputChecks = 0;
      let outputChecks = 0;
      const validator: SchemaValidator = {
        validateInput: () => undefined,
        validateOutput: () => undefined,
        validate: () => undefined,
        forTool() {
          const checks: ToolSchemaChecks = {
            validateInput: () => void inputChecks++,
            validateOutput: () => {
              outputChecks++;
              throw new ToolexecError('OUTPUT_VALIDATION', 'output validation error: nope');
            },
          };
          shape(checks);
          return checks;
        },
      };
      const runner = runnerWith(validator);
      for (let i = 0; i < CALLS_PER_PATH; i++) {
        const err = (await rejectionOf(runner.run('t', {}, options))) as ToolError;
        expect(err.code).toBe('OUTPUT_VALIDATION');
        expect(err.op).toBe('validate_output');
      }
      expect([inputChecks, outputChecks]).toEqual([CALLS_PER_PATH, CALLS_PER_PATH]);
    }
  });

  it.each(PATHS)('an undefined result is never tested: the check gives it its meaning, null ($name)', async ({ options }) => {
    // Ajv's compiled test accepts `undefined` for `not: {type: null}`; the check validates null.
    // (Not an MCP-shaped output schema, which says `type: 'object'`; the runner takes any schema.)
    const outputSchema = { not: { type: 'null' } } as unknown as NonNullable<Tool['outputSchema']>;
    const validator = createSchemaValidator();
    const checks = validator.forTool?.(tool('t', { outputSchema })) as TestedSchemaChecks;
    const output = checks[SCHEMA_TESTS].output;
    expect(output?.test(undefined, output.context as never)).toBe(true);

    const index = indexWith([tool('t', { outputSchema }), localBackend('h')]);
    const runner = createRunner({ index, local: { h: () => undefined }, validator });
    for (let i = 0; i < CALLS_PER_PATH; i++) {
      const err = (await rejectionOf(runner.run('t', {}, options))) as ToolError;
      expect(err.code).toBe('OUTPUT_VALIDATION');
      expect(err.message).toContain("Field '(root)'");
    }
  });

  it.each(PATHS)(
    'with the default validator, arguments that throw while tested fail as VALIDATION naming the cause ($name)',
    async ({ options }) => {
      const inputSchema = { type: 'object' as const, properties: { n: { type: 'integer' } }, required: ['n'] };
      const index = indexWith([tool('t', { inputSchema, outputSchema: { type: 'object' } }), localBackend('h')]);
      let handlerCalls = 0;
      const runner = createRunner({
        index,
        local: {
          h: () => {
            handlerCalls++;
            return {};
          },
        },
      });
      // Valid arguments first, so that later calls take the cached short path.
      await runner.run('t', { n: 1 }, options);
      const hostile = Object.defineProperty({}, 'n', {
        enumerable: true,
        get() {
          throw new Error('getter exploded');
        },
      });
      for (let i = 0; i < CALLS_PER_PATH; i++) {
        const err = (await rejectionOf(runner.run('t', hostile, options))) as ToolError;
        expect(err.code).toBe('VALIDATION');
        expect(err.op).toBe('validate_input');
        expect(err.message).toContain('could not be validated: getter exploded');
      }
      expect(handlerCalls).toBe(1);
      // Invalid arguments are explained by the check after the test said no.
      const invalid = (await rejectionOf(runner.run('t', { n: 'x' }, options))) as ToolError;
      expect(invalid.code).toBe('VALIDATION');
      expect(invalid.message).toBe("run: validate_input t [local]: validation error: Field '/n' must be integer, got string");
    },
  );
});
