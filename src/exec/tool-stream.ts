/**
 * The facade's stream of one call (`exec.runToolStream`): the runner's stream with the progress
 * lifecycle, which the consumer can close at any time, a `next()` still waiting included.
 *
 * @internal
 * @module
 */
import { linkedSignal, type Deadline } from '../model/internal.js';
import type { Runner, StreamEvent } from '../run/index.js';
import { ClosableStream, withProgressEvents } from '../run/internal.js';
import type { ExecCall } from './call-options.js';
import { unexpectedFailure, unwrapUnavailable } from './server-failures.js';

/** What a stream needs of the facade. */
export interface StreamGate {
  /** Reads the call's options, on the first `next()` (`INVALID_ARGUMENT` for unusable ones). */
  readCall(): ExecCall;
  /** The facade's wait before a call (a closed facade, required servers), bounded by `signal` and the call's budget. */
  beforeCall(call: ExecCall, signal: AbortSignal): Promise<void> | undefined;
}

/**
 * The stream of `runner.runStream(id, args)` as the facade gives it: the options read and the
 * facade's wait made on the first `next()`, the progress lifecycle added (`withProgressEvents`),
 * failures in the facade's words. The work runs under a signal that follows the caller's and that
 * closing the stream aborts.
 */
export function openToolStream(
  runner: Runner,
  id: string,
  args: Record<string, unknown> | undefined,
  gate: StreamGate,
): ClosableStream<StreamEvent> {
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
  return new ClosableStream(events(), () => work?.abort(new DOMException('the stream was closed before it ended', 'AbortError')));
}
