import {
  SCHEMA_TESTS,
  ToolexecError,
  errorMessage,
  type ErrorCode,
  type SchemaTest,
  type SchemaTests,
  type SchemaValidator,
  type TestedSchemaChecks,
  type Tool,
  type ToolBackend,
  type ToolSchemaChecks,
} from '../model/index.js';
import { defaultBackendSelector } from '../discovery/index.js';
import { ABORTED, noop, type CallSignal } from './call-signal.js';
import { ToolError, abortToolError, asRunFailure, type ToolErrorInit, type ToolErrorOp } from './errors.js';
import { HandlerContext } from './handler-context.js';
import { mcpResultTexts, normalizeMcpResult } from './normalize.js';
import type { OutputValidationMode, ResolvedRunnerOptions } from './options.js';
import {
  SETTLED_CALL,
  type CallSettler,
  type CallToolResult,
  type LocalHandler,
  type LocalRegistry,
  type McpExecutor,
  type ProgressEvent,
  type ProviderExecutor,
  type RunOptions,
  type RunResult,
  type RunWarning,
  type SettledMcpCall,
} from './types.js';

/** A tool and the backends it can run on. @internal */
export interface Resolved {
  tool: Tool;
  /** Frozen when it comes from the resolution cache; custom selectors get a copy. */
  backends: ToolBackend[];
  /** The default selector's choice, remembered with a cached resolution. */
  selected: ToolBackend | undefined;
  /** The validator's checks bound to this tool's schemas, made on first use. */
  checks: ToolSchemaChecks | undefined;
  /** The compiled test behind `checks.validateInput`, when the validator gives one ({@link SCHEMA_TESTS}). */
  inputTest: SchemaTest['test'] | undefined;
  /** Its second argument. */
  inputContext: unknown;
  /** The compiled test behind `checks.validateOutput`, when the validator gives one. */
  outputTest: SchemaTest['test'] | undefined;
  /** Its second argument. */
  outputContext: unknown;
  /** The handler name of {@link Resolved.selected} when it is a local backend with a string name. */
  localName: string | undefined;
}

/** Most index resolutions remembered per runner (the cache is dropped whole when full). */
const RESOLUTION_CACHE_SIZE = 1024;

/** A tool, validated input and the backend selected for it: everything dispatch needs. @internal */
export interface Prepared {
  tool: Tool;
  backend: ToolBackend;
}

/** Receives progress reports of one call. @internal */
export type ProgressSink = (progress: ProgressEvent) => void;

/**
 * The run pipeline of §2.2.4, in the Go order: signal check, tool-ID check, resolve, select,
 * validate input, dispatch, normalize, validate output.
 *
 * @remarks
 * Every step that can finish synchronously does: with an index, a synchronous handler and the
 * schema validator, a call completes without a single await and the runner wraps the value in
 * one resolved promise. Only work that is really asynchronous (an async resolver, handler or
 * executor) goes through an `async` step. Holds no per-call state.
 *
 * @internal
 */
export class Pipeline {
  readonly #index: ResolvedRunnerOptions['index'];
  readonly #toolResolver: ResolvedRunnerOptions['toolResolver'];
  readonly #backendsResolver: ResolvedRunnerOptions['backendsResolver'];
  readonly #selector: ResolvedRunnerOptions['backendSelector'];
  readonly #validator: ResolvedRunnerOptions['validator'];
  readonly #validateInput: boolean;
  readonly #validateOutput: OutputValidationMode;
  readonly #onWarning: ((warning: RunWarning) => void) | undefined;
  readonly #local: LocalRegistry | undefined;
  readonly #mcp: McpExecutor | undefined;
  readonly #provider: ProviderExecutor | undefined;
  readonly #defaultSelector: boolean;
  readonly #versioned: boolean;
  /** Index resolutions by tool ID, valid for index version {@link Pipeline.#cacheVersion}. */
  readonly #cache = new Map<string, Resolved>();
  #cacheVersion: number | undefined;
  /** The last cache hit (tool ID and resolution): repeated calls to one tool skip the Map. */
  #lastId: string | undefined;
  #last: Resolved | undefined;

  constructor(options: ResolvedRunnerOptions) {
    this.#index = options.index;
    this.#toolResolver = options.toolResolver;
    this.#backendsResolver = options.backendsResolver;
    this.#selector = options.backendSelector;
    this.#validator = options.validator;
    this.#validateInput = options.validateInput;
    this.#validateOutput = options.validateOutput;
    this.#onWarning = options.onWarning;
    this.#local = options.local;
    this.#mcp = options.mcp;
    this.#provider = options.provider;
    this.#defaultSelector = options.backendSelector === defaultBackendSelector;
    this.#versioned = hasVersion(options.index);
    this.#cacheVersion = undefined;
    this.#lastId = undefined;
    this.#last = undefined;
  }

  /** The MCP executor, if configured (for streaming). */
  get mcp(): McpExecutor | undefined {
    return this.#mcp;
  }

  /** The provider executor, if configured (for streaming). */
  get provider(): ProviderExecutor | undefined {
    return this.#provider;
  }

  /** One call, start to end; the value when everything on the way was synchronous. */
  run(
    toolId: string,
    args: Record<string, unknown>,
    scope: CallSignal | undefined,
    progress: ProgressSink | undefined,
  ): RunResult | Promise<RunResult> {
    // The hot path: a live call to a tool resolved before. Kept small so that V8 inlines it whole.
    const hit = scope === undefined || !scope.aborted ? this.#cached(toolId) : undefined;
    if (hit !== undefined) return this.#execute(toolId, args, hit, scope, progress);
    this.#checkStart(toolId, scope);
    const resolved = this.resolve(toolId);
    if (resolved instanceof Promise) return this.#runAfterResolve(resolved, toolId, args, scope, progress);
    return this.#execute(toolId, args, resolved, scope, progress);
  }

  /**
   * A call with no signal, deadline or progress listener, as a promise. Calls to a local tool
   * resolved before take the shortest way (the same steps, fewer frames); every other call goes
   * through {@link Pipeline.run}.
   */
  runPlain(toolId: string, args: Record<string, unknown>): Promise<RunResult> {
    try {
      const hit = this.#cached(toolId);
      const backend = hit === undefined ? undefined : hit.selected;
      if (hit === undefined || backend === undefined || backend.kind !== 'local')
        return settleNow(this.run(toolId, args, undefined, undefined));
      // #checkInput, #handler, #runLocal and #checkOutput (with inputPasses and outputPasses)
      // written out on purpose: calling them here measured 0.1–0.15× slower (`npm run bench --
      // runner`), since each helper takes from V8's inlining budget and an Ajv function then stays a call.
      if (this.#validateInput) {
        const checks = hit.checks ?? this.#checks(hit);
        const test = hit.inputTest;
        let passed = false;
        if (test !== undefined) {
          try {
            passed = test(args, hit.inputContext as never) === true;
          } catch {
            // The check below gives the verdict and the error.
          }
        }
        if (!passed) {
          try {
            checks.validateInput(args);
          } catch (err) {
            throw schemaToolError('VALIDATION', 'validate_input', 'validation error', toolId, backend, err);
          }
        }
      }
      const registry = this.#local;
      let handler: LocalHandler | undefined;
      if (registry !== undefined && hit.localName !== undefined) {
        try {
          handler = registry.get(hit.localName);
        } catch (err) {
          throw registryFailure('execute', toolId, backend, hit.localName, err);
        }
      }
      if (typeof handler !== 'function') handler = this.localHandler('execute', toolId, backend);
      let out: unknown;
      try {
        out = handler(args, new HandlerContext(toolId, undefined, undefined));
      } catch (err) {
        throw executeFailure(toolId, backend, err, undefined);
      }
      if (isPromiseLike(out)) return this.#awaitLocal(out, toolId, hit, backend, undefined);
      if (isAsyncIterable(out)) return this.#drainLocal(out, toolId, hit, backend, undefined);
      if (this.#validateOutput !== 'off') {
        const checks = hit.checks ?? this.#checks(hit);
        const test = hit.outputTest;
        let passed = false;
        if (test !== undefined && out !== undefined) {
          try {
            passed = test(out, hit.outputContext as never) === true;
          } catch {
            // The check below gives the verdict and the error.
          }
        }
        if (!passed) {
          try {
            checks.validateOutput(out);
          } catch (err) {
            this.#outputFailure(toolId, backend, err);
          }
        }
      }
      return Promise.resolve({ tool: hit.tool, backend, structured: out });
    } catch (err) {
      return Promise.reject(asRunFailure(err, toolId));
    }
  }

  /** Steps up to input validation, for streaming. */
  async prepare(toolId: string, args: Record<string, unknown>, scope: CallSignal): Promise<Prepared> {
    this.#checkStart(toolId, scope);
    let resolved = this.resolve(toolId);
    if (resolved instanceof Promise) resolved = await this.#awaitResolve(resolved, toolId, scope);
    const backend = this.#select(toolId, resolved);
    if (this.#validateInput) this.#checkInput(toolId, resolved, backend, args);
    return { tool: resolved.tool, backend };
  }

  /**
   * A remembered index resolution of `toolId`, if the index has not changed since. The last hit
   * is checked here and the Map in {@link Pipeline.#cachedInMap}: a small function, for V8 to inline.
   */
  #cached(toolId: string): Resolved | undefined {
    if (this.#versioned && toolId === this.#lastId && (this.#index as { version: number }).version === this.#cacheVersion)
      return this.#last;
    return this.#cachedInMap(toolId);
  }

  #cachedInMap(toolId: string): Resolved | undefined {
    if (!this.#versioned || (this.#index as { version: number }).version !== this.#cacheVersion) return undefined;
    const hit = this.#cache.get(toolId);
    if (hit !== undefined) {
      this.#lastId = toolId;
      this.#last = hit;
    }
    return hit;
  }

  #checkStart(toolId: string, scope: CallSignal | undefined): void {
    if (scope !== undefined && scope.aborted) {
      throw abortToolError(typeof toolId === 'string' ? toolId : String(toolId), 'resolve', undefined, scope.reason);
    }
    if (typeof toolId !== 'string' || toolId === '') {
      throw new ToolError({
        code: 'INVALID_TOOL_ID',
        op: 'validate_tool_id',
        toolId: typeof toolId === 'string' ? toolId : String(toolId),
        reason: typeof toolId === 'string' ? 'invalid tool id' : 'invalid tool id: the tool ID must be a string',
      });
    }
  }

  async #runAfterResolve(
    pending: Promise<Resolved>,
    toolId: string,
    args: Record<string, unknown>,
    scope: CallSignal | undefined,
    progress: ProgressSink | undefined,
  ): Promise<RunResult> {
    const resolved = scope === undefined ? await pending : await this.#awaitResolve(pending, toolId, scope);
    return this.#execute(toolId, args, resolved, scope, progress);
  }

  async #awaitResolve(pending: Promise<Resolved>, toolId: string, scope: CallSignal): Promise<Resolved> {
    const resolved = await scope.race(pending);
    if (resolved === ABORTED) throw abortToolError(toolId, 'resolve', undefined, scope.reason);
    return resolved;
  }

  // ---- resolution (§2.2.3) ----

  /**
   * The tool and its backends: the index first (its backends, or the default backend when it
   * lists none), then the resolvers. A resolver that throws fails the call (Go swallows it).
   */
  resolve(toolId: string): Resolved | Promise<Resolved> {
    let indexMiss: unknown;
    const index = this.#index;
    if (index !== undefined) {
      // Read directly (no helper with try/catch: that keeps V8 from inlining the getter).
      const version = this.#versioned ? index.version : undefined;
      const cacheable = typeof version === 'number';
      if (cacheable) {
        if (version === this.#cacheVersion) {
          const hit = this.#cache.get(toolId);
          if (hit !== undefined) return hit;
        } else {
          this.#cache.clear();
          this.#lastId = undefined;
          this.#last = undefined;
          this.#cacheVersion = version;
        }
      }
      let found: { tool: Tool; backend: ToolBackend } | undefined;
      try {
        found = index.getTool(toolId);
      } catch (err) {
        if (!isNotFound(err)) throw resolveFailure(toolId, 'TOOL_NOT_FOUND', 'index lookup failed', err);
        indexMiss = err;
      }
      if (found !== undefined) {
        let backends: ToolBackend[] | undefined;
        try {
          backends = index.getAllBackends(toolId);
        } catch (err) {
          if (!isNotFound(err)) throw resolveFailure(toolId, 'NO_BACKENDS', 'index backend lookup failed', err);
        }
        const resolved: Resolved = {
          tool: found.tool,
          backends: Object.freeze(backends !== undefined && backends.length > 0 ? backends : [found.backend]) as ToolBackend[],
          selected: undefined,
          checks: undefined,
          inputTest: undefined,
          inputContext: undefined,
          outputTest: undefined,
          outputContext: undefined,
          localName: undefined,
        };
        // Only an index lookup is cached: the index's version says when it goes stale.
        if (cacheable && index.version === version) {
          if (this.#cache.size >= RESOLUTION_CACHE_SIZE) {
            this.#cache.clear();
            this.#lastId = undefined;
            this.#last = undefined;
          }
          this.#cache.set(toolId, resolved);
        }
        return resolved;
      }
    }
    const toolResolver = this.#toolResolver;
    if (toolResolver === undefined) throw toolNotFound(toolId, indexMiss);
    let tool: Tool | undefined | Promise<Tool | undefined>;
    try {
      tool = toolResolver(toolId);
    } catch (err) {
      throw resolveFailure(toolId, 'TOOL_NOT_FOUND', 'tool resolver failed', err);
    }
    if (isPromiseLike(tool)) {
      return Promise.resolve(tool).then(
        (value) => this.#resolveBackends(toolId, value, indexMiss),
        (err: unknown) => {
          throw resolveFailure(toolId, 'TOOL_NOT_FOUND', 'tool resolver failed', err);
        },
      );
    }
    return this.#resolveBackends(toolId, tool, indexMiss);
  }

  #resolveBackends(toolId: string, tool: Tool | undefined, indexMiss: unknown): Resolved | Promise<Resolved> {
    if (tool === undefined || tool === null || typeof tool !== 'object') throw toolNotFound(toolId, indexMiss);
    const resolver = this.#backendsResolver;
    if (resolver === undefined) throw noBackends(toolId);
    let backends: ToolBackend[] | undefined | Promise<ToolBackend[] | undefined>;
    try {
      backends = resolver(toolId);
    } catch (err) {
      throw resolveFailure(toolId, 'NO_BACKENDS', 'backends resolver failed', err);
    }
    if (isPromiseLike(backends)) {
      return Promise.resolve(backends).then(
        (value) => resolvedOrThrow(toolId, tool, value),
        (err: unknown) => {
          throw resolveFailure(toolId, 'NO_BACKENDS', 'backends resolver failed', err);
        },
      );
    }
    return resolvedOrThrow(toolId, tool, backends);
  }

  // ---- selection and input validation ----

  #select(toolId: string, resolved: Resolved): ToolBackend {
    if (resolved.selected !== undefined) return resolved.selected;
    const backends = resolved.backends;
    if (backends.length === 0) {
      throw new ToolError({ code: 'NO_BACKENDS', op: 'select_backend', toolId, reason: 'no backends available' });
    }
    let backend: ToolBackend | undefined;
    try {
      // The default selector only reads; a custom one gets its own copy, as in Go.
      backend = this.#defaultSelector ? this.#selector(backends) : this.#selector(backends.slice());
    } catch (err) {
      throw new ToolError({
        code: codeOf(err, 'NO_BACKENDS'),
        op: 'select_backend',
        toolId,
        reason: `backend selector failed: ${errorMessage(err)}`,
        cause: err,
      });
    }
    if (backend === undefined || backend === null || typeof backend !== 'object') {
      throw new ToolError({ code: 'NO_BACKENDS', op: 'select_backend', toolId, reason: 'the backend selector returned no backend' });
    }
    if (this.#defaultSelector && Object.isFrozen(backends)) {
      resolved.selected = backend;
      const name = backend.kind === 'local' ? (backend as { local?: { name?: unknown } }).local?.name : undefined;
      resolved.localName = typeof name === 'string' ? name : undefined;
    }
    return backend;
  }

  #checkInput(toolId: string, resolved: Resolved, backend: ToolBackend, args: Record<string, unknown>): void {
    const checks = resolved.checks ?? this.#checks(resolved);
    if (inputPasses(resolved.inputTest, args, resolved.inputContext)) return;
    try {
      checks.validateInput(args);
    } catch (err) {
      throw schemaToolError('VALIDATION', 'validate_input', 'validation error', toolId, backend, err);
    }
  }

  /** The bound schema checks of a resolution (and their compiled tests), made on first use and kept with it. */
  #checks(resolved: Resolved): ToolSchemaChecks {
    const checks = boundChecks(this.#validator, resolved.tool);
    const tests = schemaTestsOf(checks);
    resolved.inputTest = tests.input?.test;
    resolved.inputContext = tests.input?.context;
    resolved.outputTest = tests.output?.test;
    resolved.outputContext = tests.output?.context;
    resolved.checks = checks;
    return checks;
  }

  // ---- dispatch (§2.2.5) ----

  #execute(
    toolId: string,
    args: Record<string, unknown>,
    resolved: Resolved,
    scope: CallSignal | undefined,
    progress: ProgressSink | undefined,
  ): RunResult | Promise<RunResult> {
    const backend = resolved.selected ?? this.#select(toolId, resolved);
    if (this.#validateInput) this.#checkInput(toolId, resolved, backend, args);
    // An abort during an async resolution (or from inside the validator) stops the call before dispatch.
    if (scope !== undefined && scope.aborted) throw abortToolError(toolId, 'execute', backend, scope.reason);
    if (backend.kind === 'local') return this.#runLocal(toolId, resolved, backend, args, scope, progress);
    return this.#dispatchRemote(toolId, resolved, backend, args, scope, progress);
  }

  #dispatchRemote(
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    args: Record<string, unknown>,
    scope: CallSignal | undefined,
    progress: ProgressSink | undefined,
  ): Promise<RunResult> {
    switch (backend.kind) {
      case 'mcp':
        return this.#runMcp(toolId, resolved, backend, args, scope, progress);
      case 'provider':
        return this.#runProvider(toolId, resolved, backend, args, scope, progress);
      default:
        throw configError('execute', toolId, backend, `unknown backend kind: ${String((backend as { kind?: unknown }).kind)}`);
    }
  }

  /** {@link Pipeline.localHandler} for dispatch, with the common case (a registered string name) kept short. */
  #handler(toolId: string, backend: ToolBackend): LocalHandler {
    const registry = this.#local;
    const name = (backend as { local?: { name?: unknown } }).local?.name;
    if (registry === undefined || typeof name !== 'string') return this.localHandler('execute', toolId, backend);
    let handler: LocalHandler | undefined;
    try {
      handler = registry.get(name);
    } catch (err) {
      throw registryFailure('execute', toolId, backend, name, err);
    }
    return typeof handler === 'function' ? handler : this.localHandler('execute', toolId, backend);
  }

  /** The handler a local backend names. @throws ToolError (`op`) when there is none. */
  localHandler(op: ToolErrorOp, toolId: string, backend: ToolBackend): LocalHandler {
    const registry = this.#local;
    if (registry === undefined) throw configError(op, toolId, backend, 'local registry not configured');
    const target = (backend as { local?: { name?: unknown } }).local;
    if (target === undefined || target === null || typeof target !== 'object') {
      throw configError(op, toolId, backend, 'local backend missing name');
    }
    const name = String(target.name);
    let handler: LocalHandler | undefined;
    try {
      handler = registry.get(name);
    } catch (err) {
      throw registryFailure(op, toolId, backend, name, err);
    }
    if (typeof handler !== 'function') throw configError(op, toolId, backend, `local handler "${name}" not found`);
    return handler;
  }

  #runLocal(
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    args: Record<string, unknown>,
    scope: CallSignal | undefined,
    progress: ProgressSink | undefined,
  ): RunResult | Promise<RunResult> {
    const handler = this.#handler(toolId, backend);
    let out: unknown;
    try {
      out = handler(args, new HandlerContext(toolId, scope, progress));
    } catch (err) {
      throw executeFailure(toolId, backend, err, scope);
    }
    if (isPromiseLike(out)) return this.#awaitLocal(out, toolId, resolved, backend, scope);
    if (isAsyncIterable(out)) return this.#drainLocal(out, toolId, resolved, backend, scope);
    return this.#finish(toolId, resolved, backend, out);
  }

  async #awaitLocal(
    pending: PromiseLike<unknown>,
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    scope: CallSignal | undefined,
  ): Promise<RunResult> {
    const value = await settle(pending, toolId, backend, scope);
    if (isAsyncIterable(value)) return this.#drainLocal(value, toolId, resolved, backend, scope);
    return this.#finish(toolId, resolved, backend, value);
  }

  /** A handler that returned an AsyncIterable: its last chunk is the result. */
  async #drainLocal(
    iterable: AsyncIterable<unknown>,
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    scope: CallSignal | undefined,
  ): Promise<RunResult> {
    let iterator: AsyncIterator<unknown>;
    try {
      iterator = iterable[Symbol.asyncIterator]();
    } catch (err) {
      throw executeFailure(toolId, backend, err, scope);
    }
    let last: unknown;
    for (;;) {
      let step: IteratorResult<unknown> | typeof ABORTED;
      try {
        const next = iterator.next();
        step = scope === undefined ? await next : await scope.race(next);
      } catch (err) {
        throw executeFailure(toolId, backend, err, scope);
      }
      if (step === ABORTED) {
        closeIterator(iterator);
        throw abortToolError(toolId, 'execute', backend, (scope as CallSignal).reason);
      }
      if (step === null || typeof step !== 'object') {
        throw configError('execute', toolId, backend, 'the handler iterator returned a non-object step');
      }
      if (step.done === true) break;
      last = step.value;
    }
    return this.#finish(toolId, resolved, backend, last);
  }

  #runMcp(
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    args: Record<string, unknown>,
    scope: CallSignal | undefined,
    progress: ProgressSink | undefined,
  ): Promise<RunResult> {
    const executor = this.#mcp;
    if (executor === undefined) throw configError('execute', toolId, backend, 'MCP executor not configured');
    const target = (backend as { mcp?: { serverName?: unknown } }).mcp;
    if (target === undefined || target === null || typeof target !== 'object') {
      throw configError('execute', toolId, backend, 'MCP backend missing server name');
    }
    const params = { name: resolved.tool.name, arguments: args };
    let pending: Promise<CallToolResult>;
    try {
      if (scope === undefined && progress === undefined && typeof (executor as Partial<SettledMcpCall>)[SETTLED_CALL] === 'function') {
        // The executor applies the ending where its call settles: no promise of the runner's own.
        return (executor as McpExecutor & SettledMcpCall)[SETTLED_CALL](
          target.serverName as string,
          params,
          new McpEnding(this, toolId, resolved, backend),
        );
      }
      pending = executor.callTool(target.serverName as string, params, executorOptions(scope, progress));
    } catch (err) {
      throw executeFailure(toolId, backend, err, scope);
    }
    return this.#awaitMcp(pending, toolId, resolved, backend, scope);
  }

  /**
   * The run's result from an MCP result: `isError` → EXECUTION, else normalized and checked against
   * the output schema.
   */
  finishMcp(toolId: string, resolved: Resolved, backend: ToolBackend, result: CallToolResult | null | undefined): RunResult {
    if (result === undefined || result === null) return this.#finish(toolId, resolved, backend, undefined);
    if (result.isError === true) throw mcpToolError(toolId, backend, result);
    const structured = normalizeMcpResult(result);
    this.#checkOutput(toolId, resolved, backend, structured);
    return { tool: resolved.tool, backend, structured, mcpResult: result };
  }

  async #awaitMcp(
    pending: PromiseLike<CallToolResult>,
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    scope: CallSignal | undefined,
  ): Promise<RunResult> {
    const result = (await settle(pending, toolId, backend, scope)) as CallToolResult | null | undefined;
    return this.finishMcp(toolId, resolved, backend, result);
  }

  #runProvider(
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    args: Record<string, unknown>,
    scope: CallSignal | undefined,
    progress: ProgressSink | undefined,
  ): Promise<RunResult> {
    const executor = this.#provider;
    if (executor === undefined) throw configError('execute', toolId, backend, 'provider executor not configured');
    const target = (backend as { provider?: { providerId?: unknown; toolId?: unknown } }).provider;
    if (target === undefined || target === null || typeof target !== 'object') {
      throw configError('execute', toolId, backend, 'provider backend missing details');
    }
    let pending: Promise<unknown>;
    try {
      pending = executor.callTool(target.providerId as string, target.toolId as string, args, executorOptions(scope, progress));
    } catch (err) {
      throw executeFailure(toolId, backend, err, scope);
    }
    return this.#awaitProvider(pending, toolId, resolved, backend, scope);
  }

  async #awaitProvider(
    pending: PromiseLike<unknown>,
    toolId: string,
    resolved: Resolved,
    backend: ToolBackend,
    scope: CallSignal | undefined,
  ): Promise<RunResult> {
    const value = await settle(pending, toolId, backend, scope);
    return this.#finish(toolId, resolved, backend, value);
  }

  // ---- normalization and output validation (§2.2.6, §2.2.4 step 8) ----

  #finish(toolId: string, resolved: Resolved, backend: ToolBackend, structured: unknown): RunResult {
    this.#checkOutput(toolId, resolved, backend, structured);
    return { tool: resolved.tool, backend, structured };
  }

  #checkOutput(toolId: string, resolved: Resolved, backend: ToolBackend, structured: unknown): void {
    if (this.#validateOutput === 'off') return;
    const checks = resolved.checks ?? this.#checks(resolved);
    if (outputPasses(resolved.outputTest, structured, resolved.outputContext)) return;
    try {
      checks.validateOutput(structured);
    } catch (err) {
      this.#outputFailure(toolId, backend, err);
    }
  }

  /** Throws the OUTPUT_VALIDATION error, or (in `'warn'` mode) reports it and lets the result through. */
  #outputFailure(toolId: string, backend: ToolBackend, err: unknown): void {
    const error = schemaToolError('OUTPUT_VALIDATION', 'validate_output', 'output validation error', toolId, backend, err);
    if (this.#validateOutput === 'error') throw error;
    this.#warn({ toolId, backend, error });
  }

  #warn(warning: RunWarning): void {
    const listener = this.#onWarning;
    if (listener === undefined) return;
    try {
      listener(warning);
    } catch {
      // A warning listener cannot fail the call it is told about.
    }
  }
}

// ---- helpers ----

function settleNow(out: RunResult | Promise<RunResult>): Promise<RunResult> {
  return out instanceof Promise ? out : Promise.resolve(out);
}

/**
 * The validator's checks bound to `tool` ({@link SchemaValidator.forTool}), or, for a validator
 * without that method (or one whose method fails), checks that call it with the tool each time.
 */
function boundChecks(validator: SchemaValidator, tool: Tool): ToolSchemaChecks {
  if (typeof validator.forTool === 'function') {
    try {
      const checks = validator.forTool(tool);
      if (
        checks !== null &&
        typeof checks === 'object' &&
        typeof checks.validateInput === 'function' &&
        typeof checks.validateOutput === 'function'
      ) {
        return checks;
      }
    } catch {
      // The plain methods below report whatever made binding fail, at the step it belongs to.
    }
  }
  return {
    validateInput: (args) => validator.validateInput(tool, args),
    validateOutput: (value) => validator.validateOutput(tool, value),
  };
}

const NO_TESTS: SchemaTests = Object.freeze({ input: undefined, output: undefined });

/** The compiled tests of a validator's checks ({@link SCHEMA_TESTS}), each kept only when its test is a function. */
function schemaTestsOf(checks: ToolSchemaChecks): SchemaTests {
  let tests: Partial<SchemaTests> | undefined;
  try {
    tests = (checks as Partial<TestedSchemaChecks>)[SCHEMA_TESTS];
    if (tests === null || typeof tests !== 'object') return NO_TESTS;
    return { input: usableTest(tests.input), output: usableTest(tests.output) };
  } catch {
    // A checks object whose tests cannot be read is used through its checks only.
    return NO_TESTS;
  }
}

function usableTest(test: SchemaTest | undefined): SchemaTest | undefined {
  if (test === null || typeof test !== 'object' || typeof test.test !== 'function') return undefined;
  return { test: test.test, context: test.context };
}

// The two tests below are the same on purpose: each has its own call site into the compiled
// schema code, which V8 then inlines (one shared site sees both schemas and inlines neither).

/**
 * True when a tool's compiled input test says yes to `args`; false means "ask the check". An
 * `undefined` value is never tested: the checks give it a meaning of their own.
 */
function inputPasses(test: SchemaTest['test'] | undefined, args: unknown, context: unknown): boolean {
  if (test === undefined || args === undefined) return false;
  try {
    return test(args, context as never) === true;
  } catch {
    // The check gives the verdict and the error.
    return false;
  }
}

/** As {@link inputPasses}, for a result and the output test. */
function outputPasses(test: SchemaTest['test'] | undefined, value: unknown, context: unknown): boolean {
  if (test === undefined || value === undefined) return false;
  try {
    return test(value, context as never) === true;
  } catch {
    // The check gives the verdict and the error.
    return false;
  }
}

/** Awaits dispatch work, racing the call's signal; maps failures to ToolErrors. */
async function settle(
  pending: PromiseLike<unknown>,
  toolId: string,
  backend: ToolBackend,
  scope: CallSignal | undefined,
): Promise<unknown> {
  let value: unknown;
  try {
    value = scope === undefined ? await pending : await scope.race(pending);
  } catch (err) {
    throw executeFailure(toolId, backend, err, scope);
  }
  if (value === ABORTED) throw abortToolError(toolId, 'execute', backend, (scope as CallSignal).reason);
  return value;
}

/** True when the index reports a numeric version (resolutions are cached only then). */
function hasVersion(index: ResolvedRunnerOptions['index']): boolean {
  if (index === undefined) return false;
  try {
    return typeof index.version === 'number';
  } catch {
    return false;
  }
}

function executorOptions(scope: CallSignal | undefined, progress: ProgressSink | undefined): RunOptions | undefined {
  if (scope === undefined && progress === undefined) return undefined;
  const options: RunOptions = {};
  if (scope !== undefined) options.signal = scope.signal;
  if (progress !== undefined) options.onProgress = progress;
  return options;
}

function isNotFound(err: unknown): boolean {
  return ToolexecError.isInstance(err) && (err.code === 'TOOL_NOT_FOUND' || err.code === 'INVALID_TOOL_ID');
}

function codeOf(err: unknown, fallback: ErrorCode): ErrorCode {
  return ToolexecError.isInstance(err) ? err.code : fallback;
}

function toolNotFound(toolId: string, cause: unknown): ToolError {
  const init: ToolErrorInit = { code: 'TOOL_NOT_FOUND', op: 'resolve', toolId, reason: 'tool not found' };
  if (cause !== undefined) init.cause = cause;
  return new ToolError(init);
}

function noBackends(toolId: string): ToolError {
  return new ToolError({ code: 'NO_BACKENDS', op: 'resolve', toolId, reason: 'no backends available' });
}

function resolveFailure(toolId: string, fallback: ErrorCode, what: string, err: unknown): ToolError {
  return new ToolError({
    code: codeOf(err, fallback),
    op: 'resolve',
    toolId,
    reason: `${what}: ${errorMessage(err)}`,
    cause: err,
  });
}

function resolvedOrThrow(toolId: string, tool: Tool, backends: ToolBackend[] | undefined): Resolved {
  if (!Array.isArray(backends) || backends.length === 0) throw noBackends(toolId);
  return {
    tool,
    backends,
    selected: undefined,
    checks: undefined,
    inputTest: undefined,
    inputContext: undefined,
    outputTest: undefined,
    outputContext: undefined,
    localName: undefined,
  };
}

/** A configuration problem found at dispatch: EXECUTION with the Go message and no cause. */
function registryFailure(op: ToolErrorOp, toolId: string, backend: ToolBackend, name: string, err: unknown): ToolError {
  return new ToolError({
    code: 'EXECUTION',
    op,
    toolId,
    backend,
    reason: `execution error: local registry lookup of "${name}" failed: ${errorMessage(err)}`,
    cause: err,
  });
}

function configError(op: ToolErrorOp, toolId: string, backend: ToolBackend, message: string): ToolError {
  return new ToolError({ code: 'EXECUTION', op, toolId, backend, reason: `execution error: ${message}` });
}

/** A failed dispatch: ABORTED/TIMEOUT when the call's signal fired, else EXECUTION with the original error as cause. */
export function executeFailure(toolId: string, backend: ToolBackend, err: unknown, scope: CallSignal | undefined): ToolError {
  if (scope !== undefined && scope.aborted) return abortToolError(toolId, 'execute', backend, scope.reason);
  return new ToolError({
    // An executor's own timeout (an MCP server that stopped answering) stays a TIMEOUT.
    code: ToolexecError.isInstance(err) && err.code === 'TIMEOUT' ? 'TIMEOUT' : 'EXECUTION',
    op: 'execute',
    toolId,
    backend,
    reason: `execution error: ${errorMessage(err)}`,
    cause: err,
  });
}

function schemaToolError(
  code: 'VALIDATION' | 'OUTPUT_VALIDATION',
  op: 'validate_input' | 'validate_output',
  prefix: string,
  toolId: string,
  backend: ToolBackend,
  err: unknown,
): ToolError {
  const message = errorMessage(err);
  const init: ToolErrorInit = {
    code,
    op,
    toolId,
    backend,
    reason: message.startsWith(prefix) ? message : `${prefix}: ${message}`,
    cause: err,
  };
  if (ToolexecError.isInstance(err) && err.details !== undefined) init.details = { ...err.details };
  return new ToolError(init);
}

function mcpToolError(toolId: string, backend: ToolBackend, result: CallToolResult): ToolError {
  const texts = mcpResultTexts(result);
  const text = texts.length > 0 ? texts.join('\n') : 'the MCP tool reported an error without text';
  return new ToolError({
    code: 'EXECUTION',
    op: 'execute',
    toolId,
    backend,
    reason: `execution error: ${text}`,
    details: { isError: true, mcpResult: result },
  });
}

/** True for objects and functions with a callable `then`. @internal */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function'
  );
}

/** True for objects with a callable `Symbol.asyncIterator`. @internal */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/** Asks an iterator to stop, without waiting and without letting its failure escape. @internal */
export function closeIterator(iterator: AsyncIterator<unknown> | undefined): void {
  if (iterator === undefined || typeof iterator.return !== 'function') return;
  try {
    const done = iterator.return();
    if (isPromiseLike(done)) done.then(undefined, noop);
  } catch {
    // The source is being abandoned; its cleanup failure has nowhere to go.
  }
}

/** The runner's ending of an MCP call without a signal, deadline or listener, applied by the executor. */
class McpEnding implements CallSettler<RunResult> {
  readonly #pipeline: Pipeline;
  readonly #toolId: string;
  readonly #resolved: Resolved;
  readonly #backend: ToolBackend;

  constructor(pipeline: Pipeline, toolId: string, resolved: Resolved, backend: ToolBackend) {
    this.#pipeline = pipeline;
    this.#toolId = toolId;
    this.#resolved = resolved;
    this.#backend = backend;
  }

  ok(result: CallToolResult): RunResult {
    return this.#pipeline.finishMcp(this.#toolId, this.#resolved, this.#backend, result);
  }

  fail(err: unknown): ToolError {
    return executeFailure(this.#toolId, this.#backend, err, undefined);
  }
}
