/**
 * Observability, in one place: spans, metrics, events, log lines and redaction of every tool call,
 * chain and stream. The runner holds one {@link Telemetry}; the layers above reach it through
 * `telemetryOf(runner)` (run/internal.ts) for chains, snippets and server status, so there is one
 * mechanism and one configuration ({@link TelemetryConfig}: the redactor and the event sink).
 *
 * The cost when nobody listens: the runner asks {@link Telemetry.active} once per call — a field
 * read and one global read (is a tracer or meter provider registered with `@opentelemetry/api`?)
 * — and takes its plain path.
 *
 * @internal
 * @module
 */
import { ToolexecError, type Tool } from '../model/index.js';
import { REDACTED, Redactor, redactErrorDetails, scrubError, type Redacted } from '../model/internal.js';
import type { CallMode, ExecEvent } from './events.js';
import { EventSink } from './event-sink.js';
import { otelRegistered } from './otel.js';
import { CallScope, eventError, type FailedTool, type PhaseMarks, type ScopeArgs } from './call-scope.js';
import { endSpanError, endSpanOk, startSpan, withContext, SPAN_KIND } from './spans.js';
import type { ChainStep, RunResult, RunWarning, StreamEvent } from './types.js';

/** What a runner's telemetry is made from: shared by everything one facade creates. */
export interface TelemetryConfig {
  /** The redaction paths (defaults plus the facade's `redact`). */
  redactor: Redactor;
  /** Where events go. */
  sink: EventSink;
}

let defaultConfig: TelemetryConfig | undefined;

/** The configuration of a runner made without one: default redaction, no listeners. */
export function defaultTelemetryConfig(): TelemetryConfig {
  return (defaultConfig ??= { redactor: new Redactor(), sink: new EventSink() });
}

export { eventError, type PhaseMarks } from './call-scope.js';
export { EventSink };

/** What a call without arguments has to redact. */
const NOTHING_REDACTED: Pick<Redacted<unknown>, 'secrets' | 'redactions'> = Object.freeze({ secrets: [], redactions: [] });

/** The errors already redacted (a call's error passes through more than one observer). */
const redactedErrors = new WeakSet<object>();

/** The backend kind of a result or a failure. */
function backendKindOf(value: unknown): string | undefined {
  const kind = (value as { backend?: { kind?: unknown } } | null | undefined)?.backend?.kind;
  return typeof kind === 'string' ? kind : undefined;
}

/** One runner's telemetry: its configuration plus how it finds a tool by ID (for per-tool redaction). */
export class Telemetry {
  readonly config: TelemetryConfig;
  readonly #toolOf: (toolId: string) => Tool | undefined;
  readonly #sink: EventSink;

  constructor(config: TelemetryConfig, toolOf: (toolId: string) => Tool | undefined) {
    this.config = config;
    this.#toolOf = toolOf;
    this.#sink = config.sink;
  }

  /** True when anyone listens: an event listener or logger, or a registered tracer or meter provider. The hot path's one check. */
  get active(): boolean {
    return this.#sink.listening || otelRegistered();
  }

  /** The redactor of a tool (the configured paths plus the tool's own). */
  redactorFor(toolId: string): Redactor {
    return this.config.redactor.forTool(this.#lookup(toolId));
  }

  /** The tool `toolId` names, when the runner knows it (a lookup that throws finds nothing). */
  #lookup(toolId: string): Tool | undefined {
    try {
      return this.#toolOf(toolId);
    } catch {
      return undefined;
    }
  }

  /**
   * What a failed call's end knows of its tool: its name when the runner knows the tool; resolved
   * when it knows it or the failure names the backend it was dispatched to.
   */
  #failedTool(toolId: string, err: unknown): FailedTool {
    const tool = this.#lookup(toolId);
    if (tool !== undefined) return { name: typeof tool.name === 'string' ? tool.name : undefined, resolved: true };
    return { name: undefined, resolved: backendKindOf(err) !== undefined };
  }

  /** A tool call's arguments, redacted. */
  redactArgs(toolId: string, args: Record<string, unknown>): Redacted<Record<string, unknown>> {
    return this.#redact(this.#lookup(toolId), args);
  }

  /** `args` redacted by the configured paths plus `tool`'s own. */
  #redact(tool: Tool | undefined, args: Record<string, unknown>): Redacted<Record<string, unknown>> {
    try {
      return this.config.redactor.forTool(tool).redact(args);
    } catch {
      // Arguments that cannot be read (a throwing getter, a revoked proxy): nothing of them is
      // emitted; the call itself fails on them with its own error.
      return { value: { arguments: REDACTED }, redactions: [''], secrets: [] };
    }
  }

  /** Emits an event (when anyone listens). */
  emit(event: ExecEvent): void {
    this.config.sink.emit(event);
  }

  /** A call's non-fatal problem, as a `call.warning` event (and a `warn` log line) when anyone listens. */
  warned(warning: RunWarning): void {
    const sink = this.config.sink;
    if (!sink.listening) return;
    sink.emit({
      type: 'call.warning',
      time: Date.now(),
      toolId: warning.toolId,
      backendKind: String(warning.backend.kind),
      error: eventError(warning.error),
    });
  }

  /**
   * Scrubs the redacted values of `args` out of a failure (its message, stack, details and cause
   * chain), redacts the failure's own `details` by the tool's paths (see {@link redactErrorDetails})
   * and lists the pointers of both in `details.redactions`. Returns `err`, the same object. Safe to
   * call more than once.
   */
  redactFailure(err: unknown, toolId: string, args: Record<string, unknown> | undefined): unknown {
    if (err === null || typeof err !== 'object' || redactedErrors.has(err)) return err;
    const { secrets, redactions } = args === undefined ? NOTHING_REDACTED : this.redactArgs(toolId, args);
    this.#scrub(err, secrets, redactions, this.redactorFor(toolId));
    return err;
  }

  /**
   * Scrubs `secrets` out of an error, redacts its own `details` by the configured paths (see
   * {@link Telemetry.redactFailure}) and records `redactions` on it.
   */
  scrubFailure(err: unknown, secrets: readonly string[], redactions: readonly string[]): void {
    if (err === null || typeof err !== 'object') return;
    this.#scrub(err, secrets, redactions, this.config.redactor);
  }

  #scrub(err: object, secrets: readonly string[], redactions: readonly string[], redactor: Redactor): void {
    redactedErrors.add(err);
    const own = redactErrorDetails(err, redactor);
    const scrubbed = scrubError(err, own.secrets.length === 0 ? secrets : [...secrets, ...own.secrets]);
    if (scrubbed || own.redactions.length > 0)
      markRedactions(err, own.redactions.length === 0 ? redactions : [...redactions, ...own.redactions]);
  }

  /**
   * One observed call: an `execute_tool {toolId}` span active while `run` works (so MCP requests
   * and nested calls are its children), `call.*` events, metrics, and the failure redacted.
   */
  call(
    toolId: string,
    args: Record<string, unknown>,
    mode: CallMode,
    run: (marks: PhaseMarks | undefined) => RunResult | Promise<RunResult>,
  ): Promise<RunResult> {
    const scope = new CallScope(this.config.sink, toolId, mode, this.#scopeArgs(toolId, args));
    let out: RunResult | Promise<RunResult>;
    try {
      out = scope.active === undefined ? run(scope.marks) : withContext(scope.active.context, run, scope.marks);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the call's own failure, redacted
      return Promise.reject(this.#failed(scope, err));
    }
    if (out instanceof Promise) return this.#settle(scope, out);
    scope.succeeded(out.backend?.kind, out.tool?.name);
    return Promise.resolve(out);
  }

  /**
   * A call's arguments for its scope: redacted now when the runner knows the tool, else redacted
   * once it does (a tool from the `toolResolver` has its own redaction paths).
   */
  #scopeArgs(toolId: string, args: Record<string, unknown>): ScopeArgs {
    const tool = this.#lookup(toolId);
    if (tool !== undefined) return this.#redact(tool, args);
    return (resolved) => this.#redact(resolved ?? this.#lookup(toolId), args);
  }

  async #settle(scope: CallScope, pending: Promise<RunResult>): Promise<RunResult> {
    let result: RunResult;
    try {
      result = await pending;
    } catch (err) {
      throw this.#failed(scope, err);
    }
    scope.succeeded(result.backend?.kind, result.tool?.name);
    return result;
  }

  #failed(scope: CallScope, err: unknown): unknown {
    if (err === null || typeof err !== 'object' || !redactedErrors.has(err)) {
      const redacted = scope.redactedArgs();
      this.scrubFailure(err, redacted.secrets, redacted.redactions);
    }
    scope.failed(err, backendKindOf(err), this.#failedTool(scope.toolId, err));
    return err;
  }

  /**
   * A chain: a `run_chain` span (steps are its children), the failure redacted with every step's
   * arguments. `run` is called in the span's context.
   */
  async chain<T>(steps: readonly ChainStep[], run: () => Promise<T>): Promise<T> {
    const active = otelRegistered()
      ? startSpan('run_chain', SPAN_KIND.INTERNAL, { 'gen_ai.operation.name': 'execute_tool', 'toolexec.chain.steps': stepCount(steps) })
      : undefined;
    try {
      const result = await (active === undefined ? run() : withContext(active.context, run));
      if (active !== undefined) endSpanOk(active);
      return result;
    } catch (err) {
      this.redactChainFailure(err, steps);
      if (active !== undefined) endSpanError(active, err);
      throw err;
    }
  }

  /** Scrubs every step's redacted argument values out of a chain's failure. */
  redactChainFailure(err: unknown, steps: readonly ChainStep[]): void {
    if (err === null || typeof err !== 'object') return;
    const secrets: string[] = [];
    const redactions: string[] = [];
    try {
      (Array.isArray(steps) ? steps : []).forEach((step, i) => {
        if (step === null || typeof step !== 'object' || step.args === null || typeof step.args !== 'object') return;
        const redacted = this.redactArgs(typeof step.toolId === 'string' ? step.toolId : '', step.args);
        secrets.push(...redacted.secrets);
        redactions.push(...redacted.redactions.map((pointer) => `/${i}/args${pointer}`));
      });
    } catch {
      // steps that cannot be read (a revoked proxy, a throwing getter) were not quoted either
      return;
    }
    redactedErrors.delete(err);
    this.scrubFailure(err, secrets, redactions);
  }

  /**
   * A stream: an `execute_tool {toolId}` span from the first `next()` to the end, `call.*`
   * events, error events and failures redacted. The source is pulled in the span's context.
   *
   * A source that ends with a `ToolexecError` as its return value (`streamEvents` does, when the
   * caller's signal stopped it: `ABORTED`, or `TIMEOUT` for a timeout reason) ends quietly for the
   * consumer but is recorded as that failure. A consumer that leaves early is recorded as a success.
   */
  async *stream(
    toolId: string,
    args: Record<string, unknown>,
    open: (marks?: PhaseMarks) => AsyncIterable<StreamEvent, unknown>,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    // Redacted when something fails (by then a tool from the resolver is known too).
    let redactedArgs = (): Redacted<Record<string, unknown>> => this.redactArgs(toolId, args);
    const scrub = (err: unknown): void => {
      const redacted = redactedArgs();
      this.scrubFailure(err, redacted.secrets, redacted.redactions);
    };
    if (!this.active) {
      try {
        for await (const event of open()) {
          if (event.kind === 'error' && event.error !== undefined) scrub(event.error);
          yield event;
        }
      } catch (err) {
        scrub(err);
        throw err;
      }
      return;
    }
    // The span and events of a stream are those of a call whose work is the whole iteration.
    const scope = new CallScope(this.config.sink, toolId, 'stream', this.#scopeArgs(toolId, args));
    redactedArgs = () => scope.redactedArgs();
    const context = scope.active?.context;
    // The scope is the stream's marks whether or not it has a span: its end needs the backend kind.
    const iterator =
      context === undefined ? open(scope)[Symbol.asyncIterator]() : withContext(context, () => open(scope)[Symbol.asyncIterator]());
    let chunks = 0;
    try {
      for (;;) {
        const step = await (context === undefined ? iterator.next() : withContext(context, () => iterator.next()));
        if (step.done === true) {
          const stopped: unknown = step.value;
          if (ToolexecError.isInstance(stopped)) this.#streamFailed(scope, stopped, scrub, chunks);
          break;
        }
        const event = step.value;
        if (event.kind === 'chunk') chunks++;
        if (event.kind === 'error' && event.error !== undefined) scrub(event.error);
        yield event;
      }
    } catch (err) {
      this.#streamFailed(scope, err, scrub, chunks);
      throw err;
    } finally {
      // finished, or left early by the consumer
      scope.succeeded(undefined, this.#lookup(toolId)?.name, { 'toolexec.stream.chunks': chunks });
      await iterator.return?.();
    }
  }

  /** A stream's failure (thrown, or the stop its source returned): redacted, then its scope ended. */
  #streamFailed(scope: CallScope, err: unknown, scrub: (err: unknown) => void, chunks: number): void {
    scrub(err);
    scope.failed(err, backendKindOf(err), this.#failedTool(scope.toolId, err), { 'toolexec.stream.chunks': chunks });
  }
}

/** Lists `redactions` in a library error's `details.redactions`. */
function markRedactions(err: unknown, redactions: readonly string[]): void {
  if (!ToolexecError.isInstance(err) || redactions.length === 0) return;
  const details = { ...err.details, redactions: [...redactions] };
  try {
    Object.defineProperty(err, 'details', { value: details, writable: true, configurable: true, enumerable: true });
  } catch {
    // a frozen error keeps its details
  }
}

/** How many steps a chain has, for a span attribute: 0 when the steps cannot be read. */
function stepCount(steps: readonly ChainStep[]): number {
  try {
    return Array.isArray(steps) ? steps.length : 0;
  } catch {
    return 0;
  }
}
