/**
 * The event source of a local handler under `runStream`: the handler's progress reports, chunks
 * and result as events, waiting in a queue until the stream reads them.
 *
 * @internal
 * @module
 */
import { Readable } from 'node:stream';
import type { Deadline } from '../model/internal.js';
import { closeIterator, isAsyncIterable, isPromiseLike } from './async-values.js';
import { HandlerContext } from './handler-context.js';
import { MAX_QUEUED_PROGRESS, progressReport } from './progress.js';
import type { LocalHandler, ProgressEvent, StreamEvent } from './types.js';

interface QueuedEvent {
  event: StreamEvent;
  /** Resolves the producer's wait for this event to be taken (chunks only: backpressure). */
  taken: (() => void) | undefined;
}

/**
 * The event source of a local handler under `runStream`: runs the handler at once, turns its
 * progress reports into `progress` events and its result into `chunk`/`done` events. Chunks are
 * pulled from the handler's iterator one at a time, only after the previous one was taken; of the
 * progress reports waiting unread, at most {@link MAX_QUEUED_PROGRESS} (the newest) are kept.
 *
 * @internal
 */
export class LocalEventSource implements AsyncIterator<StreamEvent> {
  readonly #toolId: string;
  readonly #queue: QueuedEvent[] = [];
  /** How many of the queued events are `progress` events. */
  #queuedProgress = 0;
  #waiter: { resolve: (step: IteratorResult<StreamEvent>) => void; reject: (err: unknown) => void } | undefined;
  #ended = false;
  #failed = false;
  #failure: unknown;
  #closed = false;
  #iterator: AsyncIterator<unknown> | undefined;

  constructor(handler: LocalHandler, args: Record<string, unknown>, toolId: string, scope: Deadline, idempotencyKey: string | undefined) {
    this.#toolId = toolId;
    const onProgress = (progress: ProgressEvent): void => {
      if (this.#closed || this.#ended) return;
      const report = progressReport(progress);
      if (report !== undefined) this.#deliver({ kind: 'progress', toolId, data: report }, undefined);
    };
    const ctx = new HandlerContext(toolId, scope, onProgress, idempotencyKey);
    void this.#pump(handler, args, ctx);
  }

  /** The oldest waiting event; a waiting one when none is queued; the handler's failure once the queue is read. */
  next(): Promise<IteratorResult<StreamEvent>> {
    const queued = this.#queue.shift();
    if (queued !== undefined) {
      if (queued.event.kind === 'progress') this.#queuedProgress--;
      queued.taken?.();
      return Promise.resolve({ value: queued.event, done: false });
    }
    if (this.#failed) {
      this.#failed = false;
      this.#ended = true;
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the handler's own failure, passed on unchanged
      return Promise.reject(this.#failure);
    }
    if (this.#ended || this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  /** Stops the source: drops what waits, settles a waiting `next()` and closes the handler's iterator. */
  return(): Promise<IteratorResult<StreamEvent>> {
    if (!this.#closed) {
      this.#closed = true;
      for (const queued of this.#queue.splice(0)) queued.taken?.();
      this.#queuedProgress = 0;
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter?.resolve({ value: undefined, done: true });
      closeIterator(this.#iterator);
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  async #pump(handler: LocalHandler, args: Record<string, unknown>, ctx: HandlerContext): Promise<void> {
    try {
      let out = handler(args, ctx);
      if (isPromiseLike(out)) out = await out;
      if (this.#closed) {
        // The stream ended while the handler was still opening its source (a file, a cursor):
        // nobody will read it, so it is closed now rather than left open.
        if (isAsyncIterable(out)) closeIterable(out);
        return;
      }
      if (!isAsyncIterable(out)) {
        this.#deliver({ kind: 'done', toolId: this.#toolId, data: out }, undefined);
        this.#end();
        return;
      }
      const iterator = out[Symbol.asyncIterator]();
      this.#iterator = iterator;
      let last: unknown;
      for (;;) {
        const step = await iterator.next();
        if (this.#closed) return;
        if (step.done === true) break;
        last = step.value;
        await new Promise<void>((taken) => this.#deliver({ kind: 'chunk', toolId: this.#toolId, data: step.value }, taken));
        if (this.#closed) return;
      }
      this.#deliver({ kind: 'done', toolId: this.#toolId, data: last }, undefined);
      this.#end();
    } catch (err) {
      this.#fail(err);
    }
  }

  #deliver(event: StreamEvent, taken: (() => void) | undefined): void {
    if (this.#closed) {
      taken?.();
      return;
    }
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      taken?.();
      waiter.resolve({ value: event, done: false });
      return;
    }
    this.#queue.push({ event, taken });
    if (event.kind === 'progress' && ++this.#queuedProgress > MAX_QUEUED_PROGRESS) this.#dropOldestProgress();
  }

  /**
   * Drops the oldest waiting `progress` event. Only progress events are ever dropped, and the
   * others keep their order: a report never overtakes a chunk. A chunk waits alone (the next one is
   * pulled only once it is taken), so the oldest report is at the head or right behind it.
   */
  #dropOldestProgress(): void {
    const queue = this.#queue;
    const at = queue.findIndex((queued) => queued.event.kind === 'progress');
    if (at === 0) queue.shift();
    else queue.splice(at, 1);
    this.#queuedProgress--;
  }

  #end(): void {
    this.#ended = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve({ value: undefined, done: true });
  }

  #fail(err: unknown): void {
    if (this.#closed) return;
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      this.#ended = true;
      waiter.reject(err);
      return;
    }
    this.#failed = true;
    this.#failure = err;
  }
}

/**
 * Closes a source nobody will read, as leaving a `for await` over it would: its iterator's
 * `return()`, and a Node stream (whose iterator closes nothing before its first read) is destroyed.
 * A failure to close is ignored.
 */
function closeIterable(iterable: AsyncIterable<unknown>): void {
  try {
    closeIterator(iterable[Symbol.asyncIterator]());
    if (iterable instanceof Readable) iterable.destroy();
  } catch {
    // The source is being abandoned; its cleanup failure has nowhere to go.
  }
}
