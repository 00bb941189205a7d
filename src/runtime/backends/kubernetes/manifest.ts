/**
 * The Pod manifest of one kubernetes run, and a NetworkPolicy that gives `none`-network pods no
 * network. Plain objects shaped like `@kubernetes/client-node`'s `V1Pod` / `V1NetworkPolicy`
 * (checked against those types in the tests), so this module needs no Kubernetes package.
 */

/** The container the guest runs in. */
export const GUEST_CONTAINER_NAME = 'guest';

/** The label selecting pods that must have no network (see {@link buildKubernetesNetworkPolicy}). */
export const NETWORK_LABEL = 'toolexec.dev/network';

/** A Kubernetes resource list (quantities as strings). */
export type KubernetesResourceList = Record<string, string>;

/** The one container of a run's pod. */
export interface KubernetesContainerManifest {
  name: string;
  image: string;
  imagePullPolicy?: string;
  command: string[];
  workingDir: string;
  env: { name: string; value: string }[];
  stdin: boolean;
  stdinOnce: boolean;
  tty: boolean;
  securityContext: {
    runAsNonRoot: boolean;
    runAsUser: number;
    runAsGroup: number;
    readOnlyRootFilesystem: boolean;
    allowPrivilegeEscalation: boolean;
    privileged: boolean;
    capabilities: { drop: string[] };
    seccompProfile: { type: string };
  };
  resources: { limits?: KubernetesResourceList; requests?: KubernetesResourceList };
  volumeMounts: { name: string; mountPath: string }[];
}

/** A run's Pod (assignable to `V1Pod`). */
export interface KubernetesPodManifest {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: {
    restartPolicy: string;
    activeDeadlineSeconds: number;
    automountServiceAccountToken: boolean;
    enableServiceLinks: boolean;
    hostNetwork: boolean;
    hostPID: boolean;
    hostIPC: boolean;
    serviceAccountName?: string;
    runtimeClassName?: string;
    terminationGracePeriodSeconds: number;
    securityContext: {
      runAsNonRoot: boolean;
      runAsUser: number;
      runAsGroup: number;
      fsGroup: number;
      seccompProfile: { type: string };
    };
    containers: KubernetesContainerManifest[];
    volumes: { name: string; emptyDir: { sizeLimit: string } }[];
  };
}

/** What {@link buildKubernetesPod} needs. */
export interface KubernetesPodInput {
  name: string;
  namespace: string;
  image: string;
  command: readonly string[];
  env: Record<string, string>;
  workingDir: string;
  labels: Record<string, string>;
  /** The numeric non-root user (and group). */
  userId: number;
  readOnlyRootfs: boolean;
  /** `none` adds the {@link NETWORK_LABEL} label; anything else leaves the cluster default. */
  networkMode: string;
  /** 0 = no limit. */
  memoryBytes: number;
  /** 0 = no limit. */
  cpuMillis: number;
  /** Ephemeral storage; 0 = no limit. */
  diskBytes: number;
  /** Size of the writable `/tmp` emptyDir. */
  tmpSizeBytes: number;
  activeDeadlineSeconds: number;
  runtimeClassName?: string;
  serviceAccountName?: string;
  imagePullPolicy?: string;
}

function resourceList(input: KubernetesPodInput): KubernetesResourceList {
  const list: KubernetesResourceList = {};
  if (input.memoryBytes > 0) list.memory = String(input.memoryBytes);
  if (input.cpuMillis > 0) list.cpu = `${input.cpuMillis}m`;
  if (input.diskBytes > 0) list['ephemeral-storage'] = String(input.diskBytes);
  return list;
}

/**
 * Builds the Pod of one run: restartPolicy `Never`, `activeDeadlineSeconds`, no service-account
 * token, no service links, no host namespaces; pod and container run as the non-root user with
 * the `RuntimeDefault` seccomp profile, no privilege escalation, every capability dropped and
 * (except `dev`) a read-only root filesystem; resource limits (= requests) from the request's
 * limits; a size-limited emptyDir at `/tmp`; the guest container keeps stdin open for the
 * attach (`stdin`, `stdinOnce`, no TTY).
 */
export function buildKubernetesPod(input: KubernetesPodInput): KubernetesPodManifest {
  const limits = resourceList(input);
  const labels: Record<string, string> = { 'app.kubernetes.io/managed-by': 'toolexec', ...input.labels };
  if (input.networkMode === 'none') labels[NETWORK_LABEL] = 'none';
  const container: KubernetesContainerManifest = {
    name: GUEST_CONTAINER_NAME,
    image: input.image,
    ...(input.imagePullPolicy === undefined ? {} : { imagePullPolicy: input.imagePullPolicy }),
    command: [...input.command],
    workingDir: input.workingDir,
    env: Object.entries(input.env).map(([name, value]) => ({ name, value })),
    stdin: true,
    stdinOnce: true,
    tty: false,
    securityContext: {
      runAsNonRoot: true,
      runAsUser: input.userId,
      runAsGroup: input.userId,
      readOnlyRootFilesystem: input.readOnlyRootfs,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
    resources: Object.keys(limits).length === 0 ? {} : { limits, requests: { ...limits } },
    volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: input.name, namespace: input.namespace, labels },
    spec: {
      restartPolicy: 'Never',
      activeDeadlineSeconds: input.activeDeadlineSeconds,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      ...(input.serviceAccountName === undefined || input.serviceAccountName === '' ? {} : { serviceAccountName: input.serviceAccountName }),
      ...(input.runtimeClassName === undefined || input.runtimeClassName === '' ? {} : { runtimeClassName: input.runtimeClassName }),
      terminationGracePeriodSeconds: 0,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: input.userId,
        runAsGroup: input.userId,
        fsGroup: input.userId,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [container],
      volumes: [{ name: 'tmp', emptyDir: { sizeLimit: String(input.tmpSizeBytes) } }],
    },
  };
}

/** A NetworkPolicy (assignable to `V1NetworkPolicy`). */
export interface KubernetesNetworkPolicyManifest {
  apiVersion: 'networking.k8s.io/v1';
  kind: 'NetworkPolicy';
  metadata: { name: string; namespace: string };
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: never[];
    egress: never[];
  };
}

/**
 * A NetworkPolicy denying all ingress and egress of the pods labelled `toolexec.dev/network=none`
 * (every `standard` / `hardened` run). Kubernetes has no per-pod "no network" switch: apply this
 * once per namespace (on a CNI that enforces NetworkPolicy) and only then declare
 * `capabilities.network` on your client.
 */
export function buildKubernetesNetworkPolicy(namespace: string, name = 'toolexec-deny-all'): KubernetesNetworkPolicyManifest {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace },
    spec: {
      podSelector: { matchLabels: { [NETWORK_LABEL]: 'none' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [],
      egress: [],
    },
  };
}
