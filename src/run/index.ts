/**
 * The runner: resolve a tool, select a backend, validate input, dispatch, normalize and validate
 * output; streaming, progress, chains, cancellation and timeouts.
 *
 * @module toolexec/run
 */
export type {
  CallToolResult,
  ChainResult,
  ChainStep,
  LocalHandler,
  LocalHandlerContext,
  LocalRegistry,
  McpExecutor,
  ProgressEvent,
  ProviderExecutor,
  RunOptions,
  RunResult,
  RunWarning,
  Runner,
  RunnerOptions,
  StepResult,
  StreamEvent,
  StreamEventKind,
} from './types.js';
