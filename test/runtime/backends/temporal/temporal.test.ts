import { describe, expect, it } from 'vitest';
import { createTemporalBackend, type ExecuteRequest, type RuntimeBackend, type ToolGateway } from '../../../../src/runtime/index.js';
import { expectCode, failure, request } from '../sandbox-client/helpers.js';

/** A sandbox backend that must never be called by the stub. */
function untouchable(): RuntimeBackend & { calls: number } {
  const backend = {
    kind: 'wasm' as const,
    readiness: 'beta' as const,
    calls: 0,
    async execute(): Promise<never> {
      backend.calls += 1;
      throw new Error('the temporal stub must not call its sandbox backend');
    },
  };
  return backend;
}

describe('temporal backend (stub)', () => {
  it('has the documented defaults and reports readiness stub', () => {
    const backend = createTemporalBackend();
    expect(backend.kind).toBe('temporal');
    expect(backend.readiness).toBe('stub');
    expect(backend.config).toEqual({
      hostPort: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'toolruntime-execution',
      workflowIdPrefix: 'toolruntime-',
    });
  });

  it('checks the request first (MISSING_GATEWAY, MISSING_CODE, INVALID_LIMITS)', async () => {
    const backend = createTemporalBackend({ sandboxBackend: untouchable() });
    const noGateway = { code: 'return 1', gateway: undefined as unknown as ToolGateway } satisfies ExecuteRequest;
    expectCode(await failure(backend.execute(noGateway)), 'MISSING_GATEWAY');
    expectCode(await failure(backend.execute(request(''))), 'MISSING_CODE');
    expectCode(await failure(backend.execute(request('return 1', { limits: { pidsMax: -1 } }))), 'INVALID_LIMITS');
  });

  it('requires a sandbox backend (Temporal orchestrates, it does not isolate)', async () => {
    const error = await failure(createTemporalBackend().execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: temporal backend requires a sandbox backend for isolation');
  });

  it('always fails with "temporal backend not implemented", never calling the sandbox backend', async () => {
    const sandbox = untouchable();
    const backend = createTemporalBackend({ sandboxBackend: sandbox, namespace: 'jobs', taskQueue: 'q' });
    const error = await failure(backend.execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: temporal backend not implemented');
    expect(error.details?.reason).toBe('not_implemented');
    expect(error.details?.result?.backend).toEqual({
      kind: 'temporal',
      readiness: 'stub',
      details: { namespace: 'jobs', taskQueue: 'q', sandboxBackend: 'wasm' },
    });
    expect(error.details?.result?.limitsEnforced).toMatchObject({ timeout: false, toolCalls: false, memory: false });
    expect(sandbox.calls).toBe(0);
  });

  it('rejects options of the wrong type', () => {
    expect(() => createTemporalBackend({ sandboxBackend: {} as RuntimeBackend })).toThrow(/sandboxBackend must implement execute\(\)/);
    expect(() => createTemporalBackend({ hostPort: 7233 as unknown as string })).toThrow(/hostPort must be a string/);
  });
});
