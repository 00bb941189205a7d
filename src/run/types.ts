import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode, SchemaValidator, Tool, ToolBackend, ToolexecError } from '../model/index.js';
import type { ToolIndex } from '../discovery/index.js';
import type { BackendRegistry, BackendToolContext } from '../backend/index.js';

export type { CallToolResult };

export type {
  ChunkStreamEvent,
  DoneStreamEvent,
  ErrorStreamEvent,
  ProgressEvent,
  ProgressStreamEvent,
  StreamEvent,
  StreamEventKind,
} from './stream-types.js';
import type { ProgressEvent, StreamEvent } from './stream-types.js';

/**
 * What a local handler receives besides its arguments: the backend layer's
 * {@link BackendToolContext}, so one handler runs under the runner and a `LocalBackend` alike.
 */
export interface LocalHandlerContext extends BackendToolContext {
  /**
   * Aborted when the caller aborts or the call times out; stop work when it fires.
   *
   * @remarks Created on first read when the call has neither a signal nor a timeout (it then
   * never aborts). Read it as `ctx.signal`: a spread copy of `ctx` does not carry it.
   */
  signal: AbortSignal;
  /** The canonical ID the call was made with. */
  toolId: string;
  /**
   * Reports progress to the caller (`onProgress` of run, `progress` events of runStream). A report
   * whose `progress` is not a finite number is dropped; `total` (a finite number) and `message` (a
   * string) are passed on when valid.
   */
  onProgress?: (progress: ProgressEvent) => void;
  /**
   * The call's deadline in epoch milliseconds (a little after the runner's own, so that work
   * handed it ends no earlier), when the call has a budget; `undefined` otherwise. Reading it
   * starts the deadline's clock, as reading `signal` does.
   */
  readonly deadline?: number | undefined;
  /** The caller's `idempotencyKey`, when it gave one; every attempt of a retried call carries the same. */
  readonly idempotencyKey?: string | undefined;
}

/**
 * An in-process tool implementation. Its return value is the structured result; returning an
 * AsyncIterable streams chunks (for `run`, the last chunk is the result).
 */
export type LocalHandler = (args: Record<string, unknown>, ctx: LocalHandlerContext) => unknown;

/** Looks up local handlers by backend name. */
export interface LocalRegistry {
  /** The handler for `name`; `undefined` when there is none. Must be safe to call concurrently. */
  get(name: string): LocalHandler | undefined;
  /**
   * A number that changes whenever what `get` answers may change (a handler registered, replaced or
   * removed, the store enabled or disabled). Optional: with it, the runner remembers each tool's
   * handler while the number stays the same, as it remembers index lookups while the index's
   * `version` does; without it (or when it is not a number), `get` is asked on every call.
   * {@link createLocalRegistry} and `toolexec/backend`'s `LocalBackend` keep one.
   */
  readonly version?: number;
}

/** Per-call options: cancellation, a deadline, retries and a progress listener. */
export interface RunOptions {
  /** Cancels the call (ABORTED); the handler or executor is told to stop. */
  signal?: AbortSignal;
  /**
   * Budget of the call in milliseconds, a positive number (TIMEOUT when it runs out; `Infinity`:
   * none). `<= 0` and `NaN` are refused with INVALID_ARGUMENT.
   */
  timeoutMs?: number;
  /**
   * Absolute deadline of the call: epoch milliseconds or a `Date`. With `timeoutMs` too, the
   * earlier of the two wins; one already past fails the call with TIMEOUT before any work. The
   * time left is what an MCP server or a provider executor is given (`deadline` of their options),
   * and it bounds every retry together.
   */
  deadline?: number | Date;
  /**
   * Passed to the backend so that it can recognise a repeated request: to MCP servers in the
   * request's `_meta` (`toolexec/idempotencyKey`), to provider executors and registry backends as
   * `options.idempotencyKey`. Every attempt of a retried call carries the same key. In a chain,
   * step `i` gets `<key>:<i>` (steps are different operations; a key too long for the suffix is
   * replaced by its SHA-256). 1 to 256 characters.
   */
  idempotencyKey?: string;
  /**
   * Retries of this call on a transient failure (see {@link RetryPolicy}): by default tools whose
   * annotations say `readOnlyHint` or `idempotentHint` are retried with the runner's policy, others
   * never; a policy here opts this call in whatever the tool says; `false` turns retries off.
   * `run` and each step of `runChain` use it; `runStream` reads (and checks) it but never retries:
   * a stream's events may already have reached the caller when it fails.
   */
  retry?: RetryPolicy | false;
  /**
   * started → backend progress → completed (or error). Not used by `runStream`, where progress
   * arrives as `progress` events. A listener that throws (or returns a rejected promise) does not fail the call.
   */
  onProgress?: (progress: ProgressEvent) => void;
}

/**
 * How a call is retried after a transient failure: exponential backoff with jitter between
 * attempts, all of them within the call's deadline.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: no retry). @defaultValue 3 */
  maxAttempts?: number;
  /** Base of the wait before the second attempt, in milliseconds. @defaultValue 100 */
  initialDelayMs?: number;
  /** Longest wait between two attempts, in milliseconds. @defaultValue 2000 */
  maxDelayMs?: number;
  /**
   * What counts as transient: error codes (`TIMEOUT` of a request, `SERVER_UNAVAILABLE`, ...) and
   * `CONNECTION_LOST` (the server closed the connection, a network error). Only failures of the
   * execute step are retried, never the call's own deadline or the caller's abort.
   * @defaultValue ['TIMEOUT', 'SERVER_UNAVAILABLE', 'CONNECTION_LOST']
   */
  retryOn?: readonly RetryCondition[];
}

/** A transient failure a {@link RetryPolicy} retries: an error code, or a lost connection. */
export type RetryCondition = ErrorCode | 'CONNECTION_LOST';

/** One failed attempt of a call that has a retry policy (JSON-safe, also in `details.attempts` and `RunResult.attempts`). */
export interface AttemptRecord {
  /** 1 for the first attempt. */
  attempt: number;
  /** The attempt's error code. */
  code: ErrorCode;
  /** The attempt's error message. */
  message: string;
  /** How long the attempt ran. */
  durationMs: number;
  /** The wait before the next attempt; absent when no attempt followed. */
  delayMs?: number;
}

/** What {@link RunnerOptions.onAttempt} receives after each failed attempt of a call that has a retry policy. */
export interface AttemptEvent extends AttemptRecord {
  /** The tool ID the call was made with. */
  toolId: string;
  /** The attempt's error. */
  error: ToolexecError;
  /** True when another attempt follows (after `delayMs`). */
  willRetry: boolean;
  /** The call's idempotency key, when it has one. */
  idempotencyKey?: string;
}

/**
 * Executes tools on MCP servers.
 *
 * @remarks The runner passes a call's `signal`, its `deadline` as epoch milliseconds (when the call
 * has a budget: the time left is the request's budget), `onProgress` and `idempotencyKey`.
 */
export interface McpExecutor {
  /** Calls `params.name` (the tool's MCP name, not its canonical ID) on `serverName`. */
  callTool(
    serverName: string,
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RunOptions,
  ): Promise<CallToolResult>;
  /** Streams progress events, then `done` with the normalized result. */
  callToolStream?(
    serverName: string,
    params: { name: string; arguments?: Record<string, unknown> },
    options?: RunOptions,
  ): AsyncIterable<StreamEvent>;
}

/** Executes tools hosted by an external provider (HTTP API, gRPC service, ...). */
export interface ProviderExecutor {
  /**
   * Calls `toolId` of the provider `providerId`; the resolved value becomes the run's `structured`
   * result. A rejection fails the call with EXECUTION (the rejection as `cause`), unless the call
   * was aborted or timed out first.
   */
  callTool(providerId: string, toolId: string, args: Record<string, unknown>, options?: RunOptions): Promise<unknown>;
  /** Streams progress/chunk events, then `done` with the final value; without it, `runStream` fails with STREAM_NOT_SUPPORTED. */
  callToolStream?(providerId: string, toolId: string, args: Record<string, unknown>, options?: RunOptions): AsyncIterable<StreamEvent>;
}

/** A non-fatal problem reported by the runner (e.g. output validation in `'warn'` mode). */
export interface RunWarning {
  /** The tool ID the call was made with. */
  toolId: string;
  /** The backend that produced the result. */
  backend: ToolBackend;
  /** The problem (an OUTPUT_VALIDATION error in `'warn'` mode); the call itself succeeded. */
  error: ToolexecError;
}

/** Options of {@link createRunner}. */
export interface RunnerOptions {
  /** Consulted first to resolve tools and their backends. */
  index?: ToolIndex;
  /** Resolves tools the index does not know. */
  toolResolver?: (id: string) => Tool | undefined | Promise<Tool | undefined>;
  /** Resolves backends for tools found through `toolResolver`. */
  backendsResolver?: (id: string) => ToolBackend[] | undefined | Promise<ToolBackend[] | undefined>;
  /** @defaultValue defaultBackendSelector (local > provider > mcp) */
  backendSelector?: (backends: ToolBackend[]) => ToolBackend;
  /** @defaultValue createSchemaValidator() */
  validator?: SchemaValidator;
  /** @defaultValue true */
  validateInput?: boolean;
  /** `true` fails the call (OUTPUT_VALIDATION); `'warn'` keeps the result and calls `onWarning`. @defaultValue true */
  validateOutput?: boolean | 'warn';
  /** Receives non-fatal problems. */
  onWarning?: (warning: RunWarning) => void;
  /**
   * Local handlers by backend name: a {@link LocalRegistry} (anything with a `get` function, a
   * `Map` included) or a plain record, read live through its own properties. A record may hold a
   * tool named `get` beside others; a record holding only that one reads as a registry literal
   * (use `createLocalRegistry` for it).
   */
  local?: LocalRegistry | Record<string, LocalHandler>;
  /**
   * Backends of `toolexec/backend` the runner dispatches to (`registry.execute`):
   * - a `local` tool backend named `backend:tool` whose `backend` is registered here runs as
   *   `backend.execute(tool, args, { signal })` (`registerBackendTools` binds every enabled
   *   backend's tools so); a name the `local` option serves is looked up there first;
   * - an `mcp` tool backend whose `serverName` names a registered backend runs there under the
   *   tool's MCP name, its result read as an MCP result; a `provider` tool backend whose
   *   `providerId` names one runs there under `provider.toolId`. Otherwise the `mcp` and
   *   `provider` executors serve them.
   *
   * Streams (`runStream`): a tool such a backend serves streams through its `executeStream`
   * when it has one (each value a `chunk` event, then `done` with the last), else, for a `local`
   * binding, through `execute` (one `done` event with the result); `mcp` and `provider` bindings
   * whose backend cannot stream go through the executors' `callToolStream`.
   */
  backends?: BackendRegistry;
  /** Runs tools of `mcp` backends. */
  mcp?: McpExecutor;
  /** Runs tools of `provider` backends. */
  provider?: ProviderExecutor;
  /**
   * The retry policy of tools annotated `readOnlyHint` or `idempotentHint` (a call's own `retry`
   * overrides it); `false`: such tools are not retried unless a call asks. @defaultValue DEFAULT_RETRY_POLICY
   */
  retry?: RetryPolicy | false;
  /**
   * Called after each failed attempt of a call that has a retry policy (in the call's async
   * context, so a tracer's active span is the call's): a hook for span events, metrics or logs.
   * A listener that throws (or returns a rejected promise) does not fail the call.
   */
  onAttempt?: (event: AttemptEvent) => void;
}

/** The normalized result of one call. */
export interface RunResult {
  /** The resolved tool definition. */
  tool: Tool;
  /** The backend the call was dispatched to. */
  backend: ToolBackend;
  /** The value: a local/provider return value, or the MCP result normalized. */
  structured?: unknown;
  /** The raw MCP result, for MCP backends. */
  mcpResult?: CallToolResult;
  /** The failed attempts before this result, when the call was retried. */
  attempts?: AttemptRecord[];
}

/** One step of a chain. */
export interface ChainStep {
  /** The tool to run. */
  toolId: string;
  /** The step's arguments; shallow-copied per step, `{}` when absent. */
  args?: Record<string, unknown>;
  /** Inject the previous step's structured result at `args.previous` (overwriting). */
  usePrevious?: boolean;
  /**
   * Arguments built from the previous successful step's `structured` result, merged over `args`
   * (before `usePrevious`): either a serialisable mapping of argument name → JSON pointer into that
   * result (`{ path: '/0/path', text: '/content' }`; `''` is the whole result), which also crosses
   * the code-mode gateway, or a function of the result for TypeScript callers of the runner and the
   * facade. A pointer that does not resolve (or a function that throws) fails the step with
   * `INVALID_ARGUMENT` naming the pointer; any failure of the step names the arguments that came
   * from the previous step (message and `details.fromPrevious`).
   */
  argsFrom?: ChainArgsFrom;
}

/** How a {@link ChainStep} takes arguments from the previous result: name → JSON pointer, or a function. */
export type ChainArgsFrom = Readonly<Record<string, string>> | ((previous: unknown) => Record<string, unknown>);

/** What happened to one chain step. */
export interface StepResult {
  /** The step's tool ID (`''` when the step had none). */
  toolId: string;
  /** The backend the step ran on; absent when it failed before a backend was selected. */
  backend?: ToolBackend;
  /** The step's result; absent for the failed step. */
  result?: RunResult;
  /** The step's failure; set only on the failed (last) step. */
  error?: ToolexecError;
}

/**
 * The result of a chain: the last step's result and every step's. An empty chain runs nothing and
 * has no result: `{ result: undefined, steps: [] }`;
 * test `result` (or `steps.length`) before reading it when a chain may be empty.
 */
export type ChainResult =
  | {
      /** The last step's result. */
      result: RunResult;
      /** Every step's result, in order. */
      steps: StepResult[];
    }
  | {
      /** An empty chain has no result. */
      result: undefined;
      /** No step ran. */
      steps: [];
    };

/** Resolves, validates, dispatches and normalizes tool calls. */
export interface Runner {
  /**
   * Runs one tool; rejects with a {@link ToolError} naming the failed stage, except for per-call
   * `options` that cannot be used (not an object, a bad `timeoutMs`, `signal`, `idempotencyKey`,
   * `retry`, ...), which reject with a plain {@link ToolexecError} `INVALID_ARGUMENT` before any stage.
   */
  run(toolId: string, args?: Record<string, unknown>, options?: RunOptions): Promise<RunResult>;
  /**
   * Runs one tool as a stream of events: `progress` and `chunk`, then `done` on success; failures
   * throw a {@link ToolError}, except unusable per-call `options`, which make the first iteration
   * throw a plain {@link ToolexecError} `INVALID_ARGUMENT`. A signal already aborted makes the first
   * iteration throw `ABORTED` (a ToolError); one that aborts once the stream is open ends it quietly.
   * `options.retry` does not apply: a stream is never retried.
   */
  runStream(toolId: string, args?: Record<string, unknown>, options?: RunOptions): AsyncIterable<StreamEvent>;
  /**
   * Runs steps in order; stops at the first failure with a {@link ChainError}. Unusable per-call
   * `options` reject with a plain {@link ToolexecError} `INVALID_ARGUMENT` before the first step.
   */
  runChain(steps: readonly ChainStep[], options?: RunOptions): Promise<ChainResult>;
}
