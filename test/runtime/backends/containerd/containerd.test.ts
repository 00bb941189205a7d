import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolexecError } from '../../../../src/model/index.js';
import { NODE_GUEST_LOADER, nodeGuestSource } from '../../../../src/runtime/internal.js';
import { createContainerdBackend } from '../../../../src/runtime/index.js';
import { validateContainerSpec, type ContainerdSpec, type SandboxProcess } from '../../../../src/runtime/backends/containerd/index.js';
import { runtimeBackendContract } from '../../../../src/testing/runtime-contract.js';
import { createLocalProcessClient, createRecordingClient } from '../../../../src/testing/runtime-clients.js';
import { expectCode, failure, healthChecker, request } from '../sandbox-client/helpers.js';

const contractClient = createLocalProcessClient<ContainerdSpec>({ capabilities: { memory: true } });

runtimeBackendContract('containerd (local process client)', () => createContainerdBackend({ client: contractClient }), {
  expectedKind: 'containerd',
  expectedReadiness: 'beta',
  enforcesMemory: true,
});

describe('containerd backend', () => {
  const clients: { close(): Promise<void> }[] = [];
  const recording = (options: Parameters<typeof createRecordingClient<ContainerdSpec>>[0] = {}) => {
    const client = createRecordingClient<ContainerdSpec>(options);
    clients.push(client);
    return client;
  };
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    expect(contractClient.running).toBe(0);
  });

  it('has the documented defaults', () => {
    const backend = createContainerdBackend();
    expect(backend.kind).toBe('containerd');
    expect(backend.readiness).toBe('beta');
    expect(backend.config).toEqual({
      imageRef: 'toolruntime-sandbox:latest',
      namespace: 'default',
      socketPath: '/run/containerd/containerd.sock',
      runtime: '',
      seccompPath: '',
    });
  });

  it('fails clearly without a client (RUNTIME_UNAVAILABLE), after the request checks', async () => {
    const backend = createContainerdBackend();
    const error = await failure(backend.execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: containerd client not configured');
    expect(error.details?.reason).toBe('client_not_configured');
    expect(error.details?.result?.backend).toMatchObject({ kind: 'containerd', readiness: 'beta' });
    expectCode(await failure(backend.execute(request(''))), 'MISSING_CODE');
  });

  it('puts the code, the language, the limits, the timeout and the guest into the spec', async () => {
    const client = recording();
    const backend = createContainerdBackend({ client });
    const result = await backend.execute(
      request('const n: number = 20;\nreturn n * 2;', {
        language: 'typescript',
        limits: { memoryBytes: 128 * 1024 * 1024, maxToolCalls: 3 },
      }),
    );
    expect(result.value).toBe(40);
    const spec = client.lastSpec as ContainerdSpec;
    expect(spec.image).toBe('toolruntime-sandbox:latest');
    expect(spec.timeoutMs).toBe(30_000);
    expect(spec.limits).toEqual({ memoryBytes: 128 * 1024 * 1024, maxToolCalls: 3 });
    expect(spec.guest).toMatchObject({
      language: 'typescript',
      channel: 'stdio',
      protocol: 'toolexec-node-guest/1',
      env: {},
      workingDir: '/tmp',
    });
    expect(spec.guest.code).toContain('return n * 2;');
    expect(spec.guest.code).not.toContain(': number');
    expect(spec.guest.command).toEqual(['node', '--max-old-space-size=128', '-e', NODE_GUEST_LOADER]);
    expect(spec.guest.program).toBe(await nodeGuestSource());
    expect(spec.labels).toEqual({ 'runtime.profile': 'standard', 'runtime.backend': 'containerd', 'toolexec.run': spec.runId });
    expect(spec.runId).toMatch(/^[0-9a-f]{12}$/);
    expect(result.backend.details).toEqual({
      imageRef: 'toolruntime-sandbox:latest',
      namespace: 'default',
      runtime: '',
      profile: 'standard',
      runId: spec.runId,
    });
    expect(client.kills).toBe(1);
  });

  it('maps profiles to isolation (dev: bridge + rw; standard: none + ro; hardened: + seccomp)', async () => {
    const client = recording();
    const backend = createContainerdBackend({ client, seccompPath: '/etc/seccomp.json', runtime: 'io.containerd.runsc.v1' });
    const security = async (profile: 'dev' | 'standard' | 'hardened') => {
      await backend.execute(request('return 1', { profile }));
      return (client.lastSpec as ContainerdSpec).security;
    };
    const base = { user: 'nobody:nogroup', privileged: false, noNewPrivileges: true, dropCapabilities: ['ALL'] };
    expect(await security('dev')).toEqual({ ...base, networkMode: 'bridge', readOnlyRootfs: false, seccompProfile: '' });
    expect(await security('standard')).toEqual({ ...base, networkMode: 'none', readOnlyRootfs: true, seccompProfile: '' });
    expect(await security('hardened')).toEqual({ ...base, networkMode: 'none', readOnlyRootfs: true, seccompProfile: '/etc/seccomp.json' });
    expect((client.lastSpec as ContainerdSpec).runtime).toBe('io.containerd.runsc.v1');
    expect((client.lastSpec as ContainerdSpec).labels['runtime.profile']).toBe('hardened');
  });

  it('refuses an unknown profile (CONFIGURATION) instead of weakening the sandbox', async () => {
    const client = recording();
    const error = await failure(createContainerdBackend({ client }).execute(request('return 1', { profile: 'weird' as 'dev' })));
    expectCode(error, 'CONFIGURATION');
    expect(error.message).toContain('unknown profile "weird"');
    expect(client.specs).toHaveLength(0);
  });

  it('maps limits to resources (CPU ms × 1000 µs per 1 s period; memory, pids, disk copied)', async () => {
    const client = recording();
    await createContainerdBackend({ client }).execute(
      request('return 1', { limits: { memoryBytes: 256 * 1024 * 1024, cpuQuotaMs: 1000, pidsMax: 100, diskBytes: 1_000_000 } }),
    );
    expect((client.lastSpec as ContainerdSpec).resources).toEqual({
      memoryBytes: 256 * 1024 * 1024,
      cpuQuotaUs: 1_000_000,
      cpuPeriodUs: 1_000_000,
      pidsLimit: 100,
      diskBytes: 1_000_000,
    });
    await createContainerdBackend({ client }).execute(request('return 1'));
    expect((client.lastSpec as ContainerdSpec).resources).toEqual({
      memoryBytes: 0,
      cpuQuotaUs: 0,
      cpuPeriodUs: 1_000_000,
      pidsLimit: 0,
      diskBytes: 0,
    });
  });

  it('reports a resource limit as enforced only when asked for and declared by the client', async () => {
    const limits = { memoryBytes: 256 * 1024 * 1024, cpuQuotaMs: 500, pidsMax: 50, diskBytes: 1_000_000 };
    const none = await createContainerdBackend({ client: recording({ capabilities: {} }) }).execute(request('return 1', { limits }));
    expect(none.limitsEnforced).toEqual({
      timeout: true,
      toolCalls: true,
      chainSteps: true,
      memory: false,
      cpu: false,
      pids: false,
      disk: false,
    });
    const all = { memory: true, cpu: true, pids: true, disk: true };
    const declared = await createContainerdBackend({ client: recording({ capabilities: all }) }).execute(request('return 1', { limits }));
    expect(declared.limitsEnforced).toEqual({
      timeout: true,
      toolCalls: true,
      chainSteps: true,
      memory: true,
      cpu: true,
      pids: true,
      disk: true,
    });
    const unasked = await createContainerdBackend({ client: recording({ capabilities: all }) }).execute(request('return 1'));
    expect(unasked.limitsEnforced).toMatchObject({ memory: false, cpu: false, pids: false, disk: false });
  });

  it('fails with RUNTIME_UNAVAILABLE when the health check fails, before starting anything', async () => {
    const client = recording();
    const down = healthChecker(new Error('connection refused'));
    const error = await failure(createContainerdBackend({ client, healthChecker: down }).execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: containerd daemon unavailable: connection refused');
    expect((error.cause as Error).message).toBe('connection refused');
    expect(down.calls).toBe(1);
    expect(client.specs).toHaveLength(0);
    const up = healthChecker();
    await expect(createContainerdBackend({ client, healthChecker: up }).execute(request('return 7'))).resolves.toMatchObject({ value: 7 });
    expect(up.calls).toBe(1);
  });

  it('runs the resolved image; a resolver error keeps its code or becomes RUNTIME_UNAVAILABLE', async () => {
    const client = recording();
    const resolver = { resolve: async (image: string) => `${image}@sha256:abc123` };
    await createContainerdBackend({ client, imageResolver: resolver }).execute(request('return 1'));
    expect((client.lastSpec as ContainerdSpec).image).toBe('toolruntime-sandbox:latest@sha256:abc123');

    const denied = new ToolexecError('BACKEND_DENIED', 'image not allowed');
    const own = await failure(
      createContainerdBackend({ client, imageResolver: { resolve: async () => Promise.reject(denied) } }).execute(request('return 1')),
    );
    expect(own.code).toBe('BACKEND_DENIED');
    expect(own.message).toBe('image not allowed');
    const plain = await failure(
      createContainerdBackend({ client, imageResolver: { resolve: async () => Promise.reject(new Error('pull failed')) } }).execute(
        request('return 1'),
      ),
    );
    expectCode(plain, 'RUNTIME_UNAVAILABLE');
    expect(plain.message).toBe('runtime unavailable: image resolution failed for "toolruntime-sandbox:latest": pull failed');
    const empty = await failure(
      createContainerdBackend({ client, imageResolver: { resolve: async () => '' } }).execute(request('return 1')),
    );
    expectCode(empty, 'CONFIGURATION');
    expect(empty.message).toBe('image is required');
  });

  it('turns a start failure into RUNTIME_UNAVAILABLE with the cause', async () => {
    const cause = new Error('no such image');
    const error = await failure(createContainerdBackend({ client: recording({ startError: cause }) }).execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: the containerd sandbox could not start: no such image');
    expect(error.cause).toBe(cause);
    expect(error.details?.result?.limitsEnforced.timeout).toBe(true);
  });

  it('reports a guest that exits without a result (non-zero exit) as CODE_EXECUTION', async () => {
    const error = await failure(createContainerdBackend({ client: recording() }).execute(request("console.log('bye');\nprocess.exit(3);")));
    expectCode(error, 'CODE_EXECUTION');
    expect(error.details?.exitCode).toBe(3);
  });

  it('stops a hanging health check and start at the timeout, or on abort', async () => {
    const hanging = { ping: () => new Promise<void>(() => undefined) };
    const started = performance.now();
    const timedOut = await failure(
      createContainerdBackend({ client: recording(), healthChecker: hanging }).execute(request('return 1', { timeoutMs: 150 })),
    );
    expectCode(timedOut, 'TIMEOUT');
    expect(performance.now() - started).toBeLessThan(2000);

    let killed = 0;
    const late: SandboxProcess = {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      exited: new Promise(() => undefined),
      kill: () => {
        killed += 1;
      },
    };
    const slowStart = { start: () => new Promise<SandboxProcess>((resolve) => setTimeout(() => resolve(late), 300)) };
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user gave up')), 50);
    const aborted = await failure(
      createContainerdBackend({ client: slowStart }).execute(request('return 1', { signal: controller.signal })),
    );
    expectCode(aborted, 'ABORTED');
    expect((aborted.cause as Error).message).toBe('user gave up');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(killed).toBe(1);
  });

  it('close() kills running sandboxes', async () => {
    const client = createLocalProcessClient<ContainerdSpec>();
    const backend = createContainerdBackend({ client });
    const pending = failure(backend.execute(request('await new Promise((resolve) => setTimeout(resolve, 20000));')));
    while (client.running === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await backend.close();
    const error = await pending;
    expectCode(error, 'CODE_EXECUTION');
    expect(client.running).toBe(0);
  });

  it('validates specs with fixed messages', async () => {
    const client = recording();
    await createContainerdBackend({ client }).execute(request('return 1'));
    const good = client.lastSpec as ContainerdSpec;
    const check = (patch: (spec: ContainerdSpec) => void) => {
      const spec = structuredClone(good);
      patch(spec);
      try {
        validateContainerSpec(spec);
      } catch (err) {
        return err as Failure;
      }
      return undefined;
    };
    type Failure = Error & { code?: string };
    expect(check(() => undefined)).toBeUndefined();
    expect(check((s) => (s.image = ''))).toMatchObject({ code: 'CONFIGURATION', message: 'image is required' });
    expect(check((s) => (s.security.privileged = true))).toMatchObject({
      code: 'SANDBOX_VIOLATION',
      message: 'security: security policy violation',
    });
    expect(check((s) => (s.security.networkMode = 'host'))).toMatchObject({
      code: 'SANDBOX_VIOLATION',
      message: 'security: security policy violation: host network not allowed',
    });
    expect(check((s) => (s.resources.memoryBytes = -1))).toMatchObject({ message: 'resources: memory cannot be negative' });
    expect(check((s) => (s.resources.cpuQuotaUs = -1))).toMatchObject({ message: 'resources: cpu quota cannot be negative' });
    expect(check((s) => (s.resources.pidsLimit = -1))).toMatchObject({ message: 'resources: pids limit cannot be negative' });
    expect(check((s) => (s.resources.diskBytes = -1))).toMatchObject({ message: 'resources: disk limit cannot be negative' });
    expect(check((s) => (s.guest.command = []))).toMatchObject({ code: 'CONFIGURATION', message: 'guest: command is required' });
    expect(check((s) => (s.timeoutMs = 0))).toMatchObject({ message: 'timeoutMs must be positive' });
  });

  it('logs one info line per run (a throwing logger is ignored)', async () => {
    const lines: [string, Record<string, unknown> | undefined][] = [];
    const client = recording();
    await createContainerdBackend({ client, logger: { info: (message, fields) => lines.push([message, fields]) } }).execute(
      request('return 1', { profile: 'dev' }),
    );
    expect(lines).toEqual([
      [
        'executing in containerd',
        { profile: 'dev', image: 'toolruntime-sandbox:latest', runtime: '', namespace: 'default', runId: client.lastSpec?.runId },
      ],
    ]);
    const throwing = {
      info: () => {
        throw new Error('log sink down');
      },
    };
    await expect(createContainerdBackend({ client, logger: throwing }).execute(request('return 2'))).resolves.toMatchObject({ value: 2 });
  });

  it('rejects options of the wrong type (CONFIGURATION)', () => {
    expect(() => createContainerdBackend({ client: {} as never })).toThrow(/client must implement start\(\)/);
    expect(() => createContainerdBackend({ namespace: 3 as never })).toThrow(/namespace must be a string/);
    expect(() => createContainerdBackend({ defaultTimeoutMs: -1 })).toThrow(/defaultTimeoutMs must be a positive integer/);
  });
});
