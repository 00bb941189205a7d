/**
 * The clock of one snippet in code mode: its deadline counts from when it starts running, not from
 * the call, so time spent waiting for a sandbox never eats into it.
 */
import { Deadline, onAbort } from '../model/internal.js';

/**
 * One signal for a snippet's engine and its tools, aborted when the caller aborts or the snippet's
 * own deadline passes.
 *
 * @remarks
 * The deadline (`timeoutMs`) is armed by {@link RunClock.start}: the engine reports the snippet's
 * start (the runtime engine: when the sandbox worker is assigned). Until then only a backstop runs,
 * `queueTimeoutMs + timeoutMs` from the call, which only an engine or runtime that never reports
 * the start can meet (the queue itself is bounded by the runtime, with its own error).
 */
export class RunClock {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  readonly #backstop: Deadline;
  #run: Deadline | undefined;
  #unlisten: (() => void)[] = [];
  #timedOut = false;
  #closed = false;
  #disposed = false;

  constructor(callerSignal: AbortSignal | undefined, timeoutMs: number, queueTimeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#backstop = new Deadline(callerSignal, queueTimeoutMs + timeoutMs);
    this.#follow(this.#backstop);
  }

  /** Aborted when the caller aborts (its reason) or the deadline passes (a `TimeoutError`). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when a deadline (not the caller) stopped the snippet. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** True when {@link RunClock.close} (not the caller or a deadline) stopped the snippet. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Stops the snippet because its executor is closing: the signal aborts with `reason`. Ignored once stopped. */
  close(reason: unknown): void {
    if (this.#controller.signal.aborted) return;
    this.#closed = true;
    this.#controller.abort(reason);
  }

  /** The snippet started: its `timeoutMs` counts from now. Idempotent; ignored once stopped or disposed. */
  start(): void {
    if (this.#run !== undefined || this.#disposed || this.#controller.signal.aborted) return;
    this.#run = new Deadline(undefined, this.#timeoutMs);
    this.#follow(this.#run);
  }

  /** Clears the timers and the listener on the caller's signal. Idempotent. */
  dispose(): void {
    this.#disposed = true;
    for (const unlisten of this.#unlisten) unlisten();
    this.#unlisten = [];
    this.#backstop.dispose();
    this.#run?.dispose();
  }

  #follow(deadline: Deadline): void {
    const signal = deadline.signal;
    if (signal.aborted) {
      this.#stop(deadline);
      return;
    }
    this.#unlisten.push(onAbort(signal, () => this.#stop(deadline)));
  }

  #stop(deadline: Deadline): void {
    if (this.#controller.signal.aborted) return;
    this.#timedOut = deadline.timedOut;
    this.#controller.abort(deadline.reason);
  }
}
