/**
 * Runs WebAssembly components for the `wasm` backend: transpiled by jco and compiled once per
 * content hash, instantiated fresh for each run on a pool of component workers, with every tool
 * call crossing the run's traced, budgeted gateway.
 */
import { runtimeError } from '../../../core/errors.js';
import { effectiveMaxOutputBytes, effectiveQueueTimeoutMs, effectiveTimeoutMs, validateLimits } from '../../../core/request.js';
import { RunRecord } from '../../../core/run-record.js';
import { abortError, throwIfAborted, watchDeadline } from '../../../core/stopping.js';
import { timeoutFailure } from '../../../core/failure.js';
import type { ExecuteRequest, ExecuteResult } from '../../../core/types.js';
import { assetPath } from '../../../guest/assets.js';
import { WASM32_MAX_MEMORY_BYTES, type ResolvedWasmOptions } from '../options.js';
import { WorkerPool, type WorkerPoolStats } from '../pool.js';
import { runOnWorker } from '../worker-run.js';
import { componentBytes } from './request.js';
import { ComponentCache, JCO_PACKAGE, type PreparedComponent } from './transpile.js';

/** The component worker bundle (built from `src/runtime/guest/component/` into `dist/assets/`). */
export const COMPONENT_WORKER_ASSET = 'component-worker.mjs';

/** Components whose transpiled form is kept. */
const CACHED_COMPONENTS = 16;

/** Options of a {@link ComponentRunner} beyond the wasm backend's. */
export interface ComponentRunnerOptions {
  /** The package jco is imported from (tests name a missing one). @defaultValue '@bytecodealliance/jco' */
  jcoSpecifier?: string;
}

/** The JSON text `run` receives: `metadata.input`, or `null`. */
function inputJson(metadata: Record<string, unknown> | undefined): string {
  const input = metadata?.input;
  if (input === undefined) return 'null';
  let text: string | undefined;
  try {
    text = JSON.stringify(input);
  } catch (err) {
    throw runtimeError('INVALID_ARGUMENT', `invalid argument: metadata.input cannot be encoded as JSON: ${(err as Error).message}`, {
      cause: err,
      details: { field: 'metadata.input' },
    });
  }
  return text ?? 'null';
}

/**
 * `work`, or `TIMEOUT` / `ABORTED` as soon as the run's wall clock or signal says so (jco cannot be
 * interrupted: a transpile that loses the race still finishes and is cached for the next run).
 */
async function withinDeadline<T>(work: Promise<T>, signal: AbortSignal | undefined, timeoutMs: number): Promise<T> {
  let stop: () => void = () => undefined;
  const stopped = new Promise<never>((_, reject) => {
    stop = watchDeadline(signal, timeoutMs, (kind) => {
      if (kind === 'aborted' && signal !== undefined) reject(abortError(signal, 'execution'));
      else {
        const failure = timeoutFailure(timeoutMs, { phase: 'transpile' });
        reject(runtimeError(failure.code, failure.message, { details: failure.details ?? {} }));
      }
    });
  });
  try {
    return await Promise.race([work, stopped]);
  } finally {
    stop();
  }
}

/**
 * The component half of the `wasm` backend. Its workers start on the first component run, so a
 * backend that never runs one never loads jco or starts a component worker.
 */
export class ComponentRunner {
  readonly #options: ResolvedWasmOptions;
  readonly #cache: ComponentCache;
  readonly #pool: WorkerPool;

  constructor(options: ResolvedWasmOptions, extra: ComponentRunnerOptions = {}) {
    this.#options = options;
    this.#cache = new ComponentCache(CACHED_COMPONENTS, extra.jcoSpecifier ?? JCO_PACKAGE);
    this.#pool = new WorkerPool(options.poolSize, () =>
      Promise.resolve({
        script: assetPath(COMPONENT_WORKER_ASSET),
        workerData: {},
        heapBytes: options.workerHeapBytes,
        startupTimeoutMs: options.workerStartupTimeoutMs,
      }),
    );
  }

  /** Worker counters of the component pool. */
  get stats(): WorkerPoolStats {
    return this.#pool.stats;
  }

  /**
   * Runs the component in `request.metadata.wasm_component`. `request.code` may be empty.
   *
   * @throws as `RuntimeBackend.execute` does: `INVALID_ARGUMENT` for a bad component,
   * `RUNTIME_UNAVAILABLE` without jco, `CODE_EXECUTION` for `err(message)` or a trap, `TIMEOUT`,
   * `RESOURCE_LIMIT` (`memory`, `output`), `LIMIT_EXCEEDED` (tool budget), `ABORTED`.
   */
  async execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const run = new RunRecord({ kind: 'wasm', readiness: 'beta', details: { engine: 'jco' } });
    const timeoutMs = effectiveTimeoutMs(request, this.#options.defaultTimeoutMs);
    const maxOutputBytes = effectiveMaxOutputBytes(request, this.#options.defaultMaxOutputBytes);
    const memoryBytes = this.#memoryBytes(request);
    let prepared: PreparedComponent;
    let input: string;
    try {
      throwIfAborted(request.signal, 'execution');
      if (request.gateway === undefined || request.gateway === null || typeof request.gateway !== 'object') {
        throw runtimeError('MISSING_GATEWAY', 'gateway is required');
      }
      validateLimits(request.limits);
      if (this.#pool.closed) {
        throw runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the wasm backend is closed', { details: { backend: 'wasm' } });
      }
      const bytes = componentBytes(request.metadata, this.#options.maxModuleBytes) as Uint8Array;
      input = inputJson(request.metadata);
      prepared = await withinDeadline(this.#cache.prepare(bytes, memoryBytes), request.signal, timeoutMs);
    } catch (err) {
      throw run.fail(err);
    }
    const traced = run.traceGateway(request);
    run.limitsEnforced.memory = prepared.memoryCapped;
    const maxResultBytes = Math.min(this.#options.maxResultBytes, maxOutputBytes);
    run.backend.details = {
      engine: 'jco',
      world: 'toolexec:sandbox/guest@0.1.0',
      componentSha256: prepared.hash,
      transpileMs: Math.round(prepared.transpileMs * 1000) / 1000,
      timeoutMs,
      maxOutputBytes,
      memoryBytes: prepared.memoryBytes,
      wasi: 'denied',
      ...(request.profile === undefined ? {} : { profile: request.profile }),
    };
    // the wall clock covers the transpile too: the run gets what is left of it
    const remainingMs = Math.max(1, Math.ceil(timeoutMs - run.elapsedMs()));
    const outcome = await runOnWorker(this.#pool, {
      kind: 'component',
      payload: {
        hash: prepared.hash,
        js: prepared.js,
        modules: prepared.modules,
        inputJson: input,
        memoryBytes: prepared.memoryBytes,
        maxResultBytes,
        maxMessageBytes: this.#options.maxMessageBytes,
      },
      gateway: traced,
      timeoutMs: remainingMs,
      queueTimeoutMs: effectiveQueueTimeoutMs(request, this.#options.queueTimeoutMs),
      ...(request.onStart === undefined ? {} : { onStart: request.onStart }),
      maxOutputBytes,
      memoryBytes: prepared.memoryBytes,
      killGraceMs: this.#options.killGraceMs,
      // WebAssembly cannot be interrupted: a cancelled run's worker is terminated at once
      interruptible: false,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (outcome.failure?.code === 'TIMEOUT') outcome.failure = timeoutFailure(timeoutMs, outcome.killed ? { killed: true } : {});
    if (typeof outcome.info.memoryBytesUsed === 'number') run.backend.details.memoryBytesUsed = outcome.info.memoryBytesUsed;
    return run.settle(outcome, request);
  }

  /** Terminates the component workers. Idempotent. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  #memoryBytes(request: ExecuteRequest): number {
    const requested = request.limits?.memoryBytes;
    const bytes = requested !== undefined && requested > 0 ? requested : this.#options.defaultMemoryBytes;
    return Math.min(bytes, WASM32_MAX_MEMORY_BYTES - 1);
  }
}
