import { type Deadline } from '../model/internal.js';
import { runChain } from './chain.js';
import { ClosableStream } from './closable-stream.js';
import { asRunFailure } from './failures.js';
import { resolveRunnerOptions } from './options.js';
import { Pipeline, type ProgressSink } from './pipeline.js';
import { Telemetry, defaultTelemetryConfig, type PhaseMarks } from './telemetry.js';
import { ProgressReporter } from './progress.js';
import { callDeadline, readRunOptions, type CallOptions } from './run-options.js';
import { streamEvents } from './stream.js';
import type { CallMode } from './events.js';
import type { ChainResult, ChainStep, ProgressEvent, RunOptions, RunResult, Runner, RunnerOptions, StreamEvent } from './types.js';

/** What the layers above use of a standard runner beside its public methods. */
interface RunnerInternals {
  telemetry: Telemetry;
  runStep(toolId: string, args: Record<string, unknown> | undefined, options: RunOptions | undefined): Promise<RunResult>;
}

/** Each standard runner's internals, for the layers above ({@link telemetryOf}, {@link runChainStep}). */
const internals = new WeakMap<object, RunnerInternals>();

/**
 * The telemetry of a runner: the one a {@link DefaultRunner} made for its calls, or for any other
 * runner one with the default configuration (default redaction, no listeners; spans and metrics
 * when a provider is registered).
 *
 * @internal
 */
export function telemetryOf(runner: Runner): Telemetry {
  return internals.get(runner)?.telemetry ?? new Telemetry(defaultTelemetryConfig(), () => undefined);
}

/**
 * One step of a chain walked outside the runner (the facade's chain): `runner.run`, observed as a
 * `chain_step` (span attribute and events) rather than a `run`. Any other runner: its `run`.
 *
 * @internal
 */
export function runChainStep(
  runner: Runner,
  toolId: string,
  args: Record<string, unknown> | undefined,
  options: RunOptions | undefined,
): Promise<RunResult> {
  const own = internals.get(runner);
  return own === undefined ? runner.run(toolId, args, options) : own.runStep(toolId, args, options);
}

/**
 * The standard {@link Runner}: resolves a tool (index, then resolvers), selects a backend,
 * validates input, dispatches to a local handler, an MCP executor or a provider executor,
 * normalizes the result and validates output.
 *
 * @remarks
 * Holds no per-call state: one runner serves any number of concurrent calls. Index lookups are
 * remembered (up to 1,024 tool IDs) while the index `version` stays the same, so a change to the
 * index is seen by the next call; resolver results are never cached. Every failure is a
 * {@link ToolError} (code plus the pipeline `op`, the original error as `cause`), except
 * malformed per-call options, which reject with `INVALID_ARGUMENT`.
 *
 * Per-call options: `signal` aborts the call (ABORTED, `cause` = the signal's reason; a reason
 * named `TimeoutError`, as from `AbortSignal.timeout`, gives TIMEOUT); `timeoutMs` and `deadline`
 * bound it, the earlier winning (TIMEOUT; a deadline already past fails before any work).
 * `retry` and the tool's annotations decide whether a transient failure is retried (`retry.ts`);
 * `idempotencyKey` is handed to MCP servers and provider executors. Either way the handler's `ctx.signal` / the executor's `options.signal` aborts and
 * the promise rejects at once, even if the work in flight ignores its signal (its late result is
 * dropped). After the call nothing stays attached to the caller's signal and no timer is left.
 * A call with neither allocates no signal at all.
 *
 * @example
 * ```ts
 * const runner = createRunner({ index, local: { echo: (args) => ({ echoed: args.message }) } });
 * const { structured } = await runner.run('demo:echo', { message: 'hi' }, { timeoutMs: 5_000 });
 * ```
 */
export class DefaultRunner implements Runner {
  readonly #pipeline: Pipeline;
  readonly #telemetry: Telemetry;

  constructor(options?: RunnerOptions) {
    this.#pipeline = new Pipeline(resolveRunnerOptions(options));
    this.#telemetry = this.#pipeline.telemetry;
    internals.set(this, {
      telemetry: this.#telemetry,
      runStep: (toolId, args, options) => this.#start(toolId, args, options, 'chain_step'),
    });
  }

  /**
   * Runs one tool and returns its normalized result.
   *
   * @remarks `args` are passed to the backend as given (not copied); `undefined` becomes `{}`.
   * With `onProgress`: `{0,1,'started'}`, the backend's reports, then `{1,1,'completed'}` or
   * `{1,1,'error'}`.
   */
  run(toolId: string, args?: Record<string, unknown>, options?: RunOptions): Promise<RunResult> {
    return this.#start(toolId, args, options, 'run');
  }

  /** `run`, observed as `mode`. */
  #start(toolId: string, args: Record<string, unknown> | undefined, options: RunOptions | undefined, mode: CallMode): Promise<RunResult> {
    const input = args ?? {};
    if (options === undefined || options === null) return this.#run(toolId, input, undefined, undefined, undefined, mode);
    return this.#startWith(toolId, input, options, mode);
  }

  /** `run` with per-call options, read once. */
  #startWith(toolId: string, input: Record<string, unknown>, options: RunOptions, mode: CallMode): Promise<RunResult> {
    let call: CallOptions | undefined;
    try {
      call = readRunOptions(options);
    } catch (err) {
      return Promise.reject(asRunFailure(err, toolId));
    }
    if (call === undefined || call.onProgress === undefined) return this.#run(toolId, input, call, undefined, undefined, mode);
    return this.#runWithProgress(toolId, input, call, call.onProgress, mode);
  }

  /** `run` with `onProgress`: the call's progress reports framed by its start and end. */
  #runWithProgress(
    toolId: string,
    input: Record<string, unknown>,
    call: CallOptions,
    onProgress: (progress: ProgressEvent) => void,
    mode: CallMode,
  ): Promise<RunResult> {
    const reporter = new ProgressReporter(onProgress);
    return this.#run(toolId, input, call, reporter.forward, undefined, mode).then(
      (result) => {
        reporter.end(true);
        return result;
      },
      (err: unknown) => {
        reporter.end(false);
        throw err;
      },
    );
  }

  /**
   * Runs one tool as a stream of events.
   *
   * @remarks
   * Failures before dispatch reject the first iteration with a {@link ToolError}; unusable
   * `options` with a plain `ToolexecError` (`INVALID_ARGUMENT`). MCP and provider backends stream
   * through their executor's `callToolStream` (`STREAM_NOT_SUPPORTED` without one), or through
   * `executeStream` of the registry backend serving them (`backends`). A local handler streams
   * too: an AsyncIterable result gives `chunk` events then `done` with the last chunk; any other
   * result gives one `done` event carrying it; its `ctx.onProgress` reports become `progress`
   * events. A source's events are checked as `run` checks progress: `progress` data is a
   * `ProgressEvent` (a bad report is dropped), an `error` event's error is a ToolexecError (a
   * plain one is wrapped as `EXECUTION`, op `stream`, with it as `cause`), unknown kinds are
   * dropped, and events get the requested `toolId` when they have none. The stream ends when the
   * source ends. A `signal` already aborted makes the first iteration throw `ABORTED`; one that
   * aborts while the stream is open ends it quietly; `timeoutMs` passing throws TIMEOUT. Leaving
   * the loop early aborts the work's signal and calls the source's `return()`. `onProgress` is
   * not used (progress arrives as events), nor is `retry` (a stream is never retried). `return()`
   * never waits for a `next()` in flight: it settles at once, that `next()` settles with
   * `done: true`, and the work is stopped as by an abort (the call is recorded as `ABORTED`).
   */
  runStream(toolId: string, args?: Record<string, unknown>, options?: RunOptions): AsyncIterable<StreamEvent> {
    const input = args ?? {};
    let close: (() => void) | undefined;
    const events = this.#pipeline.telemetry.stream(toolId, input, (marks) =>
      streamEvents(this.#pipeline, toolId, input, options ?? undefined, marks, (stop) => (close = stop)),
    );
    return new ClosableStream(events, () => close?.());
  }

  /**
   * Runs steps in order, passing results along with `usePrevious`; stops at the first failure
   * with a {@link ChainError} carrying the step results so far.
   *
   * @remarks `result` is the last step's result. An empty chain resolves `{ result: undefined,
   * steps: [] }` at once, with no progress events: `result` is `undefined` only then.
   */
  runChain(steps: readonly ChainStep[], options?: RunOptions): Promise<ChainResult> {
    return this.#pipeline.telemetry.chain(steps, () => runChain(this.#pipeline, steps, options ?? undefined));
  }

  /**
   * One call under its deadline (none without a signal, a timeout or a deadline), observed when
   * anyone listens: the one path of `run`.
   *
   * The rare branches (observed calls, failures before the first await) are methods of their own:
   * V8 inlines a call's path into its caller only while the functions on it stay small.
   */
  #run(
    toolId: string,
    args: Record<string, unknown>,
    call: CallOptions | undefined,
    progress: ProgressSink | undefined,
    marks: PhaseMarks | false | undefined,
    mode: CallMode,
  ): Promise<RunResult> {
    // Spans, metrics and events only when someone listens: one check on the hot path. An observed
    // call comes back here with its phase marks (`false`: observed, no span to mark).
    if (marks === undefined && this.#telemetry.active) return this.#observed(toolId, args, call, progress, mode);
    const deadline = callDeadline(call);
    let out: RunResult | Promise<RunResult>;
    try {
      out = this.#pipeline.run(toolId, args, deadline, progress, call, marks === false ? undefined : marks);
    } catch (err) {
      return this.#failed(err, deadline, toolId, args);
    }
    if (out instanceof Promise) return settleCall(out, deadline, this.#telemetry, toolId, args);
    deadline?.dispose();
    return Promise.resolve(out);
  }

  /** {@link DefaultRunner.#run} inside the call's span, metrics and events. */
  #observed(
    toolId: string,
    args: Record<string, unknown>,
    call: CallOptions | undefined,
    progress: ProgressSink | undefined,
    mode: CallMode,
  ): Promise<RunResult> {
    return this.#telemetry.call(toolId, args, mode, (traced) => this.#run(toolId, args, call, progress, traced ?? false, mode));
  }

  /** A call that failed before its first await: its deadline cleared, the failure redacted. */
  #failed(err: unknown, deadline: Deadline | undefined, toolId: string, args: Record<string, unknown>): Promise<RunResult> {
    deadline?.dispose();
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the library error, redacted
    return Promise.reject(this.#telemetry.redactFailure(asRunFailure(err, toolId), toolId, args));
  }
}

/** Waits for the call, then clears its deadline's timer and listener (if any); a failure is a library error, redacted. */
async function settleCall(
  pending: Promise<RunResult>,
  deadline: Deadline | undefined,
  telemetry: Telemetry,
  toolId: string,
  args: Record<string, unknown>,
): Promise<RunResult> {
  try {
    return await pending;
  } catch (err) {
    throw telemetry.redactFailure(asRunFailure(err, toolId), toolId, args);
  } finally {
    deadline?.dispose();
  }
}

/**
 * Creates a {@link Runner}.
 *
 * @remarks Defaults: the `toolexec/model` schema validator, the default backend selector (local >
 * provider > mcp > first), input validation on, output validation on and fatal.
 *
 * @throws `CONFIGURATION` for an option of the wrong type.
 */
export function createRunner(options?: RunnerOptions): DefaultRunner {
  return new DefaultRunner(options);
}
