/** Longest delay `setTimeout` honours; longer timeouts mean "no deadline". */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The signal of one call: aborted when the caller's signal aborts (same reason) or when the
 * deadline passes (a `TimeoutError` DOMException).
 *
 * @remarks
 * Unlike `AbortSignal.any`/`AbortSignal.timeout`, everything it attaches (the listener on the
 * caller's signal, the timer) is removed by {@link CallSignal.dispose}, which the runner calls in
 * `finally` once the call settles. The signal itself stays valid (and keeps its state) after
 * disposal: a handler holding it never sees a spurious abort.
 *
 * @internal
 */
export class CallSignal {
  readonly #controller = new AbortController();
  readonly #parent: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #onParentAbort: (() => void) | undefined;
  #timedOut = false;

  constructor(parent: AbortSignal | undefined, timeoutMs: number | undefined) {
    this.#parent = parent;
    if (parent !== undefined) {
      if (parent.aborted) {
        this.#controller.abort(parent.reason);
        return;
      }
      this.#onParentAbort = () => this.#controller.abort(parent.reason);
      parent.addEventListener('abort', this.#onParentAbort, { once: true });
    }
    if (timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS) {
      if (timeoutMs <= 0) {
        this.#timedOut = true;
        this.#controller.abort(timeoutReason(timeoutMs));
        this.#detachParent();
      } else {
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#timedOut = !this.#controller.signal.aborted;
          this.#controller.abort(timeoutReason(timeoutMs));
        }, timeoutMs);
      }
    }
  }

  /** The signal handed to handlers and executors. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when this call's own deadline (`timeoutMs`) aborted it, not the caller. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Aborts the call's signal (telling the work in flight to stop); the caller's signal is untouched. */
  abort(reason?: unknown): void {
    this.#controller.abort(reason);
  }

  /** Removes the listener on the caller's signal and clears the timer. Idempotent. */
  dispose(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#detachParent();
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
