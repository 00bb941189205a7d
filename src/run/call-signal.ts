/** Longest delay `setTimeout` honours; longer timeouts mean "no deadline". */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The signal of one call: aborted when the caller's signal aborts (same reason) or when the
 * deadline passes (a `TimeoutError` DOMException).
 *
 * @remarks
 * Lazy: no AbortController, listener or timer exists until someone needs the signal (a handler
 * reading `ctx.signal`, an executor, or the runner waiting on async work). A call that finishes
 * synchronously therefore costs nothing for its deadline — creating an AbortSignal costs
 * microseconds on Node 20, the whole call less. The deadline clock starts when the signal is first
 * needed, which for synchronous work is the moment the call first waits.
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
  #onParentAbort: (() => void) | undefined;
  #timedOut = false;
  #disposed = false;

  constructor(parent: AbortSignal | undefined, timeoutMs: number | undefined) {
    this.#parent = parent;
    this.#timeoutMs = timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS ? timeoutMs : undefined;
    // An already-passed deadline is decided now, like an expired Go context.
    if (this.#timeoutMs !== undefined && this.#timeoutMs <= 0) this.#materialize();
  }

  /** True once the caller aborted or the deadline passed; never allocates. */
  get aborted(): boolean {
    const controller = this.#controller;
    if (controller !== undefined) return controller.signal.aborted;
    return this.#parent !== undefined && this.#parent.aborted;
  }

  /** The signal handed to handlers and executors (created, and the deadline armed, on first use). */
  get signal(): AbortSignal {
    return (this.#controller ?? this.#materialize()).signal;
  }

  /** True when this call's own deadline (`timeoutMs`) aborted it, not the caller. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Aborts the call's signal (telling the work in flight to stop); the caller's signal is untouched. */
  abort(reason?: unknown): void {
    (this.#controller ?? this.#materialize()).abort(reason);
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

  #materialize(): AbortController {
    const controller = new AbortController();
    this.#controller = controller;
    const parent = this.#parent;
    if (parent !== undefined && parent.aborted) {
      controller.abort(parent.reason);
      return controller;
    }
    const timeoutMs = this.#timeoutMs;
    if (timeoutMs !== undefined && timeoutMs <= 0) {
      this.#timedOut = true;
      controller.abort(timeoutReason(timeoutMs));
      return controller;
    }
    // After dispose nothing may stay attached; the signal just keeps its (unaborted) state.
    if (this.#disposed) return controller;
    if (parent !== undefined) {
      this.#onParentAbort = () => controller.abort(parent.reason);
      parent.addEventListener('abort', this.#onParentAbort, { once: true });
    }
    if (timeoutMs !== undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#timedOut = !controller.signal.aborted;
        controller.abort(timeoutReason(timeoutMs));
      }, timeoutMs);
    }
    return controller;
  }

  #detachParent(): void {
    if (this.#onParentAbort !== undefined) {
      this.#parent?.removeEventListener('abort', this.#onParentAbort);
      this.#onParentAbort = undefined;
    }
  }
}

function timeoutReason(timeoutMs: number): DOMException {
  return new DOMException(`the call timed out after ${timeoutMs} ms`, 'TimeoutError');
}

/** What {@link raceSignal} resolves with when the signal wins. */
export const ABORTED = Symbol('aborted');

/**
 * Settles like `promise`, or resolves with {@link ABORTED} as soon as `signal` aborts, whichever
 * comes first. The loser is observed (a late rejection is never unhandled) and the listener is
 * removed when either side settles.
 *
 * @internal
 */
export function raceSignal<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    Promise.resolve(promise).then(undefined, noop);
    return Promise.resolve(ABORTED);
  }
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes the original rejection on unchanged
        reject(err);
      },
    );
  });
}

/** Does nothing; used to observe promises whose outcome no longer matters. */
export function noop(): void {}
