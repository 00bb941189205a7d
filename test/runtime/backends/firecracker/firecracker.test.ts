import { afterAll, describe, expect, it } from 'vitest';
import { createFirecrackerBackend } from '../../../../src/runtime/index.js';
import { validateMicroVMSpec, type MicroVMSpec } from '../../../../src/runtime/backends/firecracker/index.js';
import { runtimeBackendContract } from '../../../../src/testing/runtime-contract.js';
import { createLocalProcessClient, createRecordingClient } from '../../../../src/testing/runtime-clients.js';
import { expectCode, failure, healthChecker, request } from '../sandbox-client/helpers.js';

const paths = { kernelPath: '/var/lib/fc/vmlinux', rootfsPath: '/var/lib/fc/rootfs.ext4' };

// the double declares the VM-size memory cap, so memory is reported enforced on every run
runtimeBackendContract(
  'firecracker (local process client)',
  () => createFirecrackerBackend({ ...paths, client: createLocalProcessClient<MicroVMSpec>({ capabilities: { memory: true } }) }),
  { expectedKind: 'firecracker', expectedReadiness: 'beta', enforcesMemory: 'always' },
);

describe('firecracker backend', () => {
  const client = createRecordingClient<MicroVMSpec>();
  afterAll(() => client.close());

  it('has the documented defaults; vcpuCount and memSizeMB <= 0 mean the defaults', () => {
    expect(createFirecrackerBackend().config).toEqual({
      binaryPath: 'firecracker',
      kernelPath: '',
      rootfsPath: '',
      socketPath: '',
      vcpuCount: 1,
      memSizeMB: 128,
      image: 'toolruntime-sandbox:latest',
    });
    expect(createFirecrackerBackend({ vcpuCount: 0, memSizeMB: -5 }).config).toMatchObject({ vcpuCount: 1, memSizeMB: 128 });
    expect(createFirecrackerBackend({ vcpuCount: 2, memSizeMB: 512 }).config).toMatchObject({ vcpuCount: 2, memSizeMB: 512 });
    expect(() => createFirecrackerBackend({ vcpuCount: 1.5 })).toThrow(/vcpuCount must be an integer/);
  });

  it('requires kernelPath, then rootfsPath, before starting anything', async () => {
    const noKernel = await failure(createFirecrackerBackend({ client }).execute(request('return 1')));
    expectCode(noKernel, 'CONFIGURATION');
    expect(noKernel.message).toBe('kernelPath is required');
    const noRootfs = await failure(createFirecrackerBackend({ client, kernelPath: paths.kernelPath }).execute(request('return 1')));
    expect(noRootfs.message).toBe('rootfsPath is required');
    expect(client.specs).toHaveLength(0);
  });

  it('builds the microVM spec and validates it in order', async () => {
    const result = await createFirecrackerBackend({ ...paths, client, vcpuCount: 2, memSizeMB: 256, socketPath: '/tmp/fc.sock' }).execute(
      request("return 'booted'", { profile: 'hardened' }),
    );
    expect(result.value).toBe('booted');
    expect(result.backend.details).toMatchObject({ vcpuCount: 2, memSizeMB: 256, profile: 'hardened' });
    const spec = client.lastSpec as MicroVMSpec;
    expect(spec.resources).toEqual({ vcpuCount: 2, memSizeMB: 256 });
    expect(spec.config).toEqual({ ...paths, socketPath: '/tmp/fc.sock', binaryPath: 'firecracker' });
    expect(spec.labels['runtime.backend']).toBe('firecracker');
    const bad = (patch: (s: MicroVMSpec) => void) => {
      const copy = structuredClone(spec);
      patch(copy);
      return () => validateMicroVMSpec(copy);
    };
    expect(bad((s) => (s.resources.vcpuCount = 0))).toThrow('vcpuCount must be positive');
    expect(bad((s) => (s.resources.memSizeMB = 0))).toThrow('memSizeMB must be positive');
  });

  it('claims no limit it does not pass on: memory only when the client declares the VM cap', async () => {
    const limits = { memoryBytes: 64 * 1024 * 1024, cpuQuotaMs: 100, pidsMax: 10, diskBytes: 1000 };
    const plain = await createFirecrackerBackend({ ...paths, client }).execute(request('return 1', { limits }));
    expect(plain.limitsEnforced).toEqual({
      timeout: true,
      toolCalls: true,
      chainSteps: true,
      memory: false,
      cpu: false,
      pids: false,
      disk: false,
    });
    const declaring = createRecordingClient<MicroVMSpec>({
      delegate: client,
      capabilities: { memory: true, cpu: true, pids: true, disk: true },
    });
    const capped = await createFirecrackerBackend({ ...paths, client: declaring }).execute(request('return 1', { limits }));
    expect(capped.limitsEnforced).toMatchObject({ memory: true, cpu: false, pids: false, disk: false });
  });

  it('wraps a health failure as "firecracker daemon unavailable"', async () => {
    const error = await failure(
      createFirecrackerBackend({ ...paths, client, healthChecker: healthChecker(new Error('no /dev/kvm')) }).execute(request('return 1')),
    );
    expect(error.message).toBe('runtime unavailable: firecracker daemon unavailable: no /dev/kvm');
  });
});
