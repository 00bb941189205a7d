/**
 * The Python runtime backend: Python snippets in Pyodide, in a pool of pre-warmed child processes
 * under Node's permission model inside bubblewrap.
 */
import { ABORTED, Deadline } from '../../../model/internal.js';
import { runtimeError } from '../../core/errors.js';
import { checkPooledRequest, runMemoryBytes } from '../../core/pooled-sandbox.js';
import { effectiveMaxOutputBytes, effectiveQueueTimeoutMs, effectiveTimeoutMs, validateRequest } from '../../core/request.js';
import { RunRecord } from '../../core/run-record.js';
import { isPythonLanguage, PYTHON_LANGUAGES } from '../../core/snippet.js';
import { stoppedError, throwIfAborted } from '../../core/stopping.js';
import type { ExecuteRequest, ExecuteResult, RuntimeBackend } from '../../core/types.js';
import { PythonEnvironment } from './environment.js';
import { resolvePythonOptions, type PythonBackendOptions, type ResolvedPythonOptions } from './options.js';
import { queueTimeoutError } from '../wasm/pool.js';
import { ChildPool, type PythonPoolStats } from './pool.js';
import { runOnChild } from './session.js';

/**
 * Runs Python snippets (`language: 'python'` or `'py'`) in Pyodide (CPython compiled to
 * WebAssembly).
 *
 * @remarks
 * **Isolation.** Each snippet runs in a pooled child process: `node` under the permission model
 * (reads only of the Pyodide package, the child's bundle, the prelude and the backend's private
 * folder; no writes, child processes, workers, addons or code generation from strings), inside
 * bubblewrap (`--unshare-all`: no network, its own PID, IPC and UTS namespaces; `--die-with-parent`;
 * a read-only view of only the node binary and its libraries, those files at fixed `/toolexec/...`
 * paths and a minimal `/proc` and `/dev`; an empty environment). The snippet sees a fixed
 * environment and no host path. Where bubblewrap is missing or does not work (probed once),
 * every Python run fails with `RUNTIME_UNAVAILABLE` naming it: there is no fallback without a
 * network boundary. A worker thread would be no sandbox: Pyodide's `js` module, `run_js` and its
 * proxies reach the JavaScript realm they run in.
 *
 * **Fresh state.** A child keeps one interpreter across runs; the prelude gives each run a fresh
 * `__main__` and `tools` module, removes the modules the run imported and restores every module's
 * namespace, `sys.path` and the streams (see `prelude.py`). A child is replaced after
 * `maxRunsPerChild` runs and after any run that failed on a limit (time, memory, output) or killed it.
 * The reset covers what a run leaves behind by accident; a hostile run can still rewrite the
 * interpreter's objects for later runs on its child, so use `maxRunsPerChild: 1` when snippets of
 * different trust levels share a backend.
 *
 * **Limits.** Wall clock: the interrupt buffer raises `KeyboardInterrupt` at `timeoutMs`
 * (`TIMEOUT`); a child that does not stop (a long builtin, a wait on a tool call) is killed
 * `killGraceMs` later (`TIMEOUT`, `details.killed`). Memory: Pyodide's linear memory maximum is
 * `limits.memoryBytes` (default 512 MiB; below ~32 MiB Pyodide cannot start) → `RESOURCE_LIMIT`
 * `memory` on a `MemoryError` the snippet did not catch or a fatal allocation failure. Output:
 * stdout + stderr over `maxOutputBytes` interrupts the run (`RESOURCE_LIMIT` `output`). Tool
 * calls: the tracing gateway (`LIMIT_EXCEEDED`). Source: `maxSourceBytes` (`LIMIT_EXCEEDED`).
 * Recursion past Python's limit → `RESOURCE_LIMIT` `stack`. The queue for a free child:
 * `queueTimeoutMs` (`TIMEOUT`, `details.phase: 'queue'`).
 *
 * Results report `backend.kind: 'wasm'` with `details.engine: 'pyodide'`.
 */
export class PythonBackend implements RuntimeBackend {
  readonly kind = 'wasm' as const;
  readonly readiness = 'beta' as const;
  readonly reportsStart = true;
  readonly languages: readonly string[] = PYTHON_LANGUAGES;
  readonly #options: ResolvedPythonOptions;
  #ready: Promise<{ environment: PythonEnvironment; pool: ChildPool }> | undefined;
  #pool: ChildPool | undefined;
  #closed = false;

  constructor(options: PythonBackendOptions = {}) {
    this.#options = resolvePythonOptions(options);
  }

  /** Pool counters (zeros before first use). */
  get stats(): PythonPoolStats {
    return this.#pool?.stats ?? { children: 0, idle: 0, queued: 0, started: 0 };
  }

  /** The process ids of the live children (for tests and monitoring). */
  get childPids(): number[] {
    return this.#pool?.pids ?? [];
  }

  /** Prepares the sandbox (probe, snapshot) and starts the pool's children; resolves when they are ready. */
  async warm(): Promise<void> {
    const { pool } = await this.#prepare();
    await pool.warm();
  }

  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const run = new RunRecord({ kind: this.kind, readiness: this.readiness, details: { engine: 'pyodide', language: 'python' } });
    try {
      validateRequest(request);
      if (this.#closed) throw closedError();
      if (!isPythonLanguage(request.language)) {
        throw runtimeError(
          'RUNTIME_UNAVAILABLE',
          `runtime unavailable: language "${String(request.language ?? 'javascript')}" is not supported by the python backend (use python)`,
          { details: { language: request.language ?? 'javascript' } },
        );
      }
      checkPooledRequest(request, this.#options);
    } catch (err) {
      throw run.fail(err);
    }
    const traced = run.traceGateway(request);
    const timeoutMs = effectiveTimeoutMs(request, this.#options.defaultTimeoutMs);
    const maxOutputBytes = effectiveMaxOutputBytes(request, this.#options.defaultMaxOutputBytes);
    const memoryBytes = runMemoryBytes(request, this.#options);
    run.limitsEnforced.memory = true;

    let child;
    let environment: PythonEnvironment;
    // the queue budget covers the whole wait before the snippet starts: the first use's preparation
    // (probe, snapshot) and a child's start-up included, as a cold pool's worker start-up elsewhere
    const queueTimeoutMs = effectiveQueueTimeoutMs(request, this.#options.queueTimeoutMs);
    const queue = new Deadline(request.signal, queueTimeoutMs);
    try {
      throwIfAborted(request.signal, 'execution');
      const prepared = await queue.race(this.#prepare());
      if (prepared === ABORTED) {
        throw queue.timedOut ? queueTimeoutError(queueTimeoutMs, this.#options.poolSize) : stoppedError(queue.reason, 'execution');
      }
      environment = prepared.environment;
      child = await prepared.pool.acquire(memoryBytes, queue);
    } catch (err) {
      throw run.fail(err);
    } finally {
      queue.dispose();
    }
    run.backend.details = {
      engine: 'pyodide',
      language: 'python',
      isolation: 'bubblewrap+permission',
      start: environment.startMode,
      timeoutMs,
      maxOutputBytes,
      memoryBytes,
      ...(request.profile === undefined ? {} : { profile: request.profile }),
    };
    const pool = this.#pool as ChildPool;
    let outcome: Awaited<ReturnType<typeof runOnChild>>;
    try {
      outcome = await runOnChild(child, {
        code: request.code,
        gateway: traced,
        timeoutMs,
        killGraceMs: this.#options.killGraceMs,
        maxOutputBytes,
        maxMessageBytes: this.#options.maxMessageBytes,
        memoryBytes,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(request.onStart === undefined ? {} : { onStart: request.onStart }),
        closed: () => this.#closed,
      });
    } catch (err) {
      // not expected (a run's session settles every way it can end): the child is not trusted again
      pool.release(child, false);
      throw run.fail(err, 'CODE_EXECUTION');
    }
    pool.release(child, outcome.reusable);
    if (outcome.killed && outcome.failure?.code === 'TIMEOUT') run.backend.details.killed = true;
    return run.settle(outcome, request);
  }

  /**
   * Kills every child and removes the private folder; runs still going and later runs fail with
   * `RUNTIME_UNAVAILABLE`. Idempotent.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const ready = this.#ready;
    if (ready === undefined) return;
    try {
      const { environment, pool } = await ready;
      await pool.close();
      environment.close();
    } catch {
      // preparing failed: nothing was left behind
    }
  }

  #prepare(): Promise<{ environment: PythonEnvironment; pool: ChildPool }> {
    if (this.#closed) return Promise.reject(closedError());
    if (this.#ready === undefined) {
      const ready = PythonEnvironment.prepare(this.#options).then((environment) => {
        const pool = new ChildPool(environment, this.#options);
        this.#pool = pool;
        return { environment, pool };
      });
      // a failed preparation is tried again by the next run (bubblewrap's probe is kept for the process)
      ready.catch(() => {
        if (this.#ready === ready) this.#ready = undefined;
      });
      this.#ready = ready;
    }
    return this.#ready;
  }
}

function closedError(): Error {
  return runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the python backend is closed', { details: { language: 'python' } });
}

/** Creates a {@link PythonBackend}. @throws `CONFIGURATION` for an out-of-range option. */
export function createPythonBackend(options: PythonBackendOptions = {}): PythonBackend {
  return new PythonBackend(options);
}
