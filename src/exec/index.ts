/**
 * The facade: one object for discovery, execution, chains, streaming and code mode — the single
 * entry point of the library.
 *
 * @remarks
 * {@link createExec} wires a tool index, a doc store, a validating runner, MCP servers (stdio or
 * Streamable HTTP, imported lazily before the first call) and a code executor over a sandboxed
 * runtime, with safe defaults: validation on, a 30 s deadline on every call, 100 tool calls per
 * snippet, and snippets in the WASM sandbox unless another profile is named.
 *
 * @module toolexec/exec
 */
export { DefaultExec, createExec } from './exec.js';
export { durationOf } from './call-time.js';
export { ExecChainError } from './chain.js';
export { defineLocalTool } from './define-local-tool.js';
export type { ArgsOf, TypedLocalToolDefinition, TypedTool } from './define-local-tool.js';
export {
  DEFAULT_LANGUAGE,
  DEFAULT_MAX_CHAIN_STEPS,
  DEFAULT_MAX_TOOL_CALLS,
  DEFAULT_SEARCH_LIMIT,
  DEFAULT_TIMEOUT_MS,
  resolveExecOptions,
} from './options.js';
/** Profile of snippets that name none: `standard`, a real sandbox (never the host). */
export { DEFAULT_SECURITY_PROFILE } from '../runtime/index.js';
export type { ResolvedExecOptions } from './options.js';
export { DEFAULT_RECONNECT } from './backoff.js';
export type * from './types.js';
export type { CodeParams, CodeResult, ToolCallRecord } from '../code/index.js';
