/**
 * The facade's stream of one call (`exec.runToolStream`): the runner's stream with the progress
 * lifecycle, which the consumer can close at any time, a `next()` still waiting included.
 *
 * @internal
 * @module
 */
import { linkedSignal, noop, type Deadline } from '../model/internal.js';
import type { Runner, StreamEvent } from '../run/index.js';
import { withProgressEvents } from '../run/internal.js';
import type { ExecCall } from './call-options.js';
import { unexpectedFailure, unwrapUnavailable } from './server-failures.js';

/** What a stream needs of the facade. */
export interface StreamGate {
  /** Reads the call's options, on the first `next()` (`INVALID_ARGUMENT` for unusable ones). */
  readCall(): ExecCall;
  /** The facade's wait before a call (a closed facade, required servers), bounded by `signal` and the call's budget. */
  beforeCall(call: ExecCall, signal: AbortSignal): Promise<void> | undefined;
}

const DONE: IteratorResult<StreamEvent, void> = Object.freeze({ value: undefined, done: true });

/**
 * The stream of `runner.runStream(id, args)` as the facade gives it: the options read and the
 * facade's wait made on the first `next()`, the progress lifecycle added (`withProgressEvents`),
 * failures in the facade's words. The work runs under a signal that follows the caller's and that
 * closing the stream aborts.
 */
export function openToolStream(runner: Runner, id: string, args: Record<string, unknown> | undefined, gate: StreamGate): ToolStream {
  let work: Deadline | undefined;
  async function* events(): AsyncGenerator<StreamEvent, void, undefined> {
    const call = gate.readCall();
    const link = (work = linkedSignal(call.signal));
    try {
      await gate.beforeCall(call, link.signal);
      yield* withProgressEvents(id, runner.runStream(id, args, { ...call.options, signal: link.signal }), link.signal);
    } catch (err) {
      throw unexpectedFailure('runToolStream', unwrapUnavailable(err));
    } finally {
      link.dispose();
    }
  }
  return new ToolStream(events(), () => work?.abort(new DOMException('the stream was closed before it ended', 'AbortError')));
}

/**
 * A stream whose `return()` never waits for a `next()` in flight, as an async generator's would
 * (its calls queue): a consumer that stops waiting (a `next()` raced against a timer) and closes
 * the stream gets `return()` settled at once, the waiting `next()` settled with `done: true`, and
 * the work stopped — its signal aborted, which ends the runner's stream and closes its source — in
 * the background. Without a `next()` in flight, `return()` closes the events as leaving a
 * `for await` loop does, and resolves once they are closed.
 *
 * @internal
 */
export class ToolStream implements AsyncIterableIterator<StreamEvent> {
  readonly #events: AsyncGenerator<StreamEvent, void, undefined>;
  readonly #stop: () => void;
  /** `next()` calls of the events not settled yet. */
  #inFlight = 0;
  #closed = false;
  /** Settles the `next()` calls waiting when the stream is closed. */
  #whenClosed: Promise<IteratorResult<StreamEvent, void>> | undefined;
  #settleWaiting: (() => void) | undefined;

  constructor(events: AsyncGenerator<StreamEvent, void, undefined>, stop: () => void) {
    this.#events = events;
    this.#stop = stop;
  }

  /** The stream itself: it is iterated once, as a generator is. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next event; `done: true` once the stream has ended or was closed (a waiting call too). */
  next(): Promise<IteratorResult<StreamEvent, void>> {
    if (this.#closed) return Promise.resolve(DONE);
    this.#inFlight++;
    const step = this.#events.next().finally(() => {
      this.#inFlight--;
    });
    this.#whenClosed ??= new Promise((resolve) => {
      this.#settleWaiting = () => resolve(DONE);
    });
    return Promise.race([step, this.#whenClosed]);
  }

  /** Closes the stream (idempotent): at once while a `next()` waits, else once the events are closed. */
  return(): Promise<IteratorResult<StreamEvent, void>> {
    if (this.#closed) return Promise.resolve(DONE);
    this.#closed = true;
    if (this.#inFlight === 0) return this.#events.return(undefined).then(() => DONE);
    // The events are busy in a next(): their return() would wait for it. Stop the work, which
    // makes that next() end soon, and close the events behind it.
    this.#stop();
    this.#settleWaiting?.();
    this.#events.return(undefined).then(noop, noop);
    return Promise.resolve(DONE);
  }
}
