/**
 * Spans, trace context and metrics through `@opentelemetry/api` (see `otel.ts`): the only file
 * that speaks to the API. Everything here is called only after the one cheap check
 * ({@link otelRegistered}) said a provider is registered.
 *
 * Span names and attributes follow the OpenTelemetry GenAI conventions for tool execution
 * (`execute_tool {gen_ai.tool.name}`, `gen_ai.operation.name`, `gen_ai.tool.name`,
 * `gen_ai.tool.call.id`, `gen_ai.tool.type`, `error.type`) plus `toolexec.*` attributes.
 *
 * @internal
 * @module
 */
import type { Attributes, Context, Counter, Histogram, Meter, MeterProvider, Span, Tracer, TracerProvider } from '@opentelemetry/api';
import { ToolexecError } from '../model/index.js';
import { MAX_QUOTED_CHARS, capText, scrubText } from '../model/internal.js';
import { metricsRegistered, otel, tracingRegistered } from './otel.js';

/** The instrumentation scope name of every span and instrument. */
export const INSTRUMENTATION_SCOPE = 'toolexec';

/** `SpanKind` values (the enum of the API, without loading it). */
export const SPAN_KIND = { INTERNAL: 0, CLIENT: 2 } as const;

/** The W3C trace context fields carried across a boundary (`_meta` of an MCP request, a gateway message). */
export interface TraceCarrier {
  /** `00-<trace id>-<span id>-<flags>`. */
  traceparent?: string;
  /** Vendor state, when there is any. */
  tracestate?: string;
}

/** A started span and the context that makes it the parent of what runs inside. */
export interface ActiveSpan {
  /** The span. */
  span: Span;
  /** The caller's context with this span set. */
  context: Context;
}

let tracerOwner: TracerProvider | undefined;
let tracer: Tracer | undefined;

function currentTracer(api: NonNullable<typeof otel>): Tracer {
  const provider = api.trace.getTracerProvider();
  if (provider !== tracerOwner || tracer === undefined) {
    tracerOwner = provider;
    tracer = provider.getTracer(INSTRUMENTATION_SCOPE);
  }
  return tracer;
}

/**
 * Starts a span under the active context (or `parent`); `undefined` when no tracer provider is
 * registered or the sampler dropped it (then nothing else is recorded either).
 */
export function startSpan(name: string, kind: number, attributes: Attributes, parent?: Context): ActiveSpan | undefined {
  const api = otel;
  if (api === undefined || !tracingRegistered()) return undefined;
  // A tracer, sampler or span processor that throws (the SDK calls processors' `onStart` inside
  // `startSpan`) costs the span, never the call.
  try {
    const base = parent ?? currentContext(api);
    const span = currentTracer(api).startSpan(name, { kind, attributes }, base);
    if (!span.isRecording()) {
      span.end();
      return undefined;
    }
    return { span, context: api.trace.setSpan(base, span) };
  } catch {
    return undefined;
  }
}

/** What a call's redaction removed, as the spans started inside the call see it (filled in once known). */
export interface SpanSecrets {
  /** The string values removed from the call's arguments. */
  secrets: readonly string[];
}

const SECRETS_KEY: symbol | undefined = otel?.createContextKey('toolexec.redacted-secrets');

/**
 * `active` with `holder` in its context: a span started inside it (an MCP request's client span)
 * scrubs the holder's secrets out of its `exception` message when it fails — an error text a
 * server or a backend wrote may quote the redacted arguments.
 */
export function withSpanSecrets(active: ActiveSpan, holder: SpanSecrets): ActiveSpan {
  if (SECRETS_KEY === undefined) return active;
  return { span: active.span, context: active.context.setValue(SECRETS_KEY, holder) };
}

/** `text` with the secrets of the call `active` runs in scrubbed out. */
function scrubbedFor(active: ActiveSpan, text: string): string {
  if (SECRETS_KEY === undefined) return text;
  const holder = active.context.getValue(SECRETS_KEY) as SpanSecrets | undefined;
  return holder === undefined ? text : scrubText(text, holder.secrets);
}

/**
 * The active context of the registered context manager; the root context when the manager throws
 * (a context manager of the service's own that is broken costs the trace context, never the call).
 */
function currentContext(api: NonNullable<typeof otel>): Context {
  try {
    return api.context.active();
  } catch {
    return api.ROOT_CONTEXT;
  }
}

/** How far {@link withContext} got with `fn`: not called yet, threw, returned. */
const NOT_CALLED = 0;
const THREW = 1;
const RETURNED = 2;

/**
 * Runs `fn` with `context` active (so spans started inside are its children). `fn` runs exactly
 * once and its own outcome is what the caller gets: a context manager that throws (before calling
 * `fn`, or while restoring the context after it), or that never calls `fn`, costs the trace
 * context, never the call.
 */
export function withContext<A extends unknown[], R>(context: Context, fn: (...args: A) => R, ...args: A): R {
  const api = otel;
  if (api === undefined) return fn(...args);
  let state: number = NOT_CALLED;
  let result: R | undefined;
  let thrown: unknown;
  try {
    api.context.with(context, () => {
      try {
        result = fn(...args);
      } catch (err) {
        state = THREW;
        thrown = err;
        throw err;
      }
      state = RETURNED;
    });
  } catch {
    // the manager's own throw is dropped; `fn`'s is rethrown below
  }
  if (state === THREW) throw thrown;
  return state === NOT_CALLED ? fn(...args) : (result as R);
}

/**
 * Runs `fn` as a child of `active`, unless the work already runs under a remote parent of the same
 * trace (a sandboxed guest that sent its own `traceparent`): then that parent is kept. A context
 * manager that throws costs the nesting only (see {@link withContext}).
 */
export function withinSpan<R>(active: ActiveSpan, fn: () => R): R {
  const api = otel;
  if (api === undefined) return fn();
  const current = api.trace.getSpanContext(currentContext(api));
  if (current?.isRemote === true && current.traceId === active.span.spanContext().traceId) return fn();
  return withContext(active.context, fn);
}

/**
 * The active context (for code that hands it to later work), `undefined` without the API; the root
 * context when the context manager throws.
 */
export function activeContext(): Context | undefined {
  const api = otel;
  return api === undefined ? undefined : currentContext(api);
}

/** Ends a span that succeeded, with final attributes (a span that throws while ending is dropped; the caller never sees it). */
export function endSpanOk(active: ActiveSpan, attributes?: Attributes): void {
  try {
    if (attributes !== undefined) active.span.setAttributes(attributes);
    active.span.setStatus({ code: 1 });
    active.span.end();
  } catch {
    // a span processor whose `onEnd` throws costs the span, never the call
  }
}

/**
 * The longest `exception.message` a span records: a quoted text cut at `MAX_QUOTED_CHARS` (4 KiB)
 * plus room for the library's words around it, so that a library error's message is recorded
 * whole, its quoted text's length included; an error of anyone else's is cut there.
 */
const MAX_SPAN_MESSAGE_CHARS = MAX_QUOTED_CHARS + 1024;

/**
 * Ends a span that failed: status ERROR with the `ToolexecError` code as its description,
 * `error.type` and `toolexec.error.code` set to the code, and an `exception` event with the
 * message (a call's own error is redacted already; the error of a span started inside a call, an
 * MCP request's, has that call's redacted values scrubbed here — see {@link withSpanSecrets}),
 * cut at {@link MAX_SPAN_MESSAGE_CHARS} once scrubbed (`capText`). A span that throws while ending is dropped;
 * the caller never sees it.
 */
export function endSpanError(active: ActiveSpan, err: unknown, attributes?: Attributes): void {
  const code = ToolexecError.isInstance(err) ? err.code : 'EXECUTION';
  const { span } = active;
  try {
    if (attributes !== undefined) span.setAttributes(attributes);
    span.setAttributes({ 'error.type': code, 'toolexec.error.code': code });
    span.addEvent('exception', {
      'exception.type': err instanceof Error ? err.name : typeof err,
      'exception.message': capText(scrubbedFor(active, err instanceof Error ? err.message : String(err)), MAX_SPAN_MESSAGE_CHARS),
    });
    span.setStatus({ code: 2, message: code });
    span.end();
  } catch {
    // a span processor whose `onEnd` throws costs the span, never the call
  }
}

/** Trace and span IDs of a span, for events and log lines. */
export function spanIds(active: ActiveSpan | undefined): { traceId: string; spanId: string } | undefined {
  if (active === undefined) return undefined;
  const { traceId, spanId } = active.span.spanContext();
  return { traceId, spanId };
}

/**
 * The W3C trace context of `context` (default: the active one) as `traceparent` / `tracestate`:
 * through the registered propagator, else written from the span context directly. Empty when
 * there is no valid span.
 */
export function traceCarrier(context?: Context): TraceCarrier {
  const api = otel;
  const carrier: TraceCarrier = {};
  if (api === undefined) return carrier;
  const ctx = context ?? currentContext(api);
  const spanContext = api.trace.getSpanContext(ctx);
  if (spanContext === undefined || !api.trace.isSpanContextValid(spanContext)) return carrier;
  try {
    api.propagation.inject(ctx, carrier);
  } catch {
    // a propagator that throws: the trace context is written from the span context below
  }
  if (carrier.traceparent === undefined) {
    carrier.traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
    const state = spanContext.traceState?.serialize();
    if (state !== undefined && state !== '') carrier.tracestate = state;
  }
  return carrier;
}

const TRACEPARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/;

/**
 * The context a received W3C `traceparent` continues (a remote parent), or `undefined` when the
 * carrier has none, it is malformed, or tracing is off.
 */
export function contextFromCarrier(carrier: unknown): Context | undefined {
  const api = otel;
  if (api === undefined || carrier === null || typeof carrier !== 'object') return undefined;
  const { traceparent, tracestate } = carrier as Record<string, unknown>;
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (match === null || match[1] === 'ff') return undefined;
  const spanContext = {
    traceId: match[2] as string,
    spanId: match[3] as string,
    traceFlags: Number.parseInt(match[4] as string, 16) & 0xff,
    isRemote: true,
    ...(typeof tracestate === 'string' && tracestate !== '' ? { traceState: api.createTraceState(tracestate) } : {}),
  };
  if (!api.trace.isSpanContextValid(spanContext)) return undefined;
  return api.trace.setSpanContext(currentContext(api), spanContext);
}

/**
 * Bucket boundaries, in seconds, of the duration histograms (`toolexec.tool.duration`,
 * `toolexec.sandbox.duration`): the OpenTelemetry semantic conventions' duration buckets (5 ms to
 * 10 s), extended to the sandboxes' 10-minute ceiling. Handed to the SDK as the instruments'
 * `advice`; a view the application registers still wins.
 */
export const DURATION_BUCKETS_S: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 15, 30, 60, 120, 300, 600,
]);

/**
 * The `gen_ai.tool.name` label of a failed call whose ID resolved to no tool (unknown, malformed,
 * made up by a model): one series for all of them, however many IDs are tried. The call's span
 * still names the ID that was asked for.
 */
export const UNKNOWN_TOOL_LABEL = '_unknown';

/**
 * The `toolexec.sandbox.profile` label of a snippet run whose profile is not known (the run failed
 * before one was chosen).
 */
export const UNKNOWN_PROFILE_LABEL = 'unknown';

/** The instruments, made once per registered meter provider. */
interface Instruments {
  calls: Counter;
  errors: Counter;
  duration: Histogram;
  sandboxRuns: Counter;
  sandboxDuration: Histogram;
  limitHits: Counter;
}

let meterOwner: MeterProvider | undefined;
let instruments: Instruments | undefined;

function currentInstruments(): Instruments | undefined {
  const api = otel;
  if (api === undefined || !metricsRegistered()) return undefined;
  const provider = api.metrics.getMeterProvider();
  if (provider !== meterOwner || instruments === undefined) {
    const meter: Meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    const advice = { explicitBucketBoundaries: [...DURATION_BUCKETS_S] };
    instruments = {
      calls: meter.createCounter('toolexec.tool.calls', { description: 'Tool calls made', unit: '{call}' }),
      errors: meter.createCounter('toolexec.tool.errors', { description: 'Tool calls that failed', unit: '{call}' }),
      duration: meter.createHistogram('toolexec.tool.duration', { description: 'Duration of tool calls', unit: 's', advice }),
      sandboxRuns: meter.createCounter('toolexec.sandbox.runs', { description: 'Code-mode snippets run', unit: '{run}' }),
      sandboxDuration: meter.createHistogram('toolexec.sandbox.duration', {
        description: 'Duration of code-mode snippets',
        unit: 's',
        advice,
      }),
      limitHits: meter.createCounter('toolexec.sandbox.limit_hits', { description: 'Limits code-mode snippets hit', unit: '{hit}' }),
    };
    meterOwner = provider;
  }
  return instruments;
}

/**
 * Records one tool call: `toolexec.tool.calls` and `toolexec.tool.duration` (seconds) by tool,
 * backend kind and outcome, and `toolexec.tool.errors` by tool, backend kind and error code.
 * The labels are tool IDs (of tools that exist: the caller passes {@link UNKNOWN_TOOL_LABEL} for
 * an ID that resolved to none), backend kinds and error codes: never arguments.
 */
export function recordCall(toolLabel: string, backendKind: string | undefined, durationMs: number, errorCode: string | undefined): void {
  try {
    const set = currentInstruments();
    if (set === undefined) return;
    const attributes: Attributes = { 'gen_ai.tool.name': toolLabel, 'toolexec.backend.kind': backendKind ?? 'none' };
    if (errorCode !== undefined) attributes['error.type'] = errorCode;
    set.calls.add(1, attributes);
    set.duration.record(durationMs / 1000, attributes);
    if (errorCode !== undefined) set.errors.add(1, attributes);
  } catch {
    // a meter that throws costs the data point, never the call
  }
}

/**
 * Records one snippet run (`toolexec.sandbox.runs`, `toolexec.sandbox.duration`) by backend,
 * profile (the one in force; {@link UNKNOWN_PROFILE_LABEL} when none is known) and outcome.
 */
export function recordSandboxRun(
  backend: string | undefined,
  profile: string | undefined,
  durationMs: number,
  errorCode: string | undefined,
): void {
  try {
    const set = currentInstruments();
    if (set === undefined) return;
    const attributes: Attributes = {
      'toolexec.sandbox.backend': backend ?? 'unknown',
      'toolexec.sandbox.profile': profile ?? UNKNOWN_PROFILE_LABEL,
    };
    if (errorCode !== undefined) attributes['error.type'] = errorCode;
    set.sandboxRuns.add(1, attributes);
    set.sandboxDuration.record(durationMs / 1000, attributes);
  } catch {
    // a meter that throws costs the data point, never the run
  }
}

/** Records a limit a snippet hit (`toolexec.sandbox.limit_hits`) by limit and backend. */
export function recordLimitHit(limit: string, backend: string | undefined): void {
  try {
    currentInstruments()?.limitHits.add(1, { 'toolexec.limit': limit, 'toolexec.sandbox.backend': backend ?? 'unknown' });
  } catch {
    // a meter that throws costs the data point, never the run
  }
}

/** Adds an event to the active span (a retry attempt, ...); nothing when tracing is off. */
export function addSpanEvent(name: string, attributes?: Attributes): void {
  const api = otel;
  if (api === undefined || !tracingRegistered()) return;
  try {
    api.trace.getActiveSpan()?.addEvent(name, attributes);
  } catch {
    // a span that throws costs the event, never the call
  }
}
