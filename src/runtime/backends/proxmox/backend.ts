/**
 * The `proxmox_lxc` backend (beta): makes sure a Proxmox LXC container is running, then runs the
 * snippet inside it — through an injected runtime client that starts the node guest in the
 * container (e.g. `pct exec`), or by delegating to any runtime backend that reaches a runtime
 * service in the container (e.g. {@link createRemoteBackend} to a `createRemoteRuntimeHandler`
 * server).
 */
import { type ToolexecError, errorMessage } from '../../../model/index.js';
import { Deadline, noop } from '../../../model/internal.js';
import { limitsEnforcedNone, partialResultOf, runtimeError, withPartialResult } from '../../core/errors.js';
import { abortError, underSignal } from '../../core/stopping.js';
import { validateRequest } from '../../core/request.js';
import type { BackendInfo, ExecuteRequest, ExecuteResult, RuntimeBackend } from '../../core/types.js';
import { SandboxClientBackend, clientBackendIdentity, type EnforcedResources, type SpecInput } from '../sandbox-client/base.js';
import { SANDBOX_USER, containerEnforced, containerResources } from '../sandbox-client/mapping.js';
import { OptionReader } from '../../core/option-reader.js';
import type { SandboxClientBackendOptions } from '../sandbox-client/options.js';
import type { BaseSandboxSpec, SandboxCapabilities, SandboxClient, SandboxResources } from '../sandbox-client/contract.js';
import { validateGuest, validateResources } from '../sandbox-client/validate.js';

/** How long to wait for a started container to report `running`: 2 min. */
export const DEFAULT_PROXMOX_START_TIMEOUT_MS = 120_000;

/** How often to poll the container status while it starts: 2 s. */
export const DEFAULT_PROXMOX_POLL_INTERVAL_MS = 2_000;

/** How long the auto-stop call may take: 30 s. */
export const DEFAULT_PROXMOX_STOP_TIMEOUT_MS = 30_000;

/** An LXC container's status as the Proxmox API reports it (`running`, `stopped`, ...). */
export interface LxcStatus {
  /** The status word; the backend waits for `running`. */
  status: string;
}

/** The Proxmox VE API calls the backend needs (`/nodes/{node}/lxc/{vmid}/status/...`). */
export interface ProxmoxApiClient {
  /** The container's current status (`GET .../status/current`); a rejection is `RUNTIME_UNAVAILABLE`. */
  status(node: string, vmid: number, options: { signal: AbortSignal }): Promise<LxcStatus>;
  /** Asks Proxmox to start the container (`POST .../status/start`); the backend then polls `status`. */
  start(node: string, vmid: number, options: { signal: AbortSignal }): Promise<void>;
  /** Asks Proxmox to stop the container (`POST .../status/stop`); used by `autoStop`, errors ignored. */
  stop(node: string, vmid: number, options: { signal: AbortSignal }): Promise<void>;
}

/** What a {@link ProxmoxRuntimeClient} starts: the guest as a process inside the container. */
export interface ProxmoxExecSpec extends BaseSandboxSpec {
  /** The Proxmox node the container lives on. */
  node: string;
  /** The LXC container id. */
  vmid: number;
  /** The non-root user to run the guest as. */
  user: string;
  /** Per-run limits the client may apply (e.g. a transient systemd scope inside the container). */
  resources: SandboxResources;
}

/**
 * Starts the guest inside the running container and attaches its stdio.
 *
 * @remarks
 * E.g. over SSH to the node: `pct exec <vmid> -- setpriv --reuid=65534 --regid=65534
 * --clear-groups <spec.guest.command...>` with `spec.guest.env` as the environment, killing the
 * process (group) on `kill()`. The container's own limits apply to every run; declare
 * `capabilities` only for the per-run `resources` you really apply.
 */
export type ProxmoxRuntimeClient = SandboxClient<ProxmoxExecSpec>;

/** Options of {@link createProxmoxBackend}. */
export interface ProxmoxBackendOptions extends SandboxClientBackendOptions {
  /** The Proxmox node name. */
  node?: string;
  /** The LXC container id. */
  vmid?: number;
  /** Status, start and stop of the container. */
  client?: ProxmoxApiClient;
  /** Starts the guest in the container (use this or `runtime`). */
  runtimeClient?: ProxmoxRuntimeClient;
  /** A backend reaching a runtime service inside the container (use this or `runtimeClient`). */
  runtime?: RuntimeBackend;
  /** Start the container when it is not running. @defaultValue true */
  autoStart?: boolean;
  /** Stop the container after the last concurrent run. @defaultValue false */
  autoStop?: boolean;
  /** @defaultValue 120000 */
  startTimeoutMs?: number;
  /** @defaultValue 2000 */
  pollIntervalMs?: number;
  /** @defaultValue 30000 */
  stopTimeoutMs?: number;
}

/** Waits `ms`; rejects with the abort error as soon as `signal` aborts. */
async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  const pause = new Deadline(signal, ms);
  try {
    await pause.race(new Promise<never>(noop));
    if (!pause.timedOut) throw abortError(signal, 'container start');
  } finally {
    pause.dispose();
  }
}

/** The resolved configuration of a {@link ProxmoxBackend}. */
export type ProxmoxConfig = Required<
  Pick<ProxmoxBackendOptions, 'node' | 'vmid' | 'autoStart' | 'autoStop' | 'startTimeoutMs' | 'pollIntervalMs' | 'stopTimeoutMs'>
>;

/** How proxmox_lxc runs are named in errors and logs; the injected client is `runtimeClient`. */
const PROXMOX = clientBackendIdentity(
  'proxmox_lxc',
  { client: 'proxmox runtime client', unavailable: 'proxmox not available' },
  { logMessage: 'executing in proxmox lxc', clientOption: 'runtimeClient' },
);

/**
 * The `proxmox_lxc` backend.
 *
 * @remarks
 * Defaults: autoStart true, autoStop false, start timeout 2 min, poll 2 s, stop timeout 30 s.
 * Order: request checks → the runtime (`RUNTIME_UNAVAILABLE` `proxmox runtime client not
 * configured`) → the API client (`proxmox client not configured`) → with autoStart, the container:
 * node and vmid required, `status`, `start` when not running, then `status` every poll interval
 * until `running` (each failure `RUNTIME_UNAVAILABLE` `proxmox not available: ...`) → the run. The
 * result's backend is `proxmox_lxc` (details `{ node, vmid, profile, ... }`) on success and
 * failure. With autoStop the container is stopped after the last concurrent run (errors ignored).
 */
export class ProxmoxBackend extends SandboxClientBackend<ProxmoxExecSpec, ProxmoxConfig, 'proxmox_lxc'> {
  readonly #api: ProxmoxApiClient | undefined;
  readonly #runtime: RuntimeBackend | undefined;
  readonly #hasRuntimeClient: boolean;
  #active = 0;

  constructor(options: ProxmoxBackendOptions = {}) {
    const read = new OptionReader('proxmox_lxc', options);
    const runtimeClient = read.object<ProxmoxRuntimeClient>('runtimeClient', ['start']);
    super(PROXMOX, read, {
      node: read.string('node', ''),
      vmid: read.nonNegativeInteger('vmid', 0),
      autoStart: read.boolean('autoStart', true),
      autoStop: read.boolean('autoStop', false),
      startTimeoutMs: read.positiveInteger('startTimeoutMs', DEFAULT_PROXMOX_START_TIMEOUT_MS),
      pollIntervalMs: read.positiveInteger('pollIntervalMs', DEFAULT_PROXMOX_POLL_INTERVAL_MS),
      stopTimeoutMs: read.positiveInteger('stopTimeoutMs', DEFAULT_PROXMOX_STOP_TIMEOUT_MS),
    });
    const runtime = read.object<RuntimeBackend>('runtime', ['execute']);
    if (runtime !== undefined && runtimeClient !== undefined) throw read.error('runtime', 'cannot be combined with runtimeClient', 'both');
    this.#runtime = runtime;
    this.#hasRuntimeClient = runtimeClient !== undefined;
    this.#api = read.object<ProxmoxApiClient>('client', ['status', 'start', 'stop']);
  }

  /** Runs a snippet in the container, in the order the class remarks give. */
  override async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    let valid = true;
    try {
      validateRequest(request);
    } catch {
      valid = false;
    }
    // invalid requests and a missing runtime fail in the shared pipeline, with its errors
    if (!valid || (this.#runtime === undefined && !this.#hasRuntimeClient)) return super.execute(request);
    const runtime = this.#runtime;
    if (runtime !== undefined) return this.#counted(() => this.#delegate(runtime, request));
    return this.#counted(() => super.execute(request));
  }

  protected override async checkHealth(signal: AbortSignal): Promise<void> {
    await this.#ensureRunning(signal);
  }

  protected buildSpec(input: SpecInput): ProxmoxExecSpec {
    const { node, vmid } = this.settings;
    const spec: ProxmoxExecSpec = {
      ...this.specBase(input),
      node,
      vmid,
      user: SANDBOX_USER,
      resources: containerResources(input.request.limits),
    };
    validateResources(spec.resources);
    validateGuest(spec.guest, spec.timeoutMs);
    return spec;
  }

  protected enforcedResources(spec: ProxmoxExecSpec, capabilities: SandboxCapabilities): EnforcedResources {
    return containerEnforced(spec.resources, capabilities);
  }

  protected details(profile: string): Record<string, unknown> {
    return { node: this.settings.node, vmid: this.settings.vmid, profile };
  }

  protected logFields(spec: ProxmoxExecSpec): Record<string, unknown> {
    return { profile: spec.profile, node: spec.node, vmid: spec.vmid, runId: spec.runId };
  }

  async #counted<T>(run: () => Promise<T>): Promise<T> {
    this.#active += 1;
    try {
      return await run();
    } finally {
      this.#active -= 1;
      if (this.settings.autoStop && this.#active === 0) await this.#stop();
    }
  }

  async #stop(): Promise<void> {
    const api = this.#api;
    if (api === undefined || this.settings.node === '' || this.settings.vmid === 0) return;
    const stopping = new Deadline(undefined, this.settings.stopTimeoutMs);
    try {
      await underSignal(stopping.signal, 'container stop', () =>
        api.stop(this.settings.node, this.settings.vmid, { signal: stopping.signal }),
      );
    } catch {
      // best effort: a container that does not stop is not the run's failure
    } finally {
      stopping.dispose();
    }
  }

  async #delegate(runtime: RuntimeBackend, request: ExecuteRequest): Promise<ExecuteResult> {
    const info = (inner?: BackendInfo): BackendInfo => ({
      kind: this.kind,
      readiness: this.readiness,
      details: {
        ...this.details(request.profile ?? ''),
        runtime: runtime.kind,
        ...(inner === undefined ? {} : { inner }),
      },
    });
    const signal = request.signal ?? new AbortController().signal;
    try {
      await this.#ensureRunning(signal);
    } catch (err) {
      throw withPartialResult(
        err,
        {
          stdout: '',
          stderr: '',
          toolCalls: [],
          durationMs: 0,
          backend: info(),
          limitsEnforced: limitsEnforcedNone(),
        },
        'RUNTIME_UNAVAILABLE',
      );
    }
    try {
      const result = await runtime.execute(request);
      return { ...result, backend: info(result.backend) };
    } catch (err) {
      const partial = partialResultOf(err);
      if (partial === undefined) throw err;
      // the inner backend's partial result, reported as this backend's
      const inner = err as ToolexecError;
      throw runtimeError(inner.code, inner.message, {
        cause: inner.cause ?? inner,
        details: { ...inner.details, result: { ...partial, backend: info(partial.backend) } },
      });
    }
  }

  async #ensureRunning(signal: AbortSignal): Promise<void> {
    const api = this.#api;
    if (api === undefined) {
      throw runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: proxmox client not configured', {
        details: { backend: this.kind, reason: 'client_not_configured' },
      });
    }
    if (!this.settings.autoStart) return;
    if (this.settings.node === '' || this.settings.vmid === 0) {
      throw this.#unavailable('node and vmid are required');
    }
    const status = async (startSignal: AbortSignal): Promise<string> => {
      try {
        const reply = await underSignal(startSignal, 'container status', () =>
          api.status(this.settings.node, this.settings.vmid, { signal: startSignal }),
        );
        return typeof reply?.status === 'string' ? reply.status : '';
      } catch (err) {
        if (startSignal.aborted) throw err;
        throw this.#unavailable(`status: ${errorMessage(err)}`, err);
      }
    };
    if ((await status(signal)) === 'running') return;
    this.log('starting proxmox lxc', { node: this.settings.node, vmid: this.settings.vmid });
    try {
      await underSignal(signal, 'container start', () => api.start(this.settings.node, this.settings.vmid, { signal }));
    } catch (err) {
      if (signal.aborted) throw err;
      throw this.#unavailable(`start: ${errorMessage(err)}`, err);
    }
    // polled until running, within startTimeoutMs (or until the caller aborts)
    const starting = new Deadline(signal, this.settings.startTimeoutMs);
    try {
      for (;;) {
        if ((await status(starting.signal)) === 'running') return;
        await sleep(this.settings.pollIntervalMs, starting.signal);
      }
    } catch (err) {
      if (starting.timedOut && !signal.aborted) {
        throw this.#unavailable(
          `container ${this.settings.vmid} on node ${this.settings.node} is not running after ${this.settings.startTimeoutMs}ms`,
          err,
        );
      }
      throw err;
    } finally {
      starting.dispose();
    }
  }

  #unavailable(reason: string, cause?: unknown) {
    return runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: proxmox not available: ${reason}`, {
      ...(cause === undefined ? {} : { cause }),
      details: { backend: this.kind, node: this.settings.node, vmid: this.settings.vmid, reason: 'proxmox' },
    });
  }
}

/** Creates a {@link ProxmoxBackend}. @throws `CONFIGURATION` for an option of the wrong type. */
export function createProxmoxBackend(options: ProxmoxBackendOptions = {}): ProxmoxBackend {
  return new ProxmoxBackend(options);
}
