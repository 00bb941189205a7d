/**
 * The `containerd` backend (beta): a validated container spec handed to an injected client that
 * starts the node guest in a containerd task and attaches its stdio.
 */
import { SpecBackend, type EnforcedResources, type SpecInput } from '../sandbox-client/base.js';
import { DEFAULT_SPEC_SANDBOX_IMAGE } from '../spec/guest.js';
import { containerEnforced, containerResources, containerSecurity, copyLimits, specLabels } from '../sandbox-client/mapping.js';
import {
  imageResolverOption,
  objectOption,
  resolveCommonOptions,
  stringOption,
  type SpecBackendCommonOptions,
} from '../sandbox-client/options.js';
import type {
  BaseSandboxSpec,
  ImageResolver,
  SandboxCapabilities,
  SandboxClient,
  SandboxResources,
  SandboxSecurity,
} from '../sandbox-client/contract.js';
import { validateContainerSpec } from '../sandbox-client/validate.js';

/** Default containerd namespace. */
export const DEFAULT_CONTAINERD_NAMESPACE = 'default';

/** Default containerd socket. */
export const DEFAULT_CONTAINERD_SOCKET = '/run/containerd/containerd.sock';

/** What a {@link ContainerdClient} starts: one containerd task running the guest. */
export interface ContainerdSpec extends BaseSandboxSpec {
  /** The image reference (after the resolver). */
  image: string;
  /** The containerd runtime (`io.containerd.runc.v2`, `io.containerd.runsc.v1`, ...); `''` = the default. */
  runtime: string;
  /** The containerd namespace to create the container in. */
  namespace: string;
  /** The containerd socket to talk to. */
  socketPath: string;
  /** The cgroup limits to apply (memory, CPU quota/period, pids, disk). */
  resources: SandboxResources;
  /** The isolation to apply (user, rootfs, network, seccomp, capabilities). */
  security: SandboxSecurity;
}

/**
 * Starts a {@link ContainerdSpec} in containerd.
 *
 * @remarks
 * A real client creates a container from `spec.image` in `spec.namespace` with `spec.runtime`,
 * runs `spec.guest.command` as `spec.security.user` in `spec.guest.workingDir` with exactly
 * `spec.guest.env`, applies `spec.security` (read-only rootfs, network namespace without
 * interfaces for `none`, seccomp, no new privileges, all capabilities dropped) and
 * `spec.resources` (cgroup memory, CPU quota/period, pids), with a writable `/tmp`, attaches the
 * task's stdin/stdout/stderr (FIFOs) and deletes container and task on `kill()`.
 */
export type ContainerdClient = SandboxClient<ContainerdSpec>;

/** Options of {@link createContainerdBackend}. */
export interface ContainerdBackendOptions extends SpecBackendCommonOptions {
  /** Starts the sandboxes. Without it every run fails with `RUNTIME_UNAVAILABLE`. */
  client?: ContainerdClient;
  /** Resolves (pulls, pins) the image before each run. */
  imageResolver?: ImageResolver;
  /** @defaultValue 'toolruntime-sandbox:latest' (it must provide node >= 20) */
  imageRef?: string;
  /** @defaultValue 'default' */
  namespace?: string;
  /** @defaultValue '/run/containerd/containerd.sock' */
  socketPath?: string;
  /** The containerd runtime. @defaultValue '' (containerd's default) */
  runtime?: string;
  /** A seccomp profile applied under `hardened`. */
  seccompPath?: string;
}

/**
 * The `containerd` backend.
 *
 * @remarks
 * Go's defaults (image `toolruntime-sandbox:latest`, namespace `default`, socket
 * `/run/containerd/containerd.sock`, timeout 30 s) and Go's order (see {@link SpecBackend}).
 * Profiles: `dev` → `bridge` network, writable rootfs; `standard` → no network, read-only rootfs;
 * `hardened` → the same plus `seccompPath`. Always `nobody:nogroup`. CPU: `cpuQuotaMs × 1000` µs
 * per 1 s period. Details `{ imageRef, namespace, runtime, profile, runId }`.
 */
export class ContainerdBackend extends SpecBackend<ContainerdSpec> {
  readonly kind = 'containerd' as const;
  readonly readiness = 'beta' as const;
  protected readonly clientLabel = 'containerd client';
  protected readonly unavailableLabel = 'containerd daemon unavailable';
  protected readonly logMessage = 'executing in containerd';
  readonly #imageRef: string;
  readonly #namespace: string;
  readonly #socketPath: string;
  readonly #runtime: string;
  readonly #seccompPath: string;

  constructor(options: ContainerdBackendOptions = {}) {
    super(
      resolveCommonOptions('containerd', options),
      objectOption('containerd', 'client', options.client, ['start']),
      imageResolverOption('containerd', options.imageResolver),
    );
    this.#imageRef = stringOption('containerd', 'imageRef', options.imageRef, DEFAULT_SPEC_SANDBOX_IMAGE);
    this.#namespace = stringOption('containerd', 'namespace', options.namespace, DEFAULT_CONTAINERD_NAMESPACE);
    this.#socketPath = stringOption('containerd', 'socketPath', options.socketPath, DEFAULT_CONTAINERD_SOCKET);
    this.#runtime = stringOption('containerd', 'runtime', options.runtime, '');
    this.#seccompPath = stringOption('containerd', 'seccompPath', options.seccompPath, '');
  }

  /** The resolved configuration (for diagnostics and tests). */
  get config(): {
    /** The image run (before the resolver). */
    imageRef: string;
    /** The containerd namespace. */
    namespace: string;
    /** The containerd socket. */
    socketPath: string;
    /** The containerd runtime; `''` = containerd's default. */
    runtime: string;
    /** The seccomp profile applied under `hardened`; `''` = none. */
    seccompPath: string;
  } {
    return {
      imageRef: this.#imageRef,
      namespace: this.#namespace,
      socketPath: this.#socketPath,
      runtime: this.#runtime,
      seccompPath: this.#seccompPath,
    };
  }

  protected override imageToResolve(): string {
    return this.#imageRef;
  }

  protected buildSpec(input: SpecInput): ContainerdSpec {
    const spec: ContainerdSpec = {
      runId: input.runId,
      profile: input.profile,
      image: input.image,
      runtime: this.#runtime,
      namespace: this.#namespace,
      socketPath: this.#socketPath,
      resources: containerResources(input.request.limits),
      security: containerSecurity(input.profile, { seccompProfile: this.#seccompPath }),
      timeoutMs: input.timeoutMs,
      limits: copyLimits(input.request.limits),
      labels: specLabels(input.profile, this.kind, input.runId),
      guest: input.guest,
    };
    validateContainerSpec(spec);
    return spec;
  }

  protected enforcedResources(spec: ContainerdSpec, capabilities: SandboxCapabilities): EnforcedResources {
    return containerEnforced(spec.resources, capabilities);
  }

  protected details(profile: string): Record<string, unknown> {
    return { imageRef: this.#imageRef, namespace: this.#namespace, runtime: this.#runtime, profile };
  }

  protected logFields(spec: ContainerdSpec): Record<string, unknown> {
    return { profile: spec.profile, image: spec.image, runtime: spec.runtime, namespace: spec.namespace, runId: spec.runId };
  }
}

/** Creates a {@link ContainerdBackend}. @throws `CONFIGURATION` for an option of the wrong type. */
export function createContainerdBackend(options: ContainerdBackendOptions = {}): ContainerdBackend {
  return new ContainerdBackend(options);
}
