/**
 * The facade's chains: the run layer's chain semantics plus `stopOnError: false`, real per-step
 * durations and skipped steps.
 */
import { ToolexecError, errorMessage } from '../model/index.js';
import { Deadline } from '../model/internal.js';
import { ChainError, ToolError, type ProgressEvent, type RunOptions, type Runner, type RunResult, type StepResult } from '../run/index.js';
import type { ExecChainResult, ExecStepResult, Result, Step } from './types.js';

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

/** The monotonic clock, held once: reading the `performance` global on every call costs ~4 ns. */
const clock = performance;

/** Milliseconds on the monotonic clock (`performance.now()`); the start for {@link elapsedMs}. */
export function nowMs(): number {
  return clock.now();
}

/**
 * Wall-clock milliseconds since `start` (from {@link nowMs}), rounded to the nanosecond (Go's
 * `Duration` unit): a warm call to a synchronous local tool takes well under a microsecond, and
 * its duration must still be measured (> 0), not rounded away.
 */
export function elapsedMs(start: number): number {
  return Math.round((clock.now() - start) * 1e6) / 1e6;
}

function emit(onProgress: ((p: ProgressEvent) => void) | undefined, progress: ProgressEvent): void {
  if (onProgress === undefined) return;
  try {
    onProgress(progress);
  } catch {
    // a listener that throws does not fail the chain
  }
}

function asToolError(err: unknown, toolId: string): ToolError {
  if (ToolError.isToolError(err)) return err;
  const code = ToolexecError.isInstance(err) ? err.code : 'EXECUTION';
  return new ToolError({ code, op: 'execute', toolId, reason: errorMessage(err), cause: err });
}

function stopReason(deadline: Deadline, toolId: string): ToolError {
  // The chain's own budget decides TIMEOUT; any abort of the caller's signal is ABORTED.
  const reason: unknown = deadline.reason;
  const timedOut = deadline.timedOut;
  return new ToolError({
    code: timedOut ? 'TIMEOUT' : 'ABORTED',
    op: 'resolve',
    toolId,
    reason: `${timedOut ? 'timed out' : 'aborted'}: ${errorMessage(reason)}`,
    cause: reason,
  });
}

/**
 * Runs `steps` one by one through `runner.run`.
 *
 * @remarks
 * - Arguments: a shallow copy of `step.args` (`{}` when absent); with `usePrevious`, `previous` is
 *   set to the last *successful* step's value (overwriting; `undefined` when none succeeded yet).
 *   A step that failed with `stopOnError: false` does not change `previous`.
 * - `stopOnError: false`: the failure is recorded (`error` on the step result, `step_error`
 *   progress) and the chain goes on. Otherwise the chain stops and rejects with an
 *   {@link ExecChainError}: the remaining steps are reported `skipped`.
 * - `timeoutMs` is the budget of the whole chain (like `runner.runChain`), shared with the caller's
 *   `signal` in one deadline; running out (or an abort) stops the chain whatever
 *   `stopOnError` says: `TIMEOUT` / `ABORTED`.
 * - `result` describes the last step: its value, its tool ID, the chain's duration, and its error
 *   when it failed without stopping. An empty chain gives `{ toolId: '', durationMs }` and no steps.
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
  if (!Array.isArray(steps)) throw new ToolexecError('INVALID_ARGUMENT', 'runChain: steps must be an array');
  const total = steps.length;
  if (total === 0) return { result: { toolId: '', durationMs: elapsedMs(started) }, steps: [] };
  const onProgress = options?.onProgress ?? undefined;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new ToolexecError('INVALID_ARGUMENT', 'run option onProgress must be a function');
  }
  const deadline = new Deadline(options?.signal ?? undefined, timeoutMs);
  deadline.arm();
  const stepOptions: RunOptions = { signal: deadline.signal };
  const execSteps: ExecStepResult[] = [];
  const runSteps: StepResult[] = [];
  let previous: unknown;
  let lastToolId = '';
  let lastValue: unknown;
  let lastError: ToolError | undefined;
  emit(onProgress, { progress: 0, total, message: 'started' });
  try {
    for (let i = 0; i < total; i++) {
      const step = steps[i];
      const toolId = typeof step?.toolId === 'string' ? step.toolId : '';
      const callerArgs = step?.args ?? undefined;
      if (deadline.signal.aborted) {
        throw stop(stopReason(deadline, toolId), i, false);
      }
      const args: Record<string, unknown> = callerArgs === undefined || callerArgs === null ? {} : { ...callerArgs };
      if (step?.usePrevious === true) args.previous = previous;
      const stepStart = nowMs();
      let result: RunResult;
      try {
        result = await runner.run(toolId, args, stepOptions);
      } catch (err) {
        const error = asToolError(err, toolId);
        const record: ExecStepResult = { stepIndex: i, toolId, durationMs: elapsedMs(stepStart), error };
        if (callerArgs !== undefined) record.args = callerArgs;
        execSteps.push(record);
        const failed: StepResult = { toolId, error };
        if (error.backend !== undefined) failed.backend = error.backend;
        runSteps.push(failed);
        emit(onProgress, { progress: i + 1, total, message: 'step_error' });
        if (step?.stopOnError === false && !deadline.signal.aborted) {
          lastToolId = toolId;
          lastValue = undefined;
          lastError = error;
          continue;
        }
        throw stop(error, i, true);
      }
      const record: ExecStepResult = { stepIndex: i, toolId, durationMs: elapsedMs(stepStart) };
      if (callerArgs !== undefined) record.args = callerArgs;
      if (result.structured !== undefined) record.value = result.structured;
      execSteps.push(record);
      runSteps.push({ toolId, backend: result.backend, result });
      emit(onProgress, { progress: i + 1, total, message: 'step_completed' });
      previous = result.structured;
      lastToolId = toolId;
      lastValue = result.structured;
      lastError = undefined;
    }
  } finally {
    deadline.dispose();
  }
  const result: Result = { toolId: lastToolId, durationMs: elapsedMs(started) };
  if (lastValue !== undefined) result.value = lastValue;
  if (lastError !== undefined) result.error = lastError;
  return { result, steps: execSteps };

  /** The chain's rejection at step `index`; the steps after it (and `index` itself unless it ran) are skipped. */
  function stop(error: ToolError, index: number, ran: boolean): ExecChainError {
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
  }
}
