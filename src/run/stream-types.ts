/**
 * The events of a streamed run (`runner.runStream`, `exec.runToolStream`) and the progress report
 * they share with `onProgress`.
 *
 * @module
 */
import type { ToolexecError } from '../model/index.js';

/** A progress report: `progress` out of `total` (when known), with an optional message. */
export interface ProgressEvent {
  /** Work done so far, in the reporter's own unit (steps, items, bytes, ...). */
  progress: number;
  /** The total of the same unit; undefined when unknown. */
  total?: number;
  /** A short label (`started`, `completed`, `step_completed`, or the backend's own text). */
  message?: string;
}

/** The kinds of {@link StreamEvent}. */
export type StreamEventKind = 'progress' | 'chunk' | 'done' | 'error';

/**
 * One event of a streamed run, a union tagged by `kind`: testing `event.kind` narrows `data`
 * (`if (event.kind === 'progress') event.data.progress`).
 */
export type StreamEvent = ProgressStreamEvent | ChunkStreamEvent | DoneStreamEvent | ErrorStreamEvent;

/**
 * A progress report of a streamed run: the same {@link ProgressEvent}s `onProgress` receives, except
 * that of the backend's reports waiting unread, at most 1,024 (the newest) are kept for a consumer
 * that reads slowly (docs/limits.md, "Streams").
 */
export interface ProgressStreamEvent {
  /** Always `progress`. */
  kind: 'progress';
  /** The requested tool ID, filled in by the runner when the source leaves it empty. */
  toolId?: string;
  /** The report. */
  data: ProgressEvent;
  /** Never set on a progress event. */
  error?: undefined;
}

/** A partial value of a streamed run (a local handler's async iterable yields one per value). */
export interface ChunkStreamEvent {
  /** Always `chunk`. */
  kind: 'chunk';
  /** The requested tool ID, filled in by the runner when the source leaves it empty. */
  toolId?: string;
  /** The partial value. */
  data: unknown;
  /** Never set on a chunk event. */
  error?: undefined;
}

/** The end of a successful streamed run, with its final value. */
export interface DoneStreamEvent {
  /** Always `done`. */
  kind: 'done';
  /** The requested tool ID, filled in by the runner when the source leaves it empty. */
  toolId?: string;
  /** The final value (a local handler's result or last chunk, an MCP result normalized). */
  data?: unknown;
  /** Never set on a done event. */
  error?: undefined;
}

/** A failure reported as an event (an MCP tool that answered `isError: true`). */
export interface ErrorStreamEvent {
  /** Always `error`. */
  kind: 'error';
  /** The requested tool ID, filled in by the runner when the source leaves it empty. */
  toolId?: string;
  /** The failure. */
  error: ToolexecError;
  /** Unused by the library's sources. */
  data?: unknown;
}
