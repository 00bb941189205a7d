import { afterAll, describe, expect, it } from 'vitest';
import { createKataBackend } from '../../../../src/runtime/index.js';
import { validateKataSpec, type KataSpec } from '../../../../src/runtime/backends/kata/index.js';
import { runtimeBackendContract } from '../../../../src/testing/runtime-contract.js';
import { createLocalProcessClient, createRecordingClient } from '../../../../src/testing/runtime-clients.js';
import { expectCode, failure, healthChecker, request } from '../sandbox-client/helpers.js';

runtimeBackendContract('kata (local process client)', () => createKataBackend({ client: createLocalProcessClient<KataSpec>() }), {
  expectedKind: 'kata',
  expectedReadiness: 'beta',
});

describe('kata backend', () => {
  const client = createRecordingClient<KataSpec>();
  afterAll(() => client.close());

  it('has the documented defaults', () => {
    expect(createKataBackend().config).toEqual({
      runtimePath: 'kata-runtime',
      image: 'toolruntime-sandbox:latest',
      hypervisor: 'qemu',
      kernelPath: '',
      imagePath: '',
    });
  });

  it('fails clearly without a client', async () => {
    const error = await failure(createKataBackend().execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: kata runner not configured');
  });

  it('carries runtime, hypervisor, kernel and image paths, and maps profiles without seccomp', async () => {
    const backend = createKataBackend({ client, hypervisor: 'cloud-hypervisor', kernelPath: '/k/vmlinux', imagePath: '/k/rootfs.img' });
    const result = await backend.execute(request("return 'vm'", { profile: 'hardened', limits: { cpuQuotaMs: 250 } }));
    expect(result.value).toBe('vm');
    const spec = client.lastSpec as KataSpec;
    expect(spec).toMatchObject({
      runtime: 'kata-runtime',
      hypervisor: 'cloud-hypervisor',
      kernelPath: '/k/vmlinux',
      imagePath: '/k/rootfs.img',
      // booted from imagePath: no container image unless one is given
      image: '',
      security: { user: 'nobody:nogroup', networkMode: 'none', readOnlyRootfs: true, seccompProfile: '', privileged: false },
      resources: { cpuQuotaUs: 250_000 },
    });
    expect(result.backend.details).toMatchObject({ hypervisor: 'cloud-hypervisor', profile: 'hardened' });
    await backend.execute(request('return 1', { profile: 'dev' }));
    expect((client.lastSpec as KataSpec).security).toMatchObject({ networkMode: 'bridge', readOnlyRootfs: false });
  });

  it('needs an image or an image path ("image or imagePath is required")', async () => {
    const noImage = await failure(createKataBackend({ client, imageResolver: { resolve: async () => '' } }).execute(request('return 1')));
    expectCode(noImage, 'CONFIGURATION');
    expect(noImage.message).toBe('image or imagePath is required');
    const withPath = createKataBackend({ client, imagePath: '/k/rootfs.img', imageResolver: { resolve: async () => '' } });
    await expect(withPath.execute(request('return 2'))).resolves.toMatchObject({ value: 2 });
    const both = createKataBackend({ client, image: 'registry/sandbox:1', imagePath: '/k/rootfs.img' });
    await both.execute(request('return 3'));
    expect(client.lastSpec).toMatchObject({ image: 'registry/sandbox:1', imagePath: '/k/rootfs.img' });
    const withPathOnly = createKataBackend({ client, imagePath: '/k/rootfs.img' });
    await withPathOnly.execute(request('return 4'));
    const spec = structuredClone(client.lastSpec as KataSpec);
    spec.security.networkMode = 'host';
    expect(() => validateKataSpec(spec)).toThrow('security: security policy violation: host network not allowed');
  });

  it('wraps a health failure as "kata runtime unavailable"', async () => {
    const error = await failure(
      createKataBackend({ client, healthChecker: healthChecker(new Error('no kvm')) }).execute(request('return 1')),
    );
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: kata runtime unavailable: no kvm');
  });
});
