import type { DocStore, ToolIndex } from '../discovery/index.js';
import type { Runner } from '../run/index.js';
import type {
  BackendInfo,
  LimitsEnforced,
  Runtime,
  SecurityProfile,
  SnippetWarning,
  ToolCallRecord,
  ToolGateway,
} from '../runtime/index.js';

/** What one {@link CodeExecutor.executeCode} call runs. */
export interface CodeParams {
  /** The snippet. An empty string is passed to the engine (the runtime engine rejects it with `MISSING_CODE`). */
  code: string;
  /**
   * `javascript` / `typescript` (or `js` / `ts`), or `python` (`py`): the runtime routes a Python
   * snippet to a backend that runs Python (Pyodide for `standard` / `hardened`, see docs/guests.md);
   * `undefined` or `''` use the executor's default. A language none of these (`cobol`) is
   * `INVALID_ARGUMENT` naming the available ones; a known one whose runtime is not there (Python on
   * `dev`) is `RUNTIME_UNAVAILABLE`.
   */
  language?: string;
  /**
   * Wall-clock budget in milliseconds (a positive number; fractions round up), counted from when
   * the snippet starts running, not while it waits for a sandbox. Above the runtime's ceiling
   * (wasm: 10 min) → `INVALID_ARGUMENT`. @defaultValue the executor's `defaultTimeoutMs`
   */
  timeoutMs?: number;
  /**
   * Longest wait for a free sandbox before the snippet starts, in milliseconds; past it the call
   * fails with `LIMIT_EXCEEDED`, `details.limit: 'queue'` (the snippet never ran).
   * @defaultValue the executor's `queueTimeoutMs` (30 s)
   */
  queueTimeoutMs?: number;
  /**
   * Memory cap of the snippet's sandbox, in bytes; above the runtime's ceiling (wasm: 1 GiB) →
   * `INVALID_ARGUMENT`. @defaultValue the executor's `memoryBytes`, else the backend's (wasm: 64 MiB)
   */
  memoryBytes?: number;
  /**
   * Absolute deadline of the run: epoch milliseconds or a `Date`. With `timeoutMs` too the earlier
   * wins (without `timeoutMs`, the executor's default does not apply); the time left is the
   * sandbox's wall clock, and the snippet's tool calls hand it on to MCP servers. Unlike
   * `timeoutMs`, it does not move while the snippet waits for a sandbox. One already past is
   * refused with `TIMEOUT` before anything runs; one further away than the runtime's ceiling
   * (wasm: 10 min) runs with the ceiling as its timeout (a `timeoutMs` given too is not lowered).
   */
  deadline?: number | Date;
  /**
   * Most tool calls (single runs plus chain steps) the snippet may make; `0` means as many as the
   * executor allows. The executor's own `maxToolCalls`, when set, caps it.
   */
  maxToolCalls?: number;
  /** @defaultValue the executor's `profile` (or the engine's) */
  profile?: SecurityProfile;
  /**
   * Cancels the run: `ABORTED`, `code execution aborted: <reason>` whenever the abort lands (before
   * the start, in the queue, while running, during a tool call), `cause` = the signal's reason.
   */
  signal?: AbortSignal;
  /**
   * Passed to the engine (and by the runtime engine to the runtime request): e.g.
   * `{ unsafeOptIn: true }`, which the host backend of the `dev` profile requires.
   */
  metadata?: Record<string, unknown>;
  /**
   * Fails the run (`CODE_EXECUTION`, naming the call) when a `tools.*` call is still pending as the
   * snippet returns (a missing `await`), instead of a `PENDING_TOOL_CALL` warning in the result.
   * @defaultValue false
   */
  strict?: boolean;
}

/** The outcome of a snippet. */
export interface CodeResult {
  /** What the snippet returned at top level, or assigned to `__out`. */
  value?: unknown;
  /**
   * The sandbox's stdout followed by what the engine printed through the tools environment
   * ({@link ToolsEnvironment.println}); both are kept.
   */
  stdout: string;
  /** The sandbox's stderr, as the engine returned it (`''` when none). */
  stderr: string;
  /** Every tool call the snippet made, from the tools environment (the one trace), in completion order. */
  toolCalls: ToolCallRecord[];
  /** Wall-clock time of the whole execution, measured by the executor. */
  durationMs: number;
  /** The runtime backend that ran the snippet (runtime engine). */
  backend?: BackendInfo;
  /** The limits the backend really enforced on this run (runtime engine). */
  limitsEnforced?: LimitsEnforced;
  /** What the run did that is probably a mistake (a tool call left pending, ...); absent when nothing. */
  warnings?: SnippetWarning[];
}

/**
 * What a snippet's engine can reach: the six gateway methods (discovery and tool calls, with the
 * execution's call budget and trace), plus `println` for engines that produce output themselves.
 *
 * @remarks Created fresh for every execution; safe for concurrent calls (`Promise.all` in a snippet).
 */
export interface ToolsEnvironment extends ToolGateway {
  /**
   * Appends one line to the environment's output: values separated by single spaces, strings as
   * they are, anything else as JSON (falling back to `String(value)`), then a newline.
   *
   * @throws `RESOURCE_LIMIT` (`details.limit: 'output'`) past {@link ToolsEnvironmentOptions.maxOutputBytes}.
   */
  println(...values: unknown[]): void;
  /** What `println` has collected so far. */
  readonly stdout: string;
  /** A copy of the tool-call records so far (completion order). */
  readonly toolCalls: ToolCallRecord[];
  /** The execution's signal: aborted on timeout or when the caller aborts. */
  readonly signal: AbortSignal;
  /** A copy of the tool-call records so far (the direct gateway's name, used by runtimes as a trace fallback). */
  getToolCalls(): ToolCallRecord[];
}

/** Options of {@link ToolsEnvironment}s (see `createToolsEnvironment`). */
export interface ToolsEnvironmentOptions {
  /** Answers `searchTools` and `listNamespaces`. */
  index: ToolIndex;
  /** Answers `describeTool` and `listToolExamples`. */
  docs: DocStore;
  /** Runs `runTool` and `runChain`. */
  runner: Runner;
  /** Most tool calls; 0 or absent: unlimited. */
  maxToolCalls?: number;
  /** Most steps per chain; 0 or absent: unlimited. */
  maxChainSteps?: number;
  /** Passed to every tool call that brings no signal of its own (and combined with one that does). */
  signal?: AbortSignal;
  /** The run's deadline in epoch milliseconds, handed to every tool call (an MCP server gets the time left). */
  deadline?: number;
  /** Cap on `println` output. @defaultValue 1 MiB */
  maxOutputBytes?: number;
}

/** What the executor hands an engine: the call's parameters with every default applied. */
export interface CodeEngineParams {
  /** The snippet, as the caller gave it (possibly `''`). */
  code: string;
  /** Never empty: the executor applies its default language. */
  language: string;
  /**
   * True when the call named no language and `language` is the executor's JavaScript default: the
   * snippet may be TypeScript too (the runtime engine then names no language, and the runtime
   * strips TypeScript syntax). A call naming `javascript` runs as written.
   */
  languageDefaulted?: boolean;
  /** The effective wall-clock budget (integer milliseconds), counted from the snippet's start. */
  timeoutMs: number;
  /**
   * True when `timeoutMs` is the time left before the caller's absolute `deadline` (the call gave no
   * `timeoutMs` of its own): an engine lowers it to its backend's ceiling instead of refusing it
   * (the earlier limit wins either way). A `timeoutMs` the caller gave is never lowered.
   */
  timeoutFromDeadline?: boolean;
  /**
   * True when `timeoutMs` is the executor's default (the call gave neither `timeoutMs` nor
   * `deadline`): an engine lowers it to its backend's ceiling instead of refusing it, as a backend
   * lowers its own defaults. A `timeoutMs` the caller gave is never lowered.
   */
  timeoutDefaulted?: boolean;
  /** The longest wait for a sandbox before the snippet starts (integer milliseconds); the executor always sets it. */
  queueTimeoutMs?: number;
  /**
   * True when `queueTimeoutMs` is the executor's default (the call gave none): an engine lowers it
   * to its backend's ceiling instead of refusing it. A `queueTimeoutMs` the caller gave is never lowered.
   */
  queueTimeoutDefaulted?: boolean;
  /** The sandbox's memory cap in bytes, when the call or the executor sets one. */
  memoryBytes?: number;
  /**
   * Call once when the snippet starts running (after any wait for a sandbox): the executor's
   * deadline counts from then. Only read by an engine whose `reportsStart` is true.
   */
  onStart?: () => void;
  /** The effective tool-call cap (already capped by the executor's config); 0 = unlimited. */
  maxToolCalls: number;
  /** The executor's chain-step cap; 0 = unlimited. */
  maxChainSteps: number;
  /** The requested profile, when the call or the executor names one. */
  profile?: SecurityProfile;
  /** The call's metadata, passed through untouched (e.g. `{ unsafeOptIn: true }`). */
  metadata?: Record<string, unknown>;
  /** Aborted at the deadline (reason: a `TimeoutError` DOMException) or when the caller aborts. */
  signal: AbortSignal;
  /** Fail the run, instead of warning, when a tool call is still pending as the snippet returns. */
  strict?: boolean;
}

/** What an engine returns. The executor adds `toolCalls` and `durationMs`. */
export interface CodeEngineResult {
  /** The snippet's result value. */
  value?: unknown;
  /** The sandbox's stdout; the executor appends the environment's `println` output to it. */
  stdout?: string;
  /** The sandbox's stderr. */
  stderr?: string;
  /** The runtime backend that ran the snippet, when the engine knows it. */
  backend?: BackendInfo;
  /** The limits that backend really enforced, when the engine knows them. */
  limitsEnforced?: LimitsEnforced;
  /** What the run did that is probably a mistake (a tool call left pending, ...). */
  warnings?: SnippetWarning[];
}

/**
 * Runs snippets. The default is the runtime engine
 * (`createRuntimeEngine`), which runs them in a sandbox through a {@link Runtime}.
 *
 * @remarks
 * An engine rejects with a `ToolexecError`; it may put its partial {@link CodeEngineResult} under
 * `details.result` (stdout and stderr so far), which the executor keeps. It should stop when
 * `params.signal` aborts; the executor stops waiting shortly after the deadline either way.
 */
export interface CodeEngine {
  /**
   * True when the engine calls `params.onStart` as the snippet starts (after any wait for a
   * sandbox); the executor's deadline then counts from that moment. Otherwise it counts from the
   * call. The runtime engine reports the start.
   */
  readonly reportsStart?: boolean;
  /** Runs one snippet with `tools` as its gateway; rejects with a `ToolexecError`. */
  execute(params: CodeEngineParams, tools: ToolsEnvironment): Promise<CodeEngineResult>;
  /** Releases what the engine holds (sandboxes, pools). Idempotent. */
  close?(): Promise<void>;
}

/** Options of `createCodeExecutor`. */
export interface CodeExecutorOptions {
  /** Answers `tools.searchTools` / `tools.listNamespaces`. Required. */
  index: ToolIndex;
  /** Answers `tools.describeTool` / `tools.listToolExamples`. Required. */
  docs: DocStore;
  /** Runs `tools.runTool` / `tools.runChain`. Required. */
  runner: Runner;
  /**
   * The runtime of the default engine. @defaultValue `createRuntime()` (standard and hardened → the
   * WASM sandbox, dev → the host, with its per-request opt-in), closed by `close()`
   */
  runtime?: Runtime;
  /** @defaultValue the runtime engine over `runtime` */
  engine?: CodeEngine;
  /**
   * Language of snippets that name none. Without a `runtime` or `engine` of your own it must be one
   * the library runs (`javascript`, `typescript`, `python`, aliases `js`, `ts`, `py`), else
   * `CONFIGURATION`. @defaultValue 'javascript'
   */
  defaultLanguage?: string;
  /** Budget of a call that names none, in milliseconds (positive, finite), counted from the snippet's start. @defaultValue 30000 */
  defaultTimeoutMs?: number;
  /** Longest wait for a free sandbox of a call that names none, in milliseconds. @defaultValue 30000 */
  queueTimeoutMs?: number;
  /** Memory cap of a call that names none, in bytes. @defaultValue the backend's (wasm: 64 MiB) */
  memoryBytes?: number;
  /** Caps every call's tool calls; 0 or absent: only the call's own value applies. */
  maxToolCalls?: number;
  /** Most steps per chain; 0 or absent: unlimited. */
  maxChainSteps?: number;
  /** Profile of calls that name none. @defaultValue the engine's (the runtime engine: 'standard') */
  profile?: SecurityProfile;
}

/** Runs snippets that orchestrate tools. */
export interface CodeExecutor {
  /**
   * Runs one snippet.
   *
   * @remarks Rejects with a `ToolexecError` whose `details.result` holds the partial
   * {@link CodeResult} (stdout, stderr, tool calls so far, duration).
   */
  executeCode(params: CodeParams): Promise<CodeResult>;
  /** Releases the runtime / engine the executor created. Idempotent. */
  close?(): Promise<void>;
}
