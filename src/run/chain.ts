import { Deadline, layerErrors } from '../model/internal.js';
import { ChainError } from './errors.js';
import { abortToolError, asStepFailure } from './failures.js';
import type { Pipeline } from './pipeline.js';
import { emitProgress } from './progress.js';
import { checkRunOptions } from './run-options.js';
import type { ChainResult, ChainStep, RunOptions, RunResult, StepResult } from './types.js';

/**
 * Runs `steps` one after another.
 *
 * @remarks
 * Each step gets a fresh shallow copy of its `args` (`{}` when absent); with `usePrevious` the
 * previous step's `structured` result is set at `args.previous`, overwriting, and the key is set
 * even when that value is `undefined` (the first step, or a step that returned nothing). The chain
 * stops at the first failure and rejects with a {@link ChainError} holding the step results so
 * far, the failed one included. `signal` and `timeoutMs` cover the whole chain; an abort or
 * deadline noticed between steps adds no step result. `onProgress` receives
 * `{0, N, 'started'}`, then `{i+1, N, 'step_completed' | 'step_error'}` per step.
 *
 * An empty chain resolves at once with `{ result: undefined, steps: [] }` and no progress:
 * `result` is `undefined` only for an empty chain.
 *
 * Steps run through the pipeline directly, sharing the chain's one deadline; a step that completes
 * synchronously is not awaited (no promise hop per step).
 *
 * @internal
 */
const errors = layerErrors('run');

export async function runChain(pipeline: Pipeline, steps: readonly ChainStep[], options: RunOptions | undefined): Promise<ChainResult> {
  if (steps === undefined || steps === null) steps = [];
  if (!Array.isArray(steps)) throw errors.invalidArgument('chain steps', 'must be an array');
  const total = steps.length;
  if (total === 0) return { result: undefined as unknown as RunResult, steps: [] };
  const signal = options?.signal;
  const timeoutMs = options?.timeoutMs;
  const onProgress = options?.onProgress;
  const invalid = checkRunOptions(signal, timeoutMs);
  if (invalid !== undefined) throw invalid;
  const scope = signal === undefined && timeoutMs === undefined ? undefined : new Deadline(signal, timeoutMs);
  if (onProgress !== undefined) emitProgress(onProgress, { progress: 0, total, message: 'started' });
  const results: StepResult[] = [];
  let previous: unknown;
  let last: RunResult | undefined;
  try {
    for (let i = 0; i < total; i++) {
      const step = steps[i] as ChainStep | undefined;
      const toolId = typeof step?.toolId === 'string' ? step.toolId : '';
      if (scope !== undefined && scope.aborted) {
        throw new ChainError(abortToolError(toolId, 'resolve', undefined, scope.reason), results, i);
      }
      const args: Record<string, unknown> = step?.args === undefined || step.args === null ? {} : { ...step.args };
      if (step?.usePrevious === true) args.previous = previous;
      let result: RunResult;
      try {
        const out = pipeline.run(toolId, args, scope, undefined);
        result = out instanceof Promise ? await out : out;
      } catch (err) {
        const error = asStepFailure(err, toolId);
        const failed: StepResult = { toolId, error };
        if (error.backend !== undefined) failed.backend = error.backend;
        results.push(failed);
        if (onProgress !== undefined) emitProgress(onProgress, { progress: i + 1, total, message: 'step_error' });
        throw new ChainError(error, results, i);
      }
      results.push({ toolId, backend: result.backend, result });
      if (onProgress !== undefined) emitProgress(onProgress, { progress: i + 1, total, message: 'step_completed' });
      previous = result.structured;
      last = result;
    }
  } finally {
    scope?.dispose();
  }
  return { result: last as RunResult, steps: results };
}
