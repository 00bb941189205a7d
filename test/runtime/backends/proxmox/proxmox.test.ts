import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxmoxBackend, createRemoteBackend, createUnsafeHostBackend } from '../../../../src/runtime/index.js';
import { createRemoteRuntimeHandler, type RemoteRuntimeHandler } from '../../../../src/runtime/backends/remote/index.js';
import type { ProxmoxExecSpec } from '../../../../src/runtime/backends/proxmox/index.js';
import { runtimeBackendContract } from '../../../../src/testing/runtime-contract.js';
import { createLocalProcessClient, createProxmoxApiDouble, createRecordingClient } from '../../../../src/testing/runtime-clients.js';
import { expectCode, failure, request } from '../sandbox-client/helpers.js';

const target = { node: 'pve', vmid: 101 };

runtimeBackendContract(
  'proxmox_lxc (local process client)',
  () =>
    createProxmoxBackend({
      ...target,
      client: createProxmoxApiDouble({ initialStatus: 'running' }),
      runtimeClient: createLocalProcessClient<ProxmoxExecSpec>(),
    }),
  { expectedKind: 'proxmox_lxc', expectedReadiness: 'beta' },
);

describe('proxmox_lxc backend', () => {
  const runtimeClient = createRecordingClient<ProxmoxExecSpec>();
  afterAll(() => runtimeClient.close());

  it('has the documented defaults', () => {
    expect(createProxmoxBackend().config).toEqual({
      node: '',
      vmid: 0,
      autoStart: true,
      autoStop: false,
      startTimeoutMs: 120_000,
      pollIntervalMs: 2_000,
      stopTimeoutMs: 30_000,
    });
  });

  it('needs a runtime first, then the API client', async () => {
    const noRuntime = await failure(createProxmoxBackend({ ...target, client: createProxmoxApiDouble() }).execute(request('return 1')));
    expectCode(noRuntime, 'RUNTIME_UNAVAILABLE');
    expect(noRuntime.message).toBe('runtime unavailable: proxmox runtime client not configured');
    const noApi = await failure(createProxmoxBackend({ ...target, runtimeClient }).execute(request('return 1')));
    expectCode(noApi, 'RUNTIME_UNAVAILABLE');
    expect(noApi.message).toBe('runtime unavailable: proxmox client not configured');
    expect(runtimeClient.specs).toHaveLength(0);
    expectCode(await failure(createProxmoxBackend({ ...target, runtimeClient }).execute(request(''))), 'MISSING_CODE');
  });

  it('with autoStart, needs node and vmid and never reaches the runtime without them', async () => {
    const api = createProxmoxApiDouble();
    const error = await failure(createProxmoxBackend({ vmid: 0, node: 'pve', client: api, runtimeClient }).execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: proxmox not available: node and vmid are required');
    expect(api.calls).toHaveLength(0);
    expect(runtimeClient.specs).toHaveLength(0);
    expect(error.details?.result?.backend.kind).toBe('proxmox_lxc');
  });

  it('starts a stopped container, polls until running, then runs the guest in it', async () => {
    const api = createProxmoxApiDouble({ initialStatus: 'stopped', pollsUntilRunning: 2 });
    const backend = createProxmoxBackend({ ...target, client: api, runtimeClient, pollIntervalMs: 10 });
    const result = await backend.execute(request("const r = await tools.runTool('test:add', { a: 1, b: 1 });\nreturn r.structured;"));
    expect(result.value).toBe(2);
    expect(api.calls.map((call) => call.method)).toEqual(['status', 'start', 'status', 'status', 'status']);
    expect(api.calls.every((call) => call.node === 'pve' && call.vmid === 101)).toBe(true);
    const spec = runtimeClient.lastSpec as ProxmoxExecSpec;
    expect(spec).toMatchObject({ node: 'pve', vmid: 101, user: 'nobody:nogroup' });
    expect(spec.guest.command[0]).toBe('node');
    expect(result.backend).toEqual({
      kind: 'proxmox_lxc',
      readiness: 'beta',
      details: { node: 'pve', vmid: 101, profile: 'standard', runId: spec.runId },
    });
    // already running: only one status call
    const again = createProxmoxApiDouble({ initialStatus: 'running' });
    await createProxmoxBackend({ ...target, client: again, runtimeClient }).execute(request('return 1'));
    expect(again.calls.map((call) => call.method)).toEqual(['status']);
  });

  it('reports status and start failures, and a container that never comes up', async () => {
    const statusError = await failure(
      createProxmoxBackend({
        ...target,
        client: createProxmoxApiDouble({ statusError: new Error('401 no ticket') }),
        runtimeClient,
      }).execute(request('return 1')),
    );
    expectCode(statusError, 'RUNTIME_UNAVAILABLE');
    expect(statusError.message).toBe('runtime unavailable: proxmox not available: status: 401 no ticket');
    const startError = await failure(
      createProxmoxBackend({ ...target, client: createProxmoxApiDouble({ startError: new Error('locked') }), runtimeClient }).execute(
        request('return 1'),
      ),
    );
    expect(startError.message).toBe('runtime unavailable: proxmox not available: start: locked');
    const slow = createProxmoxApiDouble({ pollsUntilRunning: 1000 });
    const started = performance.now();
    const never = await failure(
      createProxmoxBackend({ ...target, client: slow, runtimeClient, pollIntervalMs: 10, startTimeoutMs: 100 }).execute(
        request('return 1'),
      ),
    );
    expectCode(never, 'RUNTIME_UNAVAILABLE');
    expect(never.message).toBe('runtime unavailable: proxmox not available: container 101 on node pve is not running after 100ms');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('with autoStart off, runs without touching the API', async () => {
    const api = createProxmoxApiDouble({ initialStatus: 'stopped' });
    await expect(
      createProxmoxBackend({ client: api, runtimeClient, autoStart: false }).execute(request('return 5')),
    ).resolves.toMatchObject({ value: 5 });
    expect(api.calls).toHaveLength(0);
  });

  it('with autoStop, stops the container after the last concurrent run (errors ignored)', async () => {
    const api = createProxmoxApiDouble({ initialStatus: 'running', stopError: new Error('ignored') });
    const backend = createProxmoxBackend({ ...target, client: api, runtimeClient, autoStop: true });
    await Promise.all([backend.execute(request('return 1')), backend.execute(request('return 2'))]);
    expect(api.calls.filter((call) => call.method === 'stop')).toHaveLength(1);
    const error = await failure(backend.execute(request("throw new Error('boom')")));
    expectCode(error, 'CODE_EXECUTION');
    expect(api.calls.filter((call) => call.method === 'stop')).toHaveLength(2);
  });

  describe('delegating to a runtime service in the container (a remote backend)', () => {
    let server: Server;
    let handler: RemoteRuntimeHandler;
    let url: string;
    const secret = 'proxmox-test-secret-0123456789';

    beforeAll(async () => {
      handler = createRemoteRuntimeHandler({ backend: createUnsafeHostBackend({ optIn: true }), secret });
      server = createServer(handler);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    });
    afterAll(async () => {
      await handler.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    });

    it('ensures the container runs, delegates, and reports proxmox_lxc with the inner backend', async () => {
      const api = createProxmoxApiDouble({ initialStatus: 'stopped', pollsUntilRunning: 0 });
      const backend = createProxmoxBackend({ ...target, client: api, runtime: createRemoteBackend({ url, secret }), pollIntervalMs: 10 });
      const result = await backend.execute(request("const r = await tools.runTool('test:add', { a: 20, b: 22 });\nreturn r.structured;"));
      expect(result.value).toBe(42);
      expect(result.toolCalls).toHaveLength(1);
      expect(result.backend.kind).toBe('proxmox_lxc');
      expect(result.backend.details).toMatchObject({ node: 'pve', vmid: 101, profile: '', runtime: 'remote', inner: { kind: 'remote' } });
      expect(api.calls.map((call) => call.method)).toEqual(['status', 'start', 'status']);
      const error = await failure(backend.execute(request('const a = 1;\nthrow new Error("inside")')));
      expectCode(error, 'CODE_EXECUTION');
      expect(error.details?.line).toBe(2);
      expect(error.details?.result?.backend.kind).toBe('proxmox_lxc');
    });

    it('refuses runtime and runtimeClient together', () => {
      expect(() => createProxmoxBackend({ runtime: createRemoteBackend({ url, secret }), runtimeClient })).toThrow(/cannot be combined/);
    });
  });
});
