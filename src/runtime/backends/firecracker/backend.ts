/**
 * The `firecracker` backend (beta): a validated microVM spec handed to an injected client that
 * boots a Firecracker microVM, runs the node guest in it and bridges its stdio.
 */
import { SandboxClientBackend, clientBackendIdentity, type EnforcedResources, type SpecInput } from '../sandbox-client/base.js';
import { DEFAULT_SPEC_SANDBOX_IMAGE } from '../sandbox-client/guest-spec.js';
import { OptionReader } from '../../core/option-reader.js';
import type { SandboxClientBackendOptions } from '../sandbox-client/options.js';
import type { BaseSandboxSpec, SandboxCapabilities, SandboxClient } from '../sandbox-client/contract.js';
import { invalidSpec, validateGuest } from '../sandbox-client/validate.js';

/** Default firecracker binary. */
export const DEFAULT_FIRECRACKER_BINARY = 'firecracker';

/** Default vCPU count of a microVM. */
export const DEFAULT_FIRECRACKER_VCPUS = 1;

/** Default memory of a microVM, in MiB. */
export const DEFAULT_FIRECRACKER_MEM_MB = 128;

/** The machine of a microVM: its vCPUs and its memory in MiB (both positive). */
export type MicroVMResources = Pick<FirecrackerConfig, 'vcpuCount' | 'memSizeMB'>;

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
export interface FirecrackerBackendOptions extends SandboxClientBackendOptions {
  /** Boots the microVMs. Without it every run fails with `RUNTIME_UNAVAILABLE`. */
  client?: FirecrackerClient;
  /** The firecracker binary. @defaultValue 'firecracker' */
  binaryPath?: string;
  /** The guest kernel. Required to run (`kernelPath is required`). @defaultValue '' */
  kernelPath?: string;
  /** The root filesystem image. Required to run (`rootfsPath is required`). @defaultValue '' */
  rootfsPath?: string;
  /** The API socket. @defaultValue '' (one per VM) */
  socketPath?: string;
  /** vCPUs per VM; values <= 0 mean the default. @defaultValue 1 */
  vcpuCount?: number;
  /** Memory per VM in MiB; values <= 0 mean the default. @defaultValue 128 */
  memSizeMB?: number;
  /** The image name (informational). @defaultValue 'toolruntime-sandbox:latest' */
  image?: string;
}

/** The resolved configuration of a {@link FirecrackerBackend}. */
export type FirecrackerConfig = Required<
  Pick<FirecrackerBackendOptions, 'binaryPath' | 'kernelPath' | 'rootfsPath' | 'socketPath' | 'vcpuCount' | 'memSizeMB' | 'image'>
>;

/** A machine size option: an integer, where values <= 0 mean the default. */
function machineOption(read: OptionReader<FirecrackerBackendOptions>, option: 'vcpuCount' | 'memSizeMB', fallback: number): number {
  const value = read.raw(option);
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw read.error(option, 'must be an integer', value);
  return value <= 0 ? fallback : value;
}

/** How firecracker runs are named in errors and logs. */
const FIRECRACKER = clientBackendIdentity('firecracker', { client: 'firecracker runner', unavailable: 'firecracker daemon unavailable' });

/**
 * The `firecracker` backend.
 *
 * @remarks
 * Defaults: binary `firecracker`, 1 vCPU, 128 MiB, timeout 30 s; the run order is the shared one;
 * no image resolver. The profile is not mapped into the spec (a microVM is always isolated; the
 * VM has no network). `memory` is reported enforced only when the client declares it (the VM size
 * is then the cap, on every run); CPU, pids and disk are not enforced. `limits.memoryBytes` also
 * caps the guest's V8 heap. Details `{ vcpuCount, memSizeMB, profile, runId }`.
 */
export class FirecrackerBackend extends SandboxClientBackend<MicroVMSpec, FirecrackerConfig, 'firecracker'> {
  constructor(options: FirecrackerBackendOptions = {}) {
    const read = new OptionReader('firecracker', options);
    super(FIRECRACKER, read, {
      binaryPath: read.string('binaryPath', DEFAULT_FIRECRACKER_BINARY),
      kernelPath: read.string('kernelPath', ''),
      rootfsPath: read.string('rootfsPath', ''),
      socketPath: read.string('socketPath', ''),
      vcpuCount: machineOption(read, 'vcpuCount', DEFAULT_FIRECRACKER_VCPUS),
      memSizeMB: machineOption(read, 'memSizeMB', DEFAULT_FIRECRACKER_MEM_MB),
      image: read.string('image', DEFAULT_SPEC_SANDBOX_IMAGE),
    });
  }

  protected buildSpec(input: SpecInput): MicroVMSpec {
    const { image, vcpuCount, memSizeMB, kernelPath, rootfsPath, socketPath, binaryPath } = this.settings;
    const spec: MicroVMSpec = {
      ...this.specBase(input),
      image,
      resources: { vcpuCount, memSizeMB },
      config: { kernelPath, rootfsPath, socketPath, binaryPath },
    };
    validateMicroVMSpec(spec);
    return spec;
  }

  protected enforcedResources(_spec: MicroVMSpec, capabilities: SandboxCapabilities): EnforcedResources {
    return { memory: capabilities.memory === true, cpu: false, pids: false, disk: false };
  }

  protected details(profile: string): Record<string, unknown> {
    const { vcpuCount, memSizeMB } = this.settings;
    return { vcpuCount, memSizeMB, profile };
  }

  protected logFields(spec: MicroVMSpec): Record<string, unknown> {
    return { profile: spec.profile, kernelPath: spec.config.kernelPath, rootfsPath: spec.config.rootfsPath, runId: spec.runId };
  }
}

/**
 * Checks a {@link MicroVMSpec} in this order: `kernelPath is required`, `rootfsPath is required`,
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
