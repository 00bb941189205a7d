/**
 * The contract between an injected-client backend (containerd, kata, firecracker, kubernetes,
 * proxmox_lxc) and the client you inject: types only, re-exported by each of those subpaths.
 */
export type {
  BackendLogger,
  BaseSandboxSpec,
  ContainerSandboxSpec,
  GuestSpec,
  HealthChecker,
  ImageResolver,
  SandboxCapabilities,
  SandboxClient,
  SandboxProcess,
  SandboxResources,
  SandboxSecurity,
  SandboxStartOptions,
} from './contract.js';
export type { SandboxClientBackendOptions } from './options.js';
export type { ClientBackendBaseOptions, ClientBackendIdentity, EnforcedResources, SandboxClientBackend, SpecInput } from './base.js';
export type { ContainerSecurityOptions } from './mapping.js';
export type { OptionReader } from '../../core/option-reader.js';
export type { GuestExit } from '../../guest/session.js';
