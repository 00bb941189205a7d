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
  /** Always {@link GUEST_CONTAINER_NAME} (`guest`). */
  name: string;
  /** The image to run. */
  image: string;
  /** `Always`, `IfNotPresent` or `Never`; absent = the cluster default. */
  imagePullPolicy?: string;
  /** The guest's argv (entrypoint override). */
  command: string[];
  /** The guest's working directory. */
  workingDir: string;
  /** The guest's entire environment, as name/value pairs. */
  env: {
    /** The variable's name. */
    name: string;
    /** The variable's value. */
    value: string;
  }[];
  /** Always `true`: the host talks to the guest over stdin. */
  stdin: boolean;
  /** Always `true`: stdin closes after the first attach ends. */
  stdinOnce: boolean;
  /** Always `false`: no TTY, so stdout and stderr stay separate. */
  tty: boolean;
  /** The container's isolation. */
  securityContext: {
    /** Always `true`. */
    runAsNonRoot: boolean;
    /** The numeric non-root user. */
    runAsUser: number;
    /** The numeric group (same as the user). */
    runAsGroup: number;
    /** `true` except for the `dev` profile. */
    readOnlyRootFilesystem: boolean;
    /** Always `false`. */
    allowPrivilegeEscalation: boolean;
    /** Always `false`. */
    privileged: boolean;
    /** Capabilities removed from the container. */
    capabilities: {
      /** Always `['ALL']`. */
      drop: string[];
    };
    /** The seccomp profile. */
    seccompProfile: {
      /** Always `RuntimeDefault`. */
      type: string;
    };
  };
  /** Memory, CPU and ephemeral-storage limits; empty when the request sets none. */
  resources: {
    /** The limits (`memory` in bytes, `cpu` in millicores, `ephemeral-storage` in bytes). */
    limits?: KubernetesResourceList;
    /** Equal to `limits`. */
    requests?: KubernetesResourceList;
  };
  /** Always one mount: the `tmp` volume at `/tmp`. */
  volumeMounts: {
    /** The volume's name. */
    name: string;
    /** Where it is mounted. */
    mountPath: string;
  }[];
}

/** A run's Pod (assignable to `V1Pod`). */
export interface KubernetesPodManifest {
  /** Always `v1`. */
  apiVersion: 'v1';
  /** Always `Pod`. */
  kind: 'Pod';
  /** The pod's identity. */
  metadata: {
    /** The pod's name. */
    name: string;
    /** The pod's namespace. */
    namespace: string;
    /** The spec's labels plus `app.kubernetes.io/managed-by: toolexec` (and {@link NETWORK_LABEL} for `none`). */
    labels: Record<string, string>;
  };
  /** The pod's spec. */
  spec: {
    /** Always `Never`: a run is never restarted. */
    restartPolicy: string;
    /** Seconds after which Kubernetes kills the pod: the run's timeout plus a grace. */
    activeDeadlineSeconds: number;
    /** Always `false`: no service-account token in the pod. */
    automountServiceAccountToken: boolean;
    /** Always `false`: no service environment variables. */
    enableServiceLinks: boolean;
    /** Always `false`. */
    hostNetwork: boolean;
    /** Always `false`. */
    hostPID: boolean;
    /** Always `false`. */
    hostIPC: boolean;
    /** The service account; absent = the namespace default. */
    serviceAccountName?: string;
    /** The RuntimeClass (`gvisor`, `kata`, ...); absent = the cluster default. */
    runtimeClassName?: string;
    /** Always 0: the pod is killed at once on delete. */
    terminationGracePeriodSeconds: number;
    /** The pod-level isolation. */
    securityContext: {
      /** Always `true`. */
      runAsNonRoot: boolean;
      /** The numeric non-root user. */
      runAsUser: number;
      /** The numeric group (same as the user). */
      runAsGroup: number;
      /** The group owning mounted volumes (same as the user). */
      fsGroup: number;
      /** The seccomp profile. */
      seccompProfile: {
        /** Always `RuntimeDefault`. */
        type: string;
      };
    };
    /** Exactly one container: the guest. */
    containers: KubernetesContainerManifest[];
    /** Exactly one volume: the size-limited `tmp` emptyDir. */
    volumes: {
      /** The volume's name (`tmp`). */
      name: string;
      /** A scratch volume that lives as long as the pod. */
      emptyDir: {
        /** Its size cap in bytes, as a quantity string. */
        sizeLimit: string;
      };
    }[];
  };
}

/** What {@link buildKubernetesPod} needs. */
export interface KubernetesPodInput {
  /** The pod's name. */
  name: string;
  /** The pod's namespace. */
  namespace: string;
  /** The guest container's image. */
  image: string;
  /** The guest's argv. */
  command: readonly string[];
  /** The guest's entire environment. */
  env: Record<string, string>;
  /** The guest's working directory. */
  workingDir: string;
  /** Labels added to the pod. */
  labels: Record<string, string>;
  /** The numeric non-root user (and group). */
  userId: number;
  /** Mount the container's root filesystem read-only. */
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
  /** Seconds after which Kubernetes kills the pod. */
  activeDeadlineSeconds: number;
  /** The pod's RuntimeClass; absent or `''` = the cluster default. */
  runtimeClassName?: string;
  /** The pod's service account; absent or `''` = the namespace default. */
  serviceAccountName?: string;
  /** The container's `imagePullPolicy`; absent = the cluster default. */
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
      ...(input.serviceAccountName === undefined || input.serviceAccountName === ''
        ? {}
        : { serviceAccountName: input.serviceAccountName }),
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
  /** Always `networking.k8s.io/v1`. */
  apiVersion: 'networking.k8s.io/v1';
  /** Always `NetworkPolicy`. */
  kind: 'NetworkPolicy';
  /** The policy's identity. */
  metadata: {
    /** The policy's name. */
    name: string;
    /** The namespace it applies in. */
    namespace: string;
  };
  /** What the policy selects and allows. */
  spec: {
    /** Which pods it applies to. */
    podSelector: {
      /** Pods with these labels: `toolexec.dev/network=none`. */
      matchLabels: Record<string, string>;
    };
    /** Always `['Ingress', 'Egress']`: both directions are governed. */
    policyTypes: string[];
    /** Always empty: no ingress allowed. */
    ingress: never[];
    /** Always empty: no egress allowed. */
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
