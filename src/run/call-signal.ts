import { onAbort } from './abort-listeners.js';

/** Longest delay `setTimeout` honours; longer timeouts mean "no deadline". */
const MAX_TIMER_MS = 2_147_483_647;

/** What {@link CallSignal.race} resolves with when the call is aborted first. */
export const ABORTED = Symbol('aborted');

/**
 * The cancellation state of one call: aborted when the caller's signal aborts (same reason) or
 * when the deadline passes (a `TimeoutError` DOMException).
 *
 * @remarks
 * Lazy, because on Node 20 creating an AbortSignal costs microseconds (more than a whole
 * validated call): a call that finishes synchronously arms nothing; a call that waits on async
 * work arms only a timer (and a listener on the caller's signal) through {@link CallSignal.race};
 * the AbortSignal itself exists only once someone reads {@link CallSignal.signal} (a handler
 * reading `ctx.signal`, an executor). The deadline clock starts when the call first waits or the
 * signal is first read.
 *
 * Unlike `AbortSignal.any`/`AbortSignal.timeout`, everything it attaches (the listener on the
 * caller's signal, the timer) is removed by {@link CallSignal.dispose}, which the runner calls in
 * `finally` once the call settles. The signal itself stays valid (and keeps its state) after
 * disposal: a handler holding it never sees a spurious abort.
 *
 * @internal
 */
export class CallSignal {
  readonly #parent: AbortSignal | undefined;
  readonly #timeoutMs: number | undefined;
  #controller: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Stops listening to the caller's signal (set while listening). */
  #stopListening: (() => void) | undefined;
  /** Set when this call itself was aborted (deadline, `abort()`, or the caller's signal seen firing). */
  #fired = false;
  #reason: unknown;
  #timedOut = false;
  #armed = false;
  #disposed = false;
  /** Pending {@link CallSignal.race}s, told when the call aborts (created on first race). */
  #waiters: Set<(value: typeof ABORTED) => void> | undefined;

  constructor(parent: AbortSignal | undefined, timeoutMs: number | undefined) {
    this.#parent = parent;
    this.#timeoutMs = timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS ? timeoutMs : undefined;
    // An already-passed deadline is decided now, like an expired Go context.
    if (this.#timeoutMs !== undefined && this.#timeoutMs <= 0) this.#fire(timeoutReason(this.#timeoutMs), true);
  }

  /** True once the caller aborted or the deadline passed; never allocates. */
  get aborted(): boolean {
    return this.#fired || (this.#parent !== undefined && this.#parent.aborted);
  }

  /** Why the call was aborted (the caller's reason, or a `TimeoutError`); `undefined` while it runs. */
  get reason(): unknown {
    if (this.#fired) return this.#reason;
    return this.#parent !== undefined && this.#parent.aborted ? this.#parent.reason : undefined;
  }

  /** The signal handed to handlers and executors (created, and the deadline armed, on first use). */
  get signal(): AbortSignal {
    let controller = this.#controller;
    if (controller === undefined) {
      controller = new AbortController();
      this.#controller = controller;
      if (this.aborted) controller.abort(this.reason);
      else this.#arm();
    }
    return controller.signal;
  }

  /** True when this call's own deadline (`timeoutMs`) aborted it, not the caller. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Aborts the call (telling the work in flight to stop); the caller's signal is untouched. */
  abort(reason?: unknown): void {
    this.#fire(reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason, false);
  }

  /**
   * Settles like `promise`, or resolves with {@link ABORTED} as soon as the call aborts, whichever
   * comes first; arms the deadline. The loser is observed (a late rejection is never unhandled).
   */
  race<T>(promise: PromiseLike<T>): Promise<T | typeof ABORTED> {
    if (this.aborted) {
      Promise.resolve(promise).then(undefined, noop);
      return Promise.resolve(ABORTED);
    }
    this.#arm();
    const waiters = (this.#waiters ??= new Set());
    return new Promise<T | typeof ABORTED>((resolve, reject) => {
      waiters.add(resolve);
      Promise.resolve(promise).then(
        (value) => {
          waiters.delete(resolve);
          resolve(value);
        },
        (err: unknown) => {
          waiters.delete(resolve);
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes the original rejection on unchanged
          reject(err);
        },
      );
    });
  }

  /** Removes the listener on the caller's signal and clears the timer. Idempotent. */
  dispose(): void {
    this.#disposed = true;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#detachParent();
  }

  /** Starts the deadline timer and listens to the caller's signal, once (never after dispose). */
  #arm(): void {
    if (this.#armed || this.#disposed || this.#fired) return;
    this.#armed = true;
    const parent = this.#parent;
    if (parent !== undefined) {
      if (parent.aborted) {
        this.#fire(parent.reason, false);
        return;
      }
      this.#stopListening = onAbort(parent, () => this.#fire(parent.reason, false));
    }
    const timeoutMs = this.#timeoutMs;
    if (timeoutMs !== undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#fire(timeoutReason(timeoutMs), true);
      }, timeoutMs);
    }
  }

  #fire(reason: unknown, timedOut: boolean): void {
    if (this.#fired) return;
    this.#fired = true;
    this.#reason = reason;
    this.#timedOut = timedOut;
    this.#controller?.abort(reason);
    const waiters = this.#waiters;
    if (waiters !== undefined) {
      for (const resolve of waiters) resolve(ABORTED);
      waiters.clear();
    }
    this.dispose();
  }

  #detachParent(): void {
    if (this.#stopListening !== undefined) {
      this.#stopListening();
      this.#stopListening = undefined;
    }
  }
}

function timeoutReason(timeoutMs: number): DOMException {
  return new DOMException(`the call timed out after ${timeoutMs} ms`, 'TimeoutError');
}

/** Does nothing; used to observe promises whose outcome no longer matters. */
export function noop(): void {}
