/**
 * Spec validation shared by the injected-client backends, with fixed messages: `image is required`,
 * `security: security policy violation: host network not allowed`, `resources: memory cannot be
 * negative`, ...
 */
import { type ToolexecError } from '../../../model/index.js';
import { runtimeError } from '../../core/errors.js';
import type { GuestSpec, SandboxResources, SandboxSecurity } from './contract.js';

/** A `CONFIGURATION` error for an invalid spec. */
export function invalidSpec(message: string, field: string): ToolexecError {
  return runtimeError('CONFIGURATION', message, { details: { field } });
}

/** A `SANDBOX_VIOLATION` error for a spec that would weaken the sandbox. */
export function securityViolation(reason?: string): ToolexecError {
  const message = `security: security policy violation${reason === undefined ? '' : `: ${reason}`}`;
  return runtimeError('SANDBOX_VIOLATION', message, { details: { field: 'security' } });
}

/**
 * Checks isolation settings. @throws `SANDBOX_VIOLATION`: `security: security policy violation`
 * (privileged) or `...: host network not allowed`.
 */
export function validateSecurity(security: Pick<SandboxSecurity, 'networkMode'> & { privileged?: boolean }): void {
  if (security.privileged === true) throw securityViolation();
  if (security.networkMode === 'host') throw securityViolation('host network not allowed');
}

const RESOURCE_CHECKS = [
  ['memoryBytes', 'memory cannot be negative'],
  ['cpuQuotaUs', 'cpu quota cannot be negative'],
  ['pidsLimit', 'pids limit cannot be negative'],
  ['diskBytes', 'disk limit cannot be negative'],
] as const;

/** Checks resources: memory, CPU quota, pids, disk. @throws `CONFIGURATION` `resources: <field> cannot be negative`. */
export function validateResources(resources: Pick<SandboxResources, 'memoryBytes' | 'cpuQuotaUs' | 'pidsLimit' | 'diskBytes'>): void {
  for (const [field, message] of RESOURCE_CHECKS) {
    const value = resources[field];
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      throw invalidSpec(`resources: ${message}`, `resources.${field}`);
    }
  }
}

/** Checks the guest part and the timeout. @throws `CONFIGURATION`. */
export function validateGuest(guest: GuestSpec, timeoutMs: number): void {
  if (!Array.isArray(guest.command) || guest.command.length === 0 || guest.command.some((arg) => typeof arg !== 'string')) {
    throw invalidSpec('guest: command is required', 'guest.command');
  }
  if (typeof guest.program !== 'string' || guest.program === '') throw invalidSpec('guest: program is required', 'guest.program');
  if (typeof guest.code !== 'string' || guest.code === '') throw invalidSpec('guest: code is required', 'guest.code');
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw invalidSpec('timeoutMs must be positive', 'timeoutMs');
}

/** The container checks, in this order: image, security, resources; then the guest. */
export function validateContainerSpec(spec: {
  image: string;
  security: Pick<SandboxSecurity, 'networkMode'> & { privileged?: boolean };
  resources: Pick<SandboxResources, 'memoryBytes' | 'cpuQuotaUs' | 'pidsLimit' | 'diskBytes'>;
  guest: GuestSpec;
  timeoutMs: number;
}): void {
  if (typeof spec.image !== 'string' || spec.image === '') throw invalidSpec('image is required', 'image');
  validateSecurity(spec.security);
  validateResources(spec.resources);
  validateGuest(spec.guest, spec.timeoutMs);
}
