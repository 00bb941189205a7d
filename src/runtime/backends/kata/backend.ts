/**
 * The `kata` backend (beta): a validated spec handed to an injected client that starts the node
 * guest in a Kata Containers VM sandbox and attaches its stdio.
 */
import { SandboxClientBackend, clientBackendIdentity, type EnforcedResources, type SpecInput } from '../sandbox-client/base.js';
import { DEFAULT_SPEC_SANDBOX_IMAGE } from '../sandbox-client/guest-spec.js';
import { containerEnforced } from '../sandbox-client/mapping.js';
import { OptionReader } from '../../core/option-reader.js';
import type { SandboxClientBackendOptions } from '../sandbox-client/options.js';
import type { ContainerSandboxSpec, ImageResolver, SandboxCapabilities, SandboxClient } from '../sandbox-client/contract.js';
import { invalidSpec, validateGuest, validateResources, validateSecurity } from '../sandbox-client/validate.js';

/** Default kata runtime binary. */
export const DEFAULT_KATA_RUNTIME = 'kata-runtime';

/** Default kata hypervisor. */
export const DEFAULT_KATA_HYPERVISOR = 'qemu';

/** What a {@link KataClient} starts: one Kata sandbox (a lightweight VM) running the guest. */
export interface KataSpec extends ContainerSandboxSpec {
  /** `qemu`, `cloud-hypervisor`, `firecracker`, ... */
  hypervisor: string;
  /** The guest kernel, or `''` for the runtime's default. */
  kernelPath: string;
  /** The guest image/rootfs, or `''` for the runtime's default. */
  imagePath: string;
}

/**
 * Starts a {@link KataSpec}.
 *
 * @remarks
 * A real client runs `spec.guest.command` in a Kata sandbox (e.g. through containerd with the
 * `io.containerd.kata.v2` runtime, or `kata-runtime` directly) with `spec.hypervisor`, the given
 * kernel and image, `spec.security` and `spec.resources` (the VM's memory and vCPUs sized from
 * them), attaches stdin/stdout/stderr and tears the VM down on `kill()`.
 */
export type KataClient = SandboxClient<KataSpec>;

/** Options of {@link createKataBackend}. */
export interface KataBackendOptions extends SandboxClientBackendOptions {
  /** Starts the sandboxes. Without it every run fails with `RUNTIME_UNAVAILABLE`. */
  client?: KataClient;
  /** Resolves (pulls, pins) the image before each run; a failure that is not a ToolexecError becomes `RUNTIME_UNAVAILABLE`. */
  imageResolver?: ImageResolver;
  /** The kata runtime binary. @defaultValue 'kata-runtime' */
  runtimePath?: string;
  /** The image run (before the resolver). @defaultValue 'toolruntime-sandbox:latest' ('' when `imagePath` is set) */
  image?: string;
  /** The hypervisor. @defaultValue 'qemu' */
  hypervisor?: string;
  /** The guest kernel. @defaultValue '' (the runtime's default) */
  kernelPath?: string;
  /** The guest image/rootfs. @defaultValue '' (the runtime's default) */
  imagePath?: string;
}

/** The resolved configuration of a {@link KataBackend}. */
export type KataConfig = Required<Pick<KataBackendOptions, 'runtimePath' | 'image' | 'hypervisor' | 'kernelPath' | 'imagePath'>>;

/** How kata runs are named in errors and logs. */
const KATA = clientBackendIdentity('kata', { client: 'kata runner', unavailable: 'kata runtime unavailable' });

/**
 * The `kata` backend.
 *
 * @remarks
 * Defaults: runtime `kata-runtime`, hypervisor `qemu`, image `toolruntime-sandbox:latest`,
 * timeout 30 s; the run order is the shared one (see {@link SandboxClientBackend}). Profiles map
 * as for containerd (no seccomp profile). The spec needs an image or an `imagePath` (`image or
 * imagePath is required`). Details `{ hypervisor, profile, runId }`.
 */
export class KataBackend extends SandboxClientBackend<KataSpec, KataConfig, 'kata'> {
  constructor(options: KataBackendOptions = {}) {
    const read = new OptionReader('kata', options);
    const imagePath = read.string('imagePath', '');
    super(KATA, read, {
      runtimePath: read.string('runtimePath', DEFAULT_KATA_RUNTIME),
      // A VM booted from `imagePath` needs no container image: the default image applies only without one.
      image: read.string('image', imagePath === '' ? DEFAULT_SPEC_SANDBOX_IMAGE : ''),
      hypervisor: read.string('hypervisor', DEFAULT_KATA_HYPERVISOR),
      kernelPath: read.string('kernelPath', ''),
      imagePath,
    });
  }

  protected override imageToResolve(): string {
    return this.settings.image;
  }

  protected buildSpec(input: SpecInput): KataSpec {
    const { runtimePath, hypervisor, kernelPath, imagePath } = this.settings;
    const spec: KataSpec = { ...this.containerSpecBase(input, runtimePath), hypervisor, kernelPath, imagePath };
    validateKataSpec(spec);
    return spec;
  }

  protected enforcedResources(spec: KataSpec, capabilities: SandboxCapabilities): EnforcedResources {
    return containerEnforced(spec.resources, capabilities);
  }

  protected details(profile: string): Record<string, unknown> {
    return { hypervisor: this.settings.hypervisor, profile };
  }

  protected logFields(spec: KataSpec): Record<string, unknown> {
    return { profile: spec.profile, image: spec.image, hypervisor: spec.hypervisor, runId: spec.runId };
  }
}

/**
 * Checks a {@link KataSpec} in this order: `image or imagePath is required`, security,
 * resources; then the guest. @throws `CONFIGURATION` / `SANDBOX_VIOLATION`.
 */
export function validateKataSpec(spec: KataSpec): void {
  if ((typeof spec.image !== 'string' || spec.image === '') && (typeof spec.imagePath !== 'string' || spec.imagePath === '')) {
    throw invalidSpec('image or imagePath is required', 'image');
  }
  validateSecurity(spec.security);
  validateResources(spec.resources);
  validateGuest(spec.guest, spec.timeoutMs);
}

/** Creates a {@link KataBackend}. @throws `CONFIGURATION` for an option of the wrong type. */
export function createKataBackend(options: KataBackendOptions = {}): KataBackend {
  return new KataBackend(options);
}
