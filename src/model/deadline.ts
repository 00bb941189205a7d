/**
 * Deadlines and cancellation, written once for every layer: the default deadline, timer clamping,
 * one `abort` listener per caller signal however many operations share it, a lazy deadline that
 * links a caller's signal and a relative `timeoutMs`, and the one decision abort → TIMEOUT / ABORTED.
 *
 * @remarks
 * Other layers reach it through `model/internal.ts`. To move an operation of your own onto it:
 *
 * 1. `const deadline = new Deadline(options.signal, options.timeoutMs)` (either may be absent);
 * 2. hand `deadline.signal` to the work, or `await deadline.race(promise)` and treat
 *    {@link ABORTED} as "stop" — `deadline.reason` says why;
 * 3. turn the stop into an error with `abortError` (`abort-outcome.ts`) (`TIMEOUT` when the deadline or a
 *    `TimeoutError` reason fired it, else `ABORTED`, `cause` = the reason);
 * 4. `deadline.dispose()` in `finally`: nothing stays attached to the caller's signal, no timer is
 *    left. A signal shared by thousands of operations carries one listener ({@link onAbort}).
 *
 * A timer of your own clamps its delay with {@link timerDelayMs} (`setTimeout` fires at once for
 * anything above {@link MAX_TIMER_MS}).
 *
 * @internal
 * @module
 */
import { onAbort } from './abort-fanout.js';
import { clock, deadlineTimer, type DueEntry } from './deadline-timer.js';

/** Deadline of a call that names none, where a layer applies one (the exec facade, runtime requests): 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * How much later than a {@link Deadline} its wall-clock form ({@link Deadline.deadlineMs}) is, so
 * that work handed the deadline (a chain step, an MCP request, a snippet's tool call) never times
 * out before the caller's own deadline does.
 */
export const HANDOFF_SLACK_MS = 20;

/** Longest delay `setTimeout` honours (2^31 − 1 ms, ~24.8 days); a longer deadline means "none". */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The timer delay for a deadline of `timeoutMs`: `undefined` when there is no deadline (absent,
 * `Infinity`, or above {@link MAX_TIMER_MS}), `0` for one already passed (`<= 0`).
 */
export function timerDelayMs(timeoutMs: number | undefined): number | undefined {
  if (timeoutMs === undefined || !(timeoutMs <= MAX_TIMER_MS)) return undefined;
  return timeoutMs > 0 ? timeoutMs : 0;
}

// ---- the deadline ----

/** What {@link Deadline.race} resolves with when the operation is stopped first. */
export const ABORTED: unique symbol = Symbol('aborted');

/** Does nothing; used to observe promises whose outcome no longer matters. */
export function noop(): void {}

/**
 * Why `signal` aborted; what reading it threw when it cannot be read (a signal-like object with a
 * throwing `reason` getter), so that the operation still stops as aborted, with that as the cause.
 */
function reasonOf(signal: AbortSignal): unknown {
  try {
    return signal.reason;
  } catch (err) {
    return err;
  }
}

function timeoutReason(timeoutMs: number): DOMException {
  return new DOMException(
    timeoutMs > 0 ? `the deadline of ${timeoutMs} ms passed` : 'the deadline had passed before the call started',
    'TimeoutError',
  );
}

// ---- absolute deadlines ----

/**
 * The budget of a call that has a relative `timeoutMs` and an absolute deadline (`deadlineMs`,
 * epoch milliseconds), whichever ends first: the milliseconds left until the deadline, or
 * `timeoutMs` when that is shorter. `<= 0` when the deadline has already passed (a {@link Deadline}
 * made with it is stopped from the start: `TIMEOUT` before any work). Reads the wall clock only
 * when there is a `deadlineMs`.
 */
export function budgetMs(timeoutMs: number | undefined, deadlineMs: number | undefined): number | undefined {
  if (deadlineMs === undefined) return timeoutMs;
  const leftMs = deadlineMs - Date.now();
  return timeoutMs === undefined || leftMs < timeoutMs ? leftMs : timeoutMs;
}

/**
 * The epoch milliseconds `timeoutMs` from now, for work that hands the deadline on (an MCP request,
 * a sandbox): `undefined` without a budget (absent, `Infinity`, beyond {@link MAX_TIMER_MS}).
 */
export function deadlineAfter(timeoutMs: number | undefined): number | undefined {
  const delayMs = timerDelayMs(timeoutMs);
  return delayMs === undefined ? undefined : Date.now() + delayMs;
}

/**
 * The cancellation state of one operation: aborted when the caller's signal aborts (same reason)
 * or when `timeoutMs` passes (a `TimeoutError` DOMException).
 *
 * @remarks
 * Lazy, because creating an AbortSignal or a timer costs more than a whole validated call: an
 * operation that finishes synchronously arms nothing; one that waits arms its deadline on one
 * timer shared by every deadline (a clock read, no `setTimeout` of its own) and a listener on the
 * caller's signal through {@link Deadline.race} or {@link Deadline.arm}; the
 * AbortSignal exists only once someone reads {@link Deadline.signal}. The clock starts when the
 * operation first waits, the signal is first read, or {@link Deadline.arm} is called (or at
 * construction, for a budget that counts from then: see the constructor's `fromNow`). A deadline of
 * `<= 0` has passed already: the operation is aborted from the start.
 *
 * Everything it attaches is removed by {@link Deadline.dispose} (call it in `finally`); the signal
 * keeps its state afterwards, so work still holding it never sees a spurious abort.
 */
export class Deadline {
  readonly #parent: AbortSignal | undefined;
  readonly #timeoutMs: number | undefined;
  readonly #delayMs: number | undefined;
  #controller: AbortController | undefined;
  #due: DueEntry | undefined;
  #stopListening: (() => void) | undefined;
  #fired = false;
  #reason: unknown;
  #timedOut = false;
  #armed = false;
  #disposed = false;
  #waiters: Set<(value: typeof ABORTED) => void> | undefined;
  /** When the budget counts from construction: its due time on the `performance.now()` clock. */
  readonly #fixedDueMs: number | undefined;

  /**
   * @param parent - the caller's signal, if any
   * @param timeoutMs - the budget in milliseconds; `undefined`, `Infinity` or above
   *   {@link MAX_TIMER_MS}: none; `<= 0`: already passed
   * @param fromNow - true when the budget counts from now rather than from the first wait (the
   *   time left before an absolute deadline): the due time is fixed at once, while the timer and
   *   the listener on `parent` are still attached only when the operation first waits
   */
  constructor(parent: AbortSignal | undefined, timeoutMs: number | undefined, fromNow = false) {
    this.#parent = parent;
    this.#timeoutMs = timeoutMs;
    const delayMs = (this.#delayMs = timerDelayMs(timeoutMs));
    if (delayMs === 0) this.#fire(timeoutReason(timeoutMs as number), true);
    else if (fromNow && delayMs !== undefined) this.#fixedDueMs = clock.now() + delayMs;
  }

  /** The budget this deadline was made with. */
  get timeoutMs(): number | undefined {
    return this.#timeoutMs;
  }

  /**
   * The milliseconds left before the deadline (`0` once it has passed), for work that hands the
   * remaining time on (an MCP request's timeout, a sandbox's wall clock); `undefined` without a
   * budget. Starts the clock (see {@link Deadline.arm}).
   */
  remainingMs(): number | undefined {
    if (this.#delayMs === undefined) return undefined;
    if (this.#fired && this.#timedOut) return 0;
    this.arm();
    const due = this.#due;
    if (due === undefined) return this.#delayMs === 0 || this.aborted ? 0 : this.#delayMs;
    return Math.max(0, due.dueMs - clock.now());
  }

  /**
   * The deadline as epoch milliseconds (`Date.now()` scale), for an executor or a sandbox that
   * takes an absolute deadline, {@link HANDOFF_SLACK_MS} late; `undefined` without a budget.
   * Starts the clock.
   */
  get deadlineMs(): number | undefined {
    const remaining = this.remainingMs();
    // This deadline runs on the monotonic clock; the wall clock may step against it by several ms
    // (seen on VMs). A little slack keeps work that makes its own deadline from this one from
    // ending before it: this deadline decides, the other only bounds what it hands on.
    return remaining === undefined ? undefined : Math.ceil(Date.now() + remaining) + HANDOFF_SLACK_MS;
  }

  /**
   * True once the caller aborted or the deadline passed; never allocates. An armed deadline whose
   * time is up counts as passed even before its timer has run (a long synchronous step kept the
   * event loop busy): it fires then.
   */
  get aborted(): boolean {
    if (this.#fired || (this.#parent !== undefined && this.#parent.aborted)) return true;
    const due = this.#due;
    return due !== undefined && clock.now() >= due.dueMs && this.#expireLate(due);
  }

  /** Fires a deadline whose time is up before its timer ran; true. */
  #expireLate(due: DueEntry): true {
    deadlineTimer.delete(due);
    this.#due = undefined;
    this.#fire(timeoutReason(this.#delayMs as number), true);
    return true;
  }

  /** Why the operation was stopped (the caller's reason, or a `TimeoutError`); `undefined` while it runs. */
  get reason(): unknown {
    if (this.#fired) return this.#reason;
    return this.#parent !== undefined && this.#parent.aborted ? reasonOf(this.#parent) : undefined;
  }

  /** True when the deadline itself (not the caller) stopped the operation. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** The signal to hand to the work (made, and the deadline armed, on first read). */
  get signal(): AbortSignal {
    let controller = this.#controller;
    if (controller === undefined) {
      controller = new AbortController();
      this.#controller = controller;
      if (this.aborted) controller.abort(this.reason);
      else this.arm();
    }
    return controller.signal;
  }

  /** Stops the operation (its signal aborts with `reason`); the caller's signal is untouched. */
  abort(reason?: unknown): void {
    this.#fire(reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason, false);
  }

  /**
   * Settles like `promise`, or resolves with {@link ABORTED} as soon as the operation is stopped,
   * whichever comes first; arms the deadline. The loser is observed (a late rejection is never unhandled).
   */
  race<T>(promise: PromiseLike<T>): Promise<T | typeof ABORTED> {
    if (this.aborted) {
      Promise.resolve(promise).then(undefined, noop);
      return Promise.resolve(ABORTED);
    }
    this.arm();
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

  /** Starts the clock and listens to the caller's signal, once (never after dispose). */
  arm(): void {
    if (this.#armed || this.#disposed || this.#fired) return;
    this.#armed = true;
    const parent = this.#parent;
    if (parent !== undefined) {
      if (parent.aborted) {
        this.#fire(reasonOf(parent), false);
        return;
      }
      this.#stopListening = onAbort(parent, () => this.#fire(reasonOf(parent), false));
    }
    const delayMs = this.#delayMs;
    if (delayMs !== undefined) {
      const due: DueEntry = {
        dueMs: this.#fixedDueMs ?? clock.now() + delayMs,
        expire: () => {
          this.#due = undefined;
          this.#fire(timeoutReason(delayMs), true);
        },
      };
      this.#due = due;
      deadlineTimer.add(due);
    }
  }

  /** Removes the listener on the caller's signal and clears the timer. Idempotent. */
  dispose(): void {
    this.#disposed = true;
    if (this.#due !== undefined) {
      deadlineTimer.delete(this.#due);
      this.#due = undefined;
    }
    if (this.#stopListening !== undefined) {
      this.#stopListening();
      this.#stopListening = undefined;
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
}

/**
 * A signal that follows `parent` (same reason) and can also be aborted on its own, for work that
 * must not hold the caller's signal (an SDK that never removes its listeners); `dispose` detaches
 * it from `parent`. A {@link Deadline} with no budget.
 */
export function linkedSignal(parent: AbortSignal | undefined): Deadline {
  const link = new Deadline(parent, undefined);
  link.arm();
  return link;
}
