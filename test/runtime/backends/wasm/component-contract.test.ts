/**
 * The parts of the runtime backend contract (src/testing/runtime-contract.ts) that apply to a
 * component rather than a JavaScript snippet: request checks in the runtime's order, failures with
 * their codes and partial results, tool calls traced and budgeted, limits, timeouts and aborts,
 * the backend description, and concurrent runs kept apart. (Console output, `__out`, TypeScript
 * and snippet line numbers have no counterpart in a component.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasErrorCode } from '../../../../src/model/index.js';
import { createWasmBackend, type WasmBackend } from '../../../../src/runtime/backends/wasm/index.js';
import { createDirectGateway, type ExecuteRequest, type ExecuteResult, type ToolGateway } from '../../../../src/runtime/index.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';
import { callToolBody, constantBody, jsComponent, runawayBody, watComponent } from './component-guests.js';

type Failure = Error & { code?: string; details?: Record<string, unknown> & { result?: ExecuteResult } };

async function failure(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected the run to fail');
}

const gateway = (): ToolGateway => createDirectGateway(createContractFixture());

describe('runtime backend contract, as it applies to components: wasm', () => {
  let backend: WasmBackend;
  let echo: Uint8Array;
  let budgetCatcher: Uint8Array;
  const run = (component: Uint8Array, extra: Partial<ExecuteRequest> = {}) =>
    backend.execute({ code: '', gateway: gateway(), ...extra, metadata: { wasm_component: component, ...extra.metadata } });

  beforeAll(async () => {
    backend = createWasmBackend({ poolSize: 2 });
    echo = await watComponent(callToolBody('test:echo'));
    // calls past its budget, swallows the error and reports success
    budgetCatcher = await jsComponent(`
      import { callTool } from 'toolexec:sandbox/host@0.1.0';
      export function run() {
        const errors = [];
        for (let i = 0; i < 4; i++) { try { callTool('test:echo', '{}'); } catch (e) { errors.push(String(e.payload ?? e)); } }
        return JSON.stringify({ caught: errors });
      }`);
  }, 60_000);
  afterAll(async () => {
    await backend.close();
  });

  it('checks the request first: aborted signal, gateway, limits', async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await failure(run(echo, { signal: controller.signal }))).code).toBe('ABORTED');
    const noGateway = await failure(backend.execute({ code: '', metadata: { wasm_component: echo } } as unknown as ExecuteRequest));
    expect(noGateway.code).toBe('MISSING_GATEWAY');
    const badLimits = await failure(run(echo, { limits: { maxToolCalls: -1 } }));
    expect(badLimits.code).toBe('INVALID_LIMITS');
    expect(badLimits.details?.result).toBeDefined();
  });

  it('runs tools and records each call with its arguments', async () => {
    const result = await run(echo, { metadata: { input: { n: 1 } } });
    expect(result.toolCalls).toEqual([expect.objectContaining({ toolId: 'test:echo', args: { n: 1 }, durationMs: expect.any(Number) })]);
  });

  it('fails the run with a budget error the guest caught (LIMIT_EXCEEDED)', async () => {
    const error = await failure(run(budgetCatcher, { limits: { maxToolCalls: 2 } }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(hasErrorCode(error, 'LIMIT_EXCEEDED')).toBe(true);
    expect(error.details?.result?.toolCalls.filter((c) => c.error === undefined)).toHaveLength(2);
  });

  it('stops an endless loop at timeoutMs (TIMEOUT) with a partial result', async () => {
    const error = await failure(run(await watComponent(runawayBody), { timeoutMs: 300 }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.details?.result?.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('describes the backend and the limits it enforced', async () => {
    const result = await run(await watComponent(constantBody(0, 'null')), { limits: { memoryBytes: 8 * 1024 * 1024 } });
    expect(result.value).toBeNull();
    expect(result.durationMs).toBeGreaterThan(0);
    expect(result.backend).toMatchObject({ kind: 'wasm', readiness: 'beta', details: { engine: 'jco', memoryBytes: 8 * 1024 * 1024 } });
    expect(result.limitsEnforced).toEqual({
      timeout: true,
      toolCalls: true,
      chainSteps: true,
      memory: true,
      cpu: false,
      pids: false,
      disk: false,
    });
  });

  it('keeps concurrent runs apart', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => run(echo, { metadata: { input: { i } } })));
    results.forEach((result, i) => {
      expect(result.value).toMatchObject({ structured: { i } });
      expect(result.toolCalls).toHaveLength(1);
      expect(result.toolCalls[0]?.args).toEqual({ i });
    });
  });
});
