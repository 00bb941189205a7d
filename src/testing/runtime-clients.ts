/**
 * Test doubles for the clients a user injects into the injected-client backends (containerd, kata,
 * firecracker, kubernetes, proxmox_lxc): a client that really runs the spec's guest as a local
 * process, a recording client, and a Proxmox API double.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testingErrors } from './errors.js';
import {
  abortError,
  type BaseSandboxSpec,
  type GuestExit,
  type LxcStatus,
  type ProxmoxApiClient,
  type SandboxCapabilities,
  type SandboxClient,
  type SandboxProcess,
  type SandboxStartOptions,
} from '../runtime/internal.js';

/** Options of {@link createLocalProcessClient}. */
export interface LocalProcessClientOptions {
  /** What `node` in the spec's command means here. @defaultValue process.execPath */
  nodePath?: string;
  /** What the double declares (it applies none of it: use this to exercise the backend's reporting). @defaultValue {} */
  capabilities?: SandboxCapabilities;
  /** Extra time past `spec.timeoutMs` before the double kills the process itself. @defaultValue 2000 */
  killGraceMs?: number;
  /** Where per-run working directories are created. @defaultValue os.tmpdir() */
  tempDir?: string;
}

/** A {@link SandboxClient} that runs each spec's guest as a local child process. */
export interface LocalProcessClient<Spec extends BaseSandboxSpec = BaseSandboxSpec> extends SandboxClient<Spec> {
  /** Every spec started, in order. */
  readonly specs: readonly Spec[];
  /** Processes started so far. */
  readonly started: number;
  /** Processes still alive. */
  readonly running: number;
  /** Kills every process still running. */
  close(): Promise<void>;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * A client for any injected-client backend that runs `spec.guest.command` on this machine: `node` (the
 * command's first word) becomes `options.nodePath`; the process gets exactly `spec.guest.env`
 * (nothing of the host's environment), a fresh temporary working directory, its own process group
 * (killed whole on `kill()`, and after `spec.timeoutMs` + `killGraceMs` as a backstop) and piped
 * stdio. It isolates nothing: it is the stand-in for a container/VM/pod client in tests.
 */
export function createLocalProcessClient<Spec extends BaseSandboxSpec = BaseSandboxSpec>(
  options: LocalProcessClientOptions = {},
): LocalProcessClient<Spec> {
  const nodePath = options.nodePath ?? process.execPath;
  const killGraceMs = options.killGraceMs ?? 2000;
  const specs: Spec[] = [];
  const live = new Set<() => Promise<void>>();
  let started = 0;

  async function start(spec: Spec, startOptions: SandboxStartOptions): Promise<SandboxProcess> {
    specs.push(spec);
    if (startOptions.signal.aborted) throw abortError(startOptions.signal, 'sandbox start');
    const [command, ...args] = spec.guest.command;
    if (command === undefined) throw testingErrors('CONFIGURATION', 'the spec has no guest command');
    const workDir = await mkdtemp(join(options.tempDir ?? tmpdir(), 'toolexec-local-client-'));
    const child = spawn(command === 'node' ? nodePath : command, args, {
      cwd: workDir,
      env: { ...spec.guest.env },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    started += 1;
    const exited = new Promise<GuestExit>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
    });
    child.stdin.on('error', () => undefined);
    const backstop = setTimeout(() => killGroup(child), spec.timeoutMs + killGraceMs);
    let killing: Promise<void> | undefined;
    const kill = (): Promise<void> => {
      killing ??= (async () => {
        clearTimeout(backstop);
        killGroup(child);
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
        await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
        live.delete(kill);
      })();
      return killing;
    };
    live.add(kill);
    void exited.then(() => clearTimeout(backstop));
    return { stdin: child.stdin, stdout: child.stdout, stderr: child.stderr, exited, kill };
  }

  return {
    start,
    capabilities: { ...options.capabilities },
    get specs() {
      return specs;
    },
    get started() {
      return started;
    },
    get running() {
      return live.size;
    },
    async close() {
      await Promise.all([...live].map((kill) => kill()));
    },
  };
}

/** Options of {@link createRecordingClient}. */
export interface RecordingClientOptions<Spec extends BaseSandboxSpec> {
  /** Runs the specs after recording them. @defaultValue a {@link createLocalProcessClient} */
  delegate?: SandboxClient<Spec>;
  /** When set, `start` rejects with it (after recording the spec). */
  startError?: unknown;
  /** What the client declares. @defaultValue the delegate's */
  capabilities?: SandboxCapabilities;
  /** When set, the client has a `ping()` (a kubernetes client doubling as health checker). */
  ping?: () => Promise<void>;
}

/** A client that records every spec (and kill) before delegating. */
export interface RecordingClient<Spec extends BaseSandboxSpec = BaseSandboxSpec> extends SandboxClient<Spec> {
  /** Deep copies of every spec passed to `start`, in order. */
  readonly specs: readonly Spec[];
  /** The most recent spec. */
  readonly lastSpec: Spec | undefined;
  /** How many started processes were killed. */
  readonly kills: number;
  /** How many times `ping` was called. */
  readonly pings: number;
  /** Counts the call, then runs the `ping` option; present only when that option was given. */
  ping?(options: { signal: AbortSignal }): Promise<void>;
  /** Closes the default delegate (if this double created it). */
  close(): Promise<void>;
}

/** Creates a {@link RecordingClient}. */
export function createRecordingClient<Spec extends BaseSandboxSpec = BaseSandboxSpec>(
  options: RecordingClientOptions<Spec> = {},
): RecordingClient<Spec> {
  const owned = options.delegate === undefined ? createLocalProcessClient<Spec>() : undefined;
  const delegate: SandboxClient<Spec> = options.delegate ?? (owned as LocalProcessClient<Spec>);
  const specs: Spec[] = [];
  let kills = 0;
  let pings = 0;
  const client: RecordingClient<Spec> = {
    async start(spec, startOptions) {
      specs.push(structuredClone(spec));
      if (options.startError !== undefined) throw options.startError as Error;
      const started = await delegate.start(spec, startOptions);
      return {
        stdin: started.stdin,
        stdout: started.stdout,
        ...(started.stderr === undefined ? {} : { stderr: started.stderr }),
        exited: started.exited,
        kill: () => {
          kills += 1;
          return started.kill();
        },
      };
    },
    capabilities: { ...(options.capabilities ?? delegate.capabilities) },
    get specs() {
      return specs;
    },
    get lastSpec() {
      return specs.at(-1);
    },
    get kills() {
      return kills;
    },
    get pings() {
      return pings;
    },
    async close() {
      await owned?.close();
    },
  };
  if (options.ping !== undefined) {
    const ping = options.ping;
    client.ping = async () => {
      pings += 1;
      await ping();
    };
  }
  return client;
}

/** Options of {@link createProxmoxApiDouble}. */
export interface ProxmoxApiDoubleOptions {
  /** The container's status at first. @defaultValue 'stopped' */
  initialStatus?: string;
  /** Status polls after `start` that still report `stopped` before `running`. @defaultValue 1 */
  pollsUntilRunning?: number;
  /** When set, `status` rejects with it. */
  statusError?: unknown;
  /** When set, `start` rejects with it. */
  startError?: unknown;
  /** When set, `stop` rejects with it. */
  stopError?: unknown;
}

/** A {@link ProxmoxApiClient} double with one container and a call log. */
export interface ProxmoxApiDouble extends ProxmoxApiClient {
  /** Every call, in order: `status 'pve' 101`, ... */
  readonly calls: readonly {
    /** The API method called. */
    method: 'status' | 'start' | 'stop';
    /** The node it was called with. */
    node: string;
    /** The container id it was called with. */
    vmid: number;
  }[];
  /** The container's current status. */
  readonly current: string;
}

/** Creates a {@link ProxmoxApiDouble}: `start` makes the container `running` after `pollsUntilRunning` polls; `stop` stops it. */
export function createProxmoxApiDouble(options: ProxmoxApiDoubleOptions = {}): ProxmoxApiDouble {
  const calls: { method: 'status' | 'start' | 'stop'; node: string; vmid: number }[] = [];
  let current = options.initialStatus ?? 'stopped';
  let pending = -1;
  return {
    async status(node, vmid): Promise<LxcStatus> {
      calls.push({ method: 'status', node, vmid });
      if (options.statusError !== undefined) throw options.statusError as Error;
      if (pending === 0) current = 'running';
      if (pending >= 0) pending -= 1;
      return { status: current };
    },
    async start(node, vmid) {
      calls.push({ method: 'start', node, vmid });
      if (options.startError !== undefined) throw options.startError as Error;
      pending = options.pollsUntilRunning ?? 1;
    },
    async stop(node, vmid) {
      calls.push({ method: 'stop', node, vmid });
      if (options.stopError !== undefined) throw options.stopError as Error;
      current = 'stopped';
      pending = -1;
    },
    get calls() {
      return calls;
    },
    get current() {
      return current;
    },
  };
}
