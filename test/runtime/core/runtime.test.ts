import { describe, expect, it } from 'vitest';
import { createContractFixture } from '../../../src/testing/gateway-contract.js';
import {
  createDirectGateway,
  createRuntime,
  DefaultRuntime,
  RUNTIME_BACKEND_KINDS,
  SECURITY_PROFILES,
  type ExecuteRequest,
  type ExecuteResult,
  type RuntimeBackend,
  type RuntimeBackendKind,
  type ToolGateway,
} from '../../../src/runtime/index.js';
import { isSecurityProfile, limitsEnforcedNone, validateLimits, validateRequest } from '../../../src/runtime/internal.js';

/** A user-injected backend double that records the requests it receives. */
function recordingBackend(kind: RuntimeBackendKind = 'docker', outcome: Partial<ExecuteResult> = {}) {
  const requests: ExecuteRequest[] = [];
  let closed = 0;
  const backend: RuntimeBackend & { requests: ExecuteRequest[]; readonly closed: number } = {
    kind,
    readiness: 'beta',
    requests,
    get closed() {
      return closed;
    },
    async execute(request) {
      requests.push(request);
      await new Promise((resolve) => setTimeout(resolve, 1));
      return {
        value: `ran on ${kind}`,
        stdout: '',
        stderr: '',
        toolCalls: [],
        durationMs: 1,
        backend: { kind, readiness: 'beta' },
        limitsEnforced: limitsEnforcedNone(),
        ...outcome,
      };
    },
    async close() {
      closed += 1;
    },
  };
  return backend;
}

const gateway = (): ToolGateway => createDirectGateway(createContractFixture());

async function failure(promise: Promise<unknown>): Promise<Error & { code?: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected a failure');
}

describe('runtime types', () => {
  it('knows exactly the three security profiles (187)', () => {
    expect(SECURITY_PROFILES).toEqual(['dev', 'standard', 'hardened']);
    for (const profile of SECURITY_PROFILES) expect(isSecurityProfile(profile)).toBe(true);
    for (const other of ['', 'unknown', 'DEV', undefined, 1]) expect(isSecurityProfile(other)).toBe(false);
  });

  it('lists the backend kinds (188)', () => {
    expect(RUNTIME_BACKEND_KINDS).toEqual([
      'unsafe_host',
      'docker',
      'containerd',
      'kubernetes',
      'gvisor',
      'kata',
      'firecracker',
      'wasm',
      'temporal',
      'remote',
      'proxmox_lxc',
    ]);
  });

  it('validates limits field by field (189)', () => {
    expect(() => validateLimits(undefined)).not.toThrow();
    expect(() => validateLimits({})).not.toThrow();
    expect(() =>
      validateLimits({ maxToolCalls: 0, maxChainSteps: 3, cpuQuotaMs: 10, memoryBytes: 1, pidsMax: 2, diskBytes: 0, maxOutputBytes: 5 }),
    ).not.toThrow();
    for (const field of ['maxToolCalls', 'maxChainSteps', 'cpuQuotaMs', 'memoryBytes', 'pidsMax', 'diskBytes', 'maxOutputBytes'] as const) {
      expect(() => validateLimits({ [field]: -1 })).toThrow(
        expect.objectContaining({ code: 'INVALID_LIMITS', message: `invalid limits: ${field} cannot be negative` }),
      );
      for (const bad of [1.5, Infinity, Number.NaN, '3']) {
        expect(() => validateLimits({ [field]: bad as number })).toThrow(
          expect.objectContaining({ code: 'INVALID_LIMITS', details: { field, value: bad } }),
        );
      }
    }
    expect(() => validateLimits({ maxToolCalls: -1, memoryBytes: -1 })).toThrow('maxToolCalls');
  });

  it('validates requests in order: gateway, code, limits (190, 200)', () => {
    const g = gateway();
    expect(() => validateRequest({ code: 'x' } as ExecuteRequest)).toThrow(
      expect.objectContaining({ code: 'MISSING_GATEWAY', message: 'gateway is required' }),
    );
    expect(() => validateRequest({ code: '' } as ExecuteRequest)).toThrow(expect.objectContaining({ code: 'MISSING_GATEWAY' }));
    expect(() => validateRequest({ code: '', gateway: g })).toThrow(
      expect.objectContaining({ code: 'MISSING_CODE', message: 'code is required' }),
    );
    expect(() => validateRequest({ code: 42 as unknown as string, gateway: g })).toThrow(expect.objectContaining({ code: 'MISSING_CODE' }));
    expect(() => validateRequest({ code: 'x', gateway: g, limits: { pidsMax: -2 } })).toThrow(
      expect.objectContaining({ code: 'INVALID_LIMITS' }),
    );
    expect(() => validateRequest({ code: 'x', gateway: g, timeoutMs: -5 })).toThrow(
      expect.objectContaining({ code: 'INVALID_LIMITS', message: 'invalid limits: timeoutMs cannot be negative' }),
    );
    expect(() => validateRequest({ code: 'x', gateway: g, limits: { maxToolCalls: 1 } })).not.toThrow();
  });
});

describe('runtime', () => {
  it('routes each profile to its backend (191)', async () => {
    const dev = recordingBackend('docker');
    const standard = recordingBackend('gvisor');
    const runtime = createRuntime({ backends: { dev, standard } });
    await expect(runtime.execute({ code: 'x', gateway: gateway(), profile: 'dev' })).resolves.toMatchObject({ value: 'ran on docker' });
    await expect(runtime.execute({ code: 'x', gateway: gateway(), profile: 'standard' })).resolves.toMatchObject({
      value: 'ran on gvisor',
    });
    expect(dev.requests).toHaveLength(1);
    expect(standard.requests).toHaveLength(1);
  });

  it('reports a missing backend before the deny list (192, 194)', async () => {
    const runtime = createRuntime({ backends: { dev: recordingBackend('unsafe_host') }, denyUnsafeProfiles: ['standard', 'hardened'] });
    const error = await failure(runtime.execute({ code: 'x', gateway: gateway(), profile: 'standard' }));
    expect(error).toMatchObject({ code: 'RUNTIME_UNAVAILABLE', message: 'runtime unavailable: no backend for profile "standard"' });
    expect((await failure(runtime.execute({ code: 'x', gateway: gateway(), profile: 'hardened' }))).code).toBe('RUNTIME_UNAVAILABLE');
  });

  it('denies an unsafe backend for a denied profile, and only that (193)', async () => {
    const unsafe = recordingBackend('unsafe_host');
    const runtime = createRuntime({
      backends: { standard: unsafe, dev: unsafe, hardened: recordingBackend('docker') },
      denyUnsafeProfiles: ['standard', 'hardened'],
    });
    const error = await failure(runtime.execute({ code: 'x', gateway: gateway(), profile: 'standard' }));
    expect(error).toMatchObject({
      code: 'BACKEND_DENIED',
      message: 'backend denied by policy: unsafe backend denied for profile "standard"',
    });
    await expect(runtime.execute({ code: 'x', gateway: gateway(), profile: 'dev' })).resolves.toBeDefined();
    await expect(runtime.execute({ code: 'x', gateway: gateway(), profile: 'hardened' })).resolves.toBeDefined();
    expect(unsafe.requests).toHaveLength(1);
  });

  it('fills the defaulted profile into the request the backend receives (195)', async () => {
    const dev = recordingBackend('docker');
    const standard = recordingBackend('gvisor');
    const runtime = createRuntime({ backends: { dev, standard }, defaultProfile: 'dev' });
    const request: ExecuteRequest = { code: 'x', gateway: gateway() };
    await runtime.execute(request);
    expect(dev.requests[0]?.profile).toBe('dev');
    expect(request.profile).toBeUndefined();
    const plain = createRuntime({ backends: { standard } });
    await plain.execute({ code: 'x', gateway: gateway() });
    expect(standard.requests[0]?.profile).toBe('standard');
    await plain.execute({ code: 'x', gateway: gateway(), profile: '' as 'dev' });
    expect(standard.requests[1]?.profile).toBe('standard');
  });

  it('handles concurrent executions (196)', async () => {
    const backend = recordingBackend('docker');
    const runtime = createRuntime({ backends: { standard: backend } });
    const results = await Promise.all(Array.from({ length: 10 }, () => runtime.execute({ code: 'x', gateway: gateway() })));
    expect(results).toHaveLength(10);
    expect(backend.requests).toHaveLength(10);
  });

  it('checks signal, gateway, code and limits before any backend runs (197)', async () => {
    const backend = recordingBackend('docker');
    const runtime = createRuntime({ backends: { standard: backend } });
    const aborted = new AbortController();
    aborted.abort(new Error('gone'));
    const abortError = await failure(runtime.execute({ code: 'x', gateway: undefined as unknown as ToolGateway, signal: aborted.signal }));
    expect(abortError.code).toBe('ABORTED');
    expect((abortError.cause as Error).message).toBe('gone');
    expect((await failure(runtime.execute({ code: 'x' } as ExecuteRequest))).code).toBe('MISSING_GATEWAY');
    // a signal that is no AbortSignal (the fuzzer's `signal: ""`) is the caller's mistake, never a TypeError
    for (const signal of ['', {}, null, 0]) {
      const bad = await failure(runtime.execute({ code: 'x', gateway: gateway(), signal: signal as unknown as AbortSignal }));
      expect(bad, JSON.stringify(signal)).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'signal' } });
      expect(bad.message).toMatch(/^runtime: option signal must be an AbortSignal, got /);
    }
    expect((await failure(runtime.execute({ code: '', gateway: gateway() }))).code).toBe('MISSING_CODE');
    const limits = await failure(runtime.execute({ code: 'x', gateway: gateway(), limits: { maxChainSteps: -1 } }));
    expect(limits).toMatchObject({ code: 'INVALID_LIMITS', message: 'invalid limits: maxChainSteps cannot be negative' });
    expect((await failure(runtime.execute({ code: 'x', gateway: gateway(), profile: 'weird' as 'dev' }))).code).toBe('RUNTIME_UNAVAILABLE');
    expect(backend.requests).toHaveLength(0);
  });

  it('falls back to the gateway trace when the backend reports no tool calls (198)', async () => {
    const direct = createDirectGateway(createContractFixture());
    await direct.runTool('test:add', { a: 1, b: 2 });
    const runtime = createRuntime({ backends: { standard: recordingBackend('docker') } });
    const result = await runtime.execute({ code: 'x', gateway: direct });
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ toolId: 'test:add', structured: 3 });
    const own = { toolId: 'own', durationMs: 1 };
    const reporting = createRuntime({ backends: { standard: recordingBackend('docker', { toolCalls: [own] }) } });
    expect((await reporting.execute({ code: 'x', gateway: direct })).toolCalls).toEqual([own]);
  });

  it('passes backend failures through unchanged', async () => {
    const boom = Object.assign(new Error('backend exploded'), { code: 'SANDBOX_VIOLATION' });
    const backend: RuntimeBackend = { kind: 'docker', readiness: 'prod', execute: () => Promise.reject(boom) };
    const runtime = createRuntime({ backends: { standard: backend } });
    await expect(runtime.execute({ code: 'x', gateway: gateway() })).rejects.toBe(boom);
  });

  it('validates its options and supports (un)registering backends', async () => {
    expect(() => createRuntime({ defaultProfile: 'nope' as 'dev' })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
    const runtime = createRuntime({ backends: {} });
    expect(runtime).toBeInstanceOf(DefaultRuntime);
    expect(runtime.defaultProfile).toBe('standard');
    expect((await failure(runtime.execute({ code: 'x', gateway: gateway() }))).code).toBe('RUNTIME_UNAVAILABLE');
    runtime.registerBackend('standard', recordingBackend('kata'));
    await expect(runtime.execute({ code: 'x', gateway: gateway() })).resolves.toMatchObject({ value: 'ran on kata' });
    runtime.unregisterBackend('standard');
    expect((await failure(runtime.execute({ code: 'x', gateway: gateway() }))).code).toBe('RUNTIME_UNAVAILABLE');
    expect(() => runtime.registerBackend('x' as 'dev', recordingBackend())).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
  });

  it('does not close backends it was given; refuses work once closed', async () => {
    const backend = recordingBackend('docker');
    const runtime = createRuntime({ backends: { standard: backend } });
    await runtime.close();
    await runtime.close();
    expect(backend.closed).toBe(0);
    expect((await failure(runtime.execute({ code: 'x', gateway: gateway() }))).code).toBe('RUNTIME_UNAVAILABLE');
  });

  it('stops the runs it dispatched when it closes, on a backend it was given too (RUNTIME_UNAVAILABLE), without closing that backend', async () => {
    const backend = recordingBackend('docker');
    let seen: AbortSignal | undefined;
    backend.execute = (request) =>
      new Promise<ExecuteResult>((_resolve, reject) => {
        seen = request.signal;
        request.signal?.addEventListener('abort', () => reject(new Error('the container was stopped')), { once: true });
      });
    const runtime = createRuntime({ backends: { standard: backend } });
    const caller = new AbortController();
    const pending = failure(runtime.execute({ code: 'for(;;){}', gateway: gateway(), signal: caller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await runtime.close();
    const error = await pending;
    expect(error.code).toBe('RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: the runtime was closed during the run');
    expect((error.cause as Error).message).toBe('the container was stopped');
    expect(seen?.aborted).toBe(true);
    expect(caller.signal.aborted).toBe(false);
    expect(backend.closed).toBe(0);
  });

  it("passes the caller's abort on to the backend as before (ABORTED is the backend's word)", async () => {
    const backend = recordingBackend('docker');
    backend.execute = (request) =>
      new Promise<ExecuteResult>((_resolve, reject) => {
        const stop = () => reject(Object.assign(new Error('aborted'), { code: 'ABORTED' }));
        if (request.signal?.aborted === true) stop();
        else request.signal?.addEventListener('abort', stop, { once: true });
      });
    const runtime = createRuntime({ backends: { standard: backend } });
    const caller = new AbortController();
    const pending = failure(runtime.execute({ code: 'x', gateway: gateway(), signal: caller.signal }));
    caller.abort(new Error('user stop'));
    expect((await pending).code).toBe('ABORTED');
    await runtime.close();
  });

  it('uses the unsafe host backend for dev by default, created on first use, with its opt-in', async () => {
    const runtime = createRuntime();
    const denied = await failure(runtime.execute({ code: 'return 1', gateway: gateway(), profile: 'dev' }));
    expect(denied.code).toBe('BACKEND_DENIED');
    const result = await runtime.execute({
      code: 'return await tools.listNamespaces()',
      gateway: gateway(),
      profile: 'dev',
      metadata: { unsafeOptIn: true },
    });
    expect(result.value).toEqual(['test']);
    expect(result.backend.kind).toBe('unsafe_host');
    await runtime.close();
  });

  it('uses one WASM backend for standard and hardened by default, created on first use', async () => {
    const runtime = createRuntime();
    const standard = await runtime.execute({
      code: "return (await tools.runTool('test:add', { a: 1, b: 2 })).structured",
      gateway: gateway(),
    });
    expect(standard.value).toBe(3);
    expect(standard.backend.kind).toBe('wasm');
    expect(standard.toolCalls).toHaveLength(1);
    const hardened = await runtime.execute({ code: 'return 2', gateway: gateway(), profile: 'hardened' });
    expect(hardened.backend).toMatchObject({ kind: 'wasm', details: { profile: 'hardened' } });
    await runtime.close();
  });
});
