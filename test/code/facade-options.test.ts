import { describe, expect, it } from 'vitest';
import { createExec, type LocalToolDefinition } from '../../src/exec/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { rejection } from './helpers.js';

const tools: LocalToolDefinition[] = [
  {
    tool: { name: 'add', namespace: 'math', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
    handler: (args) => (args.a as number) + (args.b as number),
  },
];

/** Code mode's defaults reached through createExec: tool calls, memory, queue bound and pool size. */
describe('createExec: code mode options', () => {
  it('applies maxToolCalls, memoryBytes, queueTimeoutMs and poolSize to the snippets it runs', async () => {
    const exec = createExec({ tools, maxToolCalls: 2, memoryBytes: 32 * 1024 * 1024, queueTimeoutMs: 150, poolSize: 1 });
    try {
      // the first snippet waits for the worker to start: that is queue time too
      const run = await exec.executeCode({ code: 'return 6 * 7', queueTimeoutMs: 15_000 });
      expect(run.value).toBe(42);
      expect(run.backend?.details).toMatchObject({ memoryBytes: 32 * 1024 * 1024 });
      const own = await exec.executeCode({ code: 'return 1', memoryBytes: 16 * 1024 * 1024 });
      expect(own.backend?.details).toMatchObject({ memoryBytes: 16 * 1024 * 1024 });

      const budget = await rejection(
        exec.executeCode({ code: "for (let i = 0; i < 3; i++) await tools.runTool('math:add', { a: i, b: 1 });" }),
      );
      expect(budget.code).toBe('LIMIT_EXCEEDED');
      expect(budget.details).toMatchObject({ limit: 'maxToolCalls', max: 2 });

      // one worker: the second snippet waits for the first, and its wait is bounded on its own
      const slow = exec.executeCode({ code: 'await new Promise((r) => setTimeout(r, 800)); return 1;' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const queued = await rejection(exec.executeCode({ code: 'return 2' }));
      expect(queued.code).toBe('LIMIT_EXCEEDED');
      expect(queued.details).toMatchObject({ limit: 'queue', queueTimeoutMs: 150 });
      expect((await slow).value).toBe(1);
    } finally {
      await exec.close();
    }
  }, 20_000);

  it('refuses a per-call limit above the runtime ceiling with INVALID_ARGUMENT, before the snippet runs', async () => {
    const exec = createExec({ tools });
    try {
      const memory = await rejection(exec.executeCode({ code: 'return 1', memoryBytes: 2 * 1024 * 1024 * 1024 }));
      expect(memory.code).toBe('INVALID_ARGUMENT');
      expect(memory.message).toBe('executeCode: invalid limits: memoryBytes 2147483648 is above the ceiling of 1073741824');
      expect(memory.details).toMatchObject({ field: 'memoryBytes', ceiling: 1024 * 1024 * 1024 });
      const time = await rejection(exec.executeCode({ code: 'return 1', timeoutMs: 3_600_000 }));
      expect(time.code).toBe('INVALID_ARGUMENT');
      expect(time.details).toMatchObject({ field: 'timeoutMs', ceiling: 600_000 });
    } finally {
      await exec.close();
    }
  });

  it('runs a call whose absolute deadline is beyond the ceiling with the ceiling as its timeout; a timeoutMs above it is still refused', async () => {
    const runtime = createRuntime({ wasm: { poolSize: 1, maxTimeoutMs: 1500 } });
    const exec = createExec({ tools, runtime, queueTimeoutMs: 1500 });
    try {
      const deadline = Date.now() + 3_600_000;
      expect((await exec.executeCode({ code: 'return 1', deadline })).value).toBe(1);
      const started = performance.now();
      const stopped = await rejection(exec.executeCode({ code: 'await new Promise((r) => setTimeout(r, 20_000));', deadline }));
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(stopped.code).toBe('LIMIT_EXCEEDED');
      expect(stopped.details).toMatchObject({ limit: 'timeout', timeoutMs: 1500 });
      const explicit = await rejection(exec.executeCode({ code: 'return 1', deadline, timeoutMs: 3_600_000 }));
      expect(explicit.code).toBe('INVALID_ARGUMENT');
      expect(explicit.details).toMatchObject({ field: 'timeoutMs', ceiling: 1500 });
    } finally {
      await exec.close();
      await runtime.close();
    }
  }, 20_000);

  it("lowers the executor's default timeout and queue bound to a runtime ceiling below them; values a call gives are still refused", async () => {
    // the executor's defaults are 30 s each, above this runtime's ceiling; the call sets neither
    const runtime = createRuntime({ wasm: { poolSize: 1, maxTimeoutMs: 1500 } });
    const exec = createExec({ tools, runtime });
    try {
      expect((await exec.executeCode({ code: 'return 1', deadline: Date.now() + 3_600_000 })).value).toBe(1);
      expect((await exec.executeCode({ code: 'return 2', timeoutMs: 1000 })).value).toBe(2);
      expect((await exec.executeCode({ code: 'return 3' })).value).toBe(3);
      const started = performance.now();
      const stopped = await rejection(exec.executeCode({ code: 'while (true) {}' }));
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(stopped.code).toBe('LIMIT_EXCEEDED');
      expect(stopped.message).toBe('limit exceeded: timeout after 1500 ms');
      const queue = await rejection(exec.executeCode({ code: 'return 1', queueTimeoutMs: 3000 }));
      expect(queue.code).toBe('INVALID_ARGUMENT');
      expect(queue.details).toMatchObject({ field: 'queueTimeoutMs', value: 3000, ceiling: 1500 });
      const time = await rejection(exec.executeCode({ code: 'return 1', timeoutMs: 3000 }));
      expect(time.code).toBe('INVALID_ARGUMENT');
      expect(time.details).toMatchObject({ field: 'timeoutMs', value: 3000, ceiling: 1500 });
    } finally {
      await exec.close();
      await runtime.close();
    }
  }, 20_000);

  it('refuses bad values and a poolSize next to a runtime of the caller (CONFIGURATION)', async () => {
    for (const options of [{ poolSize: 0 }, { poolSize: 65 }, { memoryBytes: -1 }, { queueTimeoutMs: Number.NaN }]) {
      expect(() => createExec({ tools, ...options }), JSON.stringify(options)).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
    }
    const runtime = createRuntime();
    try {
      expect(() => createExec({ tools, runtime, poolSize: 2 })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
    } finally {
      await runtime.close();
    }
  });
});
