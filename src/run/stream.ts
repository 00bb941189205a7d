import { ToolexecError, errorMessage, type Tool, type ToolBackend } from '../model/index.js';
import { ABORTED, Deadline } from '../model/internal.js';
import { closeIterator, isAsyncIterable } from './async-values.js';
import { bridgedStreamOf } from '../backend/internal.js';
import { executorOptions } from './dispatch.js';
import { ToolError } from './errors.js';
import { abortToolError, dispatchFailure } from './failures.js';
import { progressReport } from './progress.js';
import { LocalEventSource } from './stream-local-source.js';
import type { Pipeline } from './pipeline.js';
import type { PhaseMarks } from './call-scope.js';
import { callDeadline, readRunOptions } from './run-options.js';
import type { LocalHandler, RunOptions, StreamEvent } from './types.js';

/**
 * The events of one streamed call, as an async generator.
 *
 * @remarks
 * Nothing happens until the first `next()`. Failures before dispatch (bad ID, unknown tool, input
 * validation, an already-aborted signal) reject that first `next()` with a {@link ToolError};
 * so does a backend that cannot stream (`STREAM_NOT_SUPPORTED`, op `stream`). Events without a
 * `toolId` get the requested ID; every event is checked ({@link checkedEvent}). The stream ends
 * when the source ends; a signal already aborted rejects the first `next()` (`ABORTED`); when the
 * caller's signal aborts once the stream is open it ends quietly (no error event: the caller's signal says why); when `timeoutMs` passes
 * it throws a `TIMEOUT` ToolError. (The quiet end returns the `ABORTED` ToolError — `TIMEOUT` when
 * the signal's reason is a timeout — as the generator's return value, which a `for await` loop
 * ignores: the telemetry records the call as failed with it.) A source that fails mid-stream makes the iterator throw an
 * `EXECUTION` ToolError (op `stream`) whose cause is the source's error. Leaving the loop early
 * (`break`, `return`, a throw in the loop body) aborts the signal the handler or executor got and
 * calls the source iterator's `return()` (a local handler's iterable that arrives after the stream
 * ended is closed too).
 *
 * Local handlers stream too: a handler returning an AsyncIterable gives one `chunk` event per
 * value then `done` with the last value; a handler returning anything else gives a single `done`
 * event with that value; `ctx.onProgress` reports become `progress` events. Of the reports waiting
 * unread, at most `MAX_QUEUED_PROGRESS` (1,024) are kept: past it the oldest waiting report is
 * dropped for each new one, so a consumer that reads slowly still gets the newest reports, the last
 * one included (chunks and the result are never dropped). No output validation or normalization
 * runs on streams.
 *
 * `marks`, when the call is observed, is told of the resolved tool and of the backend dispatched
 * to (the call's span, `call.finished` and metrics name it). `onOpen`, on the first `next()`, is
 * handed a function that stops the work as closing the stream does (a `ClosableStream`
 * calls it when closed while a `next()` waits).
 *
 * @internal
 */
export async function* streamEvents(
  pipeline: Pipeline,
  toolId: string,
  args: Record<string, unknown>,
  options: RunOptions | undefined,
  marks?: PhaseMarks,
  onOpen?: (close: () => void) => void,
): AsyncGenerator<StreamEvent, ToolError | undefined, undefined> {
  const call = readRunOptions(options);
  const scope = callDeadline(call) ?? new Deadline(undefined, undefined);
  onOpen?.(() => closeScope(scope));
  let source: AsyncIterator<StreamEvent> | undefined;
  let finished = false;
  try {
    const { tool, backend } = await pipeline.prepare(toolId, args, scope);
    marks?.resolved(tool);
    if (scope.aborted) throw abortToolError(toolId, 'stream', backend, scope.reason);
    marks?.dispatching(backend.kind);
    source = openSource(pipeline, toolId, tool, backend, args, scope, call?.idempotencyKey);
    for (;;) {
      let step: IteratorResult<StreamEvent> | typeof ABORTED;
      try {
        step = await scope.race(source.next());
      } catch (err) {
        if (!scope.aborted) throw streamFailure(toolId, backend, err);
        step = ABORTED;
      }
      if (step === ABORTED) {
        const stopped = abortToolError(toolId, 'stream', backend, scope.reason);
        if (scope.timedOut) throw stopped;
        // Ends quietly for the consumer; the stop is the generator's return value, which the
        // telemetry records as the call's failure.
        return stopped;
      }
      if (step === null || typeof step !== 'object')
        throw streamFailure(toolId, backend, new TypeError('the stream source returned a non-object step'));
      let done: unknown, value: unknown;
      try {
        ({ done, value } = step);
      } catch (err) {
        throw streamFailure(toolId, backend, err);
      }
      if (done === true) {
        finished = true;
        return undefined;
      }
      const event = checkedEvent(value, toolId, backend);
      if (event === undefined) continue;
      // A `done` does not end the stream: what the source sends after it is forwarded too (the Go
      // original's case 91); the stream ends with the source.
      yield event;
    }
  } finally {
    if (!finished) {
      closeScope(scope);
      closeIterator(source);
    }
    scope.dispose();
  }
}

/** Stops a stream's work (aborts its scope) as closing the stream before its end does. */
function closeScope(scope: Deadline): void {
  if (!scope.aborted) scope.abort(new DOMException('the stream was closed before it ended', 'AbortError'));
}

/**
 * A source's event as the caller gets it, read once: a fresh event of a known kind with the
 * requested `toolId` when it has none; `undefined` for what is dropped. The same rules as `run`'s
 * progress: a `progress` event's `data` goes through {@link progressReport} (a report that is not
 * one is dropped); an `error` event's `error` that is not a library error becomes an `EXECUTION`
 * ToolError (op `stream`) with it as `cause` (a missing one too); an event of an unknown `kind`,
 * or one that is not an object, is dropped. An event that cannot be read (a throwing getter)
 * fails the stream with `EXECUTION`, its error as `cause`.
 */
function checkedEvent(value: unknown, toolId: string, backend: ToolBackend): StreamEvent | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  let kind: unknown, id: unknown, data: unknown, error: unknown;
  try {
    ({ kind, toolId: id, data, error } = value as Record<string, unknown>);
  } catch (err) {
    throw streamFailure(toolId, backend, err);
  }
  const eventToolId = typeof id === 'string' && id !== '' ? id : toolId;
  switch (kind) {
    case 'progress': {
      const report = progressReport(data);
      return report === undefined ? undefined : { kind, toolId: eventToolId, data: report };
    }
    case 'chunk':
      return { kind, toolId: eventToolId, data };
    case 'done':
      return data === undefined ? { kind, toolId: eventToolId } : { kind, toolId: eventToolId, data };
    case 'error': {
      const failure = ToolexecError.isInstance(error)
        ? error
        : streamFailure(toolId, backend, error ?? new Error('the stream source reported an error event without an error'));
      return data === undefined ? { kind, toolId: eventToolId, error: failure } : { kind, toolId: eventToolId, error: failure, data };
    }
    default:
      return undefined;
  }
}

function openSource(
  pipeline: Pipeline,
  toolId: string,
  tool: Tool,
  backend: ToolBackend,
  args: Record<string, unknown>,
  scope: Deadline,
  idempotencyKey: string | undefined,
): AsyncIterator<StreamEvent> {
  switch (backend.kind) {
    case 'local': {
      const handler = pipeline.dispatcher.localHandler('stream', toolId, backend);
      // A registry backend with `executeStream` streams through it (its partial results as chunks).
      const streamed = bridgedStreamOf(handler) as LocalHandler | undefined;
      return new LocalEventSource(streamed ?? handler, args, toolId, scope, idempotencyKey);
    }
    case 'mcp': {
      const served = pipeline.dispatcher.registeredStream(backend, tool.name);
      if (served !== undefined) return new LocalEventSource(served as LocalHandler, args, toolId, scope, idempotencyKey);
      const executor = pipeline.dispatcher.mcp;
      if (executor === undefined) throw streamConfigError(toolId, backend, 'MCP executor not configured');
      const target = (backend as { mcp?: { serverName?: unknown } }).mcp;
      if (target === undefined || target === null || typeof target !== 'object') {
        throw streamConfigError(toolId, backend, 'MCP backend missing server name');
      }
      if (typeof executor.callToolStream !== 'function') throw notSupported(toolId, backend);
      return iteratorOf(toolId, backend, () =>
        executor.callToolStream?.(
          target.serverName as string,
          { name: tool.name, arguments: args },
          executorOptions(scope, undefined, idempotencyKey),
        ),
      );
    }
    case 'provider': {
      const served = pipeline.dispatcher.registeredStream(backend, tool.name);
      if (served !== undefined) return new LocalEventSource(served as LocalHandler, args, toolId, scope, idempotencyKey);
      const executor = pipeline.dispatcher.provider;
      if (executor === undefined) throw streamConfigError(toolId, backend, 'provider executor not configured');
      const target = (backend as { provider?: { providerId?: unknown; toolId?: unknown } }).provider;
      if (target === undefined || target === null || typeof target !== 'object') {
        throw streamConfigError(toolId, backend, 'provider backend missing details');
      }
      if (typeof executor.callToolStream !== 'function') throw notSupported(toolId, backend);
      return iteratorOf(toolId, backend, () =>
        executor.callToolStream?.(
          target.providerId as string,
          target.toolId as string,
          args,
          executorOptions(scope, undefined, idempotencyKey),
        ),
      );
    }
    default:
      throw streamConfigError(toolId, backend, `unknown backend kind: ${String((backend as { kind?: unknown }).kind)}`);
  }
}

/** Opens an executor's stream; a missing or non-iterable stream is STREAM_NOT_SUPPORTED. */
function iteratorOf(toolId: string, backend: ToolBackend, open: () => AsyncIterable<StreamEvent> | undefined): AsyncIterator<StreamEvent> {
  let iterable: AsyncIterable<StreamEvent> | undefined;
  try {
    iterable = open();
  } catch (err) {
    throw new ToolError({
      code: ToolexecError.isInstance(err) ? err.code : 'EXECUTION',
      op: 'stream',
      toolId,
      backend,
      reason: errorMessage(err),
      cause: err,
    });
  }
  if (!isAsyncIterable(iterable)) throw notSupported(toolId, backend);
  try {
    return iterable[Symbol.asyncIterator]();
  } catch (err) {
    throw streamFailure(toolId, backend, err);
  }
}

function notSupported(toolId: string, backend: ToolBackend): ToolError {
  return new ToolError({ code: 'STREAM_NOT_SUPPORTED', op: 'stream', toolId, backend, reason: 'streaming not supported' });
}

function streamConfigError(toolId: string, backend: ToolBackend, message: string): ToolError {
  return new ToolError({ code: 'EXECUTION', op: 'stream', toolId, backend, reason: `execution error: ${message}` });
}

function streamFailure(toolId: string, backend: ToolBackend, err: unknown): ToolError {
  return dispatchFailure('stream', toolId, backend, err);
}
