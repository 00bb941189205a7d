/**
 * The `kubernetes` backend (beta): a validated pod spec with a real Pod manifest, handed to an
 * injected client that creates the pod and attaches to its guest container.
 */
import { SandboxClientBackend, clientBackendIdentity, type EnforcedResources, type SpecInput } from '../sandbox-client/base.js';
import { DEFAULT_SPEC_SANDBOX_IMAGE } from '../sandbox-client/guest-spec.js';
import { OptionReader } from '../../core/option-reader.js';
import type { SandboxClientBackendOptions } from '../sandbox-client/options.js';
import type { BaseSandboxSpec, HealthChecker, ImageResolver, SandboxCapabilities, SandboxClient } from '../sandbox-client/contract.js';
import { invalidSpec, validateGuest, validateResources, validateSecurity } from '../sandbox-client/validate.js';
import type { SecurityProfile } from '../../core/types.js';
import { buildKubernetesPod, type KubernetesPodManifest } from './manifest.js';

/** Default namespace. */
export const DEFAULT_KUBERNETES_NAMESPACE = 'default';

/** Default timeout of a kubernetes run: 60 s (pods start slower than containers). */
export const DEFAULT_KUBERNETES_TIMEOUT_MS = 60_000;

/** The non-root user of kubernetes pods (nobody). */
export const KUBERNETES_USER = '65534';

/** Default size of the pod's `/tmp`: 64 MiB. */
export const DEFAULT_KUBERNETES_TMP_BYTES = 64 * 1024 * 1024;

/** Resource limits of a pod. 0 = none. */
export interface KubernetesResources {
  /** Memory limit (and request) of the guest container, in bytes. */
  memoryBytes: number;
  /** Millicores: `cpuQuotaMs` unchanged (1000 ms of CPU per second = one core). */
  cpuMillis: number;
  /** Carried for completeness; a Pod cannot set it (pids are never reported as enforced). */
  pidsLimit: number;
  /** Ephemeral storage. */
  diskBytes: number;
}

/** Pod isolation. */
export interface KubernetesSecurity {
  /** The numeric non-root user the container runs as ({@link KUBERNETES_USER}). */
  user: string;
  /** Mount the root filesystem read-only: `true` except for the `dev` profile. */
  readOnlyRootfs: boolean;
  /** `none` (needs a NetworkPolicy, see `buildKubernetesNetworkPolicy`) or `default`. */
  networkMode: string;
}

/** What a {@link KubernetesClient} starts: one pod, described by {@link KubernetesPodSpec.manifest}. */
export interface KubernetesPodSpec extends BaseSandboxSpec {
  /** The namespace to create the pod in. */
  namespace: string;
  /** The image reference (after the resolver). */
  image: string;
  /** The pod's RuntimeClass; `''` = the cluster default. */
  runtimeClassName: string;
  /** The pod's service account; `''` = the namespace default (its token is never mounted). */
  serviceAccount: string;
  /** The pod's name: `<podNamePrefix>-<runId>`. */
  podName: string;
  /** The pod's resource limits. */
  resources: KubernetesResources;
  /** The pod's isolation. */
  security: KubernetesSecurity;
  /** The Pod to create, ready for the API (assignable to `V1Pod`). */
  manifest: KubernetesPodManifest;
}

/**
 * Creates the pod of a {@link KubernetesPodSpec} and attaches to it.
 *
 * @remarks
 * A real client creates `spec.manifest` in `spec.namespace`, waits until the `guest` container is
 * running, attaches to it with stdin, stdout and stderr (the Attach API; the container was created
 * with `stdin: true, stdinOnce: true` and its node waits for the first stdin line, so nothing is
 * lost by attaching after the start), resolves `exited` when the pod terminates, and deletes the
 * pod on `kill()` (grace period 0). With `@kubernetes/client-node`: `CoreV1Api.createNamespacedPod`,
 * `Attach.attach(namespace, pod, 'guest', stdout, stderr, stdin, false)`, `deleteNamespacedPod`.
 * A client with `ping()` doubles as the health checker when none is configured.
 */
export interface KubernetesClient extends SandboxClient<KubernetesPodSpec> {
  /** Optional cluster health check (e.g. `/version`). */
  ping?(options: { signal: AbortSignal }): Promise<void>;
}

/** Options of {@link createKubernetesBackend}. */
export interface KubernetesBackendOptions extends SandboxClientBackendOptions {
  /** Creates and attaches the pods. Without it every run fails with `RUNTIME_UNAVAILABLE`. */
  client?: KubernetesClient;
  /** Resolves (pulls, pins) the image before each run; a failure that is not a ToolexecError becomes `RUNTIME_UNAVAILABLE`. */
  imageResolver?: ImageResolver;
  /** @defaultValue 'default' */
  namespace?: string;
  /** @defaultValue 'toolruntime-sandbox:latest' */
  image?: string;
  /** A RuntimeClass for stronger isolation (`gvisor`, `kata`, ...). */
  runtimeClassName?: string;
  /** The pod's service account (its token is never mounted). */
  serviceAccount?: string;
  /** Pod names are `<prefix>-<runId>`. @defaultValue 'toolexec' */
  podNamePrefix?: string;
  /** Size of the writable `/tmp` when the request sets no disk limit. @defaultValue 64 MiB */
  tmpSizeBytes?: number;
  /** Seconds added to the timeout for `activeDeadlineSeconds` (scheduling, pulling). @defaultValue 30 */
  deadlineGraceSeconds?: number;
  /** The container's `imagePullPolicy`. @defaultValue unset (the cluster default) */
  imagePullPolicy?: string;
}

function networkMode(profile: SecurityProfile): string {
  return profile === 'dev' ? 'default' : 'none';
}

/** The resolved configuration of a {@link KubernetesBackend}. */
export type KubernetesConfig = Required<
  Pick<KubernetesBackendOptions, 'namespace' | 'image' | 'runtimeClassName' | 'serviceAccount' | 'podNamePrefix' | 'tmpSizeBytes'>
>;

/** The client as the health checker, when it has `ping()`. */
function clientHealthChecker(client: KubernetesClient | undefined): HealthChecker | undefined {
  if (client?.ping === undefined || typeof client.ping !== 'function') return undefined;
  return { ping: (options) => (client.ping as NonNullable<KubernetesClient['ping']>).call(client, options) };
}

/** How kubernetes runs are named in errors and logs; a run's default timeout is 60 s. */
const KUBERNETES = clientBackendIdentity(
  'kubernetes',
  { client: 'kubernetes client', unavailable: 'kubernetes cluster unavailable' },
  { fallbackTimeoutMs: DEFAULT_KUBERNETES_TIMEOUT_MS },
);

/**
 * The `kubernetes` backend.
 *
 * @remarks
 * Defaults: namespace `default`, image `toolruntime-sandbox:latest`, **timeout 60 s**, user
 * `65534`; the run order is the shared one (see {@link SandboxClientBackend}); the health checker
 * is the configured one, else the client when it has `ping()` (decided once, at construction: no
 * mutation during runs). Profiles: `dev` → default network, writable rootfs;
 * `standard`/`hardened` → `none` network (label `toolexec.dev/network=none`, enforced only by a
 * NetworkPolicy), read-only rootfs. CPU maps to millicores unchanged. Pids are never enforced (a
 * Pod cannot limit them). Details `{ namespace, image, runtimeClassName, profile, runId }`.
 */
export class KubernetesBackend extends SandboxClientBackend<KubernetesPodSpec, KubernetesConfig, 'kubernetes'> {
  readonly #deadlineGraceSeconds: number;
  readonly #imagePullPolicy: string;

  constructor(options: KubernetesBackendOptions = {}) {
    const client = new OptionReader('kubernetes', options).object<KubernetesClient>('client', ['start']);
    const health = options.healthChecker === undefined ? clientHealthChecker(client) : undefined;
    const read = new OptionReader('kubernetes', health === undefined ? options : { ...options, healthChecker: health });
    super(KUBERNETES, read, {
      namespace: read.string('namespace', DEFAULT_KUBERNETES_NAMESPACE),
      image: read.string('image', DEFAULT_SPEC_SANDBOX_IMAGE),
      runtimeClassName: read.string('runtimeClassName', ''),
      serviceAccount: read.string('serviceAccount', ''),
      podNamePrefix: read.string('podNamePrefix', 'toolexec'),
      tmpSizeBytes: read.positiveInteger('tmpSizeBytes', DEFAULT_KUBERNETES_TMP_BYTES),
    });
    this.#deadlineGraceSeconds = read.nonNegativeInteger('deadlineGraceSeconds', 30);
    this.#imagePullPolicy = read.string('imagePullPolicy', '');
  }

  protected override imageToResolve(): string {
    return this.settings.image;
  }

  protected buildSpec(input: SpecInput): KubernetesPodSpec {
    const { namespace, runtimeClassName, serviceAccount, podNamePrefix, tmpSizeBytes } = this.settings;
    const limits = input.request.limits;
    const positive = (value: number | undefined) => (value !== undefined && value > 0 ? value : 0);
    const resources: KubernetesResources = {
      memoryBytes: positive(limits?.memoryBytes),
      cpuMillis: positive(limits?.cpuQuotaMs),
      pidsLimit: positive(limits?.pidsMax),
      diskBytes: positive(limits?.diskBytes),
    };
    const security: KubernetesSecurity = {
      user: KUBERNETES_USER,
      readOnlyRootfs: input.profile !== 'dev',
      networkMode: networkMode(input.profile),
    };
    const base = this.specBase(input);
    const podName = `${podNamePrefix}-${input.runId}`;
    const image = input.image;
    validateKubernetesSpec({ image, security, resources, podName });
    validateGuest(input.guest, input.timeoutMs);
    const manifest = buildKubernetesPod({
      name: podName,
      namespace,
      image,
      command: input.guest.command,
      env: input.guest.env,
      workingDir: input.guest.workingDir,
      labels: base.labels,
      userId: Number(KUBERNETES_USER),
      readOnlyRootfs: security.readOnlyRootfs,
      networkMode: security.networkMode,
      memoryBytes: resources.memoryBytes,
      cpuMillis: resources.cpuMillis,
      diskBytes: resources.diskBytes,
      tmpSizeBytes: resources.diskBytes > 0 ? Math.min(resources.diskBytes, tmpSizeBytes) : tmpSizeBytes,
      activeDeadlineSeconds: Math.ceil(input.timeoutMs / 1000) + this.#deadlineGraceSeconds,
      ...(runtimeClassName === '' ? {} : { runtimeClassName }),
      ...(serviceAccount === '' ? {} : { serviceAccountName: serviceAccount }),
      ...(this.#imagePullPolicy === '' ? {} : { imagePullPolicy: this.#imagePullPolicy }),
    });
    return { ...base, namespace, image, runtimeClassName, serviceAccount, podName, resources, security, manifest };
  }

  protected enforcedResources(spec: KubernetesPodSpec, capabilities: SandboxCapabilities): EnforcedResources {
    return {
      memory: spec.resources.memoryBytes > 0 && capabilities.memory === true,
      cpu: spec.resources.cpuMillis > 0 && capabilities.cpu === true,
      pids: false,
      disk: spec.resources.diskBytes > 0 && capabilities.disk === true,
    };
  }

  protected details(profile: string): Record<string, unknown> {
    const { namespace, image, runtimeClassName } = this.settings;
    return { namespace, image, runtimeClassName, profile };
  }

  protected logFields(spec: KubernetesPodSpec): Record<string, unknown> {
    return {
      profile: spec.profile,
      namespace: spec.namespace,
      runtimeClassName: spec.runtimeClassName,
      pod: spec.podName,
      runId: spec.runId,
    };
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Checks the pod settings in this order: `image is required`, security (`host network not
 * allowed`), resources (`... cannot be negative`); plus a valid pod name (a DNS label of at most
 * 63 characters). @throws `CONFIGURATION` / `SANDBOX_VIOLATION`.
 */
export function validateKubernetesSpec(spec: {
  image: string;
  security: KubernetesSecurity;
  resources: KubernetesResources;
  podName: string;
}): void {
  if (typeof spec.image !== 'string' || spec.image === '') throw invalidSpec('image is required', 'image');
  validateSecurity(spec.security);
  validateResources({
    memoryBytes: spec.resources.memoryBytes,
    cpuQuotaUs: spec.resources.cpuMillis,
    pidsLimit: spec.resources.pidsLimit,
    diskBytes: spec.resources.diskBytes,
  });
  if (spec.podName.length > 63 || !DNS_LABEL.test(spec.podName)) {
    throw invalidSpec(`pod name "${spec.podName}" is not a valid DNS label`, 'podName');
  }
}

/** Creates a {@link KubernetesBackend}. @throws `CONFIGURATION` for an option of the wrong type. */
export function createKubernetesBackend(options: KubernetesBackendOptions = {}): KubernetesBackend {
  return new KubernetesBackend(options);
}
