/**
 * Options every spec backend accepts, and the one place their defaults are resolved.
 */
import { ToolexecError } from '../../../model/index.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../gateway/stream-connection.js';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from '../../core/request.js';
import type { BackendLogger, HealthChecker, ImageResolver } from './contract.js';

/** How long a client's `kill()` may take before a run stops waiting for it: 5 s. */
export const DEFAULT_KILL_TIMEOUT_MS = 5_000;

/** Options shared by the containerd, kata, firecracker, kubernetes and proxmox_lxc backends. */
export interface SpecBackendCommonOptions {
  /** Checked before each run (Go's `HealthChecker.Ping`); a failure is `RUNTIME_UNAVAILABLE`. */
  healthChecker?: HealthChecker;
  /** Wall-clock limit of a run when the request has none (health check and start included). */
  defaultTimeoutMs?: number;
  /** stdout + stderr cap when the request's limits have none. @defaultValue 1 MiB */
  defaultMaxOutputBytes?: number;
  /** Largest gateway protocol message. @defaultValue 8 MiB */
  maxMessageBytes?: number;
  /** The node binary inside the sandbox. @defaultValue 'node' */
  nodeCommand?: string;
  /** Extra flags for the guest's node. */
  nodeFlags?: readonly string[];
  /** How long to wait for the client's `kill()` after a run. @defaultValue 5000 */
  killTimeoutMs?: number;
  /** Receives one `info` line per run (Go's Logger). */
  logger?: BackendLogger;
}

/** {@link SpecBackendCommonOptions} with defaults applied. */
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

/** A `CONFIGURATION` error naming a backend option. */
export function optionError(backend: string, option: string, problem: string, value: unknown): ToolexecError {
  return new ToolexecError('CONFIGURATION', `invalid ${backend} backend option: ${option} ${problem}`, {
    details: { option, value },
  });
}

/** A positive integer option, or `fallback` when absent. @throws `CONFIGURATION`. */
export function positiveIntegerOption(backend: string, option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw optionError(backend, option, 'must be a positive integer', value);
  }
  return value;
}

/** A string option, or `fallback` when absent or empty (Go's zero-value defaults). @throws `CONFIGURATION`. */
export function stringOption(backend: string, option: string, value: unknown, fallback: string): string {
  if (value === undefined || value === '') return fallback;
  if (typeof value !== 'string') throw optionError(backend, option, 'must be a string', value);
  return value;
}

/** Checks that an injected object has the named methods. @throws `CONFIGURATION`. */
export function objectOption<T>(backend: string, option: string, value: T | undefined, methods: readonly string[]): T | undefined {
  if (value === undefined || value === null) return undefined;
  for (const method of methods) {
    if (typeof (value as Record<string, unknown>)[method] !== 'function') {
      throw optionError(backend, option, `must implement ${method}()`, typeof value);
    }
  }
  return value;
}

/** Resolves the shared options of backend `backend` (`defaultTimeoutMs` falls back to `timeoutFallbackMs`). */
export function resolveCommonOptions(
  backend: string,
  options: SpecBackendCommonOptions,
  timeoutFallbackMs: number = DEFAULT_TIMEOUT_MS,
): ResolvedCommonOptions {
  const nodeFlags = options.nodeFlags ?? [];
  if (!Array.isArray(nodeFlags) || nodeFlags.some((flag) => typeof flag !== 'string')) {
    throw optionError(backend, 'nodeFlags', 'must be an array of strings', nodeFlags);
  }
  return {
    healthChecker: objectOption<HealthChecker>(backend, 'healthChecker', options.healthChecker, ['ping']),
    defaultTimeoutMs: positiveIntegerOption(backend, 'defaultTimeoutMs', options.defaultTimeoutMs, timeoutFallbackMs),
    defaultMaxOutputBytes: positiveIntegerOption(backend, 'defaultMaxOutputBytes', options.defaultMaxOutputBytes, DEFAULT_MAX_OUTPUT_BYTES),
    maxMessageBytes: positiveIntegerOption(backend, 'maxMessageBytes', options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES),
    nodeCommand: stringOption(backend, 'nodeCommand', options.nodeCommand, 'node'),
    nodeFlags: [...nodeFlags],
    killTimeoutMs: positiveIntegerOption(backend, 'killTimeoutMs', options.killTimeoutMs, DEFAULT_KILL_TIMEOUT_MS),
    logger: options.logger,
  };
}

/** Checks an image resolver option. */
export function imageResolverOption(backend: string, value: ImageResolver | undefined): ImageResolver | undefined {
  return objectOption<ImageResolver>(backend, 'imageResolver', value, ['resolve']);
}
