/**
 * What a snippet can do to the protocol channel (the guest's fd 1) and to its clock, on a real
 * Docker engine: raw writes are counted by bytes (never one error object per line), oversized
 * requests and replies fail the call with `PROTOCOL`, and the run's clock starts when the
 * container runs.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { createDockerBackend, createDirectGateway, createRuntime, type ToolGateway } from '../../../../src/runtime/index.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';
import { createExec } from '../../../../src/exec/index.js';
import { containersOf, ensureImage, skipDocker } from './engine.js';
import { ensurePythonImage, pythonRequest } from './python-engine.js';

const NINE_MIB = 9 * 1024 * 1024;

/** The contract gateway plus `test:big`, whose result is `n` characters. */
function bigResultGateway(): ToolGateway {
  const gateway = createDirectGateway(createContractFixture());
  return {
    searchTools: gateway.searchTools.bind(gateway),
    listNamespaces: gateway.listNamespaces.bind(gateway),
    describeTool: gateway.describeTool.bind(gateway),
    listToolExamples: gateway.listToolExamples.bind(gateway),
    runChain: gateway.runChain.bind(gateway),
    runTool: async (id, args, options) => {
      if (id !== 'test:big') return gateway.runTool(id, args, options);
      const result = await gateway.runTool('test:echo', {}, options);
      return { ...result, result: 'x'.repeat((args as { n: number }).n) };
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<{ code?: string; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a failure');
}

describe.skipIf(skipDocker)('docker protocol channel', () => {
  const backend = createDockerBackend();
  const gateway = bigResultGateway();
  afterAll(async () => {
    await backend.close();
    // this backend's own containers (other files' runs may be going on beside it)
    expect(await containersOf(backend.id)).toEqual([]);
  });

  it('counts short raw lines on fd 1 against the output limit, cheaply', async () => {
    await ensureImage();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = Date.now();
    const error = await failure(
      backend.execute({
        gateway,
        timeoutMs: 3000,
        code: 'const fs = await import("node:fs"); const s = "g\\n".repeat(32768); for (;;) fs.writeSync(1, s)',
      }),
    );
    delay.disable();
    expect(error.code).toBe('RESOURCE_LIMIT');
    expect(error.details).toMatchObject({ limit: 'output' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(delay.max / 1e6).toBeLessThan(500);
  }, 30_000);

  it('counts raw writes without a newline against the output limit', async () => {
    const started = Date.now();
    const error = await failure(
      backend.execute({
        gateway,
        timeoutMs: 8000,
        code: 'const fs = await import("node:fs"); for (;;) fs.writeSync(1, "y".repeat(65536))',
      }),
    );
    expect(error.code).toBe('RESOURCE_LIMIT');
    expect(error.details).toMatchObject({ limit: 'output' });
    expect(Date.now() - started).toBeLessThan(6000);
  }, 30_000);

  it('keeps raw text glued in front of a message as stdout, and the message', async () => {
    const result = await backend.execute({
      gateway,
      code: 'const fs = await import("node:fs"); fs.writeSync(1, "raw"); console.log("after"); return 1',
    });
    expect(result.value).toBe(1);
    expect(result.stdout).toBe('rawafter\n');
  }, 30_000);

  it('refuses an oversized tool-call argument as a catchable PROTOCOL error, nothing in stdout', async () => {
    const result = await backend.execute({
      gateway,
      code: `try { await tools.runTool("test:add", { a: 1, pad: "x".repeat(${NINE_MIB}) }) } catch (e) { return [e.code, e.message] } return "no error"`,
    });
    expect(result.value).toEqual(['PROTOCOL', expect.stringMatching(/exceeds the 8388608-byte limit/)]);
    expect(result.stdout).toBe('');
  }, 30_000);

  it('refuses an oversized tool-call argument from Python the same way: a catchable PROTOCOL error, nothing in stdout', async () => {
    await ensurePythonImage();
    const big = `{"a": 1, "pad": "x" * ${NINE_MIB}}`;
    const caught = await backend.execute(
      pythonRequest(
        `try:\n    tools.run_tool("test:add", ${big})\nexcept tools.ToolError as e:\n    result = [e.code, e.message, e.details]\nresult`,
      ),
    );
    expect(caught.value).toEqual([
      'PROTOCOL',
      expect.stringMatching(/^runtime: protocol error: message of \d+ bytes exceeds the 8388608-byte limit$/),
      { bytes: expect.any(Number), maxMessageBytes: 8388608 },
    ]);
    expect(caught.stdout).toBe('');
    // uncaught, the run fails as the node guest's does: the snippet's error (a code the host did not
    // raise is not taken from the guest), never as output over the limit
    for (const request of [
      pythonRequest(`tools.run_tool("test:add", ${big})`),
      { gateway, code: `await tools.runTool("test:add", { a: 1, pad: "x".repeat(${NINE_MIB}) }); return 1` },
    ]) {
      const error = await failure(backend.execute(request));
      expect(error.code).toBe('CODE_EXECUTION');
      expect(error.message).toMatch(/protocol error: message of \d+ bytes exceeds the 8388608-byte limit/);
    }
  }, 60_000);

  it('fails an uncaught oversized tool result with the call code (PROTOCOL)', async () => {
    const caught = await backend.execute({
      gateway,
      code: `try { await tools.runTool("test:big", { n: ${NINE_MIB} }) } catch (e) { return e.code }`,
    });
    expect(caught.value).toBe('PROTOCOL');
    const error = await failure(backend.execute({ gateway, code: `await tools.runTool("test:big", { n: ${NINE_MIB} }); return 1` }));
    expect(error.code).toBe('PROTOCOL');
  }, 30_000);

  it('starts the code executor clock when the container runs, not before', async () => {
    const runtime = createRuntime({ backends: { standard: backend, hardened: backend } });
    const exec = createExec({ runtime });
    try {
      let startedAt = 0;
      const called = Date.now();
      const result = await runtime.execute({ gateway, code: 'return 1', onStart: () => (startedAt = Date.now()) });
      expect(result.value).toBe(1);
      expect(startedAt).toBeGreaterThan(called);
      // the snippet spends nearly all of its timeout by its own clock; container start-up is not counted
      const code = 'const t = Date.now(); while (Date.now() - t < 1700) {} return "done"';
      const outcome = await exec.executeCode({ code, timeoutMs: 2000 });
      expect(outcome.value).toBe('done');
    } finally {
      await exec.close();
    }
  }, 30_000);
});
