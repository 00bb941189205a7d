/**
 * The pool of Pyodide children: at most `size` alive, each lent to one run at a time, kept warm
 * between runs (at the default memory cap), replaced after `maxRunsPerChild` runs or a run that
 * ended badly. Runs that find every child busy wait in a FIFO queue, bounded by their
 * `queueTimeoutMs`.
 */
import type { ToolexecError } from '../../../model/index.js';
import { ABORTED, noop, type Deadline } from '../../../model/internal.js';
import { runtimeError } from '../../core/errors.js';
import { stoppedError } from '../../core/stopping.js';
import { queueTimeoutError } from '../wasm/pool.js';
import { PythonChild } from './child.js';
import type { PythonEnvironment } from './environment.js';
import type { ResolvedPythonOptions } from './options.js';

interface Waiter {
  resolve: (child: PythonChild) => void;
  reject: (error: ToolexecError) => void;
}

/** Counters of the python backend's pool of children (a snapshot, taken when read). */
export interface PythonPoolStats {
  /** Children alive (idle + busy). */
  children: number;
  /** Children waiting for a run. */
  idle: number;
  /** Runs waiting for a child. */
  queued: number;
  /** Children started since the pool was made. */
  started: number;
}

/** Lends children to runs. */
export class ChildPool {
  readonly #options: ResolvedPythonOptions;
  readonly #environment: PythonEnvironment;
  readonly #idle: PythonChild[] = [];
  readonly #all = new Set<PythonChild>();
  readonly #waiters: Waiter[] = [];
  /** Children alive or starting. */
  #slots = 0;
  #started = 0;
  #closed = false;
  /** Aborted by `close()`: kills the children still starting. */
  readonly #closing = new AbortController();
  /** Children starting and children killed but not yet gone, which `close()` waits for. */
  readonly #settling = new Set<Promise<unknown>>();

  constructor(environment: PythonEnvironment, options: ResolvedPythonOptions) {
    this.#environment = environment;
    this.#options = options;
  }

  get stats(): PythonPoolStats {
    return { children: this.#all.size, idle: this.#idle.length, queued: this.#waiters.length, started: this.#started };
  }

  /** The process ids of every live child (bubblewrap's, the group leader). */
  get pids(): number[] {
    return [...this.#all].map((child) => child.pid).filter((pid): pid is number => pid !== undefined);
  }

  /** Starts children at the default cap until `size` are alive; resolves once they are ready. */
  async warm(): Promise<void> {
    const starting: Promise<void>[] = [];
    while (this.#slots < this.#options.poolSize && !this.#closed) {
      this.#slots += 1;
      starting.push(
        this.#start(this.#options.defaultMemoryBytes).then(
          (child) => this.#offer(child),
          () => {
            this.#slots -= 1;
          },
        ),
      );
    }
    await Promise.all(starting);
  }

  /**
   * A child for one run at `memoryBytes`: an idle one at the default cap, a new one, or the next one
   * freed (FIFO). Every wait — for a child to come free and for one to start (a cold pool, a child
   * at another cap) — is bounded by `queue`, the run's queue budget (`queueTimeoutMs`) and signal.
   * @throws `TIMEOUT` with `details.phase: 'queue'` when the budget runs out; `ABORTED` / `TIMEOUT`
   * when the signal fires first; `RUNTIME_UNAVAILABLE` when the pool is closed or a child cannot start.
   */
  async acquire(memoryBytes: number, queue: Deadline): Promise<PythonChild> {
    if (this.#closed) throw closedError();
    if (memoryBytes === this.#options.defaultMemoryBytes) {
      const idle = this.#idle.shift();
      if (idle !== undefined) return idle;
    } else if (this.#slots >= this.#options.poolSize && this.#idle.length > 0) {
      // a child at another cap takes the place of an idle one
      this.#retire(this.#idle.shift() as PythonChild);
    }
    if (this.#slots < this.#options.poolSize) return this.#startWithin(memoryBytes, queue);
    const child = await this.#wait(queue);
    if (child.memoryBytes === memoryBytes) return child;
    this.#retire(child);
    return this.#startWithin(memoryBytes, queue);
  }

  /**
   * Starts a child for one run in a new slot, within the run's queue budget; a child still starting
   * when the run gives up joins the pool once it is ready (or is replaced, at another cap).
   */
  async #startWithin(memoryBytes: number, queue: Deadline): Promise<PythonChild> {
    if (queue.aborted) throw this.#queueError(queue);
    const starting = this.#startInNewSlot(memoryBytes);
    const child = await queue.race(starting);
    if (child !== ABORTED) return child;
    starting.then((late) => this.#adopt(late), noop);
    throw this.#queueError(queue);
  }

  /** A child no run is waiting for any more: offered to the pool at the default cap, else replaced. */
  #adopt(child: PythonChild): void {
    if (child.memoryBytes === this.#options.defaultMemoryBytes) {
      this.#offer(child);
      return;
    }
    this.#retire(child);
    this.#refill();
  }

  /** Why a run stopped waiting: its queue budget ran out, or its signal fired. */
  #queueError(queue: Deadline): ToolexecError {
    return queue.timedOut ? queueTimeoutError(queue.timeoutMs ?? 0, this.#options.poolSize) : stoppedError(queue.reason, 'execution');
  }

  /** Takes a slot and starts a child in it; a child that fails to start gives the slot back. */
  async #startInNewSlot(memoryBytes: number): Promise<PythonChild> {
    this.#slots += 1;
    try {
      return await this.#start(memoryBytes);
    } catch (err) {
      this.#slots -= 1;
      this.#refill();
      throw err;
    }
  }

  /** Takes a child back after a run: kept when `reusable`, else killed and replaced. */
  release(child: PythonChild, reusable: boolean): void {
    child.runs += 1;
    if (
      !this.#closed &&
      reusable &&
      !child.gone &&
      child.runs < this.#options.maxRunsPerChild &&
      child.memoryBytes === this.#options.defaultMemoryBytes
    ) {
      this.#offer(child);
      return;
    }
    this.#retire(child);
    this.#refill();
  }

  /** Kills every child and refuses the queued runs. Resolves once every child has exited. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    for (const waiter of this.#waiters.splice(0)) waiter.reject(closedError());
    const children = [...this.#all];
    this.#idle.length = 0;
    for (const child of children) child.kill();
    await Promise.all([...children.map((child) => child.whollyGone(5_000)), ...this.#settling]);
    this.#all.clear();
  }

  /** Keeps `work` (a start, a killed child's end) for `close()` to wait for until it settles. */
  #track(work: Promise<unknown>): void {
    const settled = work.then(noop, noop);
    this.#settling.add(settled);
    void settled.then(() => this.#settling.delete(settled));
  }

  async #start(memoryBytes: number): Promise<PythonChild> {
    const starting = PythonChild.start(
      this.#environment.command(memoryBytes),
      memoryBytes,
      this.#options.startupTimeoutMs,
      this.#closing.signal,
    );
    this.#track(starting);
    let child: PythonChild;
    try {
      child = await starting;
    } catch (err) {
      throw this.#closed ? closedError() : err;
    }
    this.#started += 1;
    this.#all.add(child);
    void child.exited.then(() => {
      // a child that died while idle leaves the pool
      const at = this.#idle.indexOf(child);
      if (at !== -1) {
        this.#idle.splice(at, 1);
        this.#all.delete(child);
        this.#slots -= 1;
        this.#refill();
      }
    });
    if (this.#closed) {
      this.#kill(child);
      throw closedError();
    }
    return child;
  }

  /** Kills a child; `close()` waits until it and the processes under it are gone. */
  #kill(child: PythonChild): void {
    child.kill();
    this.#track(child.whollyGone(5_000));
  }

  #offer(child: PythonChild): void {
    if (this.#closed) {
      this.#kill(child);
      return;
    }
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter.resolve(child);
    else this.#idle.push(child);
  }

  #retire(child: PythonChild): void {
    if (!this.#all.delete(child)) return;
    const at = this.#idle.indexOf(child);
    if (at !== -1) this.#idle.splice(at, 1);
    this.#slots -= 1;
    this.#kill(child);
  }

  /**
   * Starts a replacement for a retired child, in the background, so the pool stays warm (a failure
   * fails the first waiting run, if any).
   */
  #refill(): void {
    if (this.#closed || this.#slots >= this.#options.poolSize) return;
    this.#slots += 1;
    this.#start(this.#options.defaultMemoryBytes).then(
      (child) => this.#offer(child),
      (err: unknown) => {
        this.#slots -= 1;
        this.#waiters.shift()?.reject(err as ToolexecError);
      },
    );
  }

  /** The next child freed (FIFO), within the run's queue budget. */
  async #wait(queue: Deadline): Promise<PythonChild> {
    if (queue.aborted) throw this.#queueError(queue);
    let waiter: Waiter | undefined;
    const freed = new Promise<PythonChild>((resolve, reject) => {
      waiter = { resolve, reject };
    });
    this.#waiters.push(waiter as Waiter);
    try {
      const child = await queue.race(freed);
      if (child !== ABORTED) return child;
      // a child handed over as the budget ran out goes back to the pool
      freed.then((late) => this.#offer(late), noop);
      throw this.#queueError(queue);
    } finally {
      const at = this.#waiters.indexOf(waiter as Waiter);
      if (at !== -1) this.#waiters.splice(at, 1);
    }
  }
}

function closedError(): ToolexecError {
  return runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the python backend is closed', { details: { language: 'python' } });
}
