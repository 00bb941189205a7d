/**
 * The runner (and the backend registry it dispatches through), given anything: `run` and
 * `runChain` never throw synchronously and settle with a value or a ToolexecError; a stream's
 * iteration fails only with a ToolexecError; `createRunner` throws only ToolexecErrors.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { createBackendRegistry, createLocalBackend, formatBackendToolId } from '../../src/backend/index.js';
import { createToolIndex } from '../../src/discovery/index.js';
import { localBackend, type Tool } from '../../src/model/index.js';
import { createRunner } from '../../src/run/index.js';
import { FUZZ_RUNS, expectAsyncContract, expectStreamContract, expectSyncContract, hostile, materialize } from './hostile.js';

const index = createToolIndex();
const echo: Tool = { name: 'echo', namespace: 'fz', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
index.registerTool(echo, localBackend('echo'));
index.registerTool({ name: 'slow', namespace: 'fz', inputSchema: { type: 'object' } }, localBackend('slow'));
const runner = createRunner({
  index,
  local: {
    echo: (args) => args,
    slow: (_args, ctx) =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, 20, 'late');
        ctx.signal.addEventListener('abort', () => clearTimeout(timer));
      }),
  },
});
/** A tool ID the runner knows, often, so that calls get past resolution. */
const toolIds = fc.oneof(hostile, fc.constantFrom('fz:echo', 'fz:slow'));

describe('toolexec/run under hostile input', () => {
  it('createRunner: a runner or a ToolexecError', () => {
    fc.assert(
      fc.property(hostile, (a) => expectSyncContract('createRunner', () => createRunner(materialize(a) as never))),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('runner.run: never a synchronous throw; a value or a ToolexecError', async () => {
    await fc.assert(
      fc.asyncProperty(toolIds, hostile, hostile, (id, args, options) =>
        expectAsyncContract('run', () => runner.run(materialize(id) as string, materialize(args) as never, materialize(options) as never)),
      ),
      { numRuns: FUZZ_RUNS * 2 },
    );
  });

  it('runner.runChain: never a synchronous throw; a value or a ToolexecError', async () => {
    const steps = fc.oneof(
      hostile,
      fc.array(fc.record({ toolId: toolIds, args: hostile, usePrevious: hostile, argsFrom: hostile }), { maxLength: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(steps, hostile, (s, options) =>
        expectAsyncContract('runChain', () => runner.runChain(materialize(s) as never, materialize(options) as never)),
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('runner.runStream: events, or a ToolexecError', async () => {
    await fc.assert(
      fc.asyncProperty(toolIds, hostile, hostile, (id, args, options) =>
        expectStreamContract('runStream', () =>
          runner.runStream(materialize(id) as string, materialize(args) as never, materialize(options) as never),
        ),
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('the backend registry and local backends: a value or a ToolexecError', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostile, hostile, async (a, b, c) => {
        const [x, y, z] = [materialize(a), materialize(b), materialize(c)];
        const registry = createBackendRegistry();
        expectSyncContract('registry.register', () => registry.register(x as never));
        expectSyncContract('createLocalBackend', () => createLocalBackend(x as string));
        expectSyncContract('formatBackendToolId', () => formatBackendToolId(x as string, y as string));
        const local = createLocalBackend('b');
        expectSyncContract('local.registerHandler', () => local.registerHandler(x as string, y as never));
        registry.register(local);
        await expectAsyncContract('registry.execute', () => registry.execute(x as string, y as string, z as never));
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});
