/**
 * The contract between an injected-client backend (containerd, kata, firecracker, kubernetes, proxmox_lxc)
 * and the client a user injects: a validated spec goes in, a process attached over stdio comes
 * back, and the backend drives the node guest over it.
 */
import type { Readable, Writable } from 'node:stream';
import type { GuestExit } from '../../guest/session.js';
import type { Limits, SecurityProfile } from '../../core/types.js';

/** The stdio protocol the guest speaks: newline-delimited JSON, program first, then `start`. */
export const GUEST_PROTOCOL = 'toolexec-node-guest/1';

/**
 * What runs inside the sandbox, and how the host reaches it.
 *
 * @remarks
 * The client starts {@link GuestSpec.command} inside the sandbox with exactly
 * {@link GuestSpec.env} as its environment and {@link GuestSpec.workingDir} as its working
 * directory, keeps its stdin open and hands back its stdin, stdout and stderr
 * ({@link SandboxProcess}). Everything else is the backend's job: it writes the guest program
 * ({@link GuestSpec.program}) as the first stdin line, then the snippet, serves the snippet's
 * `tools.*` calls over the same stdin/stdout (the gateway channel), captures output and applies
 * the timeout. So the sandbox needs no network, no mounts and no copy of the code.
 */
export interface GuestSpec {
  /** The argv to start: `node [--max-old-space-size=N] -e <loader>`. `node` must be on the image's PATH. */
  command: string[];
  /** The guest's entire environment (nothing of the host's). @defaultValue {} */
  env: Record<string, string>;
  /** The working directory inside the sandbox (writable scratch space). */
  workingDir: string;
  /** Always `toolexec-node-guest/1`. */
  protocol: typeof GUEST_PROTOCOL;
  /** How the gateway is reached: over the guest's own stdin/stdout. The client must attach stdin. */
  channel: 'stdio';
  /** The guest program the backend sends as the first stdin line (the loader runs it). */
  program: string;
  /** The prepared JavaScript snippet; the backend sends it in the `start` message. */
  code: string;
  /** The request's language before preparation (`javascript` or `typescript`). */
  language: string;
}

/** Resource limits a client applies to the sandbox. 0 means unlimited. */
export interface SandboxResources {
  /** Memory cap in bytes (`limits.memoryBytes`). */
  memoryBytes: number;
  /** CPU time per {@link SandboxResources.cpuPeriodUs}, in microseconds (`cpuQuotaMs × 1000`). */
  cpuQuotaUs: number;
  /** The CFS period the quota refers to: 1 s (so 1,000,000 µs of quota is one full CPU). */
  cpuPeriodUs: number;
  /** Most processes/threads (`limits.pidsMax`). */
  pidsLimit: number;
  /** Size cap of the writable scratch space in bytes (`limits.diskBytes`). */
  diskBytes: number;
}

/** Isolation settings a client applies to the sandbox. */
export interface SandboxSecurity {
  /** Always a non-root user. */
  user: string;
  /** Mount the root filesystem read-only: `true` except for the `dev` profile. */
  readOnlyRootfs: boolean;
  /** `none` (no network), `bridge`, or `''` (the runtime's default). `host` never passes validation. */
  networkMode: string;
  /** A seccomp profile path (hardened profile), or `''` for the runtime's default profile. */
  seccompProfile: string;
  /** Always `false`; a spec with `true` never passes validation. */
  privileged: boolean;
  /** Always `true`: no privilege gain through setuid binaries. */
  noNewPrivileges: boolean;
  /** Capabilities dropped: always `['ALL']`. */
  dropCapabilities: string[];
}

/** Fields every spec carries. */
export interface BaseSandboxSpec {
  /** A random id of this run (names containers, pods, VMs). */
  runId: string;
  /** The resolved security profile. */
  profile: SecurityProfile;
  /** The run's wall-clock limit (the request's, or the backend default). */
  timeoutMs: number;
  /** A copy of the request's limits. */
  limits: Limits;
  /** `runtime.profile` and `runtime.backend`, plus `toolexec.run` (the run id). */
  labels: Record<string, string>;
  /** What to run and how the host talks to it. */
  guest: GuestSpec;
}

/** A sandbox started from an image with container isolation and cgroup-style limits (containerd, kata). */
export interface ContainerSandboxSpec extends BaseSandboxSpec {
  /** The image reference (after the resolver); kata allows `''` when only `imagePath` is used. */
  image: string;
  /** The runtime that starts it: a containerd runtime (`''` = the default) or the kata runtime binary. */
  runtime: string;
  /** The limits to apply (cgroup memory, CPU quota/period, pids, disk; a VM is sized from them). */
  resources: SandboxResources;
  /** The isolation to apply (user, rootfs, network, seccomp, capabilities). */
  security: SandboxSecurity;
}

/**
 * What a client's sandbox really applies. The backend reports a limit as enforced only when the
 * spec asked for it **and** the client declares it here: the declaration is trusted, so declare
 * only what your client actually applies (a cgroup, a VM size, a NetworkPolicy, ...).
 */
export interface SandboxCapabilities {
  /** Applies `resources.memoryBytes` (or, for firecracker, the VM size). */
  memory?: boolean;
  /** Applies the CPU quota. */
  cpu?: boolean;
  /** Applies the pids limit. */
  pids?: boolean;
  /** Applies the disk limit. */
  disk?: boolean;
  /** Applies the network mode (`none` really means no network). */
  network?: boolean;
  /** Applies `readOnlyRootfs`. */
  readOnlyRootfs?: boolean;
}

/** Options passed to {@link SandboxClient.start}. */
export interface SandboxStartOptions {
  /** Aborts on the run's deadline or the caller's abort: stop starting and release what was created. */
  signal: AbortSignal;
}

/**
 * A process running inside a sandbox, attached over stdio.
 *
 * @remarks
 * `stdout` must carry only the process's stdout (demultiplexed from stderr). `exited` settles
 * (never rejects) once the process is gone; for a process that never started, resolve it with
 * `{ code: null, signal: null, error }`.
 */
export interface SandboxProcess {
  /** The guest's stdin; kept open by the client until {@link SandboxProcess.kill}. */
  readonly stdin: Writable;
  /** The guest's stdout. */
  readonly stdout: Readable;
  /** The guest's stderr, when the sandbox separates it. */
  readonly stderr?: Readable;
  /** Settles when the process is gone. */
  readonly exited: Promise<GuestExit>;
  /**
   * Kills the process and releases the sandbox (container, pod, VM). Called once the run settles
   * (and possibly again on close); must be idempotent and must not throw.
   */
  kill(): void | Promise<void>;
}

/**
 * The client injected into an injected-client backend: starts the spec's guest inside a sandbox.
 *
 * @remarks
 * Contract: safe for concurrent use; honours `options.signal` while starting; never mutates the
 * spec; applies every isolation and resource setting it declares in `capabilities`.
 */
export interface SandboxClient<Spec extends BaseSandboxSpec = BaseSandboxSpec> {
  /** Starts `spec.guest.command` in a new sandbox built from `spec` and attaches its stdio. */
  start(spec: Spec, options: SandboxStartOptions): Promise<SandboxProcess>;
  /** What the client applies; absent means nothing (every resource limit reported as not enforced). */
  readonly capabilities?: SandboxCapabilities;
}

/** Checks that the sandbox infrastructure is reachable. */
export interface HealthChecker {
  /** Resolves when healthy; rejects with the reason otherwise. */
  ping(options: { signal: AbortSignal }): Promise<void>;
}

/** Resolves (and possibly pulls) an image reference before a run. */
export interface ImageResolver {
  /** Returns the reference to run (e.g. pinned by digest). */
  resolve(image: string, options: { signal: AbortSignal }): Promise<string>;
}

/** A best-effort logger (must not throw). */
export interface BackendLogger {
  /** Receives an informational line with structured fields (one per run). */
  info?(message: string, fields?: Record<string, unknown>): void;
  /** Receives a warning line with structured fields (the built-in backends emit none today). */
  warn?(message: string, fields?: Record<string, unknown>): void;
}
