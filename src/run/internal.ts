/**
 * What the run layer shares with the layers above it but not with users: imported by other
 * layers as `../run/internal.js`, never listed in package.json `exports`.
 *
 * @internal
 * @module
 */
export { ClosableStream } from './closable-stream.js';
export { readSteps, walkChain, type ChainVisitor, type ChainWalk } from './chain.js';
export { stepArgs } from './chain-args.js';
export { unexpectedFailure } from './failures.js';
export { callDeadline, readRunOptions, stepIdempotencyKey } from './run-options.js';
export { runChainStep, telemetryOf } from './runner.js';
export { EventSink, Telemetry } from './telemetry.js';
export { eventError, type PhaseMarks } from './call-scope.js';
export { withTelemetryConfig, type TelemetryConfig } from './telemetry-config.js';
export { otelRegistered } from './otel.js';
export {
  activeContext,
  addSpanEvent,
  contextFromCarrier,
  endSpanError,
  endSpanOk,
  recordLimitHit,
  recordSandboxRun,
  spanIds,
  startSpan,
  traceCarrier,
  withContext,
  withinSpan,
  SPAN_KIND,
  type ActiveSpan,
  type TraceCarrier,
} from './spans.js';
export { MAX_QUEUED_PROGRESS, withProgressEvents } from './progress.js';
export { callToolResultSchema, checkCallToolResult, isPlainCallToolResult } from './call-result.js';
