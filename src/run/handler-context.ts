import type { Deadline } from '../model/internal.js';
import type { LocalHandlerContext, ProgressEvent } from './types.js';

/**
 * The `ctx` a local handler receives.
 *
 * @remarks
 * `signal` is a getter: when the call has neither a signal nor a timeout, no AbortSignal exists
 * until a handler reads `ctx.signal` (creating one costs more than the whole call). Read it as
 * `ctx.signal`; a spread copy (`{ ...ctx }`) does not carry it.
 *
 * One private slot holds the call's {@link Deadline}, or the signal made on first read when the
 * call has none: a context is made on every call, so it is kept to four fields.
 *
 * @internal
 */
export class HandlerContext implements LocalHandlerContext {
  /** The canonical ID the call was made with. */
  declare readonly toolId: string;
  /** Reports progress; present only when someone listens. */
  declare readonly onProgress: ((progress: ProgressEvent) => void) | undefined;
  /** The caller's idempotency key, when it gave one. */
  declare readonly idempotencyKey: string | undefined;
  #source: Deadline | AbortSignal | undefined;

  constructor(
    toolId: string,
    deadline: Deadline | undefined,
    onProgress: ((progress: ProgressEvent) => void) | undefined,
    idempotencyKey: string | undefined,
  ) {
    (this as { toolId: string }).toolId = toolId;
    (this as { onProgress: HandlerContext['onProgress'] }).onProgress = onProgress;
    (this as { idempotencyKey: string | undefined }).idempotencyKey = idempotencyKey;
    this.#source = deadline;
  }

  /** The call's deadline in epoch milliseconds, when it has a budget (starts its clock). */
  get deadline(): number | undefined {
    const source = this.#source;
    return source === undefined || source instanceof AbortSignal ? undefined : source.deadlineMs;
  }

  /** Aborted when the caller aborts or the call times out. */
  get signal(): AbortSignal {
    const source = this.#source;
    if (source === undefined) {
      const signal = new AbortController().signal;
      this.#source = signal;
      return signal;
    }
    return source instanceof AbortSignal ? source : source.signal;
  }
}
