import type { ProgressEvent, StreamEvent } from './types.js';

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
 * The first report of every call, on both paths (`onProgress` of `run`, the first `progress`
 * event of `runStream`).
 *
 * @internal
 */
export function startedProgress(): ProgressEvent {
  return { progress: 0, total: 1, message: 'started' };
}

/**
 * The last report of every call: `completed`, or `error` for a failure.
 *
 * @internal
 */
export function endProgress(ok: boolean): ProgressEvent {
  return { progress: 1, total: 1, message: ok ? 'completed' : 'error' };
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
    emitProgress(listener, startedProgress());
  }

  /** Emits the final report (`completed` or `error`) and drops anything later. */
  end(ok: boolean): void {
    if (!this.#active) return;
    this.#active = false;
    emitProgress(this.#listener, endProgress(ok));
  }
}

/**
 * A stream with the lifecycle of {@link ProgressReporter} as `progress` events, so that a stream
 * and `onProgress` tell the same story: `started` at the first `next()`, the source's events (its
 * own progress reports among them), then `completed` just before `done`, or `error` just before an
 * `error` event or a failure (which is then rethrown). A source that ends without either ends with
 * `completed`, or `error` when `signal` was aborted. Progress reports after the end are dropped.
 * Leaving the loop early closes the source as before.
 *
 * @internal
 */
export async function* withProgressEvents(
  toolId: string,
  events: AsyncIterable<StreamEvent>,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent, void, undefined> {
  yield { kind: 'progress', toolId, data: startedProgress() };
  let ended = false;
  try {
    for await (const event of events) {
      if (!ended && (event.kind === 'done' || event.kind === 'error')) {
        ended = true;
        yield { kind: 'progress', toolId, data: endProgress(event.kind === 'done') };
      } else if (ended && event.kind === 'progress') {
        continue;
      }
      yield event;
    }
  } catch (err) {
    if (!ended) yield { kind: 'progress', toolId, data: endProgress(false) };
    throw err;
  }
  if (!ended) yield { kind: 'progress', toolId, data: endProgress(signal?.aborted !== true) };
}
