/**
 * The typed events the library emits (`onEvent`, `exec.subscribe`) and the logger shape it writes
 * them to. Every event is already redacted: arguments have the redaction paths replaced, error
 * messages and details have the removed values scrubbed, and `redactions` lists the JSON pointers
 * (into the call's arguments) of what was removed.
 */
import type { ErrorCode } from '../model/index.js';

/** How a call was made. */
export type CallMode = 'run' | 'stream' | 'chain_step';

/** An error as events and log lines carry it: JSON-safe, redacted. */
export interface EventError {
  /** The stable error code. */
  code: ErrorCode;
  /** The message, with redacted values scrubbed out. */
  message: string;
  /** The error's details, with redacted values scrubbed out. */
  details?: Record<string, unknown>;
}

/** What every event has. */
export interface EventBase {
  /** When it happened: `Date.now()` milliseconds. */
  time: number;
  /** The trace of the span it happened in (32 hex digits), when tracing is on. */
  traceId?: string;
  /** The span it happened in (16 hex digits), when tracing is on. */
  spanId?: string;
}

/** A tool call began (after its per-call options were checked). */
export interface CallStartedEvent extends EventBase {
  /** Event type. */
  type: 'call.started';
  /** Identifies this call across its events (`gen_ai.tool.call.id` on its span). */
  callId: string;
  /** The tool ID as the caller wrote it. */
  toolId: string;
  /** How the call was made. */
  mode: CallMode;
  /** The arguments, redacted. */
  args: Record<string, unknown>;
  /** JSON pointers (into `args`) of the values removed; absent when none. */
  redactions?: string[];
}

/** A tool call succeeded. */
export interface CallFinishedEvent extends EventBase {
  /** Event type. */
  type: 'call.finished';
  /** The call's ID (see {@link CallStartedEvent.callId}). */
  callId: string;
  /** The tool ID as the caller wrote it. */
  toolId: string;
  /** How the call was made. */
  mode: CallMode;
  /** `local`, `provider` or `mcp`. */
  backendKind?: string;
  /** Wall-clock milliseconds of the call. */
  durationMs: number;
}

/** A tool call failed. */
export interface CallFailedEvent extends EventBase {
  /** Event type. */
  type: 'call.failed';
  /** The call's ID (see {@link CallStartedEvent.callId}). */
  callId: string;
  /** The tool ID as the caller wrote it. */
  toolId: string;
  /** How the call was made. */
  mode: CallMode;
  /** `local`, `provider` or `mcp`, when a backend had been selected. */
  backendKind?: string;
  /** Wall-clock milliseconds of the call. */
  durationMs: number;
  /** The failure, redacted. */
  error: EventError;
  /** JSON pointers (into the call's arguments) of the values scrubbed out of the error; absent when none. */
  redactions?: string[];
}

/**
 * A call succeeded with a problem that did not fail it: its result broke the output schema while
 * output validation is `'warn'` (the runner's `onWarning` gets the same).
 */
export interface CallWarningEvent extends EventBase {
  /** Event type. */
  type: 'call.warning';
  /** The tool ID as the caller wrote it. */
  toolId: string;
  /** `local`, `provider` or `mcp`. */
  backendKind: string;
  /** The problem (an `OUTPUT_VALIDATION` error), as events carry errors. */
  error: EventError;
}

/** An MCP server of `mcpServers` changed state. */
export interface ServerStatusEvent extends EventBase {
  /** Event type. */
  type: 'server.status';
  /** The server's name (its tools' namespace). */
  server: string;
  /** The new state. */
  state: 'connecting' | 'connected' | 'failed' | 'closed';
  /** How many of its tools are in the index. */
  toolCount: number;
  /** Why it failed. */
  error?: EventError;
}

/** A code-mode snippet ran (or failed). */
export interface SandboxRunEvent extends EventBase {
  /** Event type. */
  type: 'sandbox.run';
  /** The snippet's language. */
  language: string;
  /** The security profile it ran under, when known. */
  profile?: string;
  /** The runtime backend that ran it (`wasm`, `docker`, ...), when known. */
  backend?: string;
  /** `ok`, or `error` for a failed run. */
  outcome: 'ok' | 'error';
  /** Wall-clock milliseconds of the run. */
  durationMs: number;
  /** Tool calls the snippet made. */
  toolCalls: number;
  /** The failure, redacted. */
  error?: EventError;
  /** JSON pointers of what was removed from the run's trace and error (`/toolCalls/0/args/token`); absent when none. */
  redactions?: string[];
}

/** A snippet hit one of its limits (timeout, tool-call budget, memory, output, ...). */
export interface LimitHitEvent extends EventBase {
  /** Event type. */
  type: 'limit.hit';
  /** Which limit: `timeout`, `maxToolCalls`, `maxChainSteps`, `memory`, `output`, `stack`, ... */
  limit: string;
  /** The error code it surfaced as (`LIMIT_EXCEEDED`, `RESOURCE_LIMIT`, ...). */
  code: ErrorCode;
  /** The runtime backend, when known. */
  backend?: string;
}

/** Every event the library emits. */
export type ExecEvent =
  CallStartedEvent | CallFinishedEvent | CallFailedEvent | CallWarningEvent | ServerStatusEvent | SandboxRunEvent | LimitHitEvent;

/** The `type` of an {@link ExecEvent}. */
export type ExecEventType = ExecEvent['type'];

/** One logging method, pino's shape: a context object first, then the message. */
export type LogMethod = (obj: object, msg?: string) => void;

/**
 * A pino-style logger (`pino()`, a child logger, or anything with these four methods). The library
 * calls `logger.<level>(event, message)` with the redacted event as the context object: `debug`
 * for calls started and finished and sandbox runs, `info` for servers connecting, `warn` for
 * failed calls, failed servers and limit hits, `error` for failed sandbox runs.
 */
export interface Logger {
  /** Calls started and finished, sandbox runs that succeeded. */
  debug: LogMethod;
  /** Server status changes. */
  info: LogMethod;
  /** Failed calls, failed servers, limit hits. */
  warn: LogMethod;
  /** Failed sandbox runs. */
  error: LogMethod;
}
