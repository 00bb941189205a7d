import type { CallSignal } from './call-signal.js';
import type { LocalHandlerContext, ProgressEvent } from './types.js';

/**
 * The `ctx` a local handler receives.
 *
 * @remarks
 * `signal` is a getter: when the call has neither a signal nor a timeout, no AbortSignal exists
 * until a handler reads `ctx.signal` (creating one costs microseconds, the whole call less).
 * Read it as `ctx.signal`; a spread copy (`{ ...ctx }`) does not carry it.
 *
 * @internal
 */
export class HandlerContext implements LocalHandlerContext {
  /** The canonical ID the call was made with. */
  readonly toolId: string;
  /** Reports progress; present only when someone listens. */
  readonly onProgress: ((progress: ProgressEvent) => void) | undefined;
  readonly #scope: CallSignal | undefined;
  #signal: AbortSignal | undefined;

  constructor(toolId: string, scope: CallSignal | undefined, onProgress: ((progress: ProgressEvent) => void) | undefined) {
    this.toolId = toolId;
    this.onProgress = onProgress;
    this.#scope = scope;
    this.#signal = undefined;
  }

  /** Aborted when the caller aborts or the call times out. */
  get signal(): AbortSignal {
    if (this.#scope !== undefined) return this.#scope.signal;
    return (this.#signal ??= new AbortController().signal);
  }
}
