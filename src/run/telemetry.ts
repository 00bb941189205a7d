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
import type { Attributes } from '@opentelemetry/api';
import { ToolexecError, errorMessage, type Tool } from '../model/index.js';
import { Redactor, scrubError, type Redacted } from '../model/internal.js';
import type { CallMode, EventError, ExecEvent, Logger } from './events.js';
import { otelRegistered } from './otel.js';
import { endSpanError, endSpanOk, recordCall, spanIds, startSpan, withContext, SPAN_KIND } from './spans.js';
import type { ChainStep, RunResult, StreamEvent } from './types.js';

/** Where events go: the `onEvent` callback, subscribers and the logger. */
export class EventSink {
  readonly #onEvent: ((event: ExecEvent) => void) | undefined;
  readonly #logger: Logger | undefined;
  readonly #subscribers = new Set<(event: ExecEvent) => void>();
  #listening: boolean;

  constructor(onEvent?: (event: ExecEvent) => void, logger?: Logger) {
    this.#onEvent = onEvent;
    this.#logger = logger;
    this.#listening = onEvent !== undefined || logger !== undefined;
  }

  /** True when anyone receives events. */
  get listening(): boolean {
    return this.#listening;
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (event: ExecEvent) => void): () => void {
    this.#subscribers.add(listener);
    this.#listening = true;
    return () => {
      this.#subscribers.delete(listener);
      this.#listening = this.#onEvent !== undefined || this.#logger !== undefined || this.#subscribers.size > 0;
    };
  }

  /** Delivers an event; a listener or logger that throws cannot fail the work it is told about. */
  emit(event: ExecEvent): void {
    if (!this.#listening) return;
    const deliver = (listener: (event: ExecEvent) => void): void => {
      try {
        listener(event);
      } catch {
        // events are advisory: a failing listener is its own problem
      }
    };
    if (this.#onEvent !== undefined) deliver(this.#onEvent);
    for (const listener of this.#subscribers) deliver(listener);
    const logger = this.#logger;
    if (logger !== undefined) deliver((e) => log(logger, e));
  }
}

/** Writes an event to a pino-style logger at its level (see {@link Logger}). */
function log(logger: Logger, event: ExecEvent): void {
  switch (event.type) {
    case 'call.started':
      return logger.debug(event, `tool call started: ${event.toolId}`);
    case 'call.finished':
      return logger.debug(event, `tool call finished: ${event.toolId}`);
    case 'call.failed':
      return logger.warn(event, `tool call failed: ${event.toolId}: ${event.error.code}`);
    case 'server.status':
      if (event.state === 'failed') return logger.warn(event, `MCP server ${event.server} failed`);
      return logger.info(event, `MCP server ${event.server} ${event.state}`);
    case 'sandbox.run':
      if (event.outcome === 'error') return logger.error(event, `snippet failed: ${event.error?.code ?? 'unknown'}`);
      return logger.debug(event, 'snippet ran');
    case 'limit.hit':
      return logger.warn(event, `snippet hit its ${event.limit} limit`);
  }
}

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

/** Phase marks of one traced call (filled by the pipeline when given). */
export interface PhaseMarks {
  /** `performance.now()` when dispatch began (0 until then). */
  dispatchAt: number;
}

/** An error as events carry it. */
export function eventError(err: unknown): EventError {
  if (!ToolexecError.isInstance(err)) return { code: 'EXECUTION', message: errorMessage(err) };
  const shape: EventError = { code: err.code, message: err.message };
  if (err.details !== undefined) shape.details = err.details;
  return shape;
}

const GEN_AI_TOOL_TYPE: Record<string, string> = { local: 'function', provider: 'extension', mcp: 'extension' };

let callCounter = 0;
/** A short call ID, unique in this process. */
function newCallId(): string {
  callCounter = (callCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `call_${process.pid.toString(36)}_${callCounter.toString(36)}`;
}

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

  constructor(config: TelemetryConfig, toolOf: (toolId: string) => Tool | undefined) {
    this.config = config;
    this.#toolOf = toolOf;
  }

  /** True when anyone listens: an event listener or logger, or a registered tracer or meter provider. The hot path's one check. */
  get active(): boolean {
    return this.config.sink.listening || otelRegistered();
  }

  /** The redactor of a tool (the configured paths plus the tool's own). */
  redactorFor(toolId: string): Redactor {
    let tool: Tool | undefined;
    try {
      tool = this.#toolOf(toolId);
    } catch {
      tool = undefined;
    }
    return this.config.redactor.forTool(tool);
  }

  /** A tool call's arguments, redacted. */
  redactArgs(toolId: string, args: Record<string, unknown>): Redacted<Record<string, unknown>> {
    return this.redactorFor(toolId).redact(args);
  }

  /** Emits an event (when anyone listens). */
  emit(event: ExecEvent): void {
    this.config.sink.emit(event);
  }

  /**
   * Scrubs the redacted values of `args` out of a failure (its message, stack, details and cause
   * chain) and lists their pointers in `details.redactions`. Returns `err`, the same object. Safe
   * to call more than once.
   */
  redactFailure(err: unknown, toolId: string, args: Record<string, unknown> | undefined): unknown {
    if (args === undefined || err === null || typeof err !== 'object' || redactedErrors.has(err)) return err;
    redactedErrors.add(err);
    const { secrets, redactions } = this.redactArgs(toolId, args);
    if (scrubError(err, secrets)) markRedactions(err, redactions);
    return err;
  }

  /** Scrubs `secrets` out of an error (see {@link Telemetry.redactFailure}) and records `redactions` on it. */
  scrubFailure(err: unknown, secrets: readonly string[], redactions: readonly string[]): void {
    if (err === null || typeof err !== 'object') return;
    redactedErrors.add(err);
    if (scrubError(err, secrets)) markRedactions(err, redactions);
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
    const started = performance.now();
    const callId = newCallId();
    const redacted = this.redactArgs(toolId, args);
    const active = startSpan(`execute_tool ${toolId}`, SPAN_KIND.INTERNAL, callAttributes(toolId, callId, mode, redacted));
    const ids = spanIds(active);
    const sink = this.config.sink;
    if (sink.listening) {
      const event: ExecEvent = { type: 'call.started', time: Date.now(), callId, toolId, mode, args: redacted.value, ...ids };
      if (redacted.redactions.length > 0) event.redactions = redacted.redactions;
      sink.emit(event);
    }
    const marks: PhaseMarks | undefined = active === undefined ? undefined : { dispatchAt: 0 };
    const done = (result: RunResult): RunResult => {
      const durationMs = performance.now() - started;
      const backendKind = backendKindOf(result);
      if (active !== undefined) endSpanOk(active, finalAttributes(result.tool?.name, backendKind, started, marks));
      recordCall(toolId, backendKind, durationMs, undefined);
      if (sink.listening) {
        const event: ExecEvent = { type: 'call.finished', time: Date.now(), callId, toolId, mode, durationMs, ...ids };
        if (backendKind !== undefined) event.backendKind = backendKind;
        sink.emit(event);
      }
      return result;
    };
    const failed = (err: unknown): unknown => {
      const durationMs = performance.now() - started;
      if (!redactedErrors.has(err as object)) this.scrubFailure(err, redacted.secrets, redacted.redactions);
      const backendKind = backendKindOf(err);
      const code = ToolexecError.isInstance(err) ? err.code : 'EXECUTION';
      if (active !== undefined) endSpanError(active, err, finalAttributes(undefined, backendKind, started, marks));
      recordCall(toolId, backendKind, durationMs, code);
      if (sink.listening) {
        const event: ExecEvent = {
          type: 'call.failed',
          time: Date.now(),
          callId,
          toolId,
          mode,
          durationMs,
          error: eventError(err),
          ...ids,
        };
        if (backendKind !== undefined) event.backendKind = backendKind;
        const redactions = (err as { details?: { redactions?: unknown } }).details?.redactions;
        if (Array.isArray(redactions)) event.redactions = redactions as string[];
        sink.emit(event);
      }
      return err;
    };
    let out: RunResult | Promise<RunResult>;
    try {
      out = active === undefined ? run(marks) : withContext(active.context, run, marks);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the call's own failure, redacted
      return Promise.reject(failed(err));
    }
    if (out instanceof Promise) {
      return out.then(done, (err: unknown) => {
        throw failed(err);
      });
    }
    return Promise.resolve(done(out));
  }

  /**
   * A chain: a `run_chain` span (steps are its children), the failure redacted with every step's
   * arguments. `run` is called in the span's context.
   */
  async chain<T>(steps: readonly ChainStep[], run: () => Promise<T>): Promise<T> {
    const active = otelRegistered()
      ? startSpan('run_chain', SPAN_KIND.INTERNAL, { 'gen_ai.operation.name': 'execute_tool', 'toolexec.chain.steps': steps.length })
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
    (Array.isArray(steps) ? steps : []).forEach((step, i) => {
      if (step === null || typeof step !== 'object' || step.args === null || typeof step.args !== 'object') return;
      const redacted = this.redactArgs(String(step.toolId), step.args);
      secrets.push(...redacted.secrets);
      redactions.push(...redacted.redactions.map((pointer) => `/${i}/args${pointer}`));
    });
    redactedErrors.delete(err);
    this.scrubFailure(err, secrets, redactions);
  }

  /**
   * A stream: an `execute_tool {toolId}` span from the first `next()` to the end, `call.*`
   * events, error events and failures redacted. The source is pulled in the span's context.
   */
  async *stream(
    toolId: string,
    args: Record<string, unknown>,
    open: () => AsyncIterable<StreamEvent>,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const redacted = this.redactArgs(toolId, args);
    const scrub = (err: unknown): void => this.scrubFailure(err, redacted.secrets, redacted.redactions);
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
    const { next, end } = this.#streamScope(toolId, redacted);
    const iterator = next(() => Promise.resolve(open()[Symbol.asyncIterator]()));
    let chunks = 0;
    try {
      for (;;) {
        const source = await iterator;
        const step = await next(() => source.next());
        if (step.done === true) break;
        const event = step.value;
        if (event.kind === 'chunk') chunks++;
        if (event.kind === 'error' && event.error !== undefined) scrub(event.error);
        yield event;
      }
      end(undefined, chunks);
    } catch (err) {
      scrub(err);
      end(err, chunks);
      throw err;
    } finally {
      end(undefined, chunks);
      await (await iterator.catch(() => undefined))?.return?.();
    }
  }

  /** The span and events of one stream. */
  #streamScope(
    toolId: string,
    redacted: Redacted<Record<string, unknown>>,
  ): { next: <T>(pull: () => Promise<T>) => Promise<T>; end: (err: unknown, chunks: number) => void } {
    const started = performance.now();
    const callId = newCallId();
    const active = startSpan(`execute_tool ${toolId}`, SPAN_KIND.INTERNAL, callAttributes(toolId, callId, 'stream', redacted));
    const ids = spanIds(active);
    const sink = this.config.sink;
    if (sink.listening) {
      const event: ExecEvent = { type: 'call.started', time: Date.now(), callId, toolId, mode: 'stream', args: redacted.value, ...ids };
      if (redacted.redactions.length > 0) event.redactions = redacted.redactions;
      sink.emit(event);
    }
    let ended = false;
    return {
      next: (pull) => (active === undefined ? pull() : withContext(active.context, pull)),
      end: (err, chunks) => {
        if (ended) return;
        ended = true;
        const durationMs = performance.now() - started;
        const backendKind = backendKindOf(err);
        const code = err === undefined ? undefined : ToolexecError.isInstance(err) ? err.code : 'EXECUTION';
        const attributes: Attributes = { 'toolexec.stream.chunks': chunks, 'toolexec.duration_ms': durationMs };
        if (active !== undefined) {
          if (err === undefined) endSpanOk(active, attributes);
          else endSpanError(active, err, attributes);
        }
        recordCall(toolId, backendKind, durationMs, code);
        if (!sink.listening) return;
        if (err === undefined) sink.emit({ type: 'call.finished', time: Date.now(), callId, toolId, mode: 'stream', durationMs, ...ids });
        else
          sink.emit({ type: 'call.failed', time: Date.now(), callId, toolId, mode: 'stream', durationMs, error: eventError(err), ...ids });
      },
    };
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

/** The attributes a call's span starts with. */
function callAttributes(toolId: string, callId: string, mode: CallMode, redacted: Redacted<Record<string, unknown>>): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': toolId,
    'gen_ai.tool.call.id': callId,
    'toolexec.tool.id': toolId,
    'toolexec.call.mode': mode,
  };
  let json: string | undefined;
  try {
    json = JSON.stringify(redacted.value);
  } catch {
    json = undefined;
  }
  if (json !== undefined) attributes['gen_ai.tool.call.arguments'] = json.length > 4096 ? `${json.slice(0, 4096)}…` : json;
  if (redacted.redactions.length > 0) attributes['toolexec.redactions'] = redacted.redactions;
  return attributes;
}

/** The attributes a call's span ends with: backend kind, tool name, and the phase durations. */
function finalAttributes(
  name: string | undefined,
  backendKind: string | undefined,
  started: number,
  marks: PhaseMarks | undefined,
): Attributes {
  const now = performance.now();
  const attributes: Attributes = { 'toolexec.duration_ms': now - started };
  if (backendKind !== undefined) {
    attributes['toolexec.backend.kind'] = backendKind;
    const type = GEN_AI_TOOL_TYPE[backendKind];
    if (type !== undefined) attributes['gen_ai.tool.type'] = type;
  }
  if (name !== undefined) attributes['toolexec.tool.name'] = name;
  if (marks !== undefined && marks.dispatchAt > 0) {
    attributes['toolexec.phase.prepare_ms'] = marks.dispatchAt - started;
    attributes['toolexec.phase.execute_ms'] = now - marks.dispatchAt;
  }
  return attributes;
}
