import { type Deadline, asLibraryError, layerErrors } from '../model/internal.js';
import { stepArgs, withPreviousArgs } from './chain-args.js';
import { ChainError, type ToolError } from './errors.js';
import { abortToolError, asStepFailure, unexpectedFailure } from './failures.js';
import type { Pipeline } from './pipeline.js';
import { emitProgress } from './progress.js';
import { callDeadline, readRunOptions, stepIdempotencyKey, type CallOptions } from './run-options.js';
import type { ChainResult, ChainStep, ProgressEvent, RunOptions, RunResult, StepResult } from './types.js';

const errors = layerErrors('run');

/**
 * What a chain does with each step's outcome (the runner's chain and the exec facade's each have one).
 *
 * @internal
 */
export interface ChainVisitor<S extends ChainStep> {
  /** Step `index` succeeded; `startedMs` is when it started on the walker's clock (0 without one). */
  completed(index: number, step: S | undefined, toolId: string, result: RunResult, startedMs: number): void;
  /** Step `index` failed: throw to stop the chain, return to go on with the next step. */
  failed(index: number, step: S | undefined, toolId: string, error: ToolError, startedMs: number): void;
  /** The deadline (or the caller's signal) stopped the chain before step `index` ran: throw. */
  stopped(index: number, toolId: string, error: ToolError): never;
}

/** How {@link walkChain} runs: each step, under which deadline, telling whom, timed by what. @internal */
export interface ChainWalk<S extends ChainStep> {
  steps: readonly S[];
  /** Runs step `index` (the value when it finished synchronously). */
  run(toolId: string, args: Record<string, unknown>, index: number): RunResult | Promise<RunResult>;
  deadline: Deadline | undefined;
  onProgress: ((progress: ProgressEvent) => void) | undefined;
  visitor: ChainVisitor<S>;
  /** Milliseconds on a monotonic clock, for step durations; none by default. */
  clock?: () => number;
}

/**
 * The one chain loop: steps in order, each with a fresh shallow copy of its `args` (`{}` when
 * absent), the arguments its `argsFrom` takes from the last successful step's `structured` result
 * merged over them and, with `usePrevious`, `args.previous` set to that result (overwriting; set
 * even when `undefined`); a failed step names the arguments that came from the previous step. Between steps an aborted deadline stops the
 * chain (ABORTED, or TIMEOUT for a deadline's reason) without a step result. Progress:
 * `{0, N, 'started'}`, then `{i+1, N, 'step_completed' | 'step_error'}` per step. A step that
 * finishes synchronously is not awaited.
 *
 * @internal
 */
export async function walkChain<S extends ChainStep>(walk: ChainWalk<S>): Promise<void> {
  const { steps, deadline, onProgress, visitor, clock } = walk;
  const total = steps.length;
  if (onProgress !== undefined) emitProgress(onProgress, { progress: 0, total, message: 'started' });
  let previous: unknown;
  for (let i = 0; i < total; i++) {
    const step = steps[i];
    const toolId = stepToolId(step);
    if (deadline !== undefined && deadline.aborted)
      visitor.stopped(i, toolId, abortToolError(toolId, 'resolve', undefined, deadline.reason));
    const startedMs = clock === undefined ? 0 : clock();
    let result: RunResult;
    let fromPrevious: string[] = [];
    try {
      const built = stepArgs(step, toolId, previous);
      fromPrevious = built.fromPrevious;
      const out = walk.run(toolId, built.args, i);
      result = out instanceof Promise ? await out : out;
    } catch (err) {
      if (onProgress !== undefined) emitProgress(onProgress, { progress: i + 1, total, message: 'step_error' });
      visitor.failed(i, step, toolId, withPreviousArgs(asStepFailure(err, toolId), fromPrevious), startedMs);
      continue;
    }
    if (onProgress !== undefined) emitProgress(onProgress, { progress: i + 1, total, message: 'step_completed' });
    previous = result.structured;
    visitor.completed(i, step, toolId, result, startedMs);
  }
}

/** A step's tool ID; `''` (an INVALID_TOOL_ID failure of the step) when it has none or it cannot be read. */
function stepToolId(step: ChainStep | undefined): string {
  try {
    const id = step?.toolId;
    return typeof id === 'string' ? id : '';
  } catch {
    return '';
  }
}

/**
 * The runner's chain: {@link walkChain} through the pipeline, stopping at the first failure.
 *
 * @remarks
 * The chain rejects with a {@link ChainError} holding the step results so far, the failed one
 * included; an abort or deadline noticed between steps adds no step result. `signal` and
 * `timeoutMs` cover the whole chain, every step sharing its one deadline. An empty chain resolves
 * at once with `{ result: undefined, steps: [] }` and no progress: `result` is `undefined` only then
 * (its options are still checked: unusable ones are `INVALID_ARGUMENT`, as for any chain).
 *
 * @internal
 */
export async function runChain(pipeline: Pipeline, steps: readonly ChainStep[], options: RunOptions | undefined): Promise<ChainResult> {
  try {
    return await chainOf(pipeline, readSteps(steps), options);
  } catch (err) {
    // Steps that cannot be read were refused as INVALID_ARGUMENT by `readSteps`, and every other
    // failure of a caller's object is a library error already: anything else is nobody's input.
    throw unexpectedFailure('runChain', err);
  }
}

/**
 * The caller's steps, each element read once (through `copy`, which may read its fields) before
 * any step runs: `[]` for `undefined` / `null`; INVALID_ARGUMENT, in the words of `layer`, for
 * anything but an array, `chain steps could not be read` when the array cannot be read (a revoked
 * proxy) and `chain step <i> could not be read` (`details.stepIndex`, what was thrown as `cause`)
 * for an element. The only failure of a chain that is its steps' fault. The facade reads its own
 * steps with it.
 *
 * @internal
 */
export function readSteps<T = ChainStep>(
  steps: unknown,
  layer: ReturnType<typeof layerErrors> = errors,
  copy: (step: unknown) => T = (step) => step as T,
): T[] {
  if (steps === undefined || steps === null) return [];
  let length: number;
  try {
    if (!Array.isArray(steps)) throw layer.invalidArgument('chain steps', 'must be an array');
    length = (steps as unknown[]).length;
  } catch (err) {
    throw asLibraryError(layer, 'chain steps', err);
  }
  const read: T[] = [];
  for (let i = 0; i < length; i++) {
    try {
      read.push(copy((steps as unknown[])[i]));
    } catch (err) {
      throw layer.invalidArgument(`chain step ${i}`, 'could not be read', { cause: err, details: { stepIndex: i } });
    }
  }
  return read;
}

async function chainOf(pipeline: Pipeline, steps: readonly ChainStep[], options: RunOptions | undefined): Promise<ChainResult> {
  // The options are checked first: unusable ones are refused whatever the steps, an empty chain's too.
  const call = readRunOptions(options);
  if (steps.length === 0) return { result: undefined, steps: [] };
  const deadline = callDeadline(call);
  const chain = new RunnerChain(pipeline, steps, deadline, call);
  try {
    await walkChain(chain);
  } finally {
    deadline?.dispose();
  }
  return { result: chain.last as RunResult, steps: chain.results };
}

/** The runner's chain as a {@link ChainWalk} that is its own visitor (no closures per chain). */
class RunnerChain implements ChainWalk<ChainStep>, ChainVisitor<ChainStep> {
  readonly results: StepResult[] = [];
  last: RunResult | undefined;
  readonly visitor: ChainVisitor<ChainStep> = this;
  readonly #pipeline: Pipeline;
  readonly steps: readonly ChainStep[];
  readonly deadline: Deadline | undefined;
  readonly onProgress: ((progress: ProgressEvent) => void) | undefined;
  /** The chain's options: every step is retried (or not) by them; step `i` carries the idempotency key `<key>:<i>`. */
  readonly #call: CallOptions | undefined;

  constructor(pipeline: Pipeline, steps: readonly ChainStep[], deadline: Deadline | undefined, call: CallOptions | undefined) {
    this.#pipeline = pipeline;
    this.steps = steps;
    this.deadline = deadline;
    this.onProgress = call?.onProgress;
    this.#call = call;
  }

  run(toolId: string, args: Record<string, unknown>, index: number): RunResult | Promise<RunResult> {
    const telemetry = this.#pipeline.telemetry;
    const key = this.#call?.idempotencyKey;
    const call = key === undefined ? this.#call : { ...(this.#call as CallOptions), idempotencyKey: stepIdempotencyKey(key, index) };
    if (telemetry.active) {
      return telemetry.call(toolId, args, 'chain_step', (marks) => this.#pipeline.run(toolId, args, this.deadline, undefined, call, marks));
    }
    // Unobserved, the step's failure is still scrubbed of the arguments it was given (those built
    // from the previous step's result included), as `run` does.
    let out: RunResult | Promise<RunResult>;
    try {
      out = this.#pipeline.run(toolId, args, this.deadline, undefined, call);
    } catch (err) {
      throw telemetry.redactFailure(err, toolId, args);
    }
    if (!(out instanceof Promise)) return out;
    return out.catch((err: unknown) => {
      throw telemetry.redactFailure(err, toolId, args);
    });
  }

  completed(_index: number, _step: ChainStep | undefined, toolId: string, result: RunResult): void {
    this.results.push({ toolId, backend: result.backend, result });
    this.last = result;
  }

  failed(index: number, _step: ChainStep | undefined, toolId: string, error: ToolError): void {
    const failed: StepResult = { toolId, error };
    if (error.backend !== undefined) failed.backend = error.backend;
    this.results.push(failed);
    throw new ChainError(error, this.results, index);
  }

  stopped(index: number, _toolId: string, error: ToolError): never {
    throw new ChainError(error, this.results, index);
  }
}
