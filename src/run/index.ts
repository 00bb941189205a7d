/**
 * The runner: resolve a tool, select a backend, validate input, dispatch, normalize and validate
 * output; streaming, progress, chains, cancellation and timeouts.
 *
 * @remarks
 * Given a tool ID, the runner looks the tool up (the index first, then the resolvers), picks a
 * backend (local > provider > mcp by default), validates the arguments against the input schema,
 * calls the local handler, MCP executor or provider executor, normalizes the result (MCP content
 * to a structured value) and validates it against the output schema. Chains run steps in order,
 * passing each result to the next with `usePrevious`. Every failure is a {@link ToolError} with a
 * stable `code`, the failing `op` and the original error as `cause`.
 *
 * @module toolexec/run
 */
export { DefaultRunner, createRunner } from './runner.js';
export { ChainError, TOOL_ERROR_OPS, ToolError, formatToolErrorMessage } from './errors.js';
export type { ToolErrorInit, ToolErrorOp } from './errors.js';
export { mcpResultTexts, normalizeMcpResult } from './normalize.js';
export { createLocalRegistry } from './local-registry.js';
export { DEFAULT_RETRY_POLICY } from './retry.js';
export type {
  CallFailedEvent,
  CallFinishedEvent,
  CallMode,
  CallStartedEvent,
  CallWarningEvent,
  EventBase,
  EventError,
  ExecEvent,
  ExecEventType,
  LimitHitEvent,
  LogMethod,
  Logger,
  SandboxRunEvent,
  ServerStatusEvent,
} from './events.js';
export type {
  AttemptEvent,
  AttemptRecord,
  CallToolResult,
  ChainResult,
  ChainArgsFrom,
  ChainStep,
  LocalHandler,
  LocalHandlerContext,
  LocalRegistry,
  McpExecutor,
  ProgressEvent,
  ProviderExecutor,
  RetryCondition,
  RetryPolicy,
  RunOptions,
  RunResult,
  RunWarning,
  Runner,
  RunnerOptions,
  StepResult,
  StreamEvent,
  StreamEventKind,
  ProgressStreamEvent,
  ChunkStreamEvent,
  DoneStreamEvent,
  ErrorStreamEvent,
} from './types.js';
