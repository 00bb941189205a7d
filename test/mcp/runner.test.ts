import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { hasErrorCode, type ToolexecError } from '../../src/model/index.js';
import { type SdkMcpExecutor, createMcpExecutor } from '../../src/mcp/index.js';
import { type ProgressEvent, type Runner, type StreamEvent, ToolError, createRunner } from '../../src/run/index.js';
import { FIXTURE_TOOLS } from '../fixtures/mcp/fixture-server.mjs';
import {
  activeResources,
  expectNoLeakedResources,
  inMemoryFixture,
  isProcessAlive,
  jsonText,
  rejection,
  stdioFixture,
  waitUntil,
} from './helpers.js';

interface Stats {
  pid: number;
  calls: number;
  cancelled: number;
}

let baseline: Map<string, number>;
let executor: SdkMcpExecutor;
let runner: Runner;

async function stats(): Promise<Stats> {
  return jsonText<Stats>(await executor.callTool('fx', { name: 'stats' }));
}

beforeAll(async () => {
  baseline = activeResources();
  executor = createMcpExecutor({ servers: { fx: stdioFixture() } });
  const index = createToolIndex();
  expect(await executor.importTools(index)).toBe(FIXTURE_TOOLS.length);
  runner = createRunner({ index, mcp: executor });
});

afterAll(async () => {
  await executor.close();
});

describe('runner over the MCP executor', () => {
  it('calls the tool by its MCP name and normalizes text content', async () => {
    const result = await runner.run('fx:echo', { text: 'hello' });
    expect(result.structured).toBe('hello');
    expect(result.backend).toEqual({ kind: 'mcp', mcp: { serverName: 'fx' } });
    expect(result.tool.name).toBe('echo');
    expect(result.tool.namespace).toBe('fx');
    expect(result.mcpResult?.content).toEqual([{ type: 'text', text: 'hello' }]);
  });

  it('returns structuredContent validated against the outputSchema', async () => {
    const result = await runner.run('fx:structured', { a: 2, b: 3 });
    expect(result.structured).toEqual({ sum: 5 });
  });

  it('validates input before calling the server', async () => {
    const before = (await stats()).calls;
    const error = await rejection(runner.run('fx:structured', { a: 'two', b: 3 }));
    expect(error.code).toBe('VALIDATION');
    expect((await stats()).calls).toBe(before + 1);
  });

  it('fails bad structured output with OUTPUT_VALIDATION', async () => {
    const error = await rejection(runner.run('fx:bad_output', {}));
    expect(error.code).toBe('OUTPUT_VALIDATION');
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).op).toBe('validate_output');
    expect(error.message).toContain('sum');
  });

  it('turns an isError result into EXECUTION carrying the server text', async () => {
    const error = await rejection(runner.run('fx:fail', { reason: 'quota exceeded' }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('something broke: quota exceeded');
  });

  it('ends a call the same way with no options and with a deadline', async () => {
    const outcome = async (call: Promise<unknown>): Promise<unknown> =>
      call.then(
        (result) => ({ ok: result }),
        (error: ToolError) => ({
          code: error.code,
          op: error.op,
          toolId: error.toolId,
          backend: error.backend,
          message: error.message,
          causeCode: (error.cause as ToolexecError | undefined)?.code,
        }),
      );
    const missing = createToolIndex();
    missing.registerToolsFromMcp('nowhere', [{ name: 'echo', inputSchema: { type: 'object' } }]);
    const unknownServer = createRunner({ index: missing, mcp: executor });
    for (const [r, id, args] of [
      [runner, 'fx:echo', { text: 'hello' }],
      [runner, 'fx:structured', { a: 2, b: 3 }],
      [runner, 'fx:bad_output', {}],
      [runner, 'fx:fail', { reason: 'quota exceeded' }],
      [runner, 'fx:throw', {}],
      [unknownServer, 'nowhere:echo', { text: 'x' }],
    ] as const) {
      const settled = await outcome(r.run(id, args));
      expect(settled).toEqual(await outcome(r.run(id, args, { timeoutMs: 10_000 })));
      expect(settled).toEqual(await outcome(r.run(id, args, { signal: new AbortController().signal })));
    }
    // The failures keep their codes and ops: the tool's isError and bad output are not executor errors.
    expect(await outcome(runner.run('fx:bad_output', {}))).toMatchObject({ code: 'OUTPUT_VALIDATION', op: 'validate_output' });
    expect(await outcome(runner.run('fx:fail', { reason: 'q' }))).toMatchObject({ code: 'EXECUTION', op: 'execute' });
    expect(await outcome(runner.run('fx:throw', {}))).toMatchObject({ code: 'EXECUTION', op: 'execute', causeCode: 'EXECUTION' });
    expect(await outcome(unknownServer.run('nowhere:echo', { text: 'x' }))).toMatchObject({
      code: 'EXECUTION',
      op: 'execute',
      causeCode: 'CONFIGURATION',
    });
  });

  it('reports progress between started and completed', async () => {
    const events: ProgressEvent[] = [];
    const result = await runner.run('fx:progress', { steps: 3, delayMs: 5 }, { onProgress: (p) => events.push(p) });
    expect(result.structured).toBe('done 3');
    expect(events).toEqual([
      { progress: 0, total: 1, message: 'started' },
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
      { progress: 1, total: 1, message: 'completed' },
    ]);
  });

  it('keeps the last progress report when the result follows it at once', async () => {
    const events: ProgressEvent[] = [];
    await runner.run('fx:progress', { steps: 20, delayMs: 0 }, { onProgress: (p) => events.push(p) });
    expect(events.filter((e) => e.message?.startsWith('step')).map((e) => e.progress)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('streams progress then done', async () => {
    const events: StreamEvent[] = [];
    for await (const event of runner.runStream('fx:progress', { steps: 2, delayMs: 5 })) events.push(event);
    expect(events.map((e) => e.kind)).toEqual(['progress', 'progress', 'done']);
    expect(events[0]).toMatchObject({ toolId: 'fx:progress', data: { progress: 1, total: 2 } });
    expect(events[2]).toMatchObject({ toolId: 'fx:progress', data: 'done 2' });
  });

  it('aborts through the runner: ABORTED, and the server cancels', async () => {
    const before = (await stats()).cancelled;
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 100);
    const error = await rejection(runner.run('fx:slow', { ms: 10_000 }, { signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
    expect(await waitUntil(async () => (await stats()).cancelled === before + 1)).toBe(true);
  });

  it('times out through the runner: TIMEOUT', async () => {
    const error = await rejection(runner.run('fx:hang', {}, { timeoutMs: 200 }));
    expect(hasErrorCode(error, 'TIMEOUT')).toBe(true);
  });

  it("keeps the executor's own timeout (a server that stopped answering) a TIMEOUT, with the executor's error as cause", async () => {
    // In memory, so that connecting fits in 250 ms however busy the machine is.
    const impatient = createMcpExecutor({ servers: { fx: inMemoryFixture().config }, requestTimeoutMs: 250 });
    try {
      const index = createToolIndex();
      await impatient.importTools(index);
      const error = await rejection(createRunner({ index, mcp: impatient }).run('fx:hang', {}));
      expect(error.code).toBe('TIMEOUT');
      expect(ToolError.isToolError(error) && error.op).toBe('execute');
      expect(error.message).toContain('MCP server "fx"');
      expect(error.cause).toMatchObject({ code: 'TIMEOUT' });
    } finally {
      await impatient.close();
    }
  });

  it('reports a crash as EXECUTION naming the server, then the next run reconnects', async () => {
    const { pid } = await stats();
    const error = await rejection(runner.run('fx:crash', {}));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('MCP server "fx"');
    expect(error.message).toContain('crash requested');
    expect((await runner.run('fx:echo', { text: 'back' })).structured).toBe('back');
    expect((await stats()).pid).not.toBe(pid);
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('leaves no process, socket or timer behind', async () => {
    const { pid } = await stats();
    await executor.close();
    expect(await waitUntil(() => !isProcessAlive(pid), 2000)).toBe(true);
    await expectNoLeakedResources(baseline);
  });
});
