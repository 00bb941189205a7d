/**
 * A small pool of warm worker threads for the `wasm` backend: one run per worker at a time, a
 * worker that misbehaves is terminated and replaced, idle workers never keep the process alive.
 */
import { ToolexecError } from '../../../model/index.js';
import { DEFAULT_TIMEOUT_MS, Deadline, noop, onAbort } from '../../../model/internal.js';
import { runtimeError } from '../../core/errors.js';
import { abortError, stoppedError } from '../../core/stopping.js';
import { PoolWorker, type PoolWorkerSpec } from './pool-worker.js';

interface Waiter {
  resolve: (worker: PoolWorker) => void;
  reject: (error: Error) => void;
}

/** Default bound on a run's wait for a free worker: 30 s. */
export const DEFAULT_QUEUE_TIMEOUT_MS = DEFAULT_TIMEOUT_MS;

/**
 * The error of a run that waited `queueTimeoutMs` for a free worker: `TIMEOUT` with
 * `details.phase: 'queue'`. The message names only the limit, so it is the same every time.
 */
export function queueTimeoutError(queueTimeoutMs: number, poolSize: number): ToolexecError {
  return runtimeError(
    'TIMEOUT',
    `queue timeout: no sandbox worker became free within ${queueTimeoutMs} ms (all ${poolSize} busy); the snippet never started`,
    { details: { phase: 'queue', queueTimeoutMs, poolSize } },
  );
}

/** Counters of the WASM backend's worker pool (a snapshot, taken when read). */
export interface WorkerPoolStats {
  /** Live workers (idle + busy). */
  workers: number;
  /** Workers waiting for a run. */
  idle: number;
  /** Workers running a snippet now. */
  busy: number;
  /** Workers being started. */
  starting: number;
  /** Runs waiting for a worker. */
  queued: number;
  /** Workers started since the pool was created. */
  started: number;
  /** Workers terminated because a run had to be killed (or the worker died). */
  replaced: number;
}

/**
 * Hands out workers one run at a time. Workers start on demand (the busy ones, the queued runs and
 * one spare, at most `size`); a discarded worker is replaced in the background. Idle workers are
 * `unref`'d, so a forgotten pool never keeps the process alive; {@link WorkerPool.close}
 * terminates everything.
 */
export class WorkerPool {
  readonly #size: number;
  readonly #spec: () => Promise<PoolWorkerSpec>;
  readonly #idle: PoolWorker[] = [];
  readonly #busy = new Set<PoolWorker>();
  readonly #waiters: Waiter[] = [];
  #starting = 0;
  readonly #startups = new Set<Promise<void>>();
  readonly #terminating = new Set<Promise<void>>();
  #started = 0;
  #replaced = 0;
  #closed = false;
  #lastStartError: unknown;

  constructor(size: number, spec: () => Promise<PoolWorkerSpec>) {
    this.#size = size;
    this.#spec = spec;
  }

  get stats(): WorkerPoolStats {
    return {
      workers: this.#idle.length + this.#busy.size,
      idle: this.#idle.length,
      busy: this.#busy.size,
      starting: this.#starting,
      queued: this.#waiters.length,
      started: this.#started,
      replaced: this.#replaced,
    };
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A worker for one run: an idle one with a fresh VM ready if there is one, else any idle one,
   * else the run waits (FIFO) for the next worker to come free, at most `queueTimeoutMs`.
   *
   * @throws `ABORTED` / `TIMEOUT` when `signal` fires first; `TIMEOUT` with `details.phase:
   * 'queue'` after `queueTimeoutMs` in the queue; `RUNTIME_UNAVAILABLE` when the pool is closed or
   * a worker cannot start.
   */
  acquire(signal?: AbortSignal, queueTimeoutMs: number = DEFAULT_QUEUE_TIMEOUT_MS): Promise<PoolWorker> {
    if (this.#closed) return Promise.reject(closedError());
    if (signal?.aborted === true) return Promise.reject(abortError(signal, 'execution'));
    const worker = this.#takeIdle();
    if (worker !== undefined) {
      this.#busy.add(worker);
      worker.ref();
      this.#fill();
      return Promise.resolve(worker);
    }
    return new Promise<PoolWorker>((resolve, reject) => {
      const deadline = new Deadline(signal, queueTimeoutMs);
      let stopListening = noop;
      const done = () => {
        stopListening();
        deadline.dispose();
      };
      const waiter: Waiter = {
        resolve: (w) => {
          done();
          resolve(w);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      const own = deadline.signal;
      stopListening = onAbort(own, () => {
        const index = this.#waiters.indexOf(waiter);
        if (index !== -1) this.#waiters.splice(index, 1);
        done();
        reject(deadline.timedOut ? queueTimeoutError(queueTimeoutMs, this.#size) : stoppedError(own.reason, 'execution'));
      });
      this.#waiters.push(waiter);
      this.#fill();
    });
  }

  /** An idle worker, preferring the most recently idle one with a VM ready. */
  #takeIdle(): PoolWorker | undefined {
    for (let i = this.#idle.length - 1; i >= 0; i--) {
      const worker = this.#idle[i] as PoolWorker;
      if (worker.spareReady) {
        this.#idle.splice(i, 1);
        return worker;
      }
    }
    return this.#idle.pop();
  }

  /** Returns a worker whose run has finished and cleaned up. */
  release(worker: PoolWorker): void {
    this.#busy.delete(worker);
    if (this.#closed || worker.dead) {
      this.#terminate(worker);
      return;
    }
    this.#offer(worker);
  }

  /** Terminates a worker (stuck, dead, or in an unknown state) and starts a replacement. */
  discard(worker: PoolWorker): void {
    this.#busy.delete(worker);
    const index = this.#idle.indexOf(worker);
    if (index !== -1) this.#idle.splice(index, 1);
    this.#replaced += 1;
    this.#terminate(worker);
    if (!this.#closed) this.#fill();
  }

  #terminate(worker: PoolWorker): void {
    const done = worker.terminate();
    this.#terminating.add(done);
    void done.finally(() => this.#terminating.delete(done));
  }

  /** Terminates every worker and fails queued acquires with `RUNTIME_UNAVAILABLE`. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(closedError());
    const all = [...this.#idle, ...this.#busy];
    this.#idle.length = 0;
    this.#busy.clear();
    await Promise.all(all.map((worker) => worker.terminate()));
    // workers still starting terminate themselves when they come up (see #start)
    await Promise.all([...this.#startups]);
    await Promise.all([...this.#terminating]);
  }

  #offer(worker: PoolWorker): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      this.#busy.add(worker);
      worker.ref();
      waiter.resolve(worker);
      return;
    }
    worker.unref();
    this.#idle.push(worker);
  }

  /**
   * Starts workers up to the demand: every busy worker and every queued run, plus one spare (so
   * the next run finds a worker with a VM ready while the last one makes its next), at most `size`.
   */
  #fill(): void {
    const wanted = Math.min(this.#size, this.#busy.size + this.#waiters.length + 1);
    while (!this.#closed && this.#idle.length + this.#busy.size + this.#starting < wanted) this.#start();
  }

  #start(): void {
    this.#starting += 1;
    const startup = (async () => {
      let worker: PoolWorker;
      try {
        worker = await PoolWorker.start(await this.#spec(), new SharedArrayBuffer(4));
      } catch (error) {
        this.#starting -= 1;
        this.#lastStartError = error;
        // nothing else will serve the waiters: fail them rather than hang
        if (this.#idle.length + this.#busy.size + this.#starting === 0) {
          for (const waiter of this.#waiters.splice(0)) waiter.reject(startError(error));
        }
        return;
      }
      this.#starting -= 1;
      this.#started += 1;
      if (this.#closed) {
        await worker.terminate();
        return;
      }
      void worker.died.then(() => this.#onDeath(worker));
      this.#offer(worker);
    })();
    this.#startups.add(startup);
    void startup.finally(() => this.#startups.delete(startup));
  }

  #onDeath(worker: PoolWorker): void {
    const index = this.#idle.indexOf(worker);
    if (index === -1) return; // busy workers are handled by their run
    this.#idle.splice(index, 1);
    this.#replaced += 1;
    if (!this.#closed && this.#waiters.length > 0) this.#fill();
  }

  /** The error of the last worker that failed to start, if any. */
  get lastStartError(): unknown {
    return this.#lastStartError;
  }
}

function closedError(): ToolexecError {
  return runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the wasm backend is closed', { details: { backend: 'wasm' } });
}

function startError(cause: unknown): ToolexecError {
  // already the library's word on it (a missing sandbox file or engine): passed on as it is
  if (ToolexecError.isInstance(cause, 'RUNTIME_UNAVAILABLE')) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: the wasm sandbox worker could not start: ${reason}`, {
    cause,
    details: { backend: 'wasm' },
  });
}
