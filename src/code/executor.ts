/**
 * The code executor: applies defaults and limits, gives every
 * execution a fresh tools environment, runs the engine under a deadline and assembles the result.
 */
import { setMaxListeners } from 'node:events';
import { ToolexecError, findError } from '../model/index.js';
import { createRuntime, type Runtime } from '../runtime/index.js';
import { onAbort } from '../model/internal.js';
import { RunClock } from './run-clock.js';
import { snippetAbortError, snippetTimeoutError, withCodeResult } from './errors.js';
import {
  ENGINE_STOP_GRACE_MS,
  resolveCodeExecutorOptions,
  resolveCodeParams,
  type ResolvedCodeExecutorOptions,
  type ResolvedCodeParams,
} from './options.js';
import { RuntimeEngine } from './runtime-engine.js';
import { DefaultToolsEnvironment } from './tools-environment.js';
import { telemetryOf } from '../run/internal.js';
import { SnippetObserver } from './telemetry.js';
import type {
  CodeEngine,
  CodeEngineParams,
  CodeEngineResult,
  CodeExecutor,
  CodeExecutorOptions,
  CodeParams,
  CodeResult,
  ToolsEnvironment,
} from './types.js';

type Settled = { ok: true; value: CodeEngineResult } | { ok: false; error: unknown } | { ok: false; stopped: true };

/**
 * The standard {@link CodeExecutor}.
 *
 * @remarks
 * Per call:
 * 1. The call's language, timeout, queue bound, memory cap and profile default to the executor's
 *    (`javascript`, 30 s, 30 s, the backend's).
 *    `maxToolCalls` is capped by the executor's; the engine sees the capped value,
 *    `maxChainSteps` is the executor's.
 * 2. A fresh {@link DefaultToolsEnvironment} with those limits, bound to the execution's signal:
 *    aborted by the caller's signal or the timeout, which counts from the snippet's start when the
 *    engine reports it (`reportsStart`; the runtime engine does, once its sandbox worker is
 *    assigned), else from the call. Time queued for a sandbox never counts against the timeout; the
 *    queue has its own bound (`queueTimeoutMs` → `LIMIT_EXCEEDED`, `details.limit: 'queue'`).
 * 3. The engine runs; when the signal aborts the executor waits at most
 *    {@link ENGINE_STOP_GRACE_MS} more for it to stop, then rejects with what it has.
 * 4. The result: the engine's value, stderr, backend; `stdout` = the engine's stdout followed by
 *    what `println` collected; `toolCalls` = the environment's trace
 *    (the one source of truth); `durationMs` measured here.
 * 5. Failures reject with a `ToolexecError` whose `details.result` holds the partial
 *    {@link CodeResult}. The deadline gives `LIMIT_EXCEEDED` (`limit exceeded: timeout after N ms`)
 *    whose `cause` is the `TIMEOUT`; the caller's abort gives `ABORTED`, `code execution aborted:
 *    <reason>`, whenever it lands (cause = the signal's reason); an engine's own errors keep their code.
 *
 * Empty code is not rejected here; it goes to the engine (the runtime engine answers `MISSING_CODE`).
 * Safe for concurrent calls: nothing is shared between executions but the index, docs and runner.
 */
export class DefaultCodeExecutor implements CodeExecutor {
  readonly #options: ResolvedCodeExecutorOptions;
  readonly #engine: CodeEngine;
  /** The runtime this executor created (and so closes). */
  readonly #ownedRuntime: Runtime | undefined;
  /** The clocks of the snippets running now (stopped by {@link DefaultCodeExecutor.close}). */
  readonly #running = new Set<RunClock>();
  #closed = false;

  constructor(options: CodeExecutorOptions) {
    this.#options = resolveCodeExecutorOptions(options);
    if (this.#options.engine !== undefined) {
      this.#engine = this.#options.engine;
    } else {
      const runtime = this.#options.runtime ?? (this.#ownedRuntime = createRuntime());
      this.#engine = new RuntimeEngine({ runtime, ...(this.#options.profile === undefined ? {} : { profile: this.#options.profile }) });
    }
  }

  /** The engine snippets run on. */
  get engine(): CodeEngine {
    return this.#engine;
  }

  async executeCode(params: CodeParams): Promise<CodeResult> {
    const observer = new SnippetObserver(telemetryOf(this.#options.runner), params, this.#options.defaultLanguage);
    try {
      return observer.finished(await this.#execute(params, observer));
    } catch (err) {
      throw observer.failed(err);
    }
  }

  async #execute(params: CodeParams, observer: SnippetObserver): Promise<CodeResult> {
    const started = performance.now();
    let call: ResolvedCodeParams;
    try {
      if (this.#closed) throw new ToolexecError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the code executor is closed');
      call = resolveCodeParams(params, this.#options);
    } catch (err) {
      throw withCodeResult(err, { stdout: '', stderr: '', toolCalls: [], durationMs: elapsedMsSince(started) });
    }
    const clock = new RunClock(call.signal, call.timeoutMs, call.queueTimeoutMs);
    this.#running.add(clock);
    // `timeoutMs` counts from the snippet's start when the engine reports it, else from now; an
    // absolute deadline is the caller's clock: waiting for a sandbox does not move it
    if (this.#engine.reportsStart !== true || call.deadlineMs !== undefined) clock.start();
    // Every tool call in flight listens on this signal; a snippet may run many at once.
    setMaxListeners(0, clock.signal);
    const tools = new DefaultToolsEnvironment({
      index: this.#options.index,
      docs: this.#options.docs,
      runner: this.#options.runner,
      maxToolCalls: call.maxToolCalls,
      maxChainSteps: this.#options.maxChainSteps,
      signal: clock.signal,
      ...(call.deadlineMs === undefined ? {} : { deadline: call.deadlineMs }),
    });
    let outcome: Settled;
    try {
      outcome = clock.signal.aborted
        ? { ok: false, stopped: true }
        : await this.#run(observer.engineParams(this.#engineParams(call, clock)), observer.environment(tools), clock.signal);
    } finally {
      this.#running.delete(clock);
      clock.dispose();
    }
    if (outcome.ok) {
      const result = assembleResult(outcome.value, tools, started);
      // a budget error fails the run even when the snippet caught it
      const limit = tools.limitError;
      if (limit !== undefined) throw withCodeResult(limit, result);
      return result;
    }
    const engineError = 'error' in outcome ? outcome.error : undefined;
    const partial = assembleResult(engineResultOf(engineError), tools, started);
    if (clock.signal.aborted) throw withCodeResult(stopError(clock, call, engineError), partial);
    throw withCodeResult(engineError, partial);
  }

  /**
   * Stops every snippet still running — its engine's signal and its tools' signal abort, so it
   * makes no further tool call, and it rejects with `RUNTIME_UNAVAILABLE` — and closes the runtime
   * the executor created; a runtime or engine it was given stays open (its owner closes it). Later
   * calls reject with `RUNTIME_UNAVAILABLE`. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const reason = closedDuringRun();
    for (const clock of this.#running) clock.close(reason);
    await this.#ownedRuntime?.close?.();
  }

  #engineParams(call: ResolvedCodeParams, clock: RunClock): CodeEngineParams {
    const params: CodeEngineParams = {
      code: call.code,
      language: call.language,
      timeoutMs: call.timeoutMs,
      queueTimeoutMs: call.queueTimeoutMs,
      maxToolCalls: call.maxToolCalls,
      maxChainSteps: this.#options.maxChainSteps,
      signal: clock.signal,
      onStart: () => clock.start(),
    };
    if (call.memoryBytes !== undefined) params.memoryBytes = call.memoryBytes;
    if (call.profile !== undefined) params.profile = call.profile;
    if (call.metadata !== undefined) params.metadata = call.metadata;
    if (call.strict) params.strict = true;
    if (call.timeoutFromDeadline) params.timeoutFromDeadline = true;
    if (call.timeoutDefaulted) params.timeoutDefaulted = true;
    if (call.queueTimeoutDefaulted) params.queueTimeoutDefaulted = true;
    if (call.languageDefaulted) params.languageDefaulted = true;
    return params;
  }

  /** Runs the engine; once `signal` aborts, waits at most the grace period for it to settle. */
  #run(params: CodeEngineParams, tools: ToolsEnvironment, signal: AbortSignal): Promise<Settled> {
    let pending: Promise<CodeEngineResult>;
    try {
      pending = Promise.resolve(this.#engine.execute(params, tools));
    } catch (err) {
      return Promise.resolve({ ok: false, error: err });
    }
    return new Promise<Settled>((resolve) => {
      let grace: ReturnType<typeof setTimeout> | undefined;
      let stopListening: (() => void) | undefined;
      const startGrace = (): void => {
        grace = setTimeout(() => resolve({ ok: false, stopped: true }), ENGINE_STOP_GRACE_MS);
      };
      const done = (outcome: Settled): void => {
        stopListening?.();
        if (grace !== undefined) clearTimeout(grace);
        resolve(outcome);
      };
      if (signal.aborted) startGrace();
      else stopListening = onAbort(signal, startGrace);
      pending.then(
        (value) => done({ ok: true, value }),
        (error: unknown) => done({ ok: false, error }),
      );
    });
  }
}

function assembleResult(engine: CodeEngineResult | undefined, tools: DefaultToolsEnvironment, started: number): CodeResult {
  const result: CodeResult = {
    stdout: (engine?.stdout ?? '') + tools.stdout,
    stderr: engine?.stderr ?? '',
    toolCalls: tools.toolCalls,
    durationMs: elapsedMsSince(started),
  };
  if (engine?.value !== undefined) result.value = engine.value;
  if (engine?.backend !== undefined) result.backend = engine.backend;
  if (engine?.limitsEnforced !== undefined) result.limitsEnforced = engine.limitsEnforced;
  if (engine?.warnings !== undefined && engine.warnings.length > 0) result.warnings = engine.warnings;
  return result;
}

function engineResultOf(err: unknown): CodeEngineResult | undefined {
  if (!ToolexecError.isInstance(err)) return undefined;
  const result = err.details?.result;
  return result !== null && typeof result === 'object' ? result : undefined;
}

/** Wall-clock milliseconds since `start` (from `performance.now()`), rounded to 0.001 ms. */
function elapsedMsSince(start: number): number {
  return Math.round((performance.now() - start) * 1000) / 1000;
}

/** Why a snippet running when its executor closed was stopped. */
function closedDuringRun(): ToolexecError {
  return new ToolexecError('RUNTIME_UNAVAILABLE', 'runtime unavailable: the code executor was closed during the run');
}

/**
 * The error for an execution stopped by its own signal: the snippet's deadline → `LIMIT_EXCEEDED`
 * (`limit exceeded: timeout after N ms`) whose cause is the `TIMEOUT` (the engine's own, when its
 * error carries one); the caller's signal → {@link snippetAbortError} (`ABORTED`, or `TIMEOUT`
 * when its reason is a timeout, `cause` the reason), the same whenever the abort landed (before
 * the start, in the queue, while running, during a tool call); the executor closing →
 * `RUNTIME_UNAVAILABLE`.
 */
function stopError(clock: RunClock, call: ResolvedCodeParams, engineError?: unknown): ToolexecError {
  if (clock.closed) return clock.signal.reason as ToolexecError;
  if (!clock.timedOut) return snippetAbortError(clock.signal.reason);
  const timeout =
    findError(engineError, 'TIMEOUT') ??
    new ToolexecError('TIMEOUT', `code execution timed out after ${call.timeoutMs} ms`, { cause: engineError ?? clock.signal.reason });
  return snippetTimeoutError(call.timeoutMs, timeout);
}

/**
 * Creates a {@link DefaultCodeExecutor}.
 *
 * @throws `CONFIGURATION` naming every missing required field (index, docs, runner) and every
 * invalid one, in one message.
 *
 * @example
 * ```ts
 * const code = createCodeExecutor({ index, docs, runner, maxToolCalls: 20 });
 * const { value, toolCalls } = await code.executeCode({
 *   code: 'const hits = await tools.searchTools("weather", 3); return hits.map((h) => h.id);',
 * });
 * await code.close();
 * ```
 */
export function createCodeExecutor(options: CodeExecutorOptions): DefaultCodeExecutor {
  return new DefaultCodeExecutor(options);
}
