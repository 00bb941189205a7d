/**
 * One observed call (a run, a chain step or a stream): its `execute_tool {toolId}` span, its
 * `call.started` / `call.finished` / `call.failed` events and its metrics, from start to end.
 * Used by `Telemetry.call` and `Telemetry.stream` alike.
 *
 * @internal
 * @module
 */
import type { Attributes } from '@opentelemetry/api';
import { ToolexecError, errorMessage, type Tool } from '../model/index.js';
import { toJsonSafe, type Redacted } from '../model/internal.js';
import type { CallFailedEvent, CallFinishedEvent, CallMode, EventError, ExecEvent } from './events.js';
import { tracingRegistered } from './otel.js';
import {
  endSpanError,
  endSpanOk,
  recordCall,
  spanIds,
  startSpan,
  withSpanSecrets,
  SPAN_KIND,
  UNKNOWN_TOOL_LABEL,
  type ActiveSpan,
  type SpanSecrets,
} from './spans.js';
import type { EventSink } from './event-sink.js';

/**
 * What the pipeline tells an observed call while it runs (given only when someone observes it).
 * The call's scope is its own marks.
 */
export interface PhaseMarks {
  /** The call's tool is resolved: a start held back until its tool was known happens now. */
  resolved(tool: Tool): void;
  /**
   * Dispatch to the backend begins (the span's prepare / execute boundary); `backendKind`, when
   * given, is the kind of the backend selected (a stream's end knows it from nowhere else).
   */
  dispatching(backendKind?: string): void;
}

/** A call's arguments as a scope gets them. */
export type RedactedArgs = Redacted<Record<string, unknown>>;

/**
 * The arguments of a call, redacted already (its tool was known at the start), or a way to redact
 * them once the tool is known (`undefined`: look it up then) — a tool the runner learns of only
 * from its `toolResolver` has redaction paths of its own that must apply to the start as well.
 */
export type ScopeArgs = RedactedArgs | ((tool: Tool | undefined) => RedactedArgs);

/** What the end of a failed call knows of its tool. */
export interface FailedTool {
  /** The tool's name (`toolexec.tool.name` on the span), when the tool is known. */
  name: string | undefined;
  /**
   * False when the call's ID resolved to no tool (unknown or malformed): its metrics are then
   * recorded under {@link UNKNOWN_TOOL_LABEL}, not under the ID.
   */
  resolved: boolean;
}

/** An error as events carry it. */
export function eventError(err: unknown): EventError {
  if (!ToolexecError.isInstance(err)) return { code: 'EXECUTION', message: errorMessage(err) };
  const shape: EventError = { code: err.code, message: err.message };
  if (err.details !== undefined) shape.details = err.details;
  return shape;
}

const GEN_AI_TOOL_TYPE: Record<string, string> = { local: 'function', provider: 'extension', mcp: 'extension' };

const CALL_ID_PREFIX = `call_${process.pid.toString(36)}_`;
let callCounter = 0;

/**
 * The span, events and metrics of one call. When its tool is not known at the start, the span
 * starts without the arguments and `call.started` waits until the tool is resolved (or the call
 * ends first), so that both carry the arguments redacted by the tool's own paths; the event keeps
 * the start time.
 */
export class CallScope implements PhaseMarks {
  /** The call's span, while tracing. */
  readonly active: ActiveSpan | undefined;
  /** The tool ID the call was made with. */
  readonly toolId: string;
  readonly #sink: EventSink;
  readonly #mode: CallMode;
  readonly #callId: string;
  readonly #started = performance.now();
  /** `Date.now()` at the start, for `call.started` (0 when nobody listened then). */
  readonly #startedAtMs: number;
  readonly #ids: { traceId: string; spanId: string } | undefined;
  #redacted: RedactedArgs | undefined;
  #redactLater: ((tool: Tool | undefined) => RedactedArgs) | undefined;
  /** `performance.now()` when dispatch began (0 until then), while tracing. */
  #dispatchAt = 0;
  /** The kind of the backend dispatched to, when the pipeline said so (see {@link PhaseMarks.dispatching}). */
  #backendKind: string | undefined;
  /** The secrets the call's arguments lost, for the spans started inside it (see `withSpanSecrets`). */
  readonly #secrets: SpanSecrets = { secrets: [] };
  #ended = false;

  /** Starts the span (when a tracer provider is registered) and emits `call.started` (when anyone listens). */
  constructor(sink: EventSink, toolId: string, mode: CallMode, args: ScopeArgs) {
    this.#sink = sink;
    this.toolId = toolId;
    this.#mode = mode;
    callCounter = (callCounter + 1) % Number.MAX_SAFE_INTEGER;
    const callId = (this.#callId = CALL_ID_PREFIX + callCounter.toString(36));
    this.#startedAtMs = sink.listening ? Date.now() : 0;
    const redacted = typeof args === 'function' ? undefined : args;
    this.#redactLater = typeof args === 'function' ? args : undefined;
    const started = tracingRegistered()
      ? startSpan(`execute_tool ${toolId}`, SPAN_KIND.INTERNAL, callAttributes(toolId, callId, mode, redacted))
      : undefined;
    const active = (this.active = started === undefined ? undefined : withSpanSecrets(started, this.#secrets));
    this.#ids = spanIds(active);
    if (redacted !== undefined) this.#begin(redacted, false);
  }

  /** What the pipeline marks on this call: the scope itself, while anything would use the marks. */
  get marks(): PhaseMarks | undefined {
    return this.active !== undefined || this.#redactLater !== undefined ? this : undefined;
  }

  /** {@inheritDoc PhaseMarks.resolved} */
  resolved(tool: Tool): void {
    const later = this.#redactLater;
    if (later === undefined) return;
    this.#redactLater = undefined;
    this.#begin(later(tool), true);
  }

  /** {@inheritDoc PhaseMarks.dispatching} */
  dispatching(backendKind?: string): void {
    if (backendKind !== undefined) this.#backendKind = backendKind;
    if (this.active !== undefined) this.#dispatchAt = performance.now();
  }

  /** The call's arguments, redacted (what its failure is scrubbed of); a start held back happens now. */
  redactedArgs(): RedactedArgs {
    const later = this.#redactLater;
    if (later !== undefined) {
      this.#redactLater = undefined;
      this.#begin(later(undefined), true);
    }
    return this.#redacted as RedactedArgs;
  }

  /** The start, with the arguments redacted: `call.started`, and the span's arguments when they were held back. */
  #begin(redacted: RedactedArgs, late: boolean): void {
    this.#redacted = redacted;
    this.#secrets.secrets = redacted.secrets;
    if (late && this.active !== undefined) {
      try {
        this.active.span.setAttributes(argumentAttributes(redacted));
      } catch {
        // a span that throws costs its attributes, never the call
      }
    }
    if (!this.#sink.listening) return;
    // A copy (JSON-safe): a listener can neither change the arguments the tool gets nor see a
    // later change to them.
    const args = toJsonSafe(redacted.value) as Record<string, unknown>;
    const event: ExecEvent = {
      type: 'call.started',
      time: this.#startedAtMs || Date.now(),
      callId: this.#callId,
      toolId: this.toolId,
      mode: this.#mode,
      args,
      ...this.#ids,
    };
    if (redacted.redactions.length > 0) event.redactions = redacted.redactions;
    this.#sink.emit(event);
  }

  /** The call succeeded on `backendKind`. Ends the scope (later ends are ignored). */
  succeeded(kind: string | undefined, toolName: string | undefined, attributes?: Attributes): void {
    if (this.#ended) return;
    this.#ended = true;
    const backendKind = kind ?? this.#backendKind;
    if (this.#redactLater !== undefined) this.redactedArgs();
    const durationMs = performance.now() - this.#started;
    if (this.active !== undefined) endSpanOk(this.active, this.#final(toolName, backendKind, attributes));
    recordCall(this.toolId, backendKind, durationMs, undefined);
    if (this.#sink.listening) this.#emit({ type: 'call.finished', durationMs }, backendKind);
  }

  /**
   * The call failed with `err` (already redacted); `tool` says what is known of its tool. Ends the
   * scope (later ends are ignored).
   */
  failed(err: unknown, kind: string | undefined, tool: FailedTool, attributes?: Attributes): void {
    if (this.#ended) return;
    this.#ended = true;
    const backendKind = kind ?? this.#backendKind;
    if (this.#redactLater !== undefined) this.redactedArgs();
    const durationMs = performance.now() - this.#started;
    const code = ToolexecError.isInstance(err) ? err.code : 'EXECUTION';
    if (this.active !== undefined) endSpanError(this.active, err, this.#final(tool.name, backendKind, attributes));
    recordCall(tool.resolved ? this.toolId : UNKNOWN_TOOL_LABEL, backendKind, durationMs, code);
    if (!this.#sink.listening) return;
    const redactions = (err as { details?: { redactions?: unknown } } | null)?.details?.redactions;
    this.#emit(
      {
        type: 'call.failed',
        durationMs,
        error: eventError(err),
        ...(Array.isArray(redactions) ? { redactions: redactions as string[] } : {}),
      },
      backendKind,
    );
  }

  /** Emits the call's end event: `fields` with the time, the call's IDs and the backend kind. */
  #emit(fields: CallEndFields<CallFinishedEvent> | CallEndFields<CallFailedEvent>, backendKind: string | undefined): void {
    const event = { time: Date.now(), callId: this.#callId, toolId: this.toolId, mode: this.#mode, ...fields } as
      CallFinishedEvent | CallFailedEvent;
    if (backendKind !== undefined) event.backendKind = backendKind;
    this.#sink.emit(Object.assign(event, this.#ids));
  }

  /** The attributes a call's span ends with: backend kind, tool name, and the phase durations. */
  #final(name: string | undefined, backendKind: string | undefined, extra: Attributes | undefined): Attributes {
    const now = performance.now();
    const attributes: Attributes = { ...extra, 'toolexec.duration_ms': now - this.#started };
    if (backendKind !== undefined) {
      attributes['toolexec.backend.kind'] = backendKind;
      const type = GEN_AI_TOOL_TYPE[backendKind];
      if (type !== undefined) attributes['gen_ai.tool.type'] = type;
    }
    if (name !== undefined) attributes['toolexec.tool.name'] = name;
    const dispatchAt = this.#dispatchAt;
    if (dispatchAt > 0) {
      attributes['toolexec.phase.prepare_ms'] = dispatchAt - this.#started;
      attributes['toolexec.phase.execute_ms'] = now - dispatchAt;
    }
    return attributes;
  }
}

/** The attributes a call's span starts with: the arguments too when they are known (see {@link argumentAttributes}). */
function callAttributes(toolId: string, callId: string, mode: CallMode, redacted: RedactedArgs | undefined): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': toolId,
    'gen_ai.tool.call.id': callId,
    'toolexec.tool.id': toolId,
    'toolexec.call.mode': mode,
  };
  return redacted === undefined ? attributes : Object.assign(attributes, argumentAttributes(redacted));
}

/** A call's arguments on its span: redacted, as JSON, cut at 4 KiB, with the redacted pointers. */
function argumentAttributes(redacted: RedactedArgs): Attributes {
  const attributes: Attributes = {};
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

/** What distinguishes one call-end event from another: all but the time and the call's own fields. */
type CallEndFields<E> = Omit<E, 'time' | 'callId' | 'toolId' | 'mode' | 'backendKind'>;
