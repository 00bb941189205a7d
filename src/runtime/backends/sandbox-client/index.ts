/**
 * Shared plumbing of the spec backends (containerd, kata, firecracker, kubernetes, proxmox_lxc):
 * the client contract, the guest spec, profile/limit mapping, validation and the run pipeline.
 */
export { GUEST_PROTOCOL } from './contract.js';
export type {
  BackendLogger,
  BaseSandboxSpec,
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
export { DEFAULT_SPEC_SANDBOX_IMAGE, GUEST_WORKING_DIR, buildGuestSpec, newRunId } from '../spec/guest.js';
export type { GuestSpecOptions } from '../spec/guest.js';
export { CPU_PERIOD_US, SANDBOX_USER, containerEnforced, containerResources, containerSecurity, resolveProfile } from './mapping.js';
export type { ContainerSecurityOptions } from './mapping.js';
export { validateContainerSpec, validateGuest, validateResources, validateSecurity } from './validate.js';
export { DEFAULT_KILL_TIMEOUT_MS } from './options.js';
export type { ResolvedCommonOptions, SpecBackendCommonOptions } from './options.js';
export { SpecBackend } from './base.js';
export type { EnforcedResources, SpecInput } from './base.js';
