/**
 * A snippet in traces, metrics, events and logs: an `execute_code` span that every tool call the
 * snippet makes is a child of (the calls come back to the host's tools environment, which runs
 * them in the span's context, whatever sandbox the snippet ran in), the `sandbox.run` and
 * `limit.hit` events, the sandbox metrics, and the redaction of the run's call trace and failure.
 *
 * @internal
 * @module
 */
import { ToolexecError, type ErrorCode } from '../model/index.js';
import {
  SPAN_KIND,
  endSpanError,
  endSpanOk,
  eventError,
  recordLimitHit,
  recordSandboxRun,
  spanIds,
  startSpan,
  traceCarrier,
  withinSpan,
  type ActiveSpan,
  type Telemetry,
} from '../run/internal.js';
import type { ChainResult, ChainStep, RunResult } from '../run/index.js';
import type { GatewayCallOptions, SecurityProfile, ToolCallRecord } from '../runtime/index.js';
import { isSecurityProfile } from '../runtime/internal.js';
import type { CodeEngineParams, CodeParams, CodeResult, ToolsEnvironment } from './types.js';

/** The codes that mean a snippet hit a limit, when their `details.limit` names it. */
const LIMIT_CODES: ReadonlySet<ErrorCode> = new Set(['LIMIT_EXCEEDED', 'RESOURCE_LIMIT']);

/** The observation of one `executeCode` call. */
export class SnippetObserver {
  readonly #telemetry: Telemetry;
  readonly #active: ActiveSpan | undefined;
  readonly #started = performance.now();
  #language: string;
  /** The profile in force, once the executor resolved it (or the engine's result named it). */
  #profile: SecurityProfile | undefined;

  /**
   * Starts the `execute_code` span (when anyone listens). Only the language is known yet, from
   * `params` or `defaultLanguage`; the profile and limits in force are recorded once the executor
   * has resolved them ({@link SnippetObserver.engineParams}).
   */
  constructor(telemetry: Telemetry, params: CodeParams, defaultLanguage: string) {
    this.#telemetry = telemetry;
    // Only looks: the call's own reading (code/options.ts) refuses what cannot be read.
    let language: unknown;
    try {
      language = (params as Partial<CodeParams> | null | undefined)?.language;
    } catch {
      language = undefined;
    }
    this.#language = typeof language === 'string' && language !== '' ? language : defaultLanguage;
    this.#active = telemetry.active
      ? startSpan('execute_code', SPAN_KIND.INTERNAL, { 'toolexec.sandbox.language': this.#language })
      : undefined;
  }

  /**
   * Takes the engine's parameters — the call's, with the executor's defaults and caps applied — and
   * records what is in force: the language, the profile (when the call or the executor names one;
   * else the engine's, read from its result) and the limits, on the span and for the run's
   * `sandbox.run` event and metrics. Returns them with the snippet span's W3C trace context in
   * `metadata.traceparent` / `metadata.tracestate` (while tracing), for sandboxes that continue
   * the trace: a remote sandbox receives its request's metadata, and a guest that sends
   * `traceparent` on its gateway requests has its calls continue that trace.
   */
  engineParams(params: CodeEngineParams): CodeEngineParams {
    if (typeof params.language === 'string' && params.language !== '') this.#language = params.language;
    if (isSecurityProfile(params.profile)) this.#profile = params.profile;
    const active = this.#active;
    if (active === undefined) return params;
    active.span.setAttributes({
      'toolexec.sandbox.language': this.#language,
      ...(this.#profile === undefined ? {} : { 'toolexec.sandbox.profile': this.#profile }),
      ...(typeof params.timeoutMs === 'number' ? { 'toolexec.limit.timeout_ms': params.timeoutMs } : {}),
      ...(typeof params.maxToolCalls === 'number' ? { 'toolexec.limit.max_tool_calls': params.maxToolCalls } : {}),
    });
    return { ...params, metadata: { ...params.metadata, ...traceCarrier(active.context) } };
  }

  /** The environment to hand the engine: `tools` itself, or (while tracing) one whose tool calls run in the snippet's span. */
  environment(tools: ToolsEnvironment): ToolsEnvironment {
    const active = this.#active;
    return active === undefined ? tools : new SpanBoundEnvironment(tools, active);
  }

  /** A successful run: its trace redacted; span, metrics and events recorded. */
  finished(result: CodeResult): CodeResult {
    const { result: redacted, redactions } = this.#redactResult(result);
    this.#end(redacted, undefined, redactions);
    return redacted;
  }

  /** A failed run: its partial result and message redacted; span, metrics and events recorded. Returns `err`. */
  failed(err: unknown): unknown {
    const partial = ToolexecError.isInstance(err) ? (err.details?.result as CodeResult | undefined) : undefined;
    let redactions: string[] = [];
    if (partial !== undefined && partial !== null && typeof partial === 'object' && Array.isArray(partial.toolCalls)) {
      const redacted = this.#redactResult(partial);
      redactions = redacted.redactions;
      const scrubbed = redacted.secrets;
      if (ToolexecError.isInstance(err)) {
        Object.defineProperty(err, 'details', {
          value: { ...err.details, result: redacted.result },
          writable: true,
          configurable: true,
          enumerable: true,
        });
      }
      this.#telemetry.scrubFailure(err, scrubbed, redactions);
    }
    this.#end(partial, err, redactions);
    return err;
  }

  #redactResult(result: CodeResult): { result: CodeResult; redactions: string[]; secrets: string[] } {
    const redactions: string[] = [];
    const secrets: string[] = [];
    const toolCalls = result.toolCalls.map((record, i) => {
      if (record.args === undefined) return record;
      const redacted = this.#telemetry.redactArgs(record.toolId, record.args);
      if (redacted.redactions.length === 0) return record;
      secrets.push(...redacted.secrets);
      redactions.push(...redacted.redactions.map((pointer) => `/toolCalls/${i}/args${pointer}`));
      const copy: ToolCallRecord = { ...record, args: redacted.value, redactions: redacted.redactions };
      return copy;
    });
    if (secrets.length === 0) return { result, redactions, secrets };
    // an error text of a call may quote what its arguments carried
    const scrubbed = toolCalls.map((record) => {
      if (record.error === undefined) return record;
      const probe = new Error(record.error);
      this.#telemetry.scrubFailure(probe, secrets, []);
      return probe.message === record.error ? record : { ...record, error: probe.message };
    });
    return { result: { ...result, toolCalls: scrubbed }, redactions, secrets };
  }

  #end(result: CodeResult | undefined, err: unknown, redactions: string[]): void {
    const durationMs = performance.now() - this.#started;
    const backend = result?.backend?.kind;
    const profile = (this.#profile ??= profileOf(result));
    const toolCalls = result?.toolCalls?.length ?? 0;
    const code = err === undefined ? undefined : ToolexecError.isInstance(err) ? err.code : 'CODE_EXECUTION';
    const limit = err === undefined ? undefined : limitOf(err);
    const active = this.#active;
    const ids = spanIds(active);
    if (active !== undefined) {
      const attributes = {
        'toolexec.code.tool_calls': toolCalls,
        'toolexec.duration_ms': durationMs,
        ...(backend === undefined ? {} : { 'toolexec.sandbox.backend': backend }),
        ...(profile === undefined ? {} : { 'toolexec.sandbox.profile': profile }),
        ...(limit === undefined ? {} : { 'toolexec.limit.hit': limit.limit }),
      };
      if (err === undefined) endSpanOk(active, attributes);
      else endSpanError(active, err, attributes);
    }
    recordSandboxRun(backend, profile, durationMs, code);
    if (limit !== undefined) recordLimitHit(limit.limit, backend);
    const telemetry = this.#telemetry;
    const time = Date.now();
    const run: Parameters<Telemetry['emit']>[0] = {
      type: 'sandbox.run',
      time,
      language: this.#language,
      outcome: err === undefined ? 'ok' : 'error',
      durationMs,
      toolCalls,
      ...ids,
    };
    if (profile !== undefined) run.profile = profile;
    if (backend !== undefined) run.backend = backend;
    if (err !== undefined) run.error = eventError(err);
    if (redactions.length > 0) run.redactions = redactions;
    telemetry.emit(run);
    if (limit !== undefined) {
      telemetry.emit({
        type: 'limit.hit',
        time,
        limit: limit.limit,
        code: limit.code,
        ...(backend === undefined ? {} : { backend }),
        ...ids,
      });
    }
  }
}

/** The profile a run's result names (`backend.details.profile`, the runtime engine's), when it is one. */
function profileOf(result: CodeResult | undefined): SecurityProfile | undefined {
  try {
    const profile = result?.backend?.details?.profile;
    return isSecurityProfile(profile) ? profile : undefined;
  } catch {
    return undefined;
  }
}

/** The limit an error (or an error on its cause chain) reports: `details.limit` of a LIMIT_EXCEEDED or RESOURCE_LIMIT. */
function limitOf(err: unknown): { limit: string; code: ErrorCode } | undefined {
  const seen = new Set<unknown>();
  for (let current = err; ToolexecError.isInstance(current) && !seen.has(current); current = current.cause) {
    seen.add(current);
    const limit = current.details?.limit;
    if (LIMIT_CODES.has(current.code) && typeof limit === 'string') return { limit, code: current.code };
  }
  return undefined;
}

/** A tools environment whose gateway calls run in the snippet's span context (so its tool calls are the span's children). */
class SpanBoundEnvironment implements ToolsEnvironment {
  readonly #tools: ToolsEnvironment;
  readonly #active: ActiveSpan;

  constructor(tools: ToolsEnvironment, active: ActiveSpan) {
    this.#tools = tools;
    this.#active = active;
  }

  get stdout(): string {
    return this.#tools.stdout;
  }

  get toolCalls(): ToolCallRecord[] {
    return this.#tools.toolCalls;
  }

  get signal(): AbortSignal {
    return this.#tools.signal;
  }

  getToolCalls(): ToolCallRecord[] {
    return this.#tools.getToolCalls();
  }

  println(...values: unknown[]): void {
    this.#tools.println(...values);
  }

  searchTools(query: string, limit: number, options?: GatewayCallOptions): ReturnType<ToolsEnvironment['searchTools']> {
    return withinSpan(this.#active, () => this.#tools.searchTools(query, limit, options));
  }

  listNamespaces(options?: GatewayCallOptions): Promise<string[]> {
    return withinSpan(this.#active, () => this.#tools.listNamespaces(options));
  }

  describeTool(...args: Parameters<ToolsEnvironment['describeTool']>): ReturnType<ToolsEnvironment['describeTool']> {
    return withinSpan(this.#active, () => this.#tools.describeTool(...args));
  }

  listToolExamples(...args: Parameters<ToolsEnvironment['listToolExamples']>): ReturnType<ToolsEnvironment['listToolExamples']> {
    return withinSpan(this.#active, () => this.#tools.listToolExamples(...args));
  }

  runTool(id: string, args?: Record<string, unknown>, options?: GatewayCallOptions): Promise<RunResult> {
    return withinSpan(this.#active, () => this.#tools.runTool(id, args, options));
  }

  runChain(steps: readonly ChainStep[], options?: GatewayCallOptions): Promise<ChainResult> {
    return withinSpan(this.#active, () => this.#tools.runChain(steps, options));
  }
}
