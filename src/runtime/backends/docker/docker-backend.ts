/**
 * The `docker` backend: every snippet runs in a fresh, hardened container of a Docker engine (one
 * container per run, removed afterwards), with the node guest speaking the gateway protocol over
 * the container's attached stdio. The `gvisor` backend is the same with the `runsc` runtime.
 */
import { randomBytes } from 'node:crypto';
import type Dockerode from 'dockerode';
import { ToolexecError } from '../../../model/index.js';
import { Deadline, noop, onAbort } from '../../../model/internal.js';
import { runtimeError } from '../../core/errors.js';
import { underSignal } from '../../core/stopping.js';
import { runGuestSession } from '../../guest/session.js';
import { effectiveMaxOutputBytes, effectiveTimeoutMs, validateRequest } from '../../core/request.js';
import { RunRecord } from '../../core/run-record.js';
import type { BackendReadiness, ExecuteRequest, ExecuteResult, RuntimeBackend, RuntimeBackendKind } from '../../core/types.js';
import { connectDocker, describeEngine, engineUnavailable, pingEngine } from './docker-client.js';
import { containerFailure } from './container-failure.js';
import { containerCreateOptions, resolveContainerLimits, sameLimits, type ResolvedContainerLimits } from './container-spec.js';
import {
  CONTAINER_LANGUAGES,
  containerGuests,
  guestLanguageOf,
  type ContainerGuest,
  type ContainerGuestLanguage,
} from './container-guest.js';
import { resolveOptions, type DockerBackendOptions, type ResolvedOptions } from './options.js';
import { startSandboxContainer, type SandboxContainer } from './sandbox-container.js';
import { WarmPool, type WarmPoolStats } from './warm-pool.js';

/** What the backend learned about the engine on first use. */
interface Engine {
  docker: Dockerode;
  /** CPUs of the engine's host. */
  cpus?: number;
  description: string;
}

/**
 * The shared implementation of the `docker` and `gvisor` backends.
 *
 * @remarks
 * Per run: one container from the configured image, created with the hardening of
 * `containerCreateOptions` (uid 65534, no network, read-only root, no capabilities,
 * no-new-privileges, private IPC without `/dev/shm`, a 65534-owned `/tmp` tmpfs, no engine logs)
 * and the run's limits; attached (stdin + output over one hijacked connection) before it is
 * started; then the node guest receives its program and the snippet on stdin and speaks the
 * gateway protocol there (the guest session). The container is removed (`force`) after
 * every run: success, failure, timeout, abort or engine error.
 *
 * Limits: `memoryBytes` → `Memory` = `MemorySwap` and node's heap at three quarters of it (an OOM
 * kill is `RESOURCE_LIMIT` with `limit: 'memory'`); `pidsMax` → `PidsLimit`; `cpuQuotaMs` → CPU
 * time per second (`NanoCpus`: 1000 = one CPU); `diskBytes` → the size of `/tmp`, the only
 * writable place; `maxOutputBytes` → the capture cap. A request's limit (> 0) wins over the
 * backend default; `limitsEnforced` reports what the container really got.
 *
 * `timeoutMs` counts from the moment the container is running (creating and starting it is
 * bounded separately by `startTimeoutMs`); `request.signal` cancels at any point.
 */
export abstract class ContainerSandboxBackend implements RuntimeBackend {
  abstract readonly kind: RuntimeBackendKind;
  readonly readiness: BackendReadiness;
  /** Calls `request.onStart` once the container runs and the snippet is sent (its clock starts then). */
  readonly reportsStart = true;
  /** The label value of this backend's containers (`toolexec.sandbox=<id>`). */
  readonly id: string;
  /** JavaScript and TypeScript (the node guest), and Python (the Python guest, in its own image). */
  readonly languages: readonly string[] = CONTAINER_LANGUAGES;
  readonly #options: ResolvedOptions;
  readonly #guests: Readonly<Record<ContainerGuestLanguage, ContainerGuest>>;
  readonly #pools = new Map<ContainerGuestLanguage, WarmPool>();
  readonly #active = new Set<SandboxContainer>();
  readonly #cleanups = new Set<Promise<void>>();
  readonly #starts = new Set<Promise<unknown>>();
  readonly #closing = new AbortController();
  #engine: Promise<Engine> | undefined;
  #closed = false;
  #runs = 0;

  protected constructor(options: DockerBackendOptions, runtime: string | undefined, readiness: BackendReadiness) {
    this.#options = resolveOptions(options, runtime);
    this.id = randomBytes(6).toString('hex');
    this.readiness = this.#options.poolSize > 0 ? 'beta' : readiness;
    this.#guests = containerGuests(this.#options);
  }

  /** The warm pool of one guest language (made on first use), when the pool is on. */
  #pool(language: ContainerGuestLanguage): WarmPool | undefined {
    if (this.#options.poolSize === 0) return undefined;
    let pool = this.#pools.get(language);
    if (pool === undefined) {
      const guest = this.#guests[language];
      pool = new WarmPool(
        this.#options.poolSize,
        () => this.#startPooled(guest),
        (cleanup) => this.#track(cleanup),
      );
      this.#pools.set(language, pool);
    }
    return pool;
  }

  /** The image this backend runs JavaScript and TypeScript in. */
  get image(): string {
    return this.#options.image;
  }

  /**
   * The image this backend runs Python in: the `pythonImage` option, or the tag of the image made
   * from this machine's `python3` (`toolexec-sandbox:python-<version>`).
   * @throws `RUNTIME_UNAVAILABLE` when no option is given and this machine has no `python3`.
   */
  pythonImage(): Promise<string> {
    return this.#guests.python.image();
  }

  /** The default container limits (0 = no cap). */
  get defaultLimits(): Readonly<ResolvedContainerLimits> {
    return { ...this.#options.limits };
  }

  /** The counters of a language's warm pool (`javascript` by default; `typescript` shares it), when the pool is on. */
  poolStats(language = 'javascript'): WarmPoolStats | undefined {
    return this.#pool(guestLanguageOf(language))?.stats();
  }

  /**
   * The runtime's warm-up (`Runtime.warm`): {@link warmUp} for `options.languages`, by default every
   * language this backend runs (so with a pool, both the node and the Python pool fill).
   * @throws `RUNTIME_UNAVAILABLE` with the reason (for Python also when this machine has no
   * `python3` to name the default image).
   */
  warm(options: { languages?: readonly string[] } = {}): Promise<void> {
    return this.warmUp({ languages: options.languages ?? this.languages });
  }

  /**
   * Checks the engine (ping, runtime registered) and, with a pool, fills the pool of each language
   * (`languages`, default `['javascript']`; `python` starts Python containers).
   * @throws `RUNTIME_UNAVAILABLE` with the reason.
   */
  async warmUp(options: { languages?: readonly string[] } = {}): Promise<void> {
    await this.#connect();
    const languages = new Set((options.languages ?? ['javascript']).map(guestLanguageOf));
    if (languages.has('python')) await this.#guests.python.image();
    for (const language of languages) {
      const pool = this.#pool(language);
      if (pool === undefined) continue;
      await pool.fill();
      const error = pool.stats().lastError;
      if (error !== undefined) throw ToolexecError.isInstance(error) ? error : engineUnavailable('cannot start a pool container', error);
    }
  }

  #track(cleanup: Promise<void>): void {
    const tracked = cleanup.catch(() => undefined).finally(() => this.#cleanups.delete(tracked));
    this.#cleanups.add(tracked);
  }

  #connect(): Promise<Engine> {
    this.#engine ??= this.#probeEngine().catch((err: unknown) => {
      this.#engine = undefined;
      throw err;
    });
    return this.#engine;
  }

  async #probeEngine(): Promise<Engine> {
    const docker = await connectDocker(this.#options.connection);
    const description = describeEngine(docker);
    await pingEngine(docker, this.#options.pingTimeoutMs);
    let info: { NCPU?: unknown; Runtimes?: Record<string, unknown> };
    try {
      info = (await docker.info()) as typeof info;
    } catch (err) {
      throw engineUnavailable(`${description} does not answer`, err, { engine: description });
    }
    const runtime = this.#options.runtime;
    if (runtime !== undefined && (info.Runtimes === undefined || !Object.hasOwn(info.Runtimes, runtime))) {
      const known = Object.keys(info.Runtimes ?? {}).join(', ');
      throw runtimeError(
        'RUNTIME_UNAVAILABLE',
        `runtime unavailable: ${description} has no "${runtime}" runtime (registered: ${known === '' ? 'none' : known}); add it to the engine's daemon.json "runtimes"`,
        { details: { runtime, runtimes: Object.keys(info.Runtimes ?? {}) } },
      );
    }
    return { docker, description, ...(typeof info.NCPU === 'number' && info.NCPU > 0 ? { cpus: info.NCPU } : {}) };
  }

  #createOptions(engine: Engine, image: string, guest: ContainerGuest, limits: ResolvedContainerLimits): Dockerode.ContainerCreateOptions {
    this.#runs += 1;
    const command = guest.command();
    return containerCreateOptions({
      name: `toolexec-${this.kind}-${this.id}-${this.#runs}-${randomBytes(3).toString('hex')}`,
      image,
      nodePath: this.#options.nodePath,
      ...(command === undefined ? {} : { command }),
      ...(this.#options.runtime === undefined ? {} : { runtime: this.#options.runtime }),
      owner: this.id,
      kind: this.kind,
      limits,
      env: this.#options.env,
      nodeFlags: this.#options.nodeFlags,
      ...(engine.cpus === undefined ? {} : { engineCpus: engine.cpus }),
    });
  }

  async #start(
    engine: Engine,
    guest: ContainerGuest,
    limits: ResolvedContainerLimits,
    signal: AbortSignal | undefined,
  ): Promise<SandboxContainer> {
    // the start ends at the caller's abort, at close(), or after startTimeoutMs
    const ms = this.#options.startTimeoutMs;
    const deadline = new Deadline(signal, ms);
    const closing = this.#closing.signal;
    let stopOnClose = noop;
    if (closing.aborted) deadline.abort(closing.reason);
    else stopOnClose = onAbort(closing, () => deadline.abort(closing.reason));
    const image = await guest.image();
    const starting = startSandboxContainer(engine.docker, this.#createOptions(engine, image, guest, limits), {
      signal: deadline.signal,
      track: (cleanup) => this.#track(cleanup),
      label: this.kind,
    });
    this.#starts.add(starting);
    try {
      const sandbox = await starting;
      if (this.#closed) {
        this.#track(sandbox.dispose());
        throw this.#closedError();
      }
      return sandbox;
    } catch (err) {
      // stopped by the start deadline or by close(): the backend's own error, not an abort
      const stop: unknown = ToolexecError.isInstance(err) && (err.code === 'ABORTED' || err.code === 'TIMEOUT') ? err.cause : undefined;
      if (stop !== undefined && stop === deadline.reason) {
        if (deadline.timedOut) {
          throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${engine.description} did not start a container within ${ms}ms`);
        }
        if (ToolexecError.isInstance(stop) && stop === closing.reason) throw stop;
      }
      throw err;
    } finally {
      this.#starts.delete(starting);
      stopOnClose();
      deadline.dispose();
    }
  }

  #closedError(): ToolexecError {
    return runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: the ${this.kind} backend was closed`);
  }

  /** A container for the pool: started, with the guest program already loaded (it then waits for its snippet). */
  async #startPooled(guest: ContainerGuest): Promise<SandboxContainer> {
    const engine = await this.#connect();
    const program = await guest.program();
    const sandbox = await this.#start(engine, guest, resolveContainerLimits(undefined, this.#options.limits, engine.cpus), undefined);
    sandbox.sendProgram(program);
    return sandbox;
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const language = guestLanguageOf((request as Partial<ExecuteRequest> | null)?.language);
    const guest = this.#guests[language];
    const run = new RunRecord({
      kind: this.kind,
      readiness: this.readiness,
      details: language === 'python' ? { language } : { image: this.#options.image },
    });
    try {
      validateRequest(request);
    } catch (err) {
      throw run.fail(err);
    }
    if (this.#closed) throw run.fail(this.#closedError());
    // Python source goes to the interpreter as it is; JavaScript and TypeScript are prepared here
    const code = language === 'python' ? request.code : run.prepareSnippet(request);
    const traced = run.traceGateway(request);
    const timeoutMs = effectiveTimeoutMs(request, this.#options.defaultTimeoutMs);
    const maxOutputBytes = effectiveMaxOutputBytes(request, this.#options.defaultMaxOutputBytes);

    let sandbox: SandboxContainer | undefined;
    try {
      const [engine, image] = await underSignal(request.signal, 'execution', () => Promise.all([this.#connect(), guest.image()]));
      const limits = resolveContainerLimits(request.limits, this.#options.limits, engine.cpus);
      Object.assign(run.limitsEnforced, {
        memory: limits.memoryBytes > 0,
        cpu: limits.cpuQuotaMs > 0,
        pids: limits.pidsMax > 0,
        // the tmpfs is the only writable place (read-only root, no /dev/shm)
        disk: limits.diskBytes > 0,
      });
      const poolLimits = resolveContainerLimits(undefined, this.#options.limits, engine.cpus);
      const pool = this.#pool(language);
      const pooled = pool !== undefined && sameLimits(limits, poolLimits) ? pool.take() : undefined;
      run.backend.details = {
        image,
        ...(this.#options.runtime === undefined ? {} : { runtime: this.#options.runtime }),
        timeoutMs,
        maxOutputBytes,
        ...(limits.memoryBytes > 0 ? { memoryBytes: limits.memoryBytes } : {}),
        ...guest.details(limits),
        ...(limits.pidsMax > 0 ? { pidsMax: limits.pidsMax } : {}),
        ...(limits.cpuQuotaMs > 0 ? { cpuQuotaMs: limits.cpuQuotaMs } : {}),
        ...(limits.diskBytes > 0 ? { diskBytes: limits.diskBytes } : {}),
        pooled: pooled !== undefined,
      };
      sandbox = pooled ?? (await this.#start(engine, guest, limits, request.signal));
      this.#active.add(sandbox);
      run.backend.details.container = sandbox.name;
      const running = sandbox;
      const program = running.programSent ? undefined : await guest.program();
      const outcome = await runGuestSession({
        stdin: running.stdin,
        stdout: running.stdout,
        stderr: running.stderr,
        code,
        ...(program === undefined ? {} : { program }),
        gateway: traced,
        timeoutMs,
        maxOutputBytes,
        maxMessageBytes: this.#options.maxMessageBytes,
        ...(request.onStart === undefined ? {} : { onStart: request.onStart }),
        ...(limits.memoryBytes > 0 ? { memoryBytes: limits.memoryBytes } : {}),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        terminate: () => {
          if (running.alive) running.kill();
        },
        exited: running.exited,
      });
      const failure = await containerFailure(outcome.failure, running, {
        memoryBytes: limits.memoryBytes,
        engine: engine.description,
        kind: this.kind,
        closed: this.#closed,
      });
      return run.settle({ ...outcome, failure }, request);
    } catch (err) {
      if (ToolexecError.isInstance(err)) throw run.fail(err);
      throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
        result: run.partial(),
      });
    } finally {
      if (sandbox !== undefined) {
        // removal (kill + remove, ~0.1 s) goes on after the result; close() waits for it
        this.#active.delete(sandbox);
        this.#track(sandbox.dispose());
      }
      // refill after the run, not during it: starting a container costs the engine ~0.1 s of CPU
      if (!this.#closed) void this.#pool(language)?.fill();
    }
  }

  /** Settles when every container of a finished run has been removed (removal runs after the result). */
  async settled(): Promise<void> {
    while (this.#cleanups.size > 0) await Promise.all([...this.#cleanups]);
  }

  /**
   * Removes every container of this backend: the warm pool's, those of runs still going (they
   * fail), and those of finished or aborted runs still being removed. Idempotent. Later runs fail
   * with `RUNTIME_UNAVAILABLE`.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort(this.#closedError());
    await Promise.all([...this.#pools.values()].map((pool) => pool.close()));
    await Promise.allSettled([...this.#starts]);
    await Promise.all([...this.#active].map((sandbox) => sandbox.dispose()));
    await this.settled();
  }
}

/**
 * Runs snippets in hardened Docker containers, one per run (kind `docker`, readiness `prod`, or
 * `beta` with the warm pool). See {@link ContainerSandboxBackend} for what a run gets.
 */
export class DockerBackend extends ContainerSandboxBackend {
  readonly kind = 'docker' as const;

  constructor(options: DockerBackendOptions = {}) {
    super(options, options.runtime, 'prod');
  }
}

/**
 * Creates a {@link DockerBackend}. With no options it uses the engine of `DOCKER_HOST` (or the
 * default socket) and the local image `DEFAULT_SANDBOX_IMAGE` (`npm run sandbox:image`).
 * Nothing is contacted until the first run (or {@link ContainerSandboxBackend.warmUp}).
 */
export function createDockerBackend(options: DockerBackendOptions = {}): DockerBackend {
  return new DockerBackend(options);
}
