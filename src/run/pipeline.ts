import type { Tool, ToolBackend } from '../model/index.js';
import { ABORTED, callListener, describeValue, type Deadline } from '../model/internal.js';
import { SchemaChecks } from './checks.js';
import { Dispatcher, type ProgressSink } from './dispatch.js';
import { abortToolError, invalidToolId } from './failures.js';
import type { ResolvedRunnerOptions } from './options.js';
import { retryPolicyFor, withRetries, type ResolvedRetryPolicy } from './retry.js';
import type { CallOptions } from './run-options.js';
import { Resolver, type Resolved } from './resolution.js';
import { Telemetry, type PhaseMarks } from './telemetry.js';
import type { AttemptEvent, RunResult } from './types.js';

export type { ProgressSink } from './dispatch.js';

/** A tool, validated input and the backend selected for it: what a stream opens its source with. @internal */
export interface Prepared {
  tool: Tool;
  backend: ToolBackend;
}

/**
 * One call, in order: deadline check, tool-ID check, resolve ({@link Resolver}), select, validate
 * input ({@link SchemaChecks}), dispatch and validate output ({@link Dispatcher}).
 *
 * @remarks
 * Every step that can finish synchronously does: with an index, a synchronous handler and the
 * schema validator, a call completes without a single await and the runner wraps the value in one
 * resolved promise. Only work that is really asynchronous (an async resolver, handler or executor)
 * goes through an `async` step. Holds no per-call state.
 *
 * @internal
 */
export class Pipeline {
  readonly #resolver: Resolver;
  readonly #checks: SchemaChecks;
  readonly #retry: ResolvedRetryPolicy | false;
  readonly #onAttempt: ((event: AttemptEvent) => void) | undefined;
  /** The dispatcher (streams open their sources through it). */
  readonly dispatcher: Dispatcher;
  /** Spans, metrics, events and redaction of this runner's calls. */
  readonly telemetry: Telemetry;

  constructor(options: ResolvedRunnerOptions) {
    this.#resolver = new Resolver(options);
    const telemetry = new Telemetry(options.telemetry, (toolId) => this.#resolver.known(toolId));
    this.telemetry = telemetry;
    const onWarning = options.onWarning;
    this.#checks = new SchemaChecks(options, (warning) => {
      // A warning listener cannot fail the call it is told about.
      if (onWarning !== undefined) callListener(onWarning, warning);
      telemetry.warned(warning);
    });
    this.dispatcher = new Dispatcher(options, this.#checks);
    this.#retry = options.retry;
    this.#onAttempt = options.onAttempt;
  }

  /**
   * One call, start to end; the value when everything on the way was synchronous.
   *
   * The steps a call to a tool resolved before takes ({@link Pipeline.run}, `#execute`, the
   * dispatcher's `dispatch`) keep their rare branches in methods of their own, so that V8 can
   * inline more of that path into the caller.
   */
  run(
    toolId: string,
    args: Record<string, unknown>,
    deadline: Deadline | undefined,
    progress: ProgressSink | undefined,
    call?: CallOptions,
    marks?: PhaseMarks,
  ): RunResult | Promise<RunResult> {
    const hit = deadline === undefined || !deadline.aborted ? this.#resolver.cached(toolId) : undefined;
    if (hit !== undefined) return this.#execute(toolId, args, hit, deadline, progress, call, marks);
    return this.#resolveAndExecute(toolId, args, deadline, progress, call, marks);
  }

  /** The steps up to input validation, for streaming. */
  async prepare(toolId: string, args: Record<string, unknown>, deadline: Deadline): Promise<Prepared> {
    checkStart(toolId, deadline);
    let resolved = this.#resolver.resolve(toolId);
    if (resolved instanceof Promise) resolved = await awaitResolve(resolved, toolId, deadline);
    const backend = this.#resolver.select(toolId, resolved);
    if (this.#checks.input) this.#checks.checkInput(toolId, resolved, backend, args);
    return { tool: resolved.tool, backend };
  }

  /** A call whose tool is not in the resolution cache (or whose deadline has passed). */
  #resolveAndExecute(
    toolId: string,
    args: Record<string, unknown>,
    deadline: Deadline | undefined,
    progress: ProgressSink | undefined,
    call: CallOptions | undefined,
    marks: PhaseMarks | undefined,
  ): RunResult | Promise<RunResult> {
    checkStart(toolId, deadline);
    const resolved = this.#resolver.resolve(toolId);
    if (!(resolved instanceof Promise)) return this.#execute(toolId, args, resolved, deadline, progress, call, marks);
    const settled = deadline === undefined ? resolved : awaitResolve(resolved, toolId, deadline);
    return settled.then((found) => this.#execute(toolId, args, found, deadline, progress, call, marks));
  }

  #execute(
    toolId: string,
    args: Record<string, unknown>,
    resolved: Resolved,
    deadline: Deadline | undefined,
    progress: ProgressSink | undefined,
    call: CallOptions | undefined,
    marks: PhaseMarks | undefined,
  ): RunResult | Promise<RunResult> {
    if (marks !== undefined) marks.resolved(resolved.tool);
    const backend = resolved.selected ?? this.#resolver.select(toolId, resolved);
    if (this.#checks.input) this.#checks.checkInput(toolId, resolved, backend, args);
    // An abort during an async resolution (or from inside the validator) stops the call before dispatch.
    if (deadline !== undefined && deadline.aborted) throw abortToolError(toolId, 'execute', backend, deadline.reason);
    if (marks !== undefined) marks.dispatching();
    const idempotencyKey = call?.idempotencyKey;
    const policy = retryPolicyFor(resolved.tool, call?.retry, this.#retry);
    if (policy === undefined) return this.dispatcher.dispatch(toolId, resolved, backend, args, deadline, progress, idempotencyKey);
    return this.#dispatchWithRetries(policy, toolId, resolved, backend, args, deadline, progress, idempotencyKey);
  }

  /** Dispatch, attempted again on a transient failure as `policy` says ({@link withRetries}). */
  #dispatchWithRetries(
    policy: ResolvedRetryPolicy,
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    args: Record<string, unknown>,
    deadline: Deadline | undefined,
    progress: ProgressSink | undefined,
    idempotencyKey: string | undefined,
  ): RunResult | Promise<RunResult> {
    return withRetries(() => this.dispatcher.dispatch(toolId, resolved, backend, args, deadline, progress, idempotencyKey), {
      toolId,
      policy,
      deadline,
      idempotencyKey,
      onAttempt: this.#onAttempt,
      redact: (error) => this.telemetry.redactFailure(error, toolId, args),
    });
  }
}

/** Fails a call that is already stopped or names no tool. */
function checkStart(toolId: string, deadline: Deadline | undefined): void {
  if (deadline !== undefined && deadline.aborted) {
    throw abortToolError(typeof toolId === 'string' ? toolId : describeValue(toolId), 'resolve', undefined, deadline.reason);
  }
  if (typeof toolId !== 'string' || toolId === '') throw invalidToolId(toolId);
}

async function awaitResolve(pending: Promise<Resolved>, toolId: string, deadline: Deadline): Promise<Resolved> {
  const resolved = await deadline.race(pending);
  if (resolved === ABORTED) throw abortToolError(toolId, 'resolve', undefined, deadline.reason);
  return resolved;
}
