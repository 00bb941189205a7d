import type { ProgressEvent, StreamEvent } from './types.js';
import { callListener } from '../model/internal.js';

/**
 * Most `progress` events of one stream waiting unread: a local handler's reports
 * (`LocalEventSource`) and an MCP server's progress notifications (the MCP executor's stream). A
 * producer that reports faster than its consumer reads would otherwise fill memory (200,000
 * reports held ~78 MB): past this bound the oldest waiting report is dropped for each new one, so
 * the consumer still reads the newest reports, the last one included. Chunks and the result are
 * never dropped. See docs/limits.md.
 *
 * @internal
 */
export const MAX_QUEUED_PROGRESS = 1024;

/**
 * Calls a progress listener; a listener that throws cannot fail the call it is told about.
 *
 * @internal
 */
export function emitProgress(listener: (progress: ProgressEvent) => void, progress: ProgressEvent): void {
  // Progress is advisory: the listener's failure (a throw, a rejected promise) is its own.
  callListener(listener, progress);
}

/**
 * A handler's or executor's progress report as listeners get it: a fresh `{ progress, total?,
 * message? }` with `progress` a finite number, `total` kept only when a finite number and `message`
 * only when a string; `undefined` (the report is dropped) when it is not an object or its
 * `progress` is not a finite number. Reports are advisory: a bad one never fails the call.
 *
 * @internal
 */
export function progressReport(report: unknown): ProgressEvent | undefined {
  if (report === null || typeof report !== 'object') return undefined;
  let progress: unknown, total: unknown, message: unknown;
  try {
    ({ progress, total, message } = report as Record<string, unknown>);
  } catch {
    return undefined;
  }
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
  const event: ProgressEvent = { progress };
  if (typeof total === 'number' && Number.isFinite(total)) event.total = total;
  if (typeof message === 'string') event.message = message;
  return event;
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
      if (!this.#active) return;
      const report = progressReport(progress);
      if (report !== undefined) emitProgress(this.#listener, report);
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
