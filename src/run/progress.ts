import type { ProgressEvent } from './types.js';

/**
 * Calls a progress listener; a listener that throws cannot fail the call it is told about.
 *
 * @internal
 */
export function emitProgress(listener: (progress: ProgressEvent) => void, progress: ProgressEvent): void {
  try {
    listener(progress);
  } catch {
    // Progress is advisory: the listener's failure is its own.
  }
}

/**
 * The progress of one `run`: `started`, then what the backend reports, then `completed` or
 * `error`, with the backend's own reports in between. Reports that
 * arrive after the end are dropped, so the order is always started → backend → end.
 *
 * @internal
 */
export class ProgressReporter {
  readonly #listener: (progress: ProgressEvent) => void;
  #active = true;
  /** What the handler's `ctx.onProgress` and the executors' `options.onProgress` call. */
  readonly forward: (progress: ProgressEvent) => void;

  constructor(listener: (progress: ProgressEvent) => void) {
    this.#listener = listener;
    this.forward = (progress) => {
      if (this.#active) emitProgress(this.#listener, progress);
    };
    emitProgress(listener, { progress: 0, total: 1, message: 'started' });
  }

  /** Emits the final report (`completed` or `error`) and drops anything later. */
  end(ok: boolean): void {
    if (!this.#active) return;
    this.#active = false;
    emitProgress(this.#listener, { progress: 1, total: 1, message: ok ? 'completed' : 'error' });
  }
}
