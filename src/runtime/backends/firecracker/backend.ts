/**
 * The `firecracker` backend (beta): a validated microVM spec handed to an injected client that
 * boots a Firecracker microVM, runs the node guest in it and bridges its stdio.
 */
import { SpecBackend, type EnforcedResources, type SpecInput } from '../sandbox-client/base.js';
import { DEFAULT_SPEC_SANDBOX_IMAGE } from '../spec/guest.js';
import { copyLimits, specLabels } from '../sandbox-client/mapping.js';
import { objectOption, optionError, resolveCommonOptions, stringOption, type SpecBackendCommonOptions } from '../sandbox-client/options.js';
import type { BaseSandboxSpec, SandboxCapabilities, SandboxClient } from '../sandbox-client/contract.js';
import { invalidSpec, validateGuest } from '../sandbox-client/validate.js';

/** Default firecracker binary. */
export const DEFAULT_FIRECRACKER_BINARY = 'firecracker';

/** Default vCPU count of a microVM. */
export const DEFAULT_FIRECRACKER_VCPUS = 1;

/** Default memory of a microVM, in MiB. */
export const DEFAULT_FIRECRACKER_MEM_MB = 128;

/** The machine of a microVM. */
export interface MicroVMResources {
  /** vCPUs of the VM (positive). */
  vcpuCount: number;
  /** Memory of the VM in MiB (positive). */
  memSizeMB: number;
}

/** How to boot a microVM. */
export interface MicroVMConfig {
  /** The guest kernel image; required (`kernelPath is required`). */
  kernelPath: string;
  /** The root filesystem image (booted read-only, with node >= 20); required (`rootfsPath is required`). */
  rootfsPath: string;
  /** The API socket, or `''` for one per VM chosen by the client. */
  socketPath: string;
  /** The firecracker binary to start. */
  binaryPath: string;
}

/** What a {@link FirecrackerClient} starts: one microVM running the guest. */
export interface MicroVMSpec extends BaseSandboxSpec {
  /** The image name (informational: the rootfs is what boots). */
  image: string;
  /** The VM's machine size. */
  resources: MicroVMResources;
  /** How to boot the VM. */
  config: MicroVMConfig;
}

/**
 * Boots a {@link MicroVMSpec}.
 *
 * @remarks
 * What a real client must do: start `config.binaryPath` with a fresh API socket, configure the
 * machine (`resources.vcpuCount`, `resources.memSizeMB`), the kernel (`config.kernelPath`) and the
 * root drive (`config.rootfsPath`, read-only, with node >= 20 on it), give the VM no network
 * interface, boot it and start `spec.guest.command` inside (e.g. as init, or through an agent over
 * vsock) with `spec.guest.env` and a writable `spec.guest.workingDir`; then bridge the guest
 * process's stdin/stdout/stderr to the returned streams (vsock or serial console, with stdout
 * carrying only the guest's stdout), resolve `exited` when the VM stops, and on `kill()` stop the
 * VM and remove its socket and scratch files. Declare `capabilities.memory` only if the VM's
 * memory size is really fixed to `memSizeMB`.
 */
export type FirecrackerClient = SandboxClient<MicroVMSpec>;

/** Options of {@link createFirecrackerBackend}. */
export interface FirecrackerBackendOptions extends SpecBackendCommonOptions {
  /** Boots the microVMs. Without it every run fails with `RUNTIME_UNAVAILABLE`. */
  client?: FirecrackerClient;
  /** @defaultValue 'firecracker' */
  binaryPath?: string;
  /** The guest kernel. Required to run (`kernelPath is required`). */
  kernelPath?: string;
  /** The root filesystem image. Required to run (`rootfsPath is required`). */
  rootfsPath?: string;
  /** @defaultValue '' (one per VM) */
  socketPath?: string;
  /** Values <= 0 mean the default. @defaultValue 1 */
  vcpuCount?: number;
  /** Values <= 0 mean the default. @defaultValue 128 */
  memSizeMB?: number;
  /** @defaultValue 'toolruntime-sandbox:latest' */
  image?: string;
}

function machineOption(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw optionError('firecracker', option, 'must be an integer', value);
  return value <= 0 ? fallback : value;
}

/**
 * The `firecracker` backend.
 *
 * @remarks
 * Go's defaults (binary `firecracker`, 1 vCPU, 128 MiB, timeout 30 s) and order; no image
 * resolver. The profile is not mapped into the spec (a microVM is always isolated; the VM has no
 * network). Unlike Go, it does not claim limits it does not pass on: `memory` is enforced only when
 * the client declares it (the VM size is then the cap, on every run); CPU, pids and disk are not
 * enforced. `limits.memoryBytes` also caps the guest's V8 heap. Details
 * `{ vcpuCount, memSizeMB, profile, runId }`.
 */
export class FirecrackerBackend extends SpecBackend<MicroVMSpec> {
  readonly kind = 'firecracker' as const;
  readonly readiness = 'beta' as const;
  protected readonly clientLabel = 'firecracker runner';
  protected readonly unavailableLabel = 'firecracker daemon unavailable';
  protected readonly logMessage = 'executing in firecracker';
  readonly #binaryPath: string;
  readonly #kernelPath: string;
  readonly #rootfsPath: string;
  readonly #socketPath: string;
  readonly #vcpuCount: number;
  readonly #memSizeMB: number;
  readonly #image: string;

  constructor(options: FirecrackerBackendOptions = {}) {
    super(resolveCommonOptions('firecracker', options), objectOption('firecracker', 'client', options.client, ['start']));
    this.#binaryPath = stringOption('firecracker', 'binaryPath', options.binaryPath, DEFAULT_FIRECRACKER_BINARY);
    this.#kernelPath = stringOption('firecracker', 'kernelPath', options.kernelPath, '');
    this.#rootfsPath = stringOption('firecracker', 'rootfsPath', options.rootfsPath, '');
    this.#socketPath = stringOption('firecracker', 'socketPath', options.socketPath, '');
    this.#vcpuCount = machineOption('vcpuCount', options.vcpuCount, DEFAULT_FIRECRACKER_VCPUS);
    this.#memSizeMB = machineOption('memSizeMB', options.memSizeMB, DEFAULT_FIRECRACKER_MEM_MB);
    this.#image = stringOption('firecracker', 'image', options.image, DEFAULT_SPEC_SANDBOX_IMAGE);
  }

  /** The resolved configuration. */
  get config(): {
    /** The firecracker binary. */
    binaryPath: string;
    /** The guest kernel; `''` when not configured (runs then fail). */
    kernelPath: string;
    /** The root filesystem image; `''` when not configured (runs then fail). */
    rootfsPath: string;
    /** The API socket; `''` = one per VM. */
    socketPath: string;
    /** vCPUs per VM. */
    vcpuCount: number;
    /** Memory per VM, in MiB. */
    memSizeMB: number;
    /** The image name (informational). */
    image: string;
  } {
    return {
      binaryPath: this.#binaryPath,
      kernelPath: this.#kernelPath,
      rootfsPath: this.#rootfsPath,
      socketPath: this.#socketPath,
      vcpuCount: this.#vcpuCount,
      memSizeMB: this.#memSizeMB,
      image: this.#image,
    };
  }

  protected buildSpec(input: SpecInput): MicroVMSpec {
    const spec: MicroVMSpec = {
      runId: input.runId,
      profile: input.profile,
      image: this.#image,
      resources: { vcpuCount: this.#vcpuCount, memSizeMB: this.#memSizeMB },
      config: { kernelPath: this.#kernelPath, rootfsPath: this.#rootfsPath, socketPath: this.#socketPath, binaryPath: this.#binaryPath },
      timeoutMs: input.timeoutMs,
      limits: copyLimits(input.request.limits),
      labels: specLabels(input.profile, this.kind, input.runId),
      guest: input.guest,
    };
    validateMicroVMSpec(spec);
    return spec;
  }

  protected enforcedResources(_spec: MicroVMSpec, capabilities: SandboxCapabilities): EnforcedResources {
    return { memory: capabilities.memory === true, cpu: false, pids: false, disk: false };
  }

  protected details(profile: string): Record<string, unknown> {
    return { vcpuCount: this.#vcpuCount, memSizeMB: this.#memSizeMB, profile };
  }

  protected logFields(spec: MicroVMSpec): Record<string, unknown> {
    return { profile: spec.profile, kernelPath: spec.config.kernelPath, rootfsPath: spec.config.rootfsPath, runId: spec.runId };
  }
}

/**
 * Checks a {@link MicroVMSpec} in Go's order: `kernelPath is required`, `rootfsPath is required`,
 * `vcpuCount must be positive`, `memSizeMB must be positive`; then the guest. @throws `CONFIGURATION`.
 */
export function validateMicroVMSpec(spec: MicroVMSpec): void {
  if (spec.config.kernelPath === '') throw invalidSpec('kernelPath is required', 'config.kernelPath');
  if (spec.config.rootfsPath === '') throw invalidSpec('rootfsPath is required', 'config.rootfsPath');
  if (!(spec.resources.vcpuCount > 0)) throw invalidSpec('vcpuCount must be positive', 'resources.vcpuCount');
  if (!(spec.resources.memSizeMB > 0)) throw invalidSpec('memSizeMB must be positive', 'resources.memSizeMB');
  validateGuest(spec.guest, spec.timeoutMs);
}

/** Creates a {@link FirecrackerBackend}. @throws `CONFIGURATION` for an option of the wrong type. */
export function createFirecrackerBackend(options: FirecrackerBackendOptions = {}): FirecrackerBackend {
  return new FirecrackerBackend(options);
}
