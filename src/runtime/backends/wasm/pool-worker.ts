/**
 * One warm worker thread of the `wasm` backend's pool: started with its resource limits, told to
 * run and cancel through messages and a shared control cell, watched until it dies.
 */
import { Worker, type Transferable } from 'node:worker_threads';
import { noop } from '../../../model/internal.js';
import { watchDeadline } from '../../core/stopping.js';

/** How a worker ended. */
export interface WorkerDeath {
  /** The worker's uncaught error (`ERR_WORKER_OUT_OF_MEMORY`, a crash), if any. */
  error?: unknown;
  /** The exit code, when the worker exited. */
  exitCode?: number;
}

/** What starting a worker needs. */
export interface PoolWorkerSpec {
  script: string;
  /** Passed to the worker (cloned once per worker). */
  workerData: Record<string, unknown>;
  heapBytes: number;
  startupTimeoutMs: number;
  /** Called with the worker's thread id once it is gone (crash, exit, terminate). */
  onGone?: (threadId: number) => void;
}

/**
 * The worker's native stack. QuickJS's own guard (512 KiB of its shadow stack) trips first for JS
 * recursion; a deeper native stack only makes pathological builtin recursion (e.g. serializing a
 * 100k-deep object) slower to fail, so node's worker default is kept.
 */
const WORKER_STACK_MB = 4;

/**
 * One worker thread and its control channel. The shared `control` cell carries the sequence number
 * of a run to cancel, which the worker's interrupt handler polls while guest code runs.
 */
export class PoolWorker {
  readonly #worker: Worker;
  readonly #control: Int32Array;
  readonly #idle = new Map<number, () => void>();
  readonly #deathListeners = new Set<(death: WorkerDeath) => void>();
  #death: WorkerDeath | undefined;
  #seq = 0;
  /** The seq of the last run the worker had seen when it reported a spare VM ready (0: at start). */
  #spareSeq = 0;
  #dead = false;
  /** Settles once the worker is gone (crash, out of memory, exit or terminate). */
  readonly died: Promise<WorkerDeath>;
  /** Engine versions the worker reported at start. */
  versions: Record<string, string> = {};

  private constructor(worker: Worker, control: Int32Array) {
    this.#worker = worker;
    this.#control = control;
    let resolveDeath!: (death: WorkerDeath) => void;
    this.died = new Promise((resolve) => {
      resolveDeath = resolve;
    });
    worker.on('message', (message: unknown) => this.#onMessage(message));
    const die = (death: WorkerDeath) => {
      this.#dead = true;
      if (this.#death !== undefined) return;
      this.#death = death;
      resolveDeath(death);
      for (const listener of this.#deathListeners) listener(death);
      this.#deathListeners.clear();
    };
    worker.once('error', (error) => die({ error }));
    worker.once('exit', (exitCode) => {
      die({ exitCode });
      for (const resolve of this.#idle.values()) resolve();
      this.#idle.clear();
    });
  }

  /** Starts a worker and waits for its `ready` message. */
  static start(spec: PoolWorkerSpec, control: SharedArrayBuffer): Promise<PoolWorker> {
    const heapMb = Math.max(16, Math.ceil(spec.heapBytes / (1024 * 1024)));
    const worker = new Worker(spec.script, {
      workerData: { ...spec.workerData, control },
      env: {},
      argv: [],
      execArgv: [],
      // no `stdout: true` / `stderr: true`: those streams keep a ref'd port (the process would never
      // exit with idle workers), and nothing in the worker writes to them
      name: 'toolexec-wasm',
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: WORKER_STACK_MB },
    });
    const pooled = new PoolWorker(worker, new Int32Array(control));
    // read now: a worker that has exited reports -1
    const threadId = worker.threadId;
    if (spec.onGone !== undefined) {
      const onGone = spec.onGone;
      void pooled.died.then(() => onGone(threadId));
    }
    return new Promise<PoolWorker>((resolve, reject) => {
      let settled = false;
      let stopClock = noop;
      const onMessage = (message: unknown) => {
        const m = message as { type?: unknown; versions?: unknown } | null;
        if (m?.type !== 'ready' || settled) return;
        settled = true;
        cleanup();
        if (m.versions !== null && typeof m.versions === 'object') pooled.versions = { ...(m.versions as Record<string, string>) };
        resolve(pooled);
      };
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        cleanup();
        void pooled.terminate();
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      const cleanup = () => {
        stopClock();
        worker.off('message', onMessage);
      };
      worker.on('message', onMessage);
      stopClock = watchDeadline(undefined, spec.startupTimeoutMs, () =>
        fail(new Error(`the worker did not start within ${spec.startupTimeoutMs}ms`)),
      );
      void pooled.died.then((death) => fail(death.error ?? new Error(`the worker exited with code ${death.exitCode ?? '?'}`)));
    });
  }

  /** True once the worker is gone. */
  get dead(): boolean {
    return this.#dead;
  }

  /**
   * Calls `listener` when the worker dies (at once if it already has). Returns the unsubscribe
   * function: a run subscribes for its own duration only, so nothing accumulates on a long-lived
   * worker.
   */
  onDeath(listener: (death: WorkerDeath) => void): () => void {
    if (this.#death !== undefined) {
      listener(this.#death);
      return () => undefined;
    }
    this.#deathListeners.add(listener);
    return () => this.#deathListeners.delete(listener);
  }

  /**
   * True when the worker said it has a fresh VM ready and has been handed no run since: a run on
   * it starts at once instead of waiting for a VM to be made (about a millisecond).
   */
  get spareReady(): boolean {
    return this.#spareSeq === this.#seq;
  }

  /** A new run sequence number (never 0). */
  nextSeq(): number {
    this.#seq = this.#seq >= 0x7fffffff ? 1 : this.#seq + 1;
    return this.#seq;
  }

  /** Sends a control message (a run, a cancel). */
  post(message: Record<string, unknown>, transfer: readonly Transferable[] = []): void {
    this.#worker.postMessage(message, transfer);
  }

  /** Asks the worker to stop run `seq`: the shared cell for a busy VM, a message for an idle one. */
  cancel(seq: number): void {
    Atomics.store(this.#control, 0, seq);
    if (!this.#dead) this.post({ type: 'cancel', seq });
  }

  /** Settles when the worker reports run `seq` finished and cleaned up (or the worker is gone). */
  whenIdle(seq: number): Promise<void> {
    if (this.#dead) return Promise.resolve();
    return new Promise((resolve) => this.#idle.set(seq, resolve));
  }

  ref(): void {
    this.#worker.ref();
  }

  unref(): void {
    this.#worker.unref();
  }

  /** Terminates the worker. Idempotent. */
  async terminate(): Promise<void> {
    this.#dead = true;
    await this.#worker.terminate().catch(() => undefined);
  }

  #onMessage(message: unknown): void {
    const m = message as { type?: unknown; seq?: unknown } | null;
    if (m?.type === 'spare' && typeof m.seq === 'number') {
      this.#spareSeq = m.seq;
      return;
    }
    if (m?.type !== 'idle' || typeof m.seq !== 'number') return;
    const resolve = this.#idle.get(m.seq);
    this.#idle.delete(m.seq);
    resolve?.();
  }
}
