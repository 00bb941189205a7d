import type { ErrorCode } from '../../model/index.js';
import type { DetailLevel, ToolDoc, ToolExample, ToolSummary } from '../../discovery/index.js';
import type { ChainResult, ChainStep, RunResult } from '../../run/index.js';
import type { WasmBackendOptions } from '../backends/wasm/option-types.js';
import type { PythonBackendOptions } from '../backends/python/option-types.js';

/** How much isolation a snippet gets: `dev` (the host), `standard` and `hardened` (real sandboxes). */
export type SecurityProfile = 'dev' | 'standard' | 'hardened';

/** The security profiles. */
export const SECURITY_PROFILES: readonly SecurityProfile[] = ['dev', 'standard', 'hardened'];

/** Every kind of runtime backend. */
export type RuntimeBackendKind =
  | 'unsafe_host'
  | 'docker'
  | 'containerd'
  | 'kubernetes'
  | 'gvisor'
  | 'kata'
  | 'firecracker'
  | 'wasm'
  | 'temporal'
  | 'remote'
  | 'proxmox_lxc';

/** Every runtime backend kind, in the order of {@link RuntimeBackendKind}. */
export const RUNTIME_BACKEND_KINDS: readonly RuntimeBackendKind[] = [
  'unsafe_host',
  'docker',
  'containerd',
  'kubernetes',
  'gvisor',
  'kata',
  'firecracker',
  'wasm',
  'temporal',
  'remote',
  'proxmox_lxc',
];

/** How far a backend is from production use. */
export type BackendReadiness = 'prod' | 'beta' | 'stub';

/** Resource limits of one execution. `undefined` or 0 means the backend default / unlimited. */
export interface Limits {
  /** Most tool calls (single runs plus executed chain steps) through the gateway (`LIMIT_EXCEEDED` past it). */
  maxToolCalls?: number;
  /** Most steps one chain may have (`LIMIT_EXCEEDED` past it). */
  maxChainSteps?: number;
  /** CPU time (or CPU quota per second, for containers) in milliseconds. */
  cpuQuotaMs?: number;
  /** Memory cap of the sandbox, in bytes. */
  memoryBytes?: number;
  /** Most processes/threads inside the sandbox (container backends). */
  pidsMax?: number;
  /** Size cap of the sandbox's writable scratch space (`/tmp`), in bytes. */
  diskBytes?: number;
  /** Cap on stdout + stderr bytes captured from the snippet. */
  maxOutputBytes?: number;
}

/** Options accepted by every gateway method. */
export interface GatewayCallOptions {
  /** Cancels the call (`ABORTED`). */
  signal?: AbortSignal;
  /** Absolute deadline of the call in epoch milliseconds (a snippet's own deadline): the runner gives MCP servers the time left. */
  deadline?: number;
}

/**
 * Everything sandboxed code can reach: discovery and execution of tools, nothing more.
 */
export interface ToolGateway {
  /** The best at most `limit` tools for a free-text query. */
  searchTools(query: string, limit: number, options?: GatewayCallOptions): Promise<ToolSummary[]>;
  /** Every namespace of the registered tools, sorted. */
  listNamespaces(options?: GatewayCallOptions): Promise<string[]>;
  /** A tool's documentation at `level` (`TOOL_NOT_FOUND`, `INVALID_DETAIL`). */
  describeTool(id: string, level: DetailLevel, options?: GatewayCallOptions): Promise<ToolDoc>;
  /** Up to `max` of a tool's examples (`max <= 0`: all); `TOOL_NOT_FOUND` for an unknown tool. */
  listToolExamples(id: string, max: number, options?: GatewayCallOptions): Promise<ToolExample[]>;
  /** Runs one tool; a budgeted gateway counts it against `maxToolCalls` and records it, failed or not. */
  runTool(id: string, args?: Record<string, unknown>, options?: GatewayCallOptions): Promise<RunResult>;
  /** Runs a chain; a budgeted gateway counts each executed step against `maxToolCalls` and caps the length at `maxChainSteps`. */
  runChain(steps: readonly ChainStep[], options?: GatewayCallOptions): Promise<ChainResult>;
}

/** A record of one tool call made by sandboxed code. */
export interface ToolCallRecord {
  /** The tool ID as the snippet passed it. */
  toolId: string;
  /** A deep copy of the arguments (chains: the effective arguments, `previous` included). */
  args?: Record<string, unknown>;
  /** The call's structured result (not copied); absent when it failed or returned nothing. */
  structured?: unknown;
  /** `local`, `provider` or `mcp`. */
  backendKind?: string;
  /** The error message, when the call failed. */
  error?: string;
  /** The error code, when the call failed with a library error. */
  errorCode?: ErrorCode;
  /** `run` for a single call, `chain` for a chain step. */
  errorOp?: 'run' | 'chain';
  /** Wall-clock milliseconds of the call; a chain step gets the chain's time shared evenly among its executed steps. */
  durationMs: number;
  /** JSON pointers (into `args`) of the values redaction removed from this record; absent when none (see the tracing docs). */
  redactions?: string[];
}

/** One snippet to run. */
export interface ExecuteRequest {
  /**
   * `javascript` / `js` (run as written), `typescript` / `ts` (TypeScript syntax stripped), or
   * `python` / `py` (routed by the runtime to a backend that runs Python: see
   * `RuntimeOptions.python`). Absent or `''`: JavaScript, with any TypeScript syntax stripped.
   * @defaultValue JavaScript or TypeScript
   */
  language?: 'javascript' | 'typescript' | 'python' | (string & {});
  /** The snippet's source; required and non-empty (`MISSING_CODE`). */
  code: string;
  /**
   * Wall-clock limit in milliseconds, counted from when the snippet starts running (not while it
   * waits for a sandbox); absent or 0: the backend's default (usually 30 s). Above the backend's
   * ceiling (wasm: `maxTimeoutMs`, 10 min) → `INVALID_LIMITS`.
   */
  timeoutMs?: number;
  /**
   * How long the run may wait for a free sandbox (a pooled worker) before it starts, in
   * milliseconds; past it the run fails with `TIMEOUT` and `details.phase: 'queue'`. Absent or 0:
   * the backend's default (wasm: `queueTimeoutMs`, 30 s). Backends that do not queue ignore it.
   */
  queueTimeoutMs?: number;
  /**
   * Called once when the snippet starts running, after any wait for a sandbox (the wasm backend:
   * when its worker is assigned). Lets a caller start its own clock for the run then. Backends that
   * do not queue may not call it.
   */
  onStart?: () => void;
  /** Resource limits; each field a non-negative integer (`INVALID_LIMITS`). */
  limits?: Limits;
  /** @defaultValue the runtime's default profile */
  profile?: SecurityProfile;
  /** Everything the snippet's `tools` object reaches; required (`MISSING_GATEWAY`). */
  gateway: ToolGateway;
  /** Backend-specific inputs (e.g. `unsafeOptIn: true` for the host backend, `wasm_module` for WASM). */
  metadata?: Record<string, unknown>;
  /** Cancels the run (`ABORTED`). */
  signal?: AbortSignal;
  /**
   * Fails the run (`CODE_EXECUTION`, naming the call) when a `tools.*` call is still pending as the
   * snippet returns (a missing `await`), instead of a `PENDING_TOOL_CALL` warning in the result.
   * @defaultValue false
   */
  strict?: boolean;
}

/**
 * Something about a run that did not fail it but is probably a mistake. `PENDING_TOOL_CALL`: a
 * `tools.*` call was still pending when the snippet returned (a missing `await`?); the run's end
 * cancels it.
 */
export interface SnippetWarning {
  /** What kind of warning. */
  code: 'PENDING_TOOL_CALL';
  /** For people: `tools.runTool('x:y') was still pending when the snippet returned: a missing await?` */
  message: string;
  /** The `tools` method of the call (`runTool`, `runChain`, ...). */
  method: string;
  /** The tool the call named, when it named one. */
  toolId?: string;
}

/** Which limits a backend really enforced on a run. */
export interface LimitsEnforced {
  /** The wall-clock timeout was enforced. */
  timeout: boolean;
  /** `maxToolCalls` was enforced. */
  toolCalls: boolean;
  /** `maxChainSteps` was enforced. */
  chainSteps: boolean;
  /** A memory cap (`memoryBytes`) was applied. */
  memory: boolean;
  /** A CPU cap (`cpuQuotaMs`) was applied. */
  cpu: boolean;
  /** A process/thread cap (`pidsMax`) was applied. */
  pids: boolean;
  /** A scratch-space size cap (`diskBytes`) was applied. */
  disk: boolean;
}

/** The backend that ran a snippet. */
export interface BackendInfo {
  /** Which backend ran the snippet. */
  kind: RuntimeBackendKind;
  /** How far that backend is from production use. */
  readiness: BackendReadiness;
  /** Backend-specific facts (the image, the engine, the mode, ...). */
  details?: Record<string, unknown>;
}

/** The outcome of a snippet. */
export interface ExecuteResult {
  /** What the snippet returned at top level, or assigned to `__out`. */
  value?: unknown;
  /** The snippet's captured stdout (within `maxOutputBytes`). */
  stdout: string;
  /** The snippet's captured stderr (within `maxOutputBytes`). */
  stderr: string;
  /** Every tool call the snippet made, in completion order. */
  toolCalls: ToolCallRecord[];
  /** Wall-clock time of the run in milliseconds, measured by the backend. */
  durationMs: number;
  /** The backend that ran the snippet. */
  backend: BackendInfo;
  /** Which limits that backend really enforced on this run. */
  limitsEnforced: LimitsEnforced;
  /** What the run did that is probably a mistake (a tool call left pending, ...); absent when nothing. */
  warnings?: SnippetWarning[];
}

/** A sandbox implementation. */
export interface RuntimeBackend {
  /** Which kind of sandbox this is. */
  readonly kind: RuntimeBackendKind;
  /** How far the backend is from production use. */
  readonly readiness: BackendReadiness;
  /**
   * True when the backend calls `request.onStart` itself once the snippet starts (after any wait
   * for a sandbox); for a backend that does not, the runtime calls it just before handing the
   * request over.
   */
  readonly reportsStart?: boolean;
  /**
   * The `language` values the backend runs (lower case). Absent: JavaScript and TypeScript. The
   * runtime sends a Python request to a profile's backend only when this lists `python`.
   */
  readonly languages?: readonly string[];
  /**
   * Starts what the backend keeps warm (a pool of sandboxes) for `options.languages` (default: the
   * backend's choice, e.g. every language it runs) and resolves once it is ready.
   */
  warm?(options?: RuntimeWarmOptions): Promise<void>;
  /**
   * Runs one snippet. Rejects with a ToolexecError (TIMEOUT, RESOURCE_LIMIT, SANDBOX_VIOLATION,
   * LIMIT_EXCEEDED, CODE_EXECUTION, RUNTIME_UNAVAILABLE, ...) whose `details.result` holds the
   * partial {@link ExecuteResult} (stdout, stderr, tool calls so far).
   */
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
  /** Releases pooled resources (workers, containers). Idempotent. */
  close?(): Promise<void>;
}

/** Routes snippets to backends by security profile. */
export interface Runtime {
  /**
   * Runs one snippet on the backend of its security profile; rejects with a ToolexecError
   * (`RUNTIME_UNAVAILABLE`, `BACKEND_DENIED`, or the backend's own failure). Calls
   * `request.onStart` once the snippet starts.
   */
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
  /**
   * Starts the sandboxes of `options.languages` (default: `python`) ahead of the first snippet, so
   * that it does not pay for their start; rejects with the backend's error (`RUNTIME_UNAVAILABLE`
   * when Python cannot run here).
   */
  warm?(options?: RuntimeWarmOptions): Promise<void>;
  /** Closes the backends the runtime owns (the default ones it created). Idempotent. */
  close?(): Promise<void>;
}

/** Options of {@link Runtime.warm}. */
export interface RuntimeWarmOptions {
  /** The languages whose backends to warm (`python`, `javascript`). @defaultValue ['python'] */
  languages?: readonly string[];
}

/** Options of {@link createRuntime}. */
export interface RuntimeOptions {
  /** @defaultValue standard and hardened → wasm, dev → unsafe_host */
  backends?: Partial<Record<SecurityProfile, RuntimeBackend>>;
  /** Profiles that may never run on `unsafe_host` (BACKEND_DENIED). */
  denyUnsafeProfiles?: SecurityProfile[];
  /** @defaultValue 'standard' */
  defaultProfile?: SecurityProfile;
  /**
   * Options of the default WASM backend the runtime creates for `standard` and `hardened` (pool
   * size, queue bound, limits and their ceilings). Ignored when `backends` is given.
   */
  wasm?: WasmBackendOptions;
  /**
   * Options of the Python backend (Pyodide) the runtime creates on first use for Python requests
   * (`language: 'python'` or `'py'`) of the `standard` and `hardened` profiles whose backend does
   * not run Python; `false`: no such backend (those requests fail with `RUNTIME_UNAVAILABLE`).
   */
  python?: PythonBackendOptions | false;
  /**
   * Largest snippet source the runtime accepts, in UTF-8 bytes; a larger one is refused at once
   * with `LIMIT_EXCEEDED` (`details.limit: 'sourceBytes'`), before any backend sees it.
   * @defaultValue 1 MiB
   */
  maxSourceBytes?: number;
}

/** Options every backend that runs the node guest accepts (host, docker, gvisor, the injected-client backends). */
export interface NodeGuestBackendOptions {
  /** Wall-clock limit of a snippet when the request has none, in milliseconds. @defaultValue 30000 (kubernetes: 60000) */
  defaultTimeoutMs?: number;
  /** stdout + stderr cap when the request's limits have none. @defaultValue 1 MiB */
  defaultMaxOutputBytes?: number;
  /** Largest gateway protocol message. @defaultValue 8 MiB */
  maxMessageBytes?: number;
  /** Extra flags for the guest's node (e.g. `--experimental-permission` on the host backend). */
  nodeFlags?: readonly string[];
}
