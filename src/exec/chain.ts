/**
 * The facade's chains: the run layer's chain loop (`walkChain`) plus `stopOnError: false`, real
 * per-step durations and skipped steps.
 */
import { Deadline, layerErrors } from '../model/internal.js';
import { ChainError, type RunOptions, type Runner, type StepResult, type ToolError } from '../run/index.js';
import { readSteps, runChainStep, stepIdempotencyKey, walkChain } from '../run/internal.js';
import { elapsedMs, nowMs } from './call-time.js';
import type { ExecChainResult, ExecStepResult, Result, Step } from './types.js';

const errors = layerErrors('exec');

/**
 * A chain stopped by a failing step (or by its deadline or signal): the run layer's
 * {@link ChainError} — code, op, tool ID and backend of the failure, the run-layer step results in
 * `steps` — plus the facade's view of every step.
 */
export class ExecChainError extends ChainError {
  /** Every step: the ones that ran (the failed one included, with `error`), then the skipped ones. */
  readonly execSteps: ExecStepResult[];
  /** Wall-clock time of the chain until it stopped. */
  readonly durationMs: number;

  constructor(error: ToolError, steps: StepResult[], stepIndex: number, execSteps: ExecStepResult[], durationMs: number) {
    super(error, steps, stepIndex);
    this.execSteps = execSteps;
    this.durationMs = durationMs;
  }
}

/** The fields of a {@link Step} the chain reads, each once, when the caller's steps are read. */
const STEP_FIELDS = ['toolId', 'args', 'usePrevious', 'argsFrom', 'stopOnError'] as const satisfies readonly (keyof Step)[];

/**
 * The caller's steps, read once before anything runs: a plain copy of each step's fields (`args`
 * and `argsFrom` are the caller's own objects, read when their step runs), so that the chain, its
 * records and its skipped steps never touch the caller's step objects again. A step that is not an
 * object is kept as it is (it fails as a step: `INVALID_TOOL_ID`). `undefined` or `null`: no steps.
 *
 * @throws `INVALID_ARGUMENT` for steps that are not an array (`chain steps must be an array`),
 * or that cannot be read — a revoked proxy, a throwing getter (`chain steps could not be read`, or
 * `chain step <i> could not be read` with `details.stepIndex`; what was thrown as `cause`). This is
 * the only failure of a chain that is the caller's steps' fault.
 *
 * @internal
 */
export function readChainSteps(steps: unknown): Step[] {
  return readSteps(steps, errors, copyStep);
}

/** A plain copy of a step's fields (a step that is no object as it is). */
function copyStep(step: unknown): Step {
  if (step === null || typeof step !== 'object') return step as Step;
  const copy: Record<string, unknown> = {};
  for (const field of STEP_FIELDS) {
    const value = (step as Record<string, unknown>)[field];
    if (value !== undefined) copy[field] = value;
  }
  return copy as unknown as Step;
}

/**
 * Runs `steps` one by one through `runner.run` (observed as chain steps).
 *
 * @remarks
 * - Arguments: a shallow copy of `step.args` (`{}` when absent), the arguments `argsFrom` takes
 *   from the last *successful* step's value merged over them, and with `usePrevious`, `previous`
 *   set to that value (overwriting; `undefined` when none succeeded yet).
 *   A step that failed with `stopOnError: false` does not change `previous`.
 * - `stopOnError: false`: the failure is recorded (`error` on the step result, `step_error`
 *   progress) and the chain goes on. Otherwise the chain stops and rejects with an
 *   {@link ExecChainError}: the remaining steps are reported `skipped`.
 * - `timeoutMs` (the earlier of the call's `timeoutMs` and `deadline`) is the budget of the whole chain (like `runner.runChain`), shared with the caller's
 *   `signal` in one deadline; running out (or an abort) stops the chain whatever
 *   `stopOnError` says: `TIMEOUT` / `ABORTED`.
 * - `result` describes the last step: its value, its tool ID, the chain's duration, and its error
 *   when it failed without stopping. An empty chain gives `{ toolId: '', durationMs }` and no steps
 *   (an `onProgress` that is not a function is still `INVALID_ARGUMENT`).
 * - `onProgress`: `{0, N, 'started'}`, then `{i+1, N, 'step_completed' | 'step_error'}` per step.
 *
 * @internal
 */
export async function runExecChain(
  runner: Runner,
  steps: readonly Step[],
  options: RunOptions | undefined,
  timeoutMs: number | undefined,
): Promise<ExecChainResult> {
  const started = nowMs();
  // No steps (`undefined`, `null`) is an empty chain, as for `runner.runChain`.
  if (steps === undefined || steps === null) steps = [];
  if (!Array.isArray(steps)) throw errors.invalidArgument('runChain steps', 'must be an array');
  // The options are checked first: an empty chain refuses unusable ones as any chain does.
  const onProgress = options?.onProgress ?? undefined;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw errors.invalidArgument('option onProgress', 'must be a function');
  }
  const total = steps.length;
  if (total === 0) return { result: { toolId: '', durationMs: elapsedMs(started) }, steps: [] };
  const deadline = new Deadline(options?.signal ?? undefined, timeoutMs);
  // Every step runs under the chain's deadline (its signal, and the time left for MCP servers),
  // with the chain's retry policy and its own idempotency key (`<key>:<index>`).
  const stepOptions: RunOptions = { signal: deadline.signal };
  const deadlineMs = deadline.deadlineMs;
  if (deadlineMs !== undefined) stepOptions.deadline = deadlineMs;
  if (options?.retry !== undefined) stepOptions.retry = options.retry;
  const key = options?.idempotencyKey;
  const stepOptionsAt = (index: number): RunOptions =>
    key === undefined ? stepOptions : { ...stepOptions, idempotencyKey: stepIdempotencyKey(key, index) };
  const execSteps: ExecStepResult[] = [];
  const runSteps: StepResult[] = [];
  let last: Omit<Result, 'durationMs'> = { toolId: '' };
  /** The chain's rejection at step `index`; the steps after it (and `index` itself unless it ran) are skipped. */
  const stop = (error: ToolError, index: number, ran: boolean): ExecChainError => {
    for (let j = ran ? index + 1 : index; j < total; j++) {
      const rest = steps[j];
      const skipped: ExecStepResult = {
        stepIndex: j,
        toolId: typeof rest?.toolId === 'string' ? rest.toolId : '',
        durationMs: 0,
        skipped: true,
      };
      if (rest?.args !== undefined) skipped.args = rest.args;
      execSteps.push(skipped);
    }
    return new ExecChainError(error, runSteps, index, execSteps, elapsedMs(started));
  };
  try {
    await walkChain<Step>({
      steps,
      deadline,
      onProgress,
      clock: nowMs,
      run: (toolId, args, index) => runChainStep(runner, toolId, args, stepOptionsAt(index)),
      visitor: {
        completed: (index, step, toolId, result, stepStarted) => {
          const record: ExecStepResult = { stepIndex: index, toolId, durationMs: elapsedMs(stepStarted) };
          if (step?.args !== undefined) record.args = step.args;
          if (result.structured !== undefined) record.value = result.structured;
          execSteps.push(record);
          runSteps.push({ toolId, backend: result.backend, result });
          last = { toolId };
          if (result.structured !== undefined) last.value = result.structured;
        },
        failed: (index, step, toolId, error, stepStarted) => {
          const record: ExecStepResult = { stepIndex: index, toolId, durationMs: elapsedMs(stepStarted), error };
          if (step?.args !== undefined) record.args = step.args;
          execSteps.push(record);
          const failed: StepResult = { toolId, error };
          if (error.backend !== undefined) failed.backend = error.backend;
          runSteps.push(failed);
          if (step?.stopOnError !== false || deadline.aborted) throw stop(error, index, true);
          last = { toolId, error };
        },
        stopped: (index, _toolId, error) => {
          throw stop(error, index, false);
        },
      },
    });
  } finally {
    deadline.dispose();
  }
  return { result: { ...last, durationMs: elapsedMs(started) }, steps: execSteps };
}
