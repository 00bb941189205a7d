import { Deadline } from '../model/internal.js';
import { runChain } from './chain.js';
import { asRunFailure } from './failures.js';
import { resolveRunnerOptions } from './options.js';
import { Pipeline, type ProgressSink } from './pipeline.js';
import { ProgressReporter } from './progress.js';
import { readRunOptions, type CallOptions } from './run-options.js';
import { streamEvents } from './stream.js';
import type { ChainResult, ChainStep, RunOptions, RunResult, Runner, RunnerOptions, StreamEvent } from './types.js';

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
    if (options === undefined || options === null) return this.#run(toolId, input, undefined, undefined);
    let call: CallOptions | undefined;
    try {
      call = readRunOptions(options);
    } catch (err) {
      return Promise.reject(asRunFailure(err, toolId));
    }
    if (call === undefined || call.onProgress === undefined) return this.#run(toolId, input, call, undefined);
    const reporter = new ProgressReporter(call.onProgress);
    return this.#run(toolId, input, call, reporter.forward).then(
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
   * Failures before dispatch reject the first iteration with a {@link ToolError}. MCP and provider
   * backends stream through their executor's `callToolStream` (`STREAM_NOT_SUPPORTED` without
   * one). A local handler streams too: an AsyncIterable result gives `chunk` events then `done`
   * with the last chunk; any other result gives one `done` event carrying it; its
   * `ctx.onProgress` reports become `progress` events. Events get the requested `toolId` when
   * they have none. The stream ends when the source ends; it ends quietly when the caller's
   * `signal` aborts, and throws TIMEOUT when `timeoutMs` passes. Leaving the loop early aborts
   * the work's signal and calls the source's `return()`. `onProgress` is not used: progress
   * arrives as events.
   */
  runStream(toolId: string, args?: Record<string, unknown>, options?: RunOptions): AsyncIterable<StreamEvent> {
    return streamEvents(this.#pipeline, toolId, args ?? {}, options ?? undefined);
  }

  /**
   * Runs steps in order, passing results along with `usePrevious`; stops at the first failure
   * with a {@link ChainError} carrying the step results so far.
   *
   * @remarks `result` is the last step's result. An empty chain resolves `{ result: undefined,
   * steps: [] }` at once, with no progress events: `result` is `undefined` only then.
   */
  runChain(steps: readonly ChainStep[], options?: RunOptions): Promise<ChainResult> {
    return runChain(this.#pipeline, steps, options ?? undefined);
  }

  /** One call under its deadline (none without a signal, a timeout or a deadline): the one path of `run`. */
  #run(
    toolId: string,
    args: Record<string, unknown>,
    call: CallOptions | undefined,
    progress: ProgressSink | undefined,
  ): Promise<RunResult> {
    let deadline: Deadline | undefined;
    if (call !== undefined && (call.signal !== undefined || call.budgetMs !== undefined))
      deadline = new Deadline(call.signal, call.budgetMs);
    let out: RunResult | Promise<RunResult>;
    try {
      out = this.#pipeline.run(toolId, args, deadline, progress, call);
    } catch (err) {
      deadline?.dispose();
      return Promise.reject(asRunFailure(err, toolId));
    }
    if (out instanceof Promise) return deadline === undefined ? out : disposeAfter(out, deadline);
    deadline?.dispose();
    return Promise.resolve(out);
  }
}

/** Waits for the call, then clears its deadline's timer and listener. */
async function disposeAfter(pending: Promise<RunResult>, deadline: Deadline): Promise<RunResult> {
  try {
    return await pending;
  } finally {
    deadline.dispose();
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
