import type { V1NetworkPolicy, V1Pod } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_GUEST_LOADER } from '../../../../src/runtime/internal.js';
import {
  buildKubernetesNetworkPolicy,
  buildKubernetesPod,
  validateKubernetesSpec,
  type KubernetesPodSpec,
} from '../../../../src/runtime/backends/kubernetes/index.js';
import { createKubernetesBackend } from '../../../../src/runtime/index.js';
import { runtimeBackendContract } from '../../../../src/testing/runtime-contract.js';
import { createLocalProcessClient, createRecordingClient } from '../../../../src/testing/runtime-clients.js';
import { expectCode, failure, healthChecker, request } from '../sandbox-client/helpers.js';

runtimeBackendContract(
  'kubernetes (local process client)',
  () => createKubernetesBackend({ client: createLocalProcessClient<KubernetesPodSpec>({ capabilities: { memory: true } }) }),
  { expectedKind: 'kubernetes', expectedReadiness: 'beta', enforcesMemory: true },
);

/** Serializes with client-node's own model metadata: properties it does not know are dropped. */
async function serializeAs(value: unknown, type: 'V1Pod' | 'V1NetworkPolicy'): Promise<unknown> {
  const { ObjectSerializer } = await import('@kubernetes/client-node/dist/gen/models/ObjectSerializer.js');
  return JSON.parse(JSON.stringify(ObjectSerializer.serialize(value, type, ''))) as unknown;
}

describe('kubernetes backend', () => {
  const client = createRecordingClient<KubernetesPodSpec>();
  afterAll(() => client.close());

  it('has the documented defaults, including the 60 s timeout', async () => {
    expect(createKubernetesBackend().config).toEqual({
      namespace: 'default',
      image: 'toolruntime-sandbox:latest',
      runtimeClassName: '',
      serviceAccount: '',
      podNamePrefix: 'toolexec',
      tmpSizeBytes: 64 * 1024 * 1024,
    });
    await createKubernetesBackend({ client }).execute(request('return 1'));
    expect((client.lastSpec as KubernetesPodSpec).timeoutMs).toBe(60_000);
  });

  it('fails clearly without a client', async () => {
    const error = await failure(createKubernetesBackend().execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: kubernetes client not configured');
  });

  it('builds a hardened Pod manifest that runs the guest with stdin attached', async () => {
    const backend = createKubernetesBackend({ client, namespace: 'sandboxes', runtimeClassName: 'gvisor', serviceAccount: 'runner' });
    const result = await backend.execute(
      request("return 'pod'", {
        timeoutMs: 20_000,
        limits: { memoryBytes: 256 * 1024 * 1024, cpuQuotaMs: 500, diskBytes: 32 * 1024 * 1024 },
      }),
    );
    expect(result.value).toBe('pod');
    const spec = client.lastSpec as KubernetesPodSpec;
    expect(result.backend.details).toEqual({
      namespace: 'sandboxes',
      image: 'toolruntime-sandbox:latest',
      runtimeClassName: 'gvisor',
      profile: 'standard',
      runId: spec.runId,
    });
    expect(spec.podName).toBe(`toolexec-${spec.runId}`);
    expect(spec.resources).toEqual({ memoryBytes: 256 * 1024 * 1024, cpuMillis: 500, pidsLimit: 0, diskBytes: 32 * 1024 * 1024 });
    expect(spec.security).toEqual({ user: '65534', readOnlyRootfs: true, networkMode: 'none' });
    const pod = spec.manifest;
    expect(pod.metadata).toEqual({
      name: spec.podName,
      namespace: 'sandboxes',
      labels: {
        'app.kubernetes.io/managed-by': 'toolexec',
        'runtime.profile': 'standard',
        'runtime.backend': 'kubernetes',
        'toolexec.run': spec.runId,
        'toolexec.dev/network': 'none',
      },
    });
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Never',
      activeDeadlineSeconds: 50,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      serviceAccountName: 'runner',
      runtimeClassName: 'gvisor',
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 65534,
        runAsGroup: 65534,
        fsGroup: 65534,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      volumes: [{ name: 'tmp', emptyDir: { sizeLimit: String(32 * 1024 * 1024) } }],
    });
    const [container] = pod.spec.containers;
    expect(container).toEqual({
      name: 'guest',
      image: 'toolruntime-sandbox:latest',
      command: ['node', '--max-old-space-size=256', '-e', NODE_GUEST_LOADER],
      workingDir: '/tmp',
      env: [],
      stdin: true,
      stdinOnce: true,
      tty: false,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 65534,
        runAsGroup: 65534,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        privileged: false,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      },
      resources: {
        limits: { memory: String(256 * 1024 * 1024), cpu: '500m', 'ephemeral-storage': String(32 * 1024 * 1024) },
        requests: { memory: String(256 * 1024 * 1024), cpu: '500m', 'ephemeral-storage': String(32 * 1024 * 1024) },
      },
      volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
    });
  });

  it('produces manifests that are V1Pod / V1NetworkPolicy to @kubernetes/client-node (types and serializer)', async () => {
    await createKubernetesBackend({ client }).execute(request('return 1', { profile: 'dev', limits: { memoryBytes: 64 * 1024 * 1024 } }));
    const pod = (client.lastSpec as KubernetesPodSpec).manifest satisfies V1Pod;
    // every field survives client-node's serializer, which drops properties a V1Pod does not have
    expect(await serializeAs(pod, 'V1Pod')).toEqual(pod);
    const policy = buildKubernetesNetworkPolicy('sandboxes') satisfies V1NetworkPolicy;
    expect(await serializeAs(policy, 'V1NetworkPolicy')).toEqual(policy);
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { 'toolexec.dev/network': 'none' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [],
      egress: [],
    });
    // dev: writable rootfs, the cluster network, no resource list for unset limits
    expect(pod.metadata.labels['toolexec.dev/network']).toBeUndefined();
    expect(pod.spec.containers[0]?.securityContext.readOnlyRootFilesystem).toBe(false);
    expect(pod.spec.containers[0]?.resources).toEqual({
      limits: { memory: String(64 * 1024 * 1024) },
      requests: { memory: String(64 * 1024 * 1024) },
    });
    expect(pod.spec.volumes[0]?.emptyDir.sizeLimit).toBe(String(64 * 1024 * 1024));
    expect(pod.spec.runtimeClassName).toBeUndefined();
    const bare = buildKubernetesPod({
      name: 'p',
      namespace: 'n',
      image: 'i',
      command: ['node'],
      env: { A: '1' },
      workingDir: '/tmp',
      labels: {},
      userId: 65534,
      readOnlyRootfs: true,
      networkMode: 'none',
      memoryBytes: 0,
      cpuMillis: 0,
      diskBytes: 0,
      tmpSizeBytes: 1024,
      activeDeadlineSeconds: 1,
    }) satisfies V1Pod;
    expect(bare.spec.containers[0]?.env).toEqual([{ name: 'A', value: '1' }]);
    expect(bare.spec.containers[0]?.resources).toEqual({});
    expect(await serializeAs(bare, 'V1Pod')).toEqual(bare);
  });

  it('puts the resolved image into the pod', async () => {
    const resolver = { resolve: async (image: string) => `registry.local/${image}@sha256:abc123` };
    await createKubernetesBackend({ client, imageResolver: resolver, imagePullPolicy: 'IfNotPresent' }).execute(request('return 1'));
    const spec = client.lastSpec as KubernetesPodSpec;
    expect(spec.image).toBe('registry.local/toolruntime-sandbox:latest@sha256:abc123');
    expect(spec.manifest.spec.containers[0]).toMatchObject({ image: spec.image, imagePullPolicy: 'IfNotPresent' });
  });

  it('maps CPU to millicores unchanged and never reports pids as enforced', async () => {
    const declaring = createRecordingClient<KubernetesPodSpec>({
      delegate: client,
      capabilities: { memory: true, cpu: true, pids: true, disk: true },
    });
    const result = await createKubernetesBackend({ client: declaring }).execute(
      request('return 1', { limits: { cpuQuotaMs: 1500, pidsMax: 20, memoryBytes: 64 * 1024 * 1024, diskBytes: 1 } }),
    );
    expect((declaring.lastSpec as KubernetesPodSpec).manifest.spec.containers[0]?.resources.limits?.cpu).toBe('1500m');
    expect(result.limitsEnforced).toEqual({
      timeout: true,
      toolCalls: true,
      chainSteps: true,
      memory: true,
      cpu: true,
      pids: false,
      disk: true,
    });
  });

  it("adopts the client's ping as the health check when none is configured", async () => {
    const pinging = createRecordingClient<KubernetesPodSpec>({ delegate: client, ping: () => Promise.reject(new Error('apiserver down')) });
    const error = await failure(createKubernetesBackend({ client: pinging }).execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: kubernetes cluster unavailable: apiserver down');
    expect(pinging.pings).toBe(1);
    expect(pinging.specs).toHaveLength(0);
    const configured = healthChecker();
    await expect(
      createKubernetesBackend({ client: pinging, healthChecker: configured }).execute(request('return 3')),
    ).resolves.toMatchObject({ value: 3 });
    expect(configured.calls).toBe(1);
    expect(pinging.pings).toBe(1);
  });

  it('validates pod specs (image, host network, negative resources, pod name)', () => {
    const good = {
      image: 'img',
      security: { user: '65534', readOnlyRootfs: true, networkMode: 'none' },
      resources: { memoryBytes: 0, cpuMillis: 0, pidsLimit: 0, diskBytes: 0 },
      podName: 'toolexec-abc',
    };
    expect(() => validateKubernetesSpec(good)).not.toThrow();
    expect(() => validateKubernetesSpec({ ...good, image: '' })).toThrow('image is required');
    expect(() => validateKubernetesSpec({ ...good, security: { ...good.security, networkMode: 'host' } })).toThrow(
      'security: security policy violation: host network not allowed',
    );
    expect(() => validateKubernetesSpec({ ...good, resources: { ...good.resources, cpuMillis: -1 } })).toThrow(
      'resources: cpu quota cannot be negative',
    );
    expect(() => validateKubernetesSpec({ ...good, podName: 'Bad_Name' })).toThrow(/not a valid DNS label/);
  });

  it('rejects a pod name prefix that makes invalid pod names', async () => {
    const error = await failure(createKubernetesBackend({ client, podNamePrefix: 'UPPER' }).execute(request('return 1')));
    expectCode(error, 'CONFIGURATION');
  });
});
