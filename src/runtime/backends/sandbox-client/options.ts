/**
 * Options every injected-client backend accepts, and the one place their defaults are resolved.
 */
import type { OptionReader } from '../../core/option-reader.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../gateway/stream-connection.js';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from '../../core/request.js';
import type { NodeGuestBackendOptions } from '../../core/types.js';
import type { BackendLogger, HealthChecker } from './contract.js';

/** How long a client's `kill()` may take before a run stops waiting for it: 5 s. */
export const DEFAULT_KILL_TIMEOUT_MS = 5_000;

/** Options shared by the containerd, kata, firecracker, kubernetes and proxmox_lxc backends. */
export interface SandboxClientBackendOptions extends NodeGuestBackendOptions {
  /** Checked before each run; a failure is `RUNTIME_UNAVAILABLE`. */
  healthChecker?: HealthChecker;
  /** The node binary inside the sandbox. @defaultValue 'node' */
  nodeCommand?: string;
  /** How long to wait for the client's `kill()` after a run. @defaultValue 5000 */
  killTimeoutMs?: number;
  /** Receives one `info` line per run. */
  logger?: BackendLogger;
}

/** {@link SandboxClientBackendOptions} with defaults applied. */
export interface ResolvedCommonOptions {
  /** Pinged before each run; `undefined` skips the check. */
  healthChecker: HealthChecker | undefined;
  /** Wall-clock limit of a run whose request has none, in milliseconds (the backend's own fallback when unset). */
  defaultTimeoutMs: number;
  /** stdout + stderr cap in bytes when the request has none. @defaultValue 1 MiB */
  defaultMaxOutputBytes: number;
  /** Largest gateway protocol message in bytes. @defaultValue 8 MiB */
  maxMessageBytes: number;
  /** The node binary inside the sandbox. @defaultValue 'node' */
  nodeCommand: string;
  /** Extra flags for the guest's node (a copy). @defaultValue [] */
  nodeFlags: readonly string[];
  /** How long to wait for the client's `kill()` after a run, in milliseconds. @defaultValue 5000 */
  killTimeoutMs: number;
  /** Receives one `info` line per run; may be undefined. */
  logger: BackendLogger | undefined;
}

/** Resolves the options every injected-client backend shares (`defaultTimeoutMs` falls back to `timeoutFallbackMs`). */
export function resolveCommonOptions(
  read: OptionReader<SandboxClientBackendOptions>,
  timeoutFallbackMs: number = DEFAULT_TIMEOUT_MS,
): ResolvedCommonOptions {
  const nodeFlags = read.raw('nodeFlags') ?? [];
  if (!Array.isArray(nodeFlags) || nodeFlags.some((flag) => typeof flag !== 'string')) {
    throw read.error('nodeFlags', 'must be an array of strings', nodeFlags);
  }
  return {
    healthChecker: read.object<HealthChecker>('healthChecker', ['ping']),
    defaultTimeoutMs: read.positiveInteger('defaultTimeoutMs', timeoutFallbackMs),
    defaultMaxOutputBytes: read.positiveInteger('defaultMaxOutputBytes', DEFAULT_MAX_OUTPUT_BYTES),
    maxMessageBytes: read.positiveInteger('maxMessageBytes', DEFAULT_MAX_MESSAGE_BYTES),
    nodeCommand: read.string('nodeCommand', 'node'),
    nodeFlags: [...nodeFlags],
    killTimeoutMs: read.positiveInteger('killTimeoutMs', DEFAULT_KILL_TIMEOUT_MS),
    logger: read.object<BackendLogger>('logger', []),
  };
}
