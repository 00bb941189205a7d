/**
 * Profile → isolation and limits → resources, for the injected-client backends.
 */
import { runtimeError } from '../../core/errors.js';
import { isSecurityProfile } from '../../core/request.js';
import type { ExecuteRequest, Limits, LimitsEnforced, SecurityProfile } from '../../core/types.js';
import type { SandboxCapabilities, SandboxResources, SandboxSecurity } from './contract.js';

/** The non-root user of container and VM sandboxes. */
export const SANDBOX_USER = 'nobody:nogroup';

/** The CFS period the CPU quota refers to: one second, in microseconds. */
export const CPU_PERIOD_US = 1_000_000;

/**
 * The request's profile, or `standard` when it names none.
 *
 * @throws `CONFIGURATION` for a profile that is not `dev`, `standard` or `hardened` (an unknown
 * profile is refused rather than run with weaker isolation).
 */
export function resolveProfile(request: ExecuteRequest): SecurityProfile {
  const profile: unknown = request.profile;
  if (profile === undefined || profile === null || profile === '') return 'standard';
  if (!isSecurityProfile(profile)) {
    throw runtimeError('CONFIGURATION', `configuration error: unknown profile ${JSON.stringify(profile) ?? typeof profile}`, {
      details: { field: 'profile', value: profile },
    });
  }
  return profile;
}

/** How a profile maps to isolation: the network of `dev`, the seccomp profile of `hardened`, the user. */
export interface ContainerSecurityOptions {
  /** The network of the `dev` profile. @defaultValue 'bridge' */
  devNetworkMode?: string;
  /** A seccomp profile for `hardened`. @defaultValue '' (the runtime default) */
  seccompProfile?: string;
  /** @defaultValue 'nobody:nogroup' */
  user?: string;
}

/**
 * The isolation of a profile: `dev` → the dev network, writable rootfs; `standard` → no network,
 * read-only rootfs; `hardened` → the same plus the seccomp profile when one is configured.
 * Always non-root, no new privileges, every capability dropped, never privileged.
 */
export function containerSecurity(profile: SecurityProfile, options: ContainerSecurityOptions = {}): SandboxSecurity {
  const dev = profile === 'dev';
  return {
    user: options.user ?? SANDBOX_USER,
    readOnlyRootfs: !dev,
    networkMode: dev ? (options.devNetworkMode ?? 'bridge') : 'none',
    seccompProfile: profile === 'hardened' ? (options.seccompProfile ?? '') : '',
    privileged: false,
    noNewPrivileges: true,
    dropCapabilities: ['ALL'],
  };
}

function positive(value: number | undefined): number {
  return value !== undefined && value > 0 ? value : 0;
}

/** The resources of a request's limits: memory, pids and disk copied, CPU `ms × 1000` µs per 1 s period. */
export function containerResources(limits: Limits | undefined): SandboxResources {
  return {
    memoryBytes: positive(limits?.memoryBytes),
    cpuQuotaUs: positive(limits?.cpuQuotaMs) * 1000,
    cpuPeriodUs: CPU_PERIOD_US,
    pidsLimit: positive(limits?.pidsMax),
    diskBytes: positive(limits?.diskBytes),
  };
}

/** A JSON-safe copy of the request's limits (absent fields stay absent). */
export function copyLimits(limits: Limits | undefined): Limits {
  return limits === undefined ? {} : { ...limits };
}

/** The labels every spec carries. */
export function specLabels(profile: SecurityProfile, backend: string, runId: string): Record<string, string> {
  return { 'runtime.profile': profile, 'runtime.backend': backend, 'toolexec.run': runId };
}

/** Resource limits enforced: asked for in the spec and declared by the client. */
export function containerEnforced(
  resources: SandboxResources,
  capabilities: SandboxCapabilities,
): Pick<LimitsEnforced, 'memory' | 'cpu' | 'pids' | 'disk'> {
  return {
    memory: resources.memoryBytes > 0 && capabilities.memory === true,
    cpu: resources.cpuQuotaUs > 0 && capabilities.cpu === true,
    pids: resources.pidsLimit > 0 && capabilities.pids === true,
    disk: resources.diskBytes > 0 && capabilities.disk === true,
  };
}
