/**
 * The facade: one object over the index, the doc store, the runner, MCP servers and code mode.
 */
import { createSchemaValidator } from '../model/index.js';
import {
  asLibraryError,
  layerErrors,
  readField,
  readLimit,
  readOptionsObject,
  readSignal,
  readTimeoutMs,
  textOf,
} from '../model/internal.js';
import { defaultExecCall, readExecCall, type ExecCall } from './call-options.js';
import {
  createDocStore,
  createToolIndex,
  type DetailLevel,
  type DocStore,
  type ToolDoc,
  type ToolIndex,
  type ToolSummary,
} from '../discovery/index.js';
import { createLocalRegistry, createRunner, type RunOptions, type RunResult, type Runner, type StreamEvent } from '../run/index.js';
import { telemetryOf, withTelemetryConfig, type Telemetry } from '../run/internal.js';
import type { Root, SdkMcpExecutor } from '../mcp/index.js';
import { createRuntime, type Runtime } from '../runtime/index.js';
import { isSnippetLanguage } from '../runtime/internal.js';
import type { LocalBackend } from '../backend/index.js';
import { createCodeExecutor, type CodeParams, type CodeResult, type DefaultCodeExecutor } from '../code/index.js';
import { readChainSteps, runExecChain } from './chain.js';
import { elapsedMs, nowMs, withDuration } from './call-time.js';
import { registerLocalTools } from './local-tools.js';
import { readSnippetCall, snippetWaitFailure } from './code-call.js';
import { DEFAULT_SEARCH_LIMIT, resolveExecOptions, type ResolvedExecOptions } from './options.js';
import { execTelemetryConfig, observedChain, serverStatusEvent } from './observe.js';
import { closedError, unexpectedFailure, unwrapUnavailable } from './server-failures.js';
import { openToolStream } from './tool-stream.js';
import type { ServerPool, WaitBounds } from './servers.js';
import { serverAwareDocs } from './server-docs.js';
import { setUpServers } from './server-setup.js';
import { warmSandboxes } from './warm.js';
import type { Exec, ExecChainResult, ExecEvent, ExecOptions, Result, ServerStatus, Step } from './types.js';

const RESOLVED = Promise.resolve();
const errors = layerErrors('exec');

/**
 * The standard {@link Exec}: the single entry point of the library.
 *
 * @remarks
 * Built from {@link ExecOptions} with these defaults (`resolveExecOptions`): input and output validation on, a 30 s deadline on every call that sets
 * none, 100 tool calls per snippet, and snippets in a real sandbox (`standard`: the WASM sandbox of
 * `createRuntime()`; Docker or gVisor when registered on `runtime`) — never on the host unless the
 * `dev` profile is asked for by name, in which case the facade passes the host backend's opt-in.
 *
 * - **Tools.** `tools` are registered in the index (backend `local`, name = tool ID) with their
 *   docs, their schemas compiled at once (`INVALID_SCHEMA` here rather than at the first call);
 *   `localHandlers` serve local backends by name. `mcpServers` connect on first use, each on
 *   its own (`ServerPool`, `src/exec/servers.ts`), and import their tools (namespace = server
 *   name). A server that fails is `failed` in {@link DefaultExec.serverStatus}, its tools are
 *   absent, and everything else works at once: a local call never waits for a server, a search
 *   waits only for the first attempts, each at most `mcpOptions.connectTimeoutMs` (10 s) and a
 *   second more for the tool listing (a server slow to list shows its tools once it has), and a
 *   call for a tool of a server that is not connected waits for it within the call's own deadline,
 *   or rejects with `SERVER_UNAVAILABLE` while the server's backoff (`mcpReconnect`) runs. A
 *   `required` server is all-or-nothing. A server's `tools/list_changed` re-imports it.
 *   `mcpOptions` configures the MCP executor (e.g. `alwaysRequestProgress`).
 * - **Calls.** `runTool` resolves `{ value, toolId, durationMs }`; a failure rejects with the run
 *   layer's error unchanged (a `ToolError`: code, op, backend, cause), carrying the call's
 *   duration as a non-enumerable `durationMs` ({@link durationOf}). `timeoutMs` (or
 *   `defaultTimeoutMs`) is handed to the runner, whose per-call deadline enforces it and tells the
 *   handler through `ctx.signal`; `timeoutMs: Infinity` turns it off for a call.
 * - **Chains.** `runChain` adds `stopOnError: false` (the chain goes on, the step is reported
 *   failed), real step durations and skipped steps; the deadline covers the whole chain; a stopping
 *   failure rejects with an `ExecChainError` (a run-layer `ChainError`) carrying every step.
 * - **Streams.** `runToolStream` is the runner's stream under the same deadline rule, with the
 *   progress lifecycle of `onProgress` (`started`, the backend's reports, `completed` / `error`) as
 *   `progress` events, for every backend (see docs/architecture.md, "Progress"); its `return()`
 *   never waits for a `next()` in flight (`src/exec/tool-stream.ts`).
 * - **Code.** `executeCode` runs on a code executor over this index, doc store (a failed server's
 *   tool is `SERVER_UNAVAILABLE` there, as in `getToolDoc`) and runner;
 *   `connect()` also starts the sandboxes of `warmLanguages` (by default Python when it is the
 *   `defaultLanguage`, else none) through the runtime's `warm`.
 * - `close()` closes the MCP connections and the runtime the facade created (not the ones it was
 *   given); idempotent. Afterwards every call rejects with `CONNECTION_CLOSED`. MCP calls in flight
 *   reject with `CONNECTION_CLOSED`; snippets still running are stopped (on any runtime, one the
 *   facade was given included: they make no further tool call) and reject with
 *   `RUNTIME_UNAVAILABLE`. Calls already in flight on local handlers finish on their own.
 */
export class DefaultExec implements Exec {
  readonly #options: ResolvedExecOptions;
  readonly #index: ToolIndex;
  readonly #docs: DocStore;
  /** The doc store as `getToolDoc` and snippets read it: a failed server's tool is SERVER_UNAVAILABLE. */
  readonly #toolDocs: DocStore;
  readonly #runner: Runner;
  readonly #local: LocalBackend;
  readonly #code: DefaultCodeExecutor;
  readonly #mcpClient: SdkMcpExecutor | undefined;
  readonly #ownedRuntime: Runtime | undefined;
  /** Where snippets run: the caller's runtime or the facade's own. */
  readonly #runtime: Runtime;
  /** A call without options: the default deadline. */
  readonly #defaultCall: ExecCall;
  readonly #timeoutMs: number | undefined;
  /** The MCP servers of `mcpServers`, each connected and failing on its own. */
  readonly #pool: ServerPool | undefined;
  /** Spans, metrics, events and redaction: the runner's, configured from `redact`, `onEvent`, `logger`. */
  readonly #telemetry: Telemetry;
  #closing: Promise<void> | undefined;

  constructor(options: ExecOptions = {}) {
    const o = resolveExecOptions(options);
    this.#options = o;
    const telemetryConfig = execTelemetryConfig(o.redact, o.onEvent, o.logger);
    this.#index = o.index ?? createToolIndex();
    this.#docs = o.docs ?? createDocStore({ index: this.#index });
    this.#local = createLocalRegistry(o.localHandlers);
    // One validator for the runner and the facade's own tools, compiled now (a broken schema is
    // INVALID_SCHEMA here, not at the first call) and found in its cache by the first call.
    const validator = createSchemaValidator();
    registerLocalTools(o.tools, this.#index, this.#local, this.#docs, {
      validator,
      input: o.validateInput,
      output: o.validateOutput === true,
    });

    const servers = setUpServers(o, this.#index, (name, status) => serverStatusEvent(this.#telemetry, name, status));
    this.#mcpClient = servers?.client;
    const pool = (this.#pool = servers?.pool);
    const mcp = servers?.mcp ?? o.mcp;
    this.#toolDocs = serverAwareDocs(this.#docs, pool);

    this.#runner = createRunner(
      withTelemetryConfig(
        {
          index: this.#index,
          local: this.#local,
          validator,
          validateInput: o.validateInput,
          validateOutput: o.validateOutput,
          ...(o.retry === undefined ? {} : { retry: o.retry }),
          ...(o.onAttempt === undefined ? {} : { onAttempt: o.onAttempt }),
          ...(o.onWarning === undefined ? {} : { onWarning: o.onWarning }),
          ...(mcp === undefined ? {} : { mcp }),
          ...(o.provider === undefined ? {} : { provider: o.provider }),
          // A tool the index lacks may belong to a server that is not connected (yet): wait for it,
          // or reject with SERVER_UNAVAILABLE. The runner bounds the wait by the call's deadline.
          ...(pool === undefined
            ? {}
            : { toolResolver: (id: string) => pool.resolveMissing(id), backendsResolver: (id: string) => pool.backendsOf(id) }),
        },
        telemetryConfig,
      ),
    );
    this.#telemetry = telemetryOf(this.#runner);
    const runtime = o.runtime ?? (this.#ownedRuntime = createRuntime(o.poolSize === undefined ? {} : { wasm: { poolSize: o.poolSize } }));
    this.#runtime = runtime;
    this.#code = createCodeExecutor({
      index: this.#index,
      docs: this.#toolDocs,
      runner: this.#runner,
      runtime,
      defaultLanguage: o.defaultLanguage,
      ...(o.defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs: o.defaultTimeoutMs }),
      maxToolCalls: o.maxToolCalls,
      maxChainSteps: o.maxChainSteps,
      profile: o.securityProfile,
      ...(o.memoryBytes === undefined ? {} : { memoryBytes: o.memoryBytes }),
      ...(o.queueTimeoutMs === undefined ? {} : { queueTimeoutMs: o.queueTimeoutMs }),
    });
    this.#timeoutMs = o.defaultTimeoutMs;
    this.#defaultCall = defaultExecCall(o.defaultTimeoutMs);
  }

  /** The tool index (register more tools on it at any time). */
  get index(): ToolIndex {
    return this.#index;
  }

  /** The doc store. */
  get docs(): DocStore {
    return this.#docs;
  }

  /** The runner every call goes through. */
  get runner(): Runner {
    return this.#runner;
  }

  /**
   * The one store of the facade's local tools, by local backend name: `tools` and `localHandlers`
   * are registered here. Register more at any time with `registerHandler(name, handler)` (and
   * the tool itself on `index`).
   */
  get localHandlers(): LocalBackend {
    return this.#local;
  }

  async searchTools(query: string, limit: number = DEFAULT_SEARCH_LIMIT): Promise<ToolSummary[]> {
    readLimit(errors, limit, 'limit');
    await this.#prepare();
    return this.#index.search(query, limit);
  }

  async listNamespaces(): Promise<string[]> {
    await this.#prepare();
    return this.#index.listNamespaces();
  }

  async getToolDoc(id: string, level: DetailLevel = 'summary'): Promise<ToolDoc> {
    await this.#prepare();
    return this.#toolDocs.describeTool(id, level);
  }

  runTool(id: string, args?: Record<string, unknown>, options?: RunOptions): Promise<Result> {
    let call: ExecCall;
    try {
      call = options === undefined ? this.#defaultCall : readExecCall(options, this.#defaultCall, this.#timeoutMs);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a ToolexecError, with the call's duration attached
      return Promise.reject(withDuration(asLibraryError(errors, 'options', err), 0));
    }
    const gate = this.#beforeCall(call);
    if (gate === undefined) return this.#runTool(id, args, call.options);
    return gate.then(() => this.#runTool(id, args, call.options));
  }

  runToolStream(id: string, args?: Record<string, unknown>, options?: RunOptions): AsyncIterable<StreamEvent> {
    return openToolStream(this.#runner, id, args, {
      readCall: () => readExecCall(options, this.#defaultCall, this.#timeoutMs),
      beforeCall: (call, signal) => this.#beforeCall(call, signal),
    });
  }

  async runChain(steps: Step[], options?: RunOptions): Promise<ExecChainResult> {
    const call = readExecCall(options, this.#defaultCall, this.#timeoutMs);
    // The caller's steps are read once, here: only this is INVALID_ARGUMENT for their sake.
    const read = readChainSteps(steps);
    await this.#beforeCall(call);
    try {
      return await observedChain(this.#telemetry, read, () => runExecChain(this.#runner, read, call.options, call.budgetMs));
    } catch (err) {
      // Anything else that is not a library error is not the caller's: EXECUTION, as for runTool.
      throw unexpectedFailure('runChain', err);
    }
  }

  /**
   * Adds a listener for every {@link ExecEvent} (like `onEvent`, which stays in place); returns
   * the function that removes it. Events are already redacted.
   */
  subscribe(listener: (event: ExecEvent) => void): () => void {
    if (typeof listener !== 'function') throw errors.invalidArgument('listener', 'must be a function');
    return this.#telemetry.config.sink.subscribe(listener);
  }

  async executeCode(params: CodeParams): Promise<CodeResult> {
    if (this.#closing !== undefined) throw closedError();
    const started = nowMs();
    // Read once: the wait below and the code executor see the same values (see code-call.ts).
    const call = readSnippetCall(params, this.#options.securityProfile);
    const pool = this.#pool;
    // The snippet's own bounds end the wait for the servers' first imports (a server hung at
    // initialize must not hold an aborted or past-deadline snippet for the connect timeout); bounds
    // the executor refuses, and a language the facade's own runtime does not run, are refused at
    // once, without a wait.
    if (call.wait !== undefined && pool !== undefined && !pool.settled && !this.#refusesLanguage(call.params.language)) {
      try {
        await this.#prepare(call.wait);
      } catch (err) {
        throw snippetWaitFailure(err, call.wait.signal, elapsedMs(started));
      }
    }
    return this.#code.executeCode(call.params);
  }

  connect(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Record<string, ServerStatus>> {
    if (this.#closing !== undefined) return Promise.reject(closedError());
    let given: { signal?: AbortSignal; timeoutMs?: number };
    try {
      const raw = readOptionsObject(errors, 'options', options) ?? {};
      given = {};
      const signal = readSignal(errors, readField(errors, raw, 'signal'));
      const timeoutMs = readTimeoutMs(errors, readField(errors, raw, 'timeoutMs'));
      if (signal !== undefined) given.signal = signal;
      if (timeoutMs !== undefined) given.timeoutMs = timeoutMs;
    } catch (err) {
      return Promise.reject(asLibraryError(errors, 'options', err));
    }
    const servers = this.#pool === undefined ? Promise.resolve({}) : this.#pool.connect(given);
    const warming = warmSandboxes(this.#runtime, this.#options.warmLanguages, given);
    return warming === undefined ? servers : Promise.all([servers, warming]).then(([statuses]) => statuses);
  }

  async finishAuth(server: string, authorizationCode: string): Promise<void> {
    if (this.#closing !== undefined) throw closedError();
    const client = this.#mcpClient;
    if (client === undefined || this.#pool === undefined) {
      // quoted as text (never through the caller's toString; a long name cut at 200 characters)
      const name = textOf(server);
      throw errors.invalidArgument('server', `"${name}" is not one of mcpServers`, { details: { server: name } });
    }
    await client.finishAuth(server, authorizationCode);
    await this.#pool.reconnectNow(server);
  }

  /**
   * Replaces the roots `mcpServers` are told about and announces the change to every connected
   * server (`notifications/roots/list_changed`). `CONFIGURATION` unless the facade was created
   * with `roots` and `mcpServers`; `INVALID_ARGUMENT` for a bad list.
   */
  async setRoots(roots: Root[]): Promise<void> {
    if (this.#closing !== undefined) throw closedError();
    const client = this.#mcpClient;
    if (client === undefined) throw errors.configuration('roots', 'setRoots needs mcpServers');
    await client.setRoots(roots);
  }

  serverStatus(): Record<string, ServerStatus> {
    return this.#pool?.status() ?? {};
  }

  close(): Promise<void> {
    this.#pool?.close();
    this.#closing ??= Promise.allSettled([this.#mcpClient?.close(), this.#code.close(), this.#ownedRuntime?.close?.()]).then(
      () => undefined,
    );
    return this.#closing;
  }

  async #runTool(id: string, args: Record<string, unknown> | undefined, options: RunOptions | undefined): Promise<Result> {
    const startedMs = nowMs();
    let result: RunResult;
    try {
      result = await this.#runner.run(id, args, options);
    } catch (err) {
      throw withDuration(unexpectedFailure('runTool', unwrapUnavailable(err)), elapsedMs(startedMs));
    }
    const mcpResult = result.mcpResult;
    const out: Result =
      mcpResult === undefined
        ? { value: result.structured, toolId: id, durationMs: elapsedMs(startedMs) }
        : { value: result.structured, content: mcpResult.content, toolId: id, durationMs: elapsedMs(startedMs) };
    if (result.attempts !== undefined) out.attempts = result.attempts;
    return out;
  }

  /** True when the facade's own runtime runs no snippet in `language` (a runtime of the caller's decides for itself). */
  #refusesLanguage(language: unknown): boolean {
    return this.#ownedRuntime !== undefined && typeof language === 'string' && language.trim() !== '' && !isSnippetLanguage(language);
  }

  /**
   * Before a run: nothing when every server is connected (the fast path); otherwise starts the
   * attempts that are due and waits for the required servers, bounded by the call's deadline and
   * `signal` (the caller's; a stream's work signal, which closing the stream aborts).
   */
  #beforeCall(call: ExecCall, signal = call.signal): Promise<void> | undefined {
    if (this.#closing !== undefined) return Promise.reject(closedError());
    const pool = this.#pool;
    if (pool === undefined || pool.settled) return undefined;
    return pool.beforeCall({ signal, timeoutMs: call.budgetMs });
  }

  /** Before a search, doc lookup or snippet: the servers' first imports (see `ServerPool.beforeDiscovery`); rejects after close(). */
  #prepare(bounds?: WaitBounds): Promise<void> {
    if (this.#closing !== undefined) return Promise.reject(closedError());
    const pool = this.#pool;
    if (pool === undefined || pool.settled) return RESOLVED;
    return pool.beforeDiscovery(bounds);
  }
}

/**
 * Creates the facade.
 *
 * @throws `CONFIGURATION` naming every invalid option; `INVALID_TOOL` for a bad tool definition;
 * `INVALID_SCHEMA` for a tool of `tools` whose input or output schema does not compile (see
 * {@link ExecOptions.tools}), as its first call would have failed.
 *
 * @example
 * ```ts
 * const exec = createExec({
 *   tools: [{ tool: { name: 'add', namespace: 'math', inputSchema: { type: 'object',
 *     properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
 *     handler: ({ a, b }) => (a as number) + (b as number) }],
 *   mcpServers: { files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] } },
 * });
 * const { value } = await exec.runTool('math:add', { a: 1, b: 2 });           // 3
 * const run = await exec.executeCode({ code: 'return (await tools.runTool("math:add", { a: 2, b: 3 })).structured' });
 * await exec.close();
 * ```
 */
export function createExec(options?: ExecOptions): DefaultExec {
  return new DefaultExec(options);
}
