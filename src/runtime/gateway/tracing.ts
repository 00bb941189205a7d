/**
 * The tracing gateway: one place that enforces a run's tool-call and chain-step budgets and records
 * every call as a {@link ToolCallRecord}. The direct gateway and every backend build on it.
 */
import { ToolexecError, errorMessage } from '../../model/index.js';
import type { DetailLevel, ToolDoc, ToolExample, ToolSummary } from '../../discovery/index.js';
import type { ChainResult, ChainStep, RunResult, StepResult } from '../../run/index.js';
import { stepArgs } from '../../run/internal.js';
import { MAX_VALUE_DEPTH, cloneJson, elapsedMs, nestsDeeperThan, runtimeError, runtimeErrors } from '../core/errors.js';
import { throwIfAborted } from '../core/stopping.js';
import type { GatewayCallOptions, ToolCallRecord, ToolGateway } from '../core/types.js';

/** Options of {@link createTracingGateway}. `undefined` or 0 means unlimited. */
export interface TracingGatewayOptions {
  /** Most tool calls (single runs plus executed chain steps) the gateway lets through. */
  maxToolCalls?: number;
  /** Most steps one chain may have. */
  maxChainSteps?: number;
}

/** A {@link ToolGateway} that enforces call budgets and records every call. */
export interface TracingGateway extends ToolGateway {
  /** A copy of the records so far, in completion order. */
  readonly toolCalls: ToolCallRecord[];
  /** Tool calls counted against `maxToolCalls` so far (chain steps reserved while a chain runs included). */
  readonly callCount: number;
  /**
   * The first budget error (`LIMIT_EXCEEDED` for `maxToolCalls` / `maxChainSteps`) a call met, this
   * gateway's own or one a budgeted gateway inside it raised; `undefined` while every call fit. A
   * run fails with it even when the snippet caught it.
   */
  readonly limitError: ToolexecError | undefined;
  /** Forgets the records and zeroes the counter (and the budget error). */
  reset(): void;
}

/** The `details.limit` of the budget errors. */
const BUDGET_LIMITS: ReadonlySet<unknown> = new Set(['maxToolCalls', 'maxChainSteps']);

/** Whether `err` is a tool-call or chain-step budget error (of any tracing gateway). */
function isBudgetError(err: unknown): err is ToolexecError {
  return ToolexecError.isInstance(err) && err.code === 'LIMIT_EXCEEDED' && BUDGET_LIMITS.has(err.details?.limit);
}

function checkLimit(name: string, value: number | undefined): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || !Number.isInteger(value)) {
    throw runtimeError('INVALID_LIMITS', `invalid limits: ${name} must be a non-negative integer`, {
      details: { field: name, value },
    });
  }
  return value;
}

/**
 * Refuses arguments nested deeper than 512 levels (`MAX_VALUE_DEPTH`): `INVALID_ARGUMENT`, before the call
 * is counted or recorded (no tool could take them, and copying them could overflow the stack).
 */
function checkArgsDepth(toolId: string, args: unknown, field: string): void {
  if (!nestsDeeperThan(args, MAX_VALUE_DEPTH)) return;
  throw runtimeErrors.invalidArgument(field, `of ${toolId} nest deeper than ${MAX_VALUE_DEPTH} levels`, {
    details: { field, toolId, maxDepth: MAX_VALUE_DEPTH },
  });
}

function backendKindOf(err: unknown): string | undefined {
  const backend = (err as { backend?: { kind?: unknown } } | null)?.backend;
  return typeof backend?.kind === 'string' && backend.kind !== '' ? backend.kind : undefined;
}

function stepsOf(err: unknown): StepResult[] | undefined {
  const steps = (err as { steps?: unknown } | null)?.steps;
  return Array.isArray(steps) ? (steps as StepResult[]) : undefined;
}

function failure(record: ToolCallRecord, err: unknown, op: 'run' | 'chain'): void {
  record.error = errorMessage(err);
  if (ToolexecError.isInstance(err)) record.errorCode = err.code;
  record.errorOp = op;
}

class TracingToolGateway implements TracingGateway {
  readonly #inner: ToolGateway;
  readonly #maxToolCalls: number;
  readonly #maxChainSteps: number;
  #calls = 0;
  #records: ToolCallRecord[] = [];
  #limitError: ToolexecError | undefined;

  constructor(inner: ToolGateway, options: TracingGatewayOptions) {
    this.#inner = inner;
    this.#maxToolCalls = checkLimit('maxToolCalls', options.maxToolCalls);
    this.#maxChainSteps = checkLimit('maxChainSteps', options.maxChainSteps);
  }

  get toolCalls(): ToolCallRecord[] {
    return this.#records.slice();
  }

  get callCount(): number {
    return this.#calls;
  }

  get limitError(): ToolexecError | undefined {
    return this.#limitError;
  }

  reset(): void {
    this.#calls = 0;
    this.#records = [];
    this.#limitError = undefined;
  }

  /** Remembers the first budget error and returns it (to be thrown). */
  #budget(err: ToolexecError): ToolexecError {
    this.#limitError ??= err;
    return err;
  }

  async searchTools(query: string, limit: number, options?: GatewayCallOptions): Promise<ToolSummary[]> {
    throwIfAborted(options?.signal, 'searchTools');
    return this.#inner.searchTools(query, limit, options);
  }

  async listNamespaces(options?: GatewayCallOptions): Promise<string[]> {
    throwIfAborted(options?.signal, 'listNamespaces');
    return this.#inner.listNamespaces(options);
  }

  async describeTool(id: string, level: DetailLevel, options?: GatewayCallOptions): Promise<ToolDoc> {
    throwIfAborted(options?.signal, 'describeTool');
    return this.#inner.describeTool(id, level, options);
  }

  async listToolExamples(id: string, max: number, options?: GatewayCallOptions): Promise<ToolExample[]> {
    throwIfAborted(options?.signal, 'listToolExamples');
    return this.#inner.listToolExamples(id, max, options);
  }

  async runTool(id: string, args?: Record<string, unknown>, options?: GatewayCallOptions): Promise<RunResult> {
    throwIfAborted(options?.signal, 'runTool');
    const max = this.#maxToolCalls;
    if (max > 0 && this.#calls >= max) {
      throw this.#budget(
        runtimeError('LIMIT_EXCEEDED', `limit exceeded: max ${max} tool calls exceeded`, {
          details: { limit: 'maxToolCalls', max },
        }),
      );
    }
    const record: ToolCallRecord = { toolId: id, durationMs: 0 };
    if (args !== undefined) {
      checkArgsDepth(id, args, 'args');
      record.args = cloneJson(args);
    }
    this.#calls += 1; // a failed call still uses its quota
    const start = performance.now();
    try {
      const result = await this.#inner.runTool(id, args, options);
      record.durationMs = elapsedMs(start);
      if (result.structured !== undefined) record.structured = result.structured;
      if (typeof result.backend?.kind === 'string') record.backendKind = result.backend.kind;
      this.#records.push(record);
      return result;
    } catch (err) {
      record.durationMs = elapsedMs(start);
      const kind = backendKindOf(err);
      if (kind !== undefined) record.backendKind = kind;
      failure(record, err, 'run');
      this.#records.push(record);
      if (isBudgetError(err)) this.#budget(err);
      throw err;
    }
  }

  async runChain(steps: readonly ChainStep[], options?: GatewayCallOptions): Promise<ChainResult> {
    throwIfAborted(options?.signal, 'runChain');
    const list = steps ?? [];
    const need = list.length;
    list.forEach((step, i) => checkArgsDepth(step.toolId, step.args, `steps[${i}].args`));
    if (this.#maxChainSteps > 0 && need > this.#maxChainSteps) {
      throw this.#budget(
        runtimeError('LIMIT_EXCEEDED', `limit exceeded: max ${this.#maxChainSteps} chain steps exceeded (got ${need})`, {
          details: { limit: 'maxChainSteps', max: this.#maxChainSteps, requested: need },
        }),
      );
    }
    const max = this.#maxToolCalls;
    if (max > 0 && this.#calls + need > max) {
      const remaining = Math.max(0, max - this.#calls);
      throw this.#budget(
        runtimeError('LIMIT_EXCEEDED', `limit exceeded: max ${max} tool calls exceeded (need ${need}, have ${remaining} remaining)`, {
          details: { limit: 'maxToolCalls', max, requested: need, remaining },
        }),
      );
    }
    this.#calls += need; // reserved; unexecuted steps are refunded below
    const start = performance.now();
    let result: ChainResult | undefined;
    let error: unknown;
    let failed = false;
    try {
      result = await this.#inner.runChain(list, options);
    } catch (err) {
      error = err;
      failed = true;
      if (isBudgetError(err)) this.#budget(err);
    }
    const totalMs = elapsedMs(start);
    const stepResults = (failed ? stepsOf(error) : result?.steps) ?? [];
    let executed = stepResults.length;
    if (executed === 0 && !failed) executed = need;
    executed = Math.min(executed, need);
    this.#calls = Math.max(0, this.#calls - (need - executed));
    this.#recordChain(list, stepResults, executed, totalMs);
    if (failed) throw error;
    return result as ChainResult;
  }

  #recordChain(steps: readonly ChainStep[], results: readonly StepResult[], executed: number, totalMs: number): void {
    const durationMs = executed > 0 ? Math.round((totalMs / executed) * 1000) / 1000 : totalMs;
    let previous: unknown;
    for (let i = 0; i < executed; i += 1) {
      const step = steps[i] as ChainStep;
      const record: ToolCallRecord = { toolId: step.toolId, args: cloneJson(effectiveArgs(step, previous)), durationMs };
      const stepResult = results[i];
      if (stepResult !== undefined) {
        const kind: unknown = stepResult.backend?.kind ?? stepResult.result?.backend?.kind;
        if (typeof kind === 'string' && kind !== '') record.backendKind = kind;
        if (stepResult.error !== undefined) {
          failure(record, stepResult.error, 'chain');
        } else {
          const structured = stepResult.result?.structured;
          if (structured !== undefined) record.structured = structured;
          previous = structured;
        }
      }
      this.#records.push(record);
    }
  }
}

/**
 * Wraps `gateway` so that it enforces `maxToolCalls` / `maxChainSteps` and records every tool call.
 *
 * @remarks
 * - `runTool`: an aborted signal fails first (`ABORTED`); then the budget is checked before the call
 *   (`LIMIT_EXCEEDED` `max N tool calls exceeded`, nothing recorded), then the arguments' depth
 *   (`INVALID_ARGUMENT` beyond 512 levels (`MAX_VALUE_DEPTH`), a chain's steps too: nothing counted
 *   or recorded); a failed call still uses its
 *   quota and is recorded with its message, code, `errorOp: 'run'` and the failing backend's kind.
 * - `runChain`: a chain longer than `maxChainSteps`, or needing more calls than remain, fails
 *   before any step runs; the steps are reserved, and the ones that did not execute are refunded.
 *   Each executed step is recorded with its effective arguments (`previous` injected for
 *   `usePrevious`), deep-copied. An empty chain is passed through and counts nothing.
 * - Discovery calls pass through untouched (only the abort check).
 * - The first budget error (its own, or a `LIMIT_EXCEEDED` for `maxToolCalls` / `maxChainSteps`
 *   from a budgeted gateway inside it) is kept as `limitError`.
 * - Safe for concurrent calls (`Promise.all` from a snippet): the budget is reserved synchronously.
 *
 * @throws `INVALID_LIMITS` when a limit is negative, fractional or not finite.
 */
export function createTracingGateway(gateway: ToolGateway, options: TracingGatewayOptions = {}): TracingGateway {
  return new TracingToolGateway(gateway, options);
}

/**
 * The arguments a chain step ran with, as the runner built them (`argsFrom`, `usePrevious`); the
 * step's own `args` when they could not be built (that step failed for it).
 */
function effectiveArgs(step: ChainStep, previous: unknown): Record<string, unknown> {
  try {
    return stepArgs(step, step.toolId, previous).args;
  } catch {
    return { ...step.args };
  }
}
