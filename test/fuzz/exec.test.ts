/**
 * The facade, code mode and runtime requests, given anything: every promise-returning method
 * never throws synchronously and settles with a value or a ToolexecError; createExec and
 * createCodeExecutor throw only ToolexecErrors. Snippets run in the real WASM sandbox (npm run build first).
 */
import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { createCodeExecutor } from '../../src/code/index.js';
import { createDocStore, createToolIndex } from '../../src/discovery/index.js';
import { createExec } from '../../src/exec/index.js';
import { createRunner } from '../../src/run/index.js';
import { createDirectGateway, createRuntime } from '../../src/runtime/index.js';
import { FUZZ_RUNS, expectAsyncContract, expectStreamContract, expectSyncContract, hostile, materialize } from './hostile.js';

const exec = createExec({
  tools: [
    {
      tool: { name: 'echo', namespace: 'fz', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      handler: (args) => args,
    },
  ],
});
const index = createToolIndex();
const docs = createDocStore({ index });
const runner = createRunner({ index });
const runtime = createRuntime();
const gateway = createDirectGateway({ index, docs, runner });
afterAll(async () => {
  await exec.close();
  await runtime.close?.();
});

const toolIds = fc.oneof(hostile, fc.constant('fz:echo'));
/** Snippet parameters: hostile, or a real snippet with hostile options. */
const codeParams = fc.oneof(
  hostile,
  fc.record({
    code: fc.constantFrom('return 1', 'return await tools.runTool("fz:echo", { a: 1 })'),
    timeoutMs: hostile,
    deadline: hostile,
    signal: hostile,
  }),
);

const asyncCalls: Array<[string, fc.Arbitrary<unknown[]>, (...args: unknown[]) => unknown]> = [
  ['exec.runTool', fc.tuple(toolIds, hostile, hostile), (id, args, options) => exec.runTool(id as string, args as never, options as never)],
  ['exec.runChain', fc.tuple(hostile, hostile), (steps, options) => exec.runChain(steps as never, options as never)],
  ['exec.searchTools', fc.tuple(hostile, hostile), (query, limit) => exec.searchTools(query as string, limit as number)],
  ['exec.getToolDoc', fc.tuple(toolIds, hostile), (id, level) => exec.getToolDoc(id as string, level as never)],
  ['exec.connect', fc.tuple(hostile), (options) => exec.connect(options as never)],
  ['exec.executeCode', fc.tuple(codeParams), (params) => exec.executeCode(params as never)],
  ['runtime.execute', fc.tuple(hostile), (request) => runtime.execute(request as never)],
  [
    'runtime.execute with a gateway',
    fc.tuple(
      fc.record({
        code: fc.oneof(hostile, fc.constant('return 1')),
        timeoutMs: hostile,
        limits: hostile,
        profile: hostile,
        metadata: hostile,
        strict: hostile,
      }),
    ),
    (fields) => runtime.execute({ ...(fields as object), gateway } as never),
  ],
];

describe('toolexec (facade), code mode and runtime requests under hostile input', () => {
  it('createExec and createCodeExecutor: an object or a ToolexecError', () => {
    fc.assert(
      fc.property(hostile, (a) => {
        const options = materialize(a);
        expectSyncContract('createExec', () => createExec(options as never));
        expectSyncContract('createCodeExecutor', () => createCodeExecutor(options as never));
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  for (const [label, args, call] of asyncCalls) {
    it(`${label}: never a synchronous throw; a value or a ToolexecError`, async () => {
      await fc.assert(
        fc.asyncProperty(args, (values) => expectAsyncContract(label, () => call(...values.map((v) => materialize(v))))),
        { numRuns: FUZZ_RUNS },
      );
    });
  }

  it('exec.runToolStream: events, or a ToolexecError', async () => {
    await fc.assert(
      fc.asyncProperty(toolIds, hostile, hostile, (id, args, options) =>
        expectStreamContract('runToolStream', () =>
          exec.runToolStream(materialize(id) as string, materialize(args) as never, materialize(options) as never),
        ),
      ),
      { numRuns: FUZZ_RUNS },
    );
  });
});
