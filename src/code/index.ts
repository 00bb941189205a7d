/**
 * Code mode: run a snippet that orchestrates tools — searches them, reads their docs, calls them
 * and chains them — in a sandbox, with a budget of tool calls, a deadline and a trace of every call.
 *
 * @remarks
 * {@link createCodeExecutor} applies defaults and limits, gives each execution a fresh
 * {@link ToolsEnvironment} (the gateway the snippet's `tools` object reaches: call budget, chain
 * limit and trace, safe for concurrent calls) and runs it on a {@link CodeEngine}. The default
 * engine is the runtime engine ({@link createRuntimeEngine}): the snippet
 * runs on a `Runtime` — the WASM sandbox for the `standard` and `hardened` profiles by default.
 * Failures carry the partial {@link CodeResult} in `details.result`.
 *
 * @module toolexec/code
 */
export { DefaultCodeExecutor, createCodeExecutor } from './executor.js';
export {
  DEFAULT_CODE_LANGUAGE,
  DEFAULT_CODE_QUEUE_TIMEOUT_MS,
  DEFAULT_CODE_TIMEOUT_MS,
  ENGINE_STOP_GRACE_MS,
  resolveCodeExecutorOptions,
  resolveCodeParams,
} from './options.js';
export type { ResolvedCodeExecutorOptions, ResolvedCodeParams } from './options.js';
export { DEFAULT_ENGINE_PROFILE, RuntimeEngine, createRuntimeEngine, mapRuntimeError, toEngineResult } from './runtime-engine.js';
export type { RuntimeEngineOptions } from './runtime-engine.js';
export { DefaultToolsEnvironment, createToolsEnvironment, formatPrintArgs } from './tools-environment.js';
export { CodeError, codeResultOf } from './errors.js';
export type { CodeErrorInit } from './errors.js';
export type * from './types.js';
export type { SnippetWarning, ToolCallRecord } from '../runtime/index.js';
