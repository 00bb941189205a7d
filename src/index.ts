/**
 * toolexec: the execution layer for AI-agent tools.
 *
 * @remarks
 * Start with {@link createExec}: one object that registers local tools, connects MCP servers,
 * searches and documents tools, runs them (validated, with deadlines), chains and streams them,
 * and runs code-mode snippets in a sandbox. The layers behind it have their own entry points
 * (`toolexec/model`, `toolexec/discovery`, `toolexec/run`, `toolexec/mcp`, `toolexec/runtime`,
 * `toolexec/code`, `toolexec/exec`); this one re-exports the facade and the names used most.
 *
 * @module toolexec
 */
export {
  DEFAULT_MAX_TOOL_CALLS,
  DEFAULT_SECURITY_PROFILE,
  DEFAULT_TIMEOUT_MS,
  DefaultExec,
  ExecChainError,
  createExec,
  defineLocalTool,
  durationOf,
} from './exec/index.js';
export type {
  ContentBlock,
  Exec,
  ExecChainResult,
  ExecEvent,
  ExecOptions,
  ExecStepResult,
  LocalToolDefinition,
  Logger,
  Result,
  ServerStatus,
  Step,
} from './exec/index.js';
export {
  ERROR_CODES,
  ToolexecError,
  defineTool,
  errorStatus,
  findError,
  hasErrorCode,
  parseToolId,
  toErrorShape,
  toolId,
} from './model/index.js';
export type { ErrorCode, ErrorShape, Tool, ToolBackend, ToolexecErrorDetails } from './model/index.js';
export type { DetailLevel, ToolDoc, ToolSummary } from './discovery/index.js';
export { ChainError, ToolError } from './run/index.js';
export type {
  AttemptEvent,
  AttemptRecord,
  ChainStep,
  LocalHandler,
  ProgressEvent,
  RetryPolicy,
  RunOptions,
  RunResult,
  StreamEvent,
} from './run/index.js';
export type { McpServerConfig } from './mcp/index.js';
export type { Limits, SecurityProfile } from './runtime/index.js';
export type { CodeParams, CodeResult, ToolCallRecord } from './code/index.js';
