import { ToolexecError } from '../model/index.js';
import { CallSignal } from './call-signal.js';
import { runChain } from './chain.js';
import { asRunFailure } from './errors.js';
import { resolveRunnerOptions } from './options.js';
import { Pipeline, type ProgressSink } from './pipeline.js';
import { ProgressReporter } from './progress.js';
import { checkRunOptions } from './run-options.js';
import { streamEvents } from './stream.js';
import type {
  ChainResult,
  ChainStep,
  ProgressEvent,
  RunOptions,
  RunResult,
  RunSettler,
  Runner,
  RunnerOptions,
  StreamEvent,
} from './types.js';

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
 * named `TimeoutError`, as from `AbortSignal.timeout`, gives TIMEOUT); `timeoutMs` bounds it
 * (TIMEOUT). Either way the handler's `ctx.signal` / the executor's `options.signal` aborts and
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

  constructor(options?: RunnerOptions) {
    this.#pipeline = new Pipeline(resolveRunnerOptions(options));
  }

  /**
   * Runs one tool and returns its normalized result.
   *
   * @remarks `args` are passed to the backend as given (not copied); `undefined` becomes `{}`.
   * With `onProgress`: `{0,1,'started'}`, the backend's reports, then `{1,1,'completed'}` or
   * `{1,1,'error'}`.
   */
  run(toolId: string, args?: Record<string, unknown>, options?: RunOptions): Promise<RunResult> {
    const input = args ?? {};
    if (options === undefined || options === null) return this.#pipeline.runPlain(toolId, input);
    const { signal, timeoutMs, onProgress } = options;
    if (onProgress !== undefined && onProgress !== null) return this.#runWithProgress(toolId, input, signal, timeoutMs, onProgress);
    if (signal === undefined && timeoutMs === undefined) return this.#start(toolId, input, undefined, undefined);
    return this.#runScoped(toolId, input, signal, timeoutMs, undefined, AS_IS, 0);
  }

  /**
   * Runs one tool as a stream of events.
   *
   * @remarks
   * Failures before dispatch reject the first iteration with a {@link ToolError}. MCP and provider
   * backends stream through their executor's `callToolStream` (`STREAM_NOT_SUPPORTED` without
   * one). A local handler streams too: an AsyncIterable result gives `chunk` events then `done`
   * with the last chunk; any other result gives one `done` event carrying it (Go refuses local
   * streaming); its `ctx.onProgress` reports become `progress` events. Events get the requested
   * `toolId` when they have none. The stream ends when the source ends; it ends quietly when the
   * caller's `signal` aborts, and throws TIMEOUT when `timeoutMs` passes. Leaving the loop early
   * aborts the work's signal and calls the source's `return()`. `onProgress` is not used:
   * progress arrives as events.
   */
  runStream(toolId: string, args?: Record<string, unknown>, options?: RunOptions): AsyncIterable<StreamEvent> {
    return streamEvents(this.#pipeline, toolId, args ?? {}, options ?? undefined);
  }

  /**
   * Runs steps in order, passing results along with `usePrevious`; stops at the first failure
   * with a {@link ChainError} carrying the step results so far.
   *
   * @remarks `result` is the last step's result; it is absent only for an empty chain, which
   * resolves `{ steps: [] }` at once with no progress events.
   */
  runChain(steps: readonly ChainStep[], options?: RunOptions): Promise<ChainResult> {
    return runChain(this.#pipeline, steps, options ?? undefined);
  }

  /**
   * {@link DefaultRunner.run} with the caller's own ending applied where the call settles, so that
   * a layer above (the exec facade) maps the outcome without another promise on the way.
   *
   * @remarks Same pipeline, options and errors as `run`; `settler.ok` gets the result and
   * `settler.fail` the error (what it returns is thrown). `startedMs` is handed back unchanged.
   *
   * @internal
   */
  runSettled<R>(
    toolId: string,
    args: Record<string, unknown> | undefined,
    options: RunOptions | undefined,
    settler: RunSettler<R>,
    startedMs: number,
  ): Promise<R> {
    let signal: AbortSignal | undefined;
    let timeoutMs: number | undefined;
    if (options !== undefined && options !== null) {
      if (options.onProgress !== undefined && options.onProgress !== null) {
        // A progress listener: the ordinary path (which reports started / completed), then the ending.
        return this.run(toolId, args, options).then(
          (result) => settler.ok(result, toolId, startedMs),
          (err: unknown) => {
            throw settler.fail(err, startedMs);
          },
        );
      }
      signal = options.signal;
      timeoutMs = options.timeoutMs;
    }
    return this.#runScoped(toolId, args ?? {}, signal, timeoutMs, undefined, settler, startedMs);
  }

  #start(
    toolId: string,
    args: Record<string, unknown>,
    scope: CallSignal | undefined,
    progress: ProgressSink | undefined,
  ): Promise<RunResult> {
    try {
      const out = this.#pipeline.run(toolId, args, scope, progress);
      return out instanceof Promise ? out : Promise.resolve(out);
    } catch (err) {
      return Promise.reject(asRunFailure(err, toolId));
    }
  }

  #runScoped<R>(
    toolId: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    progress: ProgressSink | undefined,
    settler: RunSettler<R>,
    startedMs: number,
  ): Promise<R> {
    const invalid = checkRunOptions(signal, timeoutMs);
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the settler's error is the run layer's, passed on
    if (invalid !== undefined) return Promise.reject(settler.fail(invalid, startedMs));
    // No signal and no deadline (a facade call with `defaultTimeoutMs: Infinity`): nothing to scope.
    const scope = signal === undefined && timeoutMs === undefined ? undefined : new CallSignal(signal, timeoutMs);
    let out: RunResult | Promise<RunResult>;
    try {
      out = this.#pipeline.run(toolId, args, scope, progress);
    } catch (err) {
      scope?.dispose();
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the settler's error is the run layer's, passed on
      return Promise.reject(settler.fail(asRunFailure(err, toolId), startedMs));
    }
    if (!(out instanceof Promise)) {
      scope?.dispose();
      return Promise.resolve(settler.ok(out, toolId, startedMs));
    }
    return settleAfter(out, scope, settler, toolId, startedMs);
  }

  #runWithProgress(
    toolId: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    onProgress: (progress: ProgressEvent) => void,
  ): Promise<RunResult> {
    if (typeof onProgress !== 'function') {
      return Promise.reject(new ToolexecError('INVALID_ARGUMENT', 'run option onProgress must be a function'));
    }
    const reporter = new ProgressReporter(onProgress);
    const pending =
      signal === undefined && timeoutMs === undefined
        ? this.#start(toolId, args, undefined, reporter.forward)
        : this.#runScoped(toolId, args, signal, timeoutMs, reporter.forward, AS_IS, 0);
    return pending.then(
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
}

/** The ending of `run` itself: the result and the error as they are. */
const AS_IS: RunSettler<RunResult> = {
  ok: (result) => result,
  fail: (err) => err,
};

/** Waits for the call, clears its signal's timer and listener, then applies the ending. */
async function settleAfter<R>(
  pending: Promise<RunResult>,
  scope: CallSignal | undefined,
  settler: RunSettler<R>,
  toolId: string,
  startedMs: number,
): Promise<R> {
  let result: RunResult;
  try {
    result = await pending;
  } catch (err) {
    scope?.dispose();
    throw settler.fail(err, startedMs);
  }
  scope?.dispose();
  return settler.ok(result, toolId, startedMs);
}

/**
 * Creates a {@link Runner}.
 *
 * @remarks Defaults: the `toolexec/model` schema validator, the default backend selector (local >
 * provider > mcp > first), input validation on, output validation on and fatal.
 *
 * @throws `INVALID_ARGUMENT` for an option of the wrong type.
 */
export function createRunner(options?: RunnerOptions): DefaultRunner {
  return new DefaultRunner(options);
}
