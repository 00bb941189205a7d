/**
 * The options of the `docker` and `gvisor` backends, and the one place their defaults are resolved.
 */
import { optionError } from '../../core/option-reader.js';
import { DEFAULT_TIMEOUT_MS } from '../../core/request.js';
import type { NodeGuestBackendOptions } from '../../core/types.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../gateway/stream-connection.js';
import { resolveDefaultLimits, type DockerContainerLimits, type ResolvedContainerLimits } from './container-spec.js';
import type { DockerConnectionOptions } from './docker-client.js';
import { DEFAULT_SANDBOX_IMAGE, SANDBOX_NODE_PATH } from './sandbox-image.js';
import { SANDBOX_PYTHON_PATH } from './python-image.js';
import { MAX_WARM_POOL_SIZE } from './warm-pool.js';

/** Options of the warm pool (beta). */
export interface DockerPoolOptions {
  /** Idle containers kept started (1..16). @defaultValue 2 */
  size?: number;
}

/** Options of {@link createDockerBackend}. */
export interface DockerBackendOptions extends DockerConnectionOptions, NodeGuestBackendOptions {
  /** The image: anything with a Linux `node` at `nodePath`. @defaultValue {@link DEFAULT_SANDBOX_IMAGE} */
  image?: string;
  /** The node binary inside the image. @defaultValue '/usr/local/bin/node' */
  nodePath?: string;
  /**
   * The image of `language: 'python'` runs: anything with a CPython 3.11+ at `pythonPath`.
   * @defaultValue `toolexec-sandbox:python-<version of this machine's python3>` (`npm run sandbox:image` builds it)
   */
  pythonImage?: string;
  /** The Python interpreter inside `pythonImage`. @defaultValue '/usr/local/bin/python3' */
  pythonPath?: string;
  /**
   * The OCI runtime (`HostConfig.Runtime`), e.g. `runsc`. It must be registered with the engine.
   * @defaultValue the engine's default (runc)
   */
  runtime?: string;
  /**
   * Container limits when a request sets none (a request's `limits` field > 0 wins). 0 here means
   * "no cap" for that resource (and `limitsEnforced` says so).
   * @defaultValue `DEFAULT_DOCKER_LIMITS` (toolexec/runtime/docker): 256 MiB, 64 tasks, one CPU, 16 MiB of `/tmp`
   */
  limits?: DockerContainerLimits;
  /** Extra environment for the guest (nothing of the host's environment is passed). */
  env?: Record<string, string>;
  /**
   * Keep started containers ready (beta; readiness reports `beta`). Each container still serves
   * exactly one run, so no state is shared between runs. Used only by requests whose container
   * limits equal the backend's defaults. `true` = `{ size: 2 }`.
   */
  pool?: boolean | DockerPoolOptions;
  /** Longest time the engine may take to create and start a container. @defaultValue 30000 */
  startTimeoutMs?: number;
  /** Longest time the engine may take to answer the first ping. @defaultValue 10000 */
  pingTimeoutMs?: number;
}

/** {@link DockerBackendOptions} with defaults applied. */
export interface ResolvedOptions {
  connection: DockerConnectionOptions;
  image: string;
  nodePath: string;
  /** Undefined: the host Python's image, resolved on the first Python run. */
  pythonImage: string | undefined;
  pythonPath: string;
  runtime: string | undefined;
  limits: ResolvedContainerLimits;
  defaultTimeoutMs: number;
  defaultMaxOutputBytes: number;
  maxMessageBytes: number;
  env: string[];
  nodeFlags: readonly string[];
  poolSize: number;
  startTimeoutMs: number;
  pingTimeoutMs: number;
}

function positiveOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw optionError('docker', name, 'must be a positive number', value);
  }
  return value;
}

function stringOption(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
    throw optionError('docker', name, 'must be a non-empty string', value);
  }
  return value;
}

/** Applies the defaults of {@link DockerBackendOptions}. @throws `CONFIGURATION` for a bad option. */
export function resolveOptions(options: DockerBackendOptions, runtime: string | undefined): ResolvedOptions {
  const pool = options.pool === true ? {} : options.pool === false || options.pool === undefined ? undefined : options.pool;
  const poolSize = pool === undefined ? 0 : Math.min(MAX_WARM_POOL_SIZE, Math.floor(positiveOption('pool.size', pool.size, 2)));
  return {
    connection: {
      ...(options.docker === undefined ? {} : { docker: options.docker }),
      ...(options.dockerOptions === undefined ? {} : { dockerOptions: options.dockerOptions }),
    },
    image: options.image ?? DEFAULT_SANDBOX_IMAGE,
    nodePath: options.nodePath ?? SANDBOX_NODE_PATH,
    pythonImage: stringOption('pythonImage', options.pythonImage),
    pythonPath: stringOption('pythonPath', options.pythonPath) ?? SANDBOX_PYTHON_PATH,
    runtime,
    limits: resolveDefaultLimits(options.limits),
    defaultTimeoutMs: positiveOption('defaultTimeoutMs', options.defaultTimeoutMs, DEFAULT_TIMEOUT_MS),
    defaultMaxOutputBytes: positiveOption('defaultMaxOutputBytes', options.defaultMaxOutputBytes, 1024 * 1024),
    maxMessageBytes: positiveOption('maxMessageBytes', options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES),
    env: Object.entries(options.env ?? {}).map(([key, value]) => `${key}=${value}`),
    nodeFlags: [...(options.nodeFlags ?? [])],
    poolSize,
    startTimeoutMs: positiveOption('startTimeoutMs', options.startTimeoutMs, 30_000),
    pingTimeoutMs: positiveOption('pingTimeoutMs', options.pingTimeoutMs, 10_000),
  };
}
