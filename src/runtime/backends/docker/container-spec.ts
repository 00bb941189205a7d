/**
 * The hardened container of one run: what the engine is asked to create, and how a request's
 * limits map onto it.
 */
import type Dockerode from 'dockerode';
import { NODE_GUEST_LOADER, heapLimitMiB } from '../../guest/node-guest.js';
import type { Limits } from '../../core/types.js';
import { optionError } from '../../core/option-reader.js';
import { SANDBOX_NODE_PATH, SANDBOX_USER_ID } from './sandbox-image.js';

/** The label on every container the docker and gvisor backends create (value: the backend instance's id). */
export const SANDBOX_LABEL = 'toolexec.sandbox';

/** The container limits of the docker backend when neither the request nor the backend set one. */
export const DEFAULT_DOCKER_LIMITS: Readonly<Required<DockerContainerLimits>> = Object.freeze({
  memoryBytes: 256 * 1024 * 1024,
  pidsMax: 64,
  cpuQuotaMs: 1000,
  diskBytes: 16 * 1024 * 1024,
});

/** The lowest CPU quota the engine accepts: 10 ms of CPU time per second (0.01 CPU). */
export const MIN_CPU_QUOTA_MS = 10;

/** The smallest memory cap the engine accepts (6 MiB); node itself needs about 40 MiB to start. */
export const MIN_MEMORY_BYTES = 6 * 1024 * 1024;

/**
 * The limits a container is created with. Each is a positive number, or 0 for "no cap" (only as a
 * backend default; a request's 0 means "the backend default").
 */
export interface DockerContainerLimits {
  /** Memory cap of the container (`Memory` = `MemorySwap`: no swap), and node's heap cap below it. */
  memoryBytes?: number;
  /** Most tasks (processes + threads) in the container (`PidsLimit`). */
  pidsMax?: number;
  /** CPU time per wall-clock second, in ms: 1000 = one CPU, 500 = half a CPU (`NanoCpus`). */
  cpuQuotaMs?: number;
  /** Size of the `/tmp` tmpfs, the only writable place in the container. */
  diskBytes?: number;
}

/** The effective container limits of one run (0 = not capped). */
export type ResolvedContainerLimits = Required<DockerContainerLimits>;

/** What the container's create options are made from, besides the limits. */
export interface ContainerSpecInput {
  /** The container's name (unique per run). */
  name: string;
  /** The image to run (it must provide node). */
  image: string;
  /** The node binary inside the image. @defaultValue `/usr/local/bin/node` */
  nodePath?: string;
  /** `HostConfig.Runtime` (e.g. `runsc`), or undefined for the engine's default (runc). */
  runtime?: string;
  /** Label value identifying the backend instance. */
  owner: string;
  /** The backend kind, stored as a label. */
  kind: string;
  /** The run's effective limits ({@link resolveContainerLimits}); 0 = not capped. */
  limits: ResolvedContainerLimits;
  /** Extra environment (`NAME=value`), after the minimal `PATH` and `HOME`. */
  env?: readonly string[];
  /** Extra node flags. */
  nodeFlags?: readonly string[];
  /** The guest command, when it is not the node guest loader (the Python guest). `nodePath` and `nodeFlags` are then unused. */
  command?: readonly string[];
  /** The engine's CPU count, to keep `cpuQuotaMs` within what it accepts. */
  engineCpus?: number;
}

function pick(value: number | undefined, fallback: number): number {
  return value !== undefined && value > 0 ? value : fallback;
}

/**
 * The container limits of a request: each request limit that is set (> 0) wins, otherwise the
 * backend default. `cpuQuotaMs` is raised to {@link MIN_CPU_QUOTA_MS} and lowered to the engine's
 * CPUs × 1000; `memoryBytes` is raised to {@link MIN_MEMORY_BYTES}.
 */
export function resolveContainerLimits(
  request: Limits | undefined,
  defaults: ResolvedContainerLimits,
  engineCpus?: number,
): ResolvedContainerLimits {
  const limits: ResolvedContainerLimits = {
    memoryBytes: pick(request?.memoryBytes, defaults.memoryBytes),
    pidsMax: pick(request?.pidsMax, defaults.pidsMax),
    cpuQuotaMs: pick(request?.cpuQuotaMs, defaults.cpuQuotaMs),
    diskBytes: pick(request?.diskBytes, defaults.diskBytes),
  };
  if (limits.memoryBytes > 0) limits.memoryBytes = Math.max(MIN_MEMORY_BYTES, limits.memoryBytes);
  if (limits.cpuQuotaMs > 0) {
    limits.cpuQuotaMs = Math.max(MIN_CPU_QUOTA_MS, limits.cpuQuotaMs);
    if (engineCpus !== undefined && engineCpus > 0) limits.cpuQuotaMs = Math.min(limits.cpuQuotaMs, engineCpus * 1000);
  }
  return limits;
}

/** Backend defaults from options: each given value (0 = no cap), else {@link DEFAULT_DOCKER_LIMITS}. */
export function resolveDefaultLimits(limits: DockerContainerLimits | undefined): ResolvedContainerLimits {
  const out = { ...DEFAULT_DOCKER_LIMITS };
  for (const key of Object.keys(out) as (keyof ResolvedContainerLimits)[]) {
    const value = limits?.[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw optionError('docker', `limits.${key}`, 'must be a non-negative integer', value);
    }
    out[key] = value;
  }
  return out;
}

/** True when two limit sets create identical containers. */
export function sameLimits(a: ResolvedContainerLimits, b: ResolvedContainerLimits): boolean {
  return a.memoryBytes === b.memoryBytes && a.pidsMax === b.pidsMax && a.cpuQuotaMs === b.cpuQuotaMs && a.diskBytes === b.diskBytes;
}

/**
 * The V8 heap cap for a container memory cap: three quarters of it (node's own code, stacks and
 * buffers need the rest), so a heap that grows hits V8's limit first and reports itself.
 */
export function containerHeapBytes(memoryBytes: number): number {
  return Math.floor((memoryBytes * 3) / 4);
}

/**
 * The engine's create options for one run: the node guest loader (or `command`) as the command (the
 * guest program and the snippet follow on stdin), stdin kept open for the gateway protocol, and the hardening:
 * uid/gid 65534, no network (`NetworkMode: none`), read-only root, every capability dropped,
 * `no-new-privileges`, a private IPC namespace without `/dev/shm`, no logs kept by the engine, a
 * `/tmp` tmpfs owned by 65534 (noexec, nosuid, nodev), and the limits.
 */
export function containerCreateOptions(input: ContainerSpecInput): Dockerode.ContainerCreateOptions {
  const { limits } = input;
  const nodeFlags: string[] = [];
  if (limits.memoryBytes > 0) nodeFlags.push(`--max-old-space-size=${heapLimitMiB(containerHeapBytes(limits.memoryBytes))}`);
  nodeFlags.push(...(input.nodeFlags ?? []));
  const tmpfs = ['rw', 'noexec', 'nosuid', 'nodev', `uid=${SANDBOX_USER_ID}`, `gid=${SANDBOX_USER_ID}`, 'mode=1777'];
  if (limits.diskBytes > 0) tmpfs.push(`size=${limits.diskBytes}`);
  const hostConfig: Dockerode.HostConfig = {
    NetworkMode: 'none',
    ReadonlyRootfs: true,
    CapDrop: ['ALL'],
    SecurityOpt: ['no-new-privileges'],
    IpcMode: 'none',
    Privileged: false,
    Init: false,
    AutoRemove: false,
    LogConfig: { Type: 'none', Config: {} },
    Tmpfs: { '/tmp': tmpfs.join(',') },
    ...(limits.memoryBytes > 0 ? { Memory: limits.memoryBytes, MemorySwap: limits.memoryBytes } : {}),
    ...(limits.pidsMax > 0 ? { PidsLimit: limits.pidsMax } : {}),
    ...(limits.cpuQuotaMs > 0 ? { NanoCpus: limits.cpuQuotaMs * 1_000_000 } : {}),
    ...(input.runtime === undefined ? {} : { Runtime: input.runtime }),
  };
  return {
    name: input.name,
    Image: input.image,
    Entrypoint: [],
    Cmd: input.command === undefined ? [input.nodePath ?? SANDBOX_NODE_PATH, ...nodeFlags, '-e', NODE_GUEST_LOADER] : [...input.command],
    User: `${SANDBOX_USER_ID}:${SANDBOX_USER_ID}`,
    WorkingDir: '/tmp',
    Env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'HOME=/tmp', ...(input.env ?? [])],
    Labels: { [SANDBOX_LABEL]: input.owner, [`${SANDBOX_LABEL}.kind`]: input.kind },
    NetworkDisabled: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: true,
    Tty: false,
    HostConfig: hostConfig,
  };
}
