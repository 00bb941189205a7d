import type { ToolexecError } from '../../model/index.js';
import { elapsedMs, limitsEnforcedNone, runtimeError, withPartialResult } from './errors.js';
import type { RunFailure } from './failure.js';
import { createTracingGateway, type TracingGateway } from '../gateway/tracing.js';
import { pendingCallFailure, pendingCallWarnings } from './pending-calls.js';
import { prepareSnippet } from './snippet.js';
import type { BackendInfo, ExecuteRequest, ExecuteResult, LimitsEnforced } from './types.js';
import type { ErrorCode } from '../../model/index.js';

/**
 * The bookkeeping every backend keeps for one run: when it started, which backend ran it (and
 * with which details), the limits it enforced and the gateway that traced its tool calls — so
 * that any failure can carry the partial {@link ExecuteResult} of the run so far.
 */
export class RunRecord {
  readonly #started = performance.now();
  /** What ran the snippet; backends fill `details` as they learn more. */
  backend: BackendInfo;
  /** The limits enforced on this run; backends set each one they really apply. */
  readonly limitsEnforced: LimitsEnforced = limitsEnforcedNone();
  #gateway: TracingGateway | undefined;

  constructor(backend: BackendInfo) {
    this.backend = backend;
  }

  /** The result so far (empty output, the calls traced up to now), with `extra` on top. */
  partial(extra: Partial<ExecuteResult> = {}): ExecuteResult {
    return {
      stdout: '',
      stderr: '',
      toolCalls: this.#gateway?.toolCalls ?? [],
      durationMs: elapsedMs(this.#started),
      backend: this.backend,
      limitsEnforced: this.limitsEnforced,
      ...extra,
    };
  }

  /**
   * The run's result from what its guest produced — or, when the guest reported a failure, that
   * failure thrown with the result as its partial result. Tool calls the guest reported pending
   * when the snippet returned become `PENDING_TOOL_CALL` warnings, or with `request.strict` the
   * run's `CODE_EXECUTION` failure; a budget error the snippet caught fails the run
   * (`LIMIT_EXCEEDED`).
   */
  settle(
    outcome: { stdout: string; stderr: string; hasValue: boolean; value?: unknown; failure?: RunFailure | undefined; pending?: unknown },
    request?: Pick<ExecuteRequest, 'strict'>,
  ): ExecuteResult {
    const warnings = outcome.failure === undefined ? pendingCallWarnings(outcome.pending) : [];
    const result = this.partial({
      stdout: outcome.stdout,
      stderr: outcome.stderr,
      ...(outcome.hasValue ? { value: outcome.value } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    });
    const failure = outcome.failure ?? (warnings.length > 0 && request?.strict === true ? pendingCallFailure(warnings) : undefined);
    if (failure === undefined || failure.code === 'CODE_EXECUTION') this.throwIfBudgetCaught(result);
    if (failure !== undefined) {
      throw runtimeError(failure.code, failure.message, {
        cause: failure.cause,
        result,
        ...(failure.details === undefined ? {} : { details: failure.details }),
      });
    }
    return result;
  }

  /**
   * Throws the run's budget error (`LIMIT_EXCEEDED` for `maxToolCalls` / `maxChainSteps`), with
   * `result` as its partial result, when a tool call met one: the run fails with it even when the
   * snippet caught it and went on.
   */
  throwIfBudgetCaught(result: ExecuteResult): void {
    const limit = this.#gateway?.limitError;
    if (limit === undefined) return;
    throw runtimeError('LIMIT_EXCEEDED', limit.message, {
      cause: limit,
      result,
      ...(limit.details === undefined ? {} : { details: limit.details }),
    });
  }

  /** Milliseconds since the run started. */
  elapsedMs(): number {
    return elapsedMs(this.#started);
  }

  /** `err` as this run's failure, carrying the partial result (see `withPartialResult`). */
  fail(err: unknown, fallbackCode?: ErrorCode): ToolexecError {
    return withPartialResult(err, this.partial(), fallbackCode);
  }

  /**
   * The snippet ready for a JavaScript guest (TypeScript transpiled, other languages
   * RUNTIME_UNAVAILABLE); a failure is thrown as this run's, with its line and column kept.
   */
  prepareSnippet(request: ExecuteRequest): string {
    try {
      return prepareSnippet(request).code;
    } catch (err) {
      throw this.fail(err);
    }
  }

  /**
   * The request's gateway wrapped for its `maxToolCalls` / `maxChainSteps` and traced into this
   * run's `toolCalls`; marks those two limits (and the timeout, which every backend enforces) as
   * enforced.
   */
  traceGateway(request: ExecuteRequest): TracingGateway {
    const limits = request.limits;
    const gateway = createTracingGateway(request.gateway, {
      ...(limits?.maxToolCalls === undefined ? {} : { maxToolCalls: limits.maxToolCalls }),
      ...(limits?.maxChainSteps === undefined ? {} : { maxChainSteps: limits.maxChainSteps }),
    });
    this.#gateway = gateway;
    Object.assign(this.limitsEnforced, { timeout: true, toolCalls: true, chainSteps: true });
    return gateway;
  }
}
