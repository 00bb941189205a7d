/**
 * The `containerd` backend (beta): a validated container spec handed to an injected client that
 * starts the node guest in a containerd task and attaches its stdio.
 */
import { SandboxClientBackend, clientBackendIdentity, type EnforcedResources, type SpecInput } from '../sandbox-client/base.js';
import { DEFAULT_SPEC_SANDBOX_IMAGE } from '../sandbox-client/guest-spec.js';
import { containerEnforced } from '../sandbox-client/mapping.js';
import { OptionReader } from '../../core/option-reader.js';
import type { SandboxClientBackendOptions } from '../sandbox-client/options.js';
import type { ContainerSandboxSpec, ImageResolver, SandboxCapabilities, SandboxClient } from '../sandbox-client/contract.js';
import { validateContainerSpec } from '../sandbox-client/validate.js';

/** Default containerd namespace. */
export const DEFAULT_CONTAINERD_NAMESPACE = 'default';

/** Default containerd socket. */
export const DEFAULT_CONTAINERD_SOCKET = '/run/containerd/containerd.sock';

/** What a {@link ContainerdClient} starts: one containerd task running the guest. */
export interface ContainerdSpec extends ContainerSandboxSpec {
  /** The containerd namespace to create the container in. */
  namespace: string;
  /** The containerd socket to talk to. */
  socketPath: string;
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
export interface ContainerdBackendOptions extends SandboxClientBackendOptions {
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
  /** A seccomp profile applied under `hardened`. @defaultValue '' (none) */
  seccompPath?: string;
}

/** The resolved configuration of a {@link ContainerdBackend}. */
export type ContainerdConfig = Required<
  Pick<ContainerdBackendOptions, 'imageRef' | 'namespace' | 'socketPath' | 'runtime' | 'seccompPath'>
>;

/** How containerd runs are named in errors and logs. */
const CONTAINERD = clientBackendIdentity('containerd', { client: 'containerd client', unavailable: 'containerd daemon unavailable' });

/**
 * The `containerd` backend.
 *
 * @remarks
 * Defaults: image `toolruntime-sandbox:latest`, namespace `default`, socket
 * `/run/containerd/containerd.sock`, timeout 30 s; the run order is the shared one (see
 * {@link SandboxClientBackend}). Profiles: `dev` → `bridge` network, writable rootfs; `standard` →
 * no network, read-only rootfs; `hardened` → the same plus `seccompPath`. Always `nobody:nogroup`.
 * CPU: `cpuQuotaMs × 1000` µs per 1 s period. Details `{ imageRef, namespace, runtime, profile, runId }`.
 */
export class ContainerdBackend extends SandboxClientBackend<ContainerdSpec, ContainerdConfig, 'containerd'> {
  constructor(options: ContainerdBackendOptions = {}) {
    const read = new OptionReader('containerd', options);
    super(CONTAINERD, read, {
      imageRef: read.string('imageRef', DEFAULT_SPEC_SANDBOX_IMAGE),
      namespace: read.string('namespace', DEFAULT_CONTAINERD_NAMESPACE),
      socketPath: read.string('socketPath', DEFAULT_CONTAINERD_SOCKET),
      runtime: read.string('runtime', ''),
      seccompPath: read.string('seccompPath', ''),
    });
  }

  protected override imageToResolve(): string {
    return this.settings.imageRef;
  }

  protected buildSpec(input: SpecInput): ContainerdSpec {
    const { runtime, namespace, socketPath, seccompPath } = this.settings;
    const spec: ContainerdSpec = { ...this.containerSpecBase(input, runtime, { seccompProfile: seccompPath }), namespace, socketPath };
    validateContainerSpec(spec);
    return spec;
  }

  protected enforcedResources(spec: ContainerdSpec, capabilities: SandboxCapabilities): EnforcedResources {
    return containerEnforced(spec.resources, capabilities);
  }

  protected details(profile: string): Record<string, unknown> {
    const { imageRef, namespace, runtime } = this.settings;
    return { imageRef, namespace, runtime, profile };
  }

  protected logFields(spec: ContainerdSpec): Record<string, unknown> {
    return { profile: spec.profile, image: spec.image, runtime: spec.runtime, namespace: spec.namespace, runId: spec.runId };
  }
}

/** Creates a {@link ContainerdBackend}. @throws `CONFIGURATION` for an option of the wrong type. */
export function createContainerdBackend(options: ContainerdBackendOptions = {}): ContainerdBackend {
  return new ContainerdBackend(options);
}
