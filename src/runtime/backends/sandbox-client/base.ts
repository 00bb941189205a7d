/**
 * The run pipeline every injected-client backend shares: validate, health check, image, spec, start the
 * sandbox through the injected client, then drive the node guest over its stdio.
 */
import { ToolexecError, errorMessage } from '../../../model/index.js';
import { Deadline } from '../../../model/internal.js';
import { runtimeError } from '../../core/errors.js';
import { abortError, settlesWithin, stoppedError, underSignal } from '../../core/stopping.js';
import { runGuestSession } from '../../guest/session.js';
import { effectiveMaxOutputBytes, effectiveTimeoutMs, validateRequest } from '../../core/request.js';
import { RunRecord } from '../../core/run-record.js';
import type {
  BackendReadiness,
  ExecuteRequest,
  ExecuteResult,
  LimitsEnforced,
  RuntimeBackend,
  RuntimeBackendKind,
  SecurityProfile,
} from '../../core/types.js';
import { buildGuestSpec, newRunId } from './guest-spec.js';
import { containerResources, containerSecurity, copyLimits, resolveProfile, specLabels, type ContainerSecurityOptions } from './mapping.js';
import type { OptionReader } from '../../core/option-reader.js';
import { resolveCommonOptions, type ResolvedCommonOptions, type SandboxClientBackendOptions } from './options.js';
import { once, resolveWith } from './steps.js';
import type {
  BaseSandboxSpec,
  ContainerSandboxSpec,
  GuestSpec,
  ImageResolver,
  SandboxCapabilities,
  SandboxClient,
  SandboxProcess,
} from './contract.js';

/** What a backend's `buildSpec` receives. */
export interface SpecInput {
  /** The request being run (already checked). */
  request: ExecuteRequest;
  /** The resolved security profile (`standard` when the request names none). */
  profile: SecurityProfile;
  /** The resolved image (backends without an image step get `''`). */
  image: string;
  /** What runs inside the sandbox and how the host reaches it. */
  guest: GuestSpec;
  /** The run's wall-clock limit in milliseconds (the request's, or the backend default). */
  timeoutMs: number;
  /** A random id of this run (names containers, pods, VMs). */
  runId: string;
}

/** The resource limits an injected-client backend reports (timeout, tool calls and chain steps are always enforced). */
export type EnforcedResources = Pick<LimitsEnforced, 'memory' | 'cpu' | 'pids' | 'disk'>;

/** Who an injected-client backend is, as its errors and log lines name it. */
export interface ClientBackendIdentity<Kind extends RuntimeBackendKind> {
  /** The backend kind. */
  kind: Kind;
  /** The client's name in errors: `containerd client`, `kubernetes client`, ... */
  clientLabel: string;
  /** The health failure prefix: `containerd daemon unavailable`, ... */
  unavailableLabel: string;
  /** The log line of a run. @defaultValue `executing in <kind>` */
  logMessage: string;
  /** The option holding the injected client. @defaultValue 'client' */
  clientOption?: string;
  /** The run's wall-clock limit when neither the request nor `defaultTimeoutMs` sets one. @defaultValue 30000 */
  fallbackTimeoutMs?: number;
}

/** An identity: `logMessage` defaults to `executing in <kind>`. */
export function clientBackendIdentity<Kind extends RuntimeBackendKind>(
  kind: Kind,
  labels: { client: string; unavailable: string },
  extra: Partial<Omit<ClientBackendIdentity<Kind>, 'kind' | 'clientLabel' | 'unavailableLabel'>> = {},
): ClientBackendIdentity<Kind> {
  return { kind, clientLabel: labels.client, unavailableLabel: labels.unavailable, logMessage: `executing in ${kind}`, ...extra };
}

/** The options the shared base reads itself: the common ones, the client and the image resolver. */
export interface ClientBackendBaseOptions extends SandboxClientBackendOptions {
  /** The injected client (under {@link ClientBackendIdentity.clientOption}). */
  client?: unknown;
  /** Resolves the image before each run, for backends with an image step. */
  imageResolver?: ImageResolver;
}

/**
 * The one base of the injected-client backends (containerd, kata, firecracker, kubernetes,
 * proxmox_lxc): each backend only builds its spec; the base runs it, with the code, the language
 * and the gateway actually delivered to the sandbox.
 *
 * @remarks
 * Order: request checks (`ABORTED`, `MISSING_GATEWAY`, `MISSING_CODE`, `INVALID_LIMITS`) → the
 * client (`RUNTIME_UNAVAILABLE` `<x> client not configured`) → the language (`RUNTIME_UNAVAILABLE`
 * naming it; TypeScript is transpiled here) → the run's deadline starts (the request's
 * `timeoutMs` or the backend default, covering everything after) → the health check
 * (`RUNTIME_UNAVAILABLE` `<x> unavailable: <reason>`) → the image resolver (its own
 * ToolexecError, otherwise `RUNTIME_UNAVAILABLE`) → the profile (`standard` when absent;
 * `CONFIGURATION` when unknown) → the spec, validated (`CONFIGURATION` / `SANDBOX_VIOLATION`) →
 * `client.start(spec)` → the guest session. Every failure carries the partial result in
 * `details.result`.
 *
 * `limitsEnforced`: `timeout`, `toolCalls` and `chainSteps` are enforced here (the timeout by
 * killing the sandbox through `kill()`); a resource limit is reported only when the spec asked for
 * it and the client declares the capability ({@link SandboxCapabilities}).
 */
export abstract class SandboxClientBackend<
  Spec extends BaseSandboxSpec,
  Config extends object,
  Kind extends RuntimeBackendKind,
> implements RuntimeBackend {
  /** The backend kind. */
  readonly kind: Kind;
  /** Every injected-client backend is `beta`. */
  readonly readiness: BackendReadiness = 'beta';
  /** The backend's resolved configuration (read-only; `config` hands out copies). */
  protected readonly settings: Readonly<Config>;
  readonly #processes = new Set<() => Promise<void>>();
  readonly #identity: ClientBackendIdentity<Kind>;
  readonly #common: ResolvedCommonOptions;
  readonly #client: SandboxClient<Spec> | undefined;
  readonly #imageResolver: ImageResolver | undefined;

  /**
   * @param identity - who the backend is.
   * @param read - the backend's options; the base reads the common ones, the client and the image resolver.
   * @param config - the backend's own resolved configuration (returned, copied, by `config`).
   */
  protected constructor(identity: ClientBackendIdentity<Kind>, read: OptionReader<ClientBackendBaseOptions>, config: Config) {
    this.kind = identity.kind;
    this.#identity = identity;
    this.#common = resolveCommonOptions(read, identity.fallbackTimeoutMs);
    this.#client = read.object<SandboxClient<Spec>>((identity.clientOption ?? 'client') as 'client', ['start']);
    this.#imageResolver = read.object<ImageResolver>('imageResolver', ['resolve']);
    this.settings = config;
  }

  /** The resolved configuration (for diagnostics and tests; a copy). */
  get config(): Config {
    return { ...this.settings };
  }

  /** Builds and validates the spec (throws `CONFIGURATION` / `SANDBOX_VIOLATION`). */
  protected abstract buildSpec(input: SpecInput): Spec;
  /** The resource limits the run really had. */
  protected abstract enforcedResources(spec: Spec, capabilities: SandboxCapabilities): EnforcedResources;
  /** `BackendInfo.details` for `profile`. */
  protected abstract details(profile: string): Record<string, unknown>;
  /** Log fields of a run. */
  protected abstract logFields(spec: Spec): Record<string, unknown>;

  /** The fields every spec carries: run id, profile, timeout, a copy of the limits, labels and the guest. */
  protected specBase(input: SpecInput): BaseSandboxSpec {
    return {
      runId: input.runId,
      profile: input.profile,
      timeoutMs: input.timeoutMs,
      limits: copyLimits(input.request.limits),
      labels: specLabels(input.profile, this.kind, input.runId),
      guest: input.guest,
    };
  }

  /**
   * The fields of a container spec (containerd, kata): the common ones, the resolved image,
   * `runtime`, the request's limits as resources and the profile's isolation.
   */
  protected containerSpecBase(input: SpecInput, runtime: string, security: ContainerSecurityOptions = {}): ContainerSandboxSpec {
    return {
      ...this.specBase(input),
      image: input.image,
      runtime,
      resources: containerResources(input.request.limits),
      security: containerSecurity(input.profile, security),
    };
  }

  /** The image to resolve, or `undefined` when the backend has no image step. */
  protected imageToResolve(): string | undefined {
    return undefined;
  }

  /** Resolves the image with the backend's image resolver, if it has one. */
  protected async resolveImage(image: string, signal: AbortSignal): Promise<string> {
    return resolveWith(this.#imageResolver, image, signal);
  }

  /** Checks the infrastructure before a run; the default pings the configured health checker. */
  protected async checkHealth(signal: AbortSignal): Promise<void> {
    const health = this.#common.healthChecker;
    if (health === undefined) return;
    try {
      await underSignal(signal, 'health check', () => health.ping({ signal }));
    } catch (err) {
      if (signal.aborted) throw abortError(signal, 'health check');
      throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${this.#identity.unavailableLabel}: ${errorMessage(err)}`, {
        cause: err,
        details: { backend: this.kind, reason: 'health_check' },
      });
    }
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const requested: unknown = (request as ExecuteRequest | undefined)?.profile;
    const run = new RunRecord({
      kind: this.kind,
      readiness: this.readiness,
      details: this.details(typeof requested === 'string' && requested !== '' ? requested : 'standard'),
    });
    try {
      validateRequest(request);
    } catch (err) {
      throw run.fail(err, 'RUNTIME_UNAVAILABLE');
    }
    const client = this.#client;
    if (client === undefined) {
      throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${this.#identity.clientLabel} not configured`, {
        result: run.partial(),
        details: { backend: this.kind, reason: 'client_not_configured' },
      });
    }
    const code = run.prepareSnippet(request);

    const timeoutMs = effectiveTimeoutMs(request, this.#common.defaultTimeoutMs);
    const maxOutputBytes = effectiveMaxOutputBytes(request, this.#common.defaultMaxOutputBytes);
    // one signal for the steps before the session (the start): the caller's abort or the run's deadline
    const deadline = new Deadline(request.signal, timeoutMs);
    const signal = deadline.signal;
    const stopped = (): ToolexecError =>
      deadline.timedOut
        ? runtimeError('TIMEOUT', `execution timeout: the sandbox did not start within ${timeoutMs}ms`, { details: { timeoutMs } })
        : stoppedError(deadline.reason, 'execution');
    let kill: (() => Promise<void>) | undefined;

    try {
      await this.checkHealth(signal);
      let image = this.imageToResolve() ?? '';
      if (image !== '') image = await this.resolveImage(image, signal);
      const profile = resolveProfile(request);
      run.backend.details = this.details(profile);
      const runId = newRunId();
      const memoryBytes = request.limits?.memoryBytes;
      const guest = await buildGuestSpec({
        code,
        language: request.language ?? 'javascript',
        nodeCommand: this.#common.nodeCommand,
        nodeFlags: this.#common.nodeFlags,
        ...(memoryBytes === undefined ? {} : { memoryBytes }),
      });
      const spec = this.buildSpec({ request, profile, image, guest, timeoutMs, runId });
      run.backend.details = { ...this.details(profile), runId };
      this.#safeLog(spec);

      const traced = run.traceGateway(request);
      Object.assign(run.limitsEnforced, this.enforcedResources(spec, client.capabilities ?? {}));

      const sandbox: SandboxProcess = await underSignal(
        signal,
        'sandbox start',
        () => this.#start(client, spec, signal),
        (late) =>
          void Promise.resolve()
            .then(() => late.kill())
            .catch(() => undefined),
      );
      kill = once(() => sandbox.kill());
      this.#processes.add(kill);
      // started: the session watches the rest of the deadline and the caller's signal itself
      deadline.dispose();
      const remainingMs = Math.max(1, Math.round(timeoutMs - run.elapsedMs()));
      const outcome = await runGuestSession({
        stdin: sandbox.stdin,
        stdout: sandbox.stdout,
        ...(sandbox.stderr === undefined ? {} : { stderr: sandbox.stderr }),
        code,
        program: guest.program,
        gateway: traced,
        timeoutMs: remainingMs,
        maxOutputBytes,
        maxMessageBytes: this.#common.maxMessageBytes,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        terminate: () => void kill?.(),
        exited: sandbox.exited,
      });
      const failure = outcome.failure;
      // the session ran on what was left of the deadline; the failure names the whole of it
      if (failure?.code === 'TIMEOUT') {
        failure.message = `execution timeout: the snippet ran longer than ${timeoutMs}ms`;
        failure.details = { ...failure.details, timeoutMs };
      }
      return run.settle(outcome, request);
    } catch (err) {
      if (ToolexecError.isInstance(err) && err.details?.result !== undefined) throw err;
      if (deadline.aborted) throw run.fail(stopped());
      throw run.fail(err, 'RUNTIME_UNAVAILABLE');
    } finally {
      deadline.dispose();
      if (kill !== undefined) {
        await settlesWithin(kill(), this.#common.killTimeoutMs);
        this.#processes.delete(kill);
      }
    }
  }

  /** Kills every sandbox still running. Idempotent. */
  async close(): Promise<void> {
    const kills = [...this.#processes];
    this.#processes.clear();
    await Promise.all(kills.map((kill) => settlesWithin(kill(), this.#common.killTimeoutMs)));
  }

  async #start(client: SandboxClient<Spec>, spec: Spec, signal: AbortSignal): Promise<SandboxProcess> {
    let sandbox: SandboxProcess | null | undefined;
    try {
      sandbox = await client.start(spec, { signal });
    } catch (err) {
      if (ToolexecError.isInstance(err)) throw err;
      throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: the ${this.kind} sandbox could not start: ${errorMessage(err)}`, {
        cause: err,
        details: { backend: this.kind, reason: 'start_failed' },
      });
    }
    if (sandbox === null || typeof sandbox !== 'object' || sandbox.stdin === undefined || sandbox.stdout === undefined) {
      throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: the ${this.#identity.clientLabel} returned no attached process`, {
        details: { backend: this.kind, reason: 'start_failed' },
      });
    }
    return sandbox;
  }

  #safeLog(spec: Spec): void {
    this.log(this.#identity.logMessage, this.logFields(spec));
  }

  /** Logs one `info` line (best effort: a throwing logger is ignored). */
  protected log(message: string, fields: Record<string, unknown>): void {
    try {
      this.#common.logger?.info?.(message, fields);
    } catch {
      // logging is best-effort
    }
  }
}
