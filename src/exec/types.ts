import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolexecError, Tool } from '../model/index.js';
import type { DetailLevel, DocEntry, DocStore, ToolDoc, ToolExample, ToolIndex, ToolSummary } from '../discovery/index.js';
import type {
  AttemptEvent,
  AttemptRecord,
  ChainStep,
  ExecEvent,
  LocalHandler,
  Logger,
  McpExecutor,
  ProviderExecutor,
  RetryPolicy,
  RunOptions,
  RunWarning,
  StreamEvent,
} from '../run/index.js';
import type { ElicitationHandler, McpExecutorOptions, McpServerConfig, Root, SamplingHandler } from '../mcp/index.js';
import type { Runtime, SecurityProfile } from '../runtime/index.js';
import type { CodeParams, CodeResult } from '../code/index.js';
import type { ReconnectPolicy } from './backoff.js';

export type { ContentBlock, ExecEvent, Logger, ReconnectPolicy };

/**
 * Where one MCP server of `mcpServers` stands.
 *
 * - `connecting`: an attempt is under way, or none was made yet (servers connect on first use,
 *   or on `connect()`);
 * - `connected`: its tools are in the index;
 * - `failed`: it could not start, crashed, or did not answer `initialize` in time; its tools are
 *   out of the index, and it is tried again after a backoff;
 * - `closed`: the facade was closed.
 */
export interface ServerStatus {
  /** The state. */
  state: 'connecting' | 'connected' | 'failed' | 'closed';
  /** How many of its tools are in the index (0 unless `connected`). */
  toolCount: number;
  /** Why it failed (the connect error: a server that could not start, a TIMEOUT, an HTTP status in `details.httpStatus`). */
  error?: ToolexecError;
  /** When it entered this state (`Date.now()` milliseconds). */
  since: number;
  /**
   * Tools the server listed that the index refused (a name with a space or a `:`, a name listed
   * twice, no `inputSchema`), each with why (`INVALID_TOOL`); the server's other tools are
   * imported. Absent when there are none.
   */
  rejectedTools?: RejectedTool[];
}

/** A tool an MCP server listed that could not be imported: see {@link ServerStatus.rejectedTools}. */
export interface RejectedTool {
  /** Its name as the server sent it (a string; anything else is described). */
  name: string;
  /** Why the index refused it: names the server and the tool. */
  error: ToolexecError;
}

/** A local tool: its definition and the function that runs it. */
export interface LocalToolDefinition {
  /** Registered in the index with a `local` backend named after the tool's ID. */
  tool: Tool;
  /** Runs the tool; registered in the facade's local store (`exec.localHandlers`, a `LocalBackend`) under the tool's ID. */
  handler: LocalHandler;
  /** Documentation for `getToolDoc` / `tools.describeTool` (summary, notes, examples). */
  doc?: DocEntry;
  /** Examples for `tools.listToolExamples`. */
  examples?: ToolExample[];
}

/** Options of `createExec`. Every field is optional. */
export interface ExecOptions {
  /** @defaultValue a new `createToolIndex()` */
  index?: ToolIndex;
  /**
   * Documentation of the tools; when you pass one, pass the `index` it reads from too.
   * @defaultValue a new `createDocStore({ index })`
   */
  docs?: DocStore;
  /**
   * Local tools, registered in the index with backend name = tool ID.
   *
   * Their schemas are compiled by `createExec` (unlike tools registered later, compiled at their
   * first call): the input schema when `validateInput` is on, the output schema when
   * `validateOutput` is `true`. One that does not compile (`properties: { a: { type: 'strng' } }`,
   * a `$ref` to a URL) makes `createExec` throw `INVALID_SCHEMA` with the message and `details`
   * (`tool`, `schema`, `reason`) the tool's first call would have failed with; a valid one is
   * cached, so that call compiles nothing.
   *
   * All or nothing in `index`: when `createExec` throws for one of them (a tool defined twice, a
   * tool the index refuses, a schema, a doc or examples refused), none of `tools` stays in an
   * `index` you passed (a tool it held before keeps the backends it had).
   */
  tools?: LocalToolDefinition[];
  /** Local handlers by backend name, for tools registered in the index by other means. */
  localHandlers?: Record<string, LocalHandler>;
  /**
   * The retry policy of tools annotated `readOnlyHint` or `idempotentHint` (a call's `retry`
   * overrides it); `false`: no automatic retries. @defaultValue DEFAULT_RETRY_POLICY (3 attempts)
   */
  retry?: RetryPolicy | false;
  /** Called after each failed attempt of a call that has a retry policy (the runner's `onAttempt`). */
  onAttempt?: (event: AttemptEvent) => void;
  /**
   * MCP servers to connect to, as MCP clients' configs write them: `{ command, args?, env?, cwd? }`
   * (stdio), `{ url, headers?, authProvider? }` (Streamable HTTP, falling back to HTTP+SSE), either
   * with `type: 'stdio' | 'http' | 'sse'`, and `required?: boolean`.
   *
   * Each server connects on first use and imports its tools (namespace = server name) on its own:
   * a server that fails is `failed` (see {@link ServerStatus}), its tools are absent, and
   * everything else works at once. A call for a tool of a failed server rejects with
   * `SERVER_UNAVAILABLE` (`details.server`, the connect error as `cause`) until its backoff
   * (`mcpReconnect`) has passed; then the call starts a new attempt and waits for it, bounded by
   * its own `timeoutMs` and `signal`. A `required: true` server is all-or-nothing: until it is
   * connected every call waits for it, and its failure rejects `connect()` and every call.
   * `close()` ends the connections.
   */
  mcpServers?: Record<string, McpServerConfig>;
  /**
   * Called on every change of a server's {@link ServerStatus} (also readable at any time with
   * `serverStatus()`). A listener that throws (or, async, rejects) does not disturb the facade:
   * its error becomes a process warning named `ToolexecListenerWarning`.
   */
  onServerStatus?: (name: string, status: ServerStatus) => void;
  /** When a failed MCP server is tried again. @defaultValue `{ initialDelayMs: 1000, maxDelayMs: 30000 }` */
  mcpReconnect?: ReconnectPolicy;
  /**
   * Options of the MCP executor made for `mcpServers` (`requestTimeoutMs`, `maxTotalTimeoutMs`,
   * `alwaysRequestProgress`, `clientInfo`, stderr handling...), checked like `createMcpExecutor`'s.
   * `onToolsListChanged` is called after the facade has marked the server for re-import.
   */
  mcpOptions?: Omit<McpExecutorOptions, 'servers'>;
  /**
   * Answers `mcpServers` that ask the user for input (`elicitation/create`), with the asking
   * server's name in `info.server`. Form elicitation is always declared: without a handler every
   * request is declined; when the handler accepts, omitted fields get the schema's defaults.
   * @defaultValue decline every request
   */
  onElicitation?: ElicitationHandler;
  /** Answers `mcpServers` that ask the app's model for a completion (`sampling/createMessage`); declares sampling. */
  onSampling?: SamplingHandler;
  /** The roots (`file://` URIs) `mcpServers` may work in (`roots/list`); change them with `setRoots`. */
  roots?: Root[];
  /** Runs tools of `mcp` backends whose server is not in `mcpServers` (an executor you own and close). */
  mcp?: McpExecutor;
  /** Runs tools of `provider` backends. */
  provider?: ProviderExecutor;
  /** Validate arguments against the input schema (`VALIDATION` with violations). @defaultValue true */
  validateInput?: boolean;
  /**
   * Validate results against the output schema: fatal (`true`) or `'warn'` (the result is kept;
   * `onWarning`, a `call.warning` event and a `warn` log line tell of it). @defaultValue true
   */
  validateOutput?: boolean | 'warn';
  /** Told of a call's non-fatal problem: its result broke the output schema under `validateOutput: 'warn'`. */
  onWarning?: (warning: RunWarning) => void;
  /**
   * Deadline of every call that sets no `timeoutMs` of its own (runTool, runToolStream, the
   * whole of runChain, executeCode), in milliseconds. `Infinity`: tool calls get no deadline
   * (snippets then get the code layer's 30 s). @defaultValue 30000
   */
  defaultTimeoutMs?: number;
  /**
   * Profile of `executeCode` calls that name none. `standard` / `hardened` run in a real sandbox
   * (WASM by default; Docker or gVisor when registered on `runtime`); `dev` runs snippets on this
   * machine, and only because it was named here or in the call. @defaultValue 'standard'
   */
  securityProfile?: SecurityProfile;
  /** Where snippets run. @defaultValue `createRuntime()`, closed by `close()` */
  runtime?: Runtime;
  /** Most tool calls one snippet may make (0: unlimited). @defaultValue 100 */
  maxToolCalls?: number;
  /** Most steps of one chain inside a snippet (0: unlimited). @defaultValue 0 */
  maxChainSteps?: number;
  /**
   * Language of snippets that name none (`javascript`, `typescript`, `python`, or the aliases `js`,
   * `ts`, `py`). With the facade's own runtime any other is `CONFIGURATION` at `createExec`; a
   * `runtime` of your own may run more. @defaultValue 'javascript'
   */
  defaultLanguage?: string;
  /**
   * Snippet languages whose sandboxes `connect()` starts before the first snippet needs them
   * (`['python']`: the runtime's Python pool, which takes seconds to start), through the runtime's
   * `warm({ languages })`. Without it a sandbox starts on first use. A Python sandbox is never
   * started for a facade that names neither this nor `defaultLanguage: 'python'`.
   * @defaultValue `['python']` when `defaultLanguage` is `'python'`, else none
   */
  warmLanguages?: string[];
  /**
   * Memory cap of a snippet that names none (`executeCode({ memoryBytes })`), in bytes.
   * @defaultValue the sandbox's (WASM: 64 MiB; at most 1 GiB)
   */
  memoryBytes?: number;
  /** Longest wait of a snippet for a free sandbox, in milliseconds. @defaultValue 30000 */
  queueTimeoutMs?: number;
  /**
   * Snippets running at once in the WASM sandbox the facade creates (its worker pool; `CONFIGURATION`
   * together with `runtime`). @defaultValue the available cores
   */
  poolSize?: number;
  /**
   * Redaction paths added to the defaults (the usual names of credentials, at any depth:
   * `authorization`, `proxy-authorization`, `cookie`, `set-cookie`, `password`, `passwd`, `token`,
   * `access_token`, `refresh_token`, `id_token`, `apiKey`, `api_key`, `x-api-key`, `secret`,
   * `client_secret`, `private_key`, and the camelCase spellings; the list is in docs/tracing.md): dotted paths matched at any depth (`headers.authorization`, `card.*`) or JSON
   * pointers from the root (`/auth/key`), case-insensitive. A tool adds its own in
   * `_meta['toolexec/redact']`. What the library emits — span attributes, events, log lines,
   * error messages and details, code-mode traces, chain records, stream events — never carries the
   * values at those paths; every record that lost something lists their JSON pointers in
   * `redactions`. The values sent to tools are never changed. See docs/tracing.md.
   */
  redact?: string[];
  /** Receives every {@link ExecEvent} (calls started / finished / failed, server status, sandbox runs, limit hits), already redacted. */
  onEvent?: (event: ExecEvent) => void;
  /**
   * A pino-style logger (`{ debug, info, warn, error }`, each `(obj, msg?)`): gets every event as a log line,
   * and the log messages of `mcpServers` (with the server's name). @defaultValue none (silent)
   */
  logger?: Logger;
}

/** The outcome of one call (or of a whole chain). */
export interface Result {
  /** The tool's structured result. */
  value?: unknown;
  /**
   * Every content block an MCP tool sent (text, image, audio, resource, resource_link), as the
   * server sent them: JSON-safe (binary data is base64 text). Absent for local and provider tools.
   */
  content?: ContentBlock[];
  /** The tool ID as the caller wrote it (a chain: its last step's). */
  toolId: string;
  /** Wall-clock time of the call, measured by the facade, in milliseconds to the nanosecond (> 0 even for a sub-microsecond call). */
  durationMs: number;
  /** Set on a chain result whose last step failed without stopping the chain (`stopOnError: false`). */
  error?: ToolexecError;
  /** The failed attempts before this result, when the call was retried (see `RetryPolicy`). */
  attempts?: AttemptRecord[];
}

/** One chain step, with the facade's `stopOnError`. */
export type Step = ChainStep & {
  /**
   * `false`: a failure of this step is recorded and the chain goes on (the step is reported with
   * its `error`). A timeout or abort of the chain stops it regardless. @defaultValue true
   */
  stopOnError?: boolean;
};

/** What happened to one chain step. */
export interface ExecStepResult {
  /** 0-based position in the chain. */
  stepIndex: number;
  /** The step's tool ID (`''` when the step had none). */
  toolId: string;
  /** The caller's arguments, as given (without the injected `previous`). */
  args?: Record<string, unknown>;
  /** The step's structured result. */
  value?: unknown;
  /** Wall-clock time of the step (0 for a skipped step). */
  durationMs: number;
  /** JSON pointers (into `args`) of the values redaction removed from this record; absent when none. */
  redactions?: string[];
  /** The step's failure; set on a failed step (whether or not it stopped the chain). */
  error?: ToolexecError;
  /** True for a step that never ran because an earlier step stopped the chain. */
  skipped?: boolean;
}

/** The result of `runChain`. */
export interface ExecChainResult {
  /** The last step's outcome; `durationMs` is the whole chain's. */
  result: Result;
  /** Every step's outcome, in order. */
  steps: ExecStepResult[];
}

/** The facade: discovery, execution, chains, streaming and code mode behind one object. */
export interface Exec {
  /**
   * Full-text search over the index (MCP tools imported first). `limit` is a positive integer:
   * 0, a negative number or NaN is refused with `INVALID_ARGUMENT`, as every facade method refuses
   * an out-of-range number (the index's own `search` returns `[]` for 0, as Go does).
   * @defaultValue limit 10
   */
  searchTools(query: string, limit?: number): Promise<ToolSummary[]>;
  /** The namespaces of the registered tools, sorted. */
  listNamespaces(): Promise<string[]>;
  /**
   * A tool's documentation. `TOOL_NOT_FOUND`, `INVALID_DETAIL`; `SERVER_UNAVAILABLE` (as `runTool`)
   * for an ID in the namespace of an MCP server that failed, naming it (`details.server`) with its
   * last connect error as `cause`; a snippet's `tools.describeTool` and `tools.listToolExamples`
   * answer the same. @defaultValue level 'summary'
   */
  getToolDoc(id: string, level?: DetailLevel): Promise<ToolDoc>;
  /**
   * Runs one tool: `{ value, toolId, durationMs }`. Rejects with the run layer's error (code, op,
   * backend, cause). Without `options.timeoutMs` the facade's default deadline applies;
   * `timeoutMs: Infinity` runs without one.
   */
  runTool(id: string, args?: Record<string, unknown>, options?: RunOptions): Promise<Result>;
  /**
   * Runs one tool as a stream of events: the `started` progress report, the backend's progress
   * reports and chunks, then `completed` and `done` — the reports `onProgress` of `runTool` gets,
   * for every backend (docs/architecture.md, "Progress"), except that of a local handler's reports
   * waiting unread at most 1,024 are kept, the newest (a consumer that reads slowly still sees the
   * last one; chunks and the result are never dropped). A failure (before dispatch too: an
   * unknown tool, invalid arguments, a backend that cannot stream) throws after an `error`
   * progress report; the default deadline applies as for `runTool`. Options that cannot be used
   * (`timeoutMs: 0`, a `signal` that is not one) are the caller's mistake, not the call's: the first
   * iteration throws `INVALID_ARGUMENT` before any event, as `runTool` rejects them. The iterator's
   * `return()` never waits for a `next()` in flight: it settles at once, that `next()` settles with
   * `done: true`, and the work is stopped (its signal aborted, its source closed).
   */
  runToolStream(id: string, args?: Record<string, unknown>, options?: RunOptions): AsyncIterable<StreamEvent>;
  /**
   * Runs steps in order (`usePrevious` passes the previous value as `args.previous`); a step with
   * `stopOnError: false` may fail without stopping the chain. The deadline covers the whole chain.
   * The steps are read once, before any runs: steps that cannot be read are `INVALID_ARGUMENT`
   * (nothing ran); any other failure that is not a library error is `EXECUTION`, as for `runTool`.
   */
  runChain(steps: Step[], options?: RunOptions): Promise<ExecChainResult>;
  /** Runs a code-mode snippet in the sandbox of its profile. Failures carry the partial result in `details.result`. */
  executeCode(params: CodeParams): Promise<CodeResult>;
  /**
   * Connects every MCP server that is neither connected nor connecting (a failed one too) and
   * resolves, once each has connected or failed, with every {@link ServerStatus} by name. Never
   * rejects for a server that is not `required`; when `timeoutMs` runs out first it resolves with
   * the servers still connecting marked so; an aborted `signal` rejects (`ABORTED`).
   *
   * With `warmLanguages` (or `defaultLanguage: 'python'`) it also starts those languages' sandboxes
   * (`runtime.warm`) and waits for them within the same bounds; a sandbox that cannot start
   * (`RUNTIME_UNAVAILABLE`, naming what to install) rejects.
   */
  connect(options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<Record<string, ServerStatus>>;
  /**
   * Completes the interactive OAuth authorization an MCP server asked for: when its `authProvider`
   * was told to `redirectToAuthorization`, the server is `failed` (not authorized); pass the code
   * the user brought back, and the server connects with the new tokens. Resolves once it is
   * connected; `INVALID_ARGUMENT` when no authorization is waiting; `SERVER_UNAVAILABLE` when it
   * still cannot connect.
   */
  finishAuth(server: string, authorizationCode: string): Promise<void>;
  /** Every MCP server's {@link ServerStatus} by name, now. */
  serverStatus(): Record<string, ServerStatus>;
  /**
   * Closes MCP connections and the runtime backends the facade created, and stops the snippets
   * still running (on any runtime: they reject with `RUNTIME_UNAVAILABLE`). Idempotent.
   */
  close(): Promise<void>;
}
