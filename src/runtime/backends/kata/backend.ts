/**
 * The `kata` backend (beta): a validated spec handed to an injected client that starts the node
 * guest in a Kata Containers VM sandbox and attaches its stdio.
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
import { invalidSpec, validateGuest, validateResources, validateSecurity } from '../sandbox-client/validate.js';

/** Default kata runtime binary. */
export const DEFAULT_KATA_RUNTIME = 'kata-runtime';

/** Default kata hypervisor. */
export const DEFAULT_KATA_HYPERVISOR = 'qemu';

/** What a {@link KataClient} starts: one Kata sandbox (a lightweight VM) running the guest. */
export interface KataSpec extends BaseSandboxSpec {
  /** The image reference (after the resolver); `''` when only `imagePath` is used. */
  image: string;
  /** The kata runtime binary. */
  runtime: string;
  /** `qemu`, `cloud-hypervisor`, `firecracker`, ... */
  hypervisor: string;
  /** The guest kernel, or `''` for the runtime's default. */
  kernelPath: string;
  /** The guest image/rootfs, or `''` for the runtime's default. */
  imagePath: string;
  /** The resource limits to size and cap the VM with. */
  resources: SandboxResources;
  /** The isolation to apply (user, rootfs, network, capabilities). */
  security: SandboxSecurity;
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
export interface KataBackendOptions extends SpecBackendCommonOptions {
  /** Starts the sandboxes. Without it every run fails with `RUNTIME_UNAVAILABLE`. */
  client?: KataClient;
  /** Resolves (pulls, pins) the image before each run; a failure that is not a ToolexecError becomes `RUNTIME_UNAVAILABLE`. */
  imageResolver?: ImageResolver;
  /** @defaultValue 'kata-runtime' */
  runtimePath?: string;
  /** @defaultValue 'toolruntime-sandbox:latest' */
  image?: string;
  /** @defaultValue 'qemu' */
  hypervisor?: string;
  /** The guest kernel. @defaultValue '' (the runtime's default) */
  kernelPath?: string;
  /** The guest image/rootfs. @defaultValue '' (the runtime's default) */
  imagePath?: string;
}

/**
 * The `kata` backend.
 *
 * @remarks
 * Go's defaults (runtime `kata-runtime`, hypervisor `qemu`, image `toolruntime-sandbox:latest`,
 * timeout 30 s) and order (see {@link SpecBackend}). Profiles map as for containerd (no seccomp
 * profile). The spec needs an image or an `imagePath` (`image or imagePath is required`). Details
 * `{ hypervisor, profile, runId }`.
 */
export class KataBackend extends SpecBackend<KataSpec> {
  readonly kind = 'kata' as const;
  readonly readiness = 'beta' as const;
  protected readonly clientLabel = 'kata runner';
  protected readonly unavailableLabel = 'kata runtime unavailable';
  protected readonly logMessage = 'executing in kata';
  readonly #runtimePath: string;
  readonly #image: string;
  readonly #hypervisor: string;
  readonly #kernelPath: string;
  readonly #imagePath: string;

  constructor(options: KataBackendOptions = {}) {
    super(
      resolveCommonOptions('kata', options),
      objectOption('kata', 'client', options.client, ['start']),
      imageResolverOption('kata', options.imageResolver),
    );
    this.#runtimePath = stringOption('kata', 'runtimePath', options.runtimePath, DEFAULT_KATA_RUNTIME);
    this.#imagePath = stringOption('kata', 'imagePath', options.imagePath, '');
    // A VM booted from `imagePath` needs no container image: the default image applies only without one.
    this.#image = stringOption('kata', 'image', options.image, this.#imagePath === '' ? DEFAULT_SPEC_SANDBOX_IMAGE : '');
    this.#hypervisor = stringOption('kata', 'hypervisor', options.hypervisor, DEFAULT_KATA_HYPERVISOR);
    this.#kernelPath = stringOption('kata', 'kernelPath', options.kernelPath, '');
  }

  /** The resolved configuration. */
  get config(): {
    /** The kata runtime binary. */
    runtimePath: string;
    /** The image run (before the resolver). */
    image: string;
    /** The hypervisor. */
    hypervisor: string;
    /** The guest kernel; `''` = the runtime's default. */
    kernelPath: string;
    /** The guest image/rootfs; `''` = the runtime's default. */
    imagePath: string;
  } {
    return {
      runtimePath: this.#runtimePath,
      image: this.#image,
      hypervisor: this.#hypervisor,
      kernelPath: this.#kernelPath,
      imagePath: this.#imagePath,
    };
  }

  protected override imageToResolve(): string {
    return this.#image;
  }

  protected buildSpec(input: SpecInput): KataSpec {
    const spec: KataSpec = {
      runId: input.runId,
      profile: input.profile,
      image: input.image,
      runtime: this.#runtimePath,
      hypervisor: this.#hypervisor,
      kernelPath: this.#kernelPath,
      imagePath: this.#imagePath,
      resources: containerResources(input.request.limits),
      security: containerSecurity(input.profile),
      timeoutMs: input.timeoutMs,
      limits: copyLimits(input.request.limits),
      labels: specLabels(input.profile, this.kind, input.runId),
      guest: input.guest,
    };
    validateKataSpec(spec);
    return spec;
  }

  protected enforcedResources(spec: KataSpec, capabilities: SandboxCapabilities): EnforcedResources {
    return containerEnforced(spec.resources, capabilities);
  }

  protected details(profile: string): Record<string, unknown> {
    return { hypervisor: this.#hypervisor, profile };
  }

  protected logFields(spec: KataSpec): Record<string, unknown> {
    return { profile: spec.profile, image: spec.image, hypervisor: spec.hypervisor, runId: spec.runId };
  }
}

/**
 * Checks a {@link KataSpec} in Go's order: `image or imagePath is required`, security,
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
