import type { ErrorCode } from '../model/index.js';
import type { DetailLevel, ToolDoc, ToolExample, ToolSummary } from '../discovery/index.js';
import type { ChainResult, ChainStep, RunResult } from '../run/index.js';

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
  maxToolCalls?: number;
  maxChainSteps?: number;
  /** CPU time (or CPU quota per second, for containers) in milliseconds. */
  cpuQuotaMs?: number;
  memoryBytes?: number;
  pidsMax?: number;
  diskBytes?: number;
  /** Cap on stdout + stderr bytes captured from the snippet. */
  maxOutputBytes?: number;
}

/** Options accepted by every gateway method. */
export interface GatewayCallOptions {
  signal?: AbortSignal;
}

/**
 * Everything sandboxed code can reach: discovery and execution of tools, nothing more.
 */
export interface ToolGateway {
  searchTools(query: string, limit: number, options?: GatewayCallOptions): Promise<ToolSummary[]>;
  listNamespaces(options?: GatewayCallOptions): Promise<string[]>;
  describeTool(id: string, level: DetailLevel, options?: GatewayCallOptions): Promise<ToolDoc>;
  listToolExamples(id: string, max: number, options?: GatewayCallOptions): Promise<ToolExample[]>;
  runTool(id: string, args?: Record<string, unknown>, options?: GatewayCallOptions): Promise<RunResult>;
  runChain(steps: readonly ChainStep[], options?: GatewayCallOptions): Promise<ChainResult>;
}

/** A record of one tool call made by sandboxed code. */
export interface ToolCallRecord {
  toolId: string;
  /** A deep copy of the arguments (chains: the effective arguments, `previous` included). */
  args?: Record<string, unknown>;
  structured?: unknown;
  /** `local`, `provider` or `mcp`. */
  backendKind?: string;
  /** The error message, when the call failed. */
  error?: string;
  /** The error code, when the call failed with a library error. */
  errorCode?: ErrorCode;
  /** `run` for a single call, `chain` for a chain step. */
  errorOp?: 'run' | 'chain';
  durationMs: number;
}

/** One snippet to run. */
export interface ExecuteRequest {
  /** @defaultValue 'javascript' */
  language?: 'javascript' | 'typescript' | (string & {});
  code: string;
  timeoutMs?: number;
  limits?: Limits;
  /** @defaultValue the runtime's default profile */
  profile?: SecurityProfile;
  gateway: ToolGateway;
  metadata?: Record<string, unknown>;
  signal?: AbortSignal;
}

/** Which limits a backend really enforced on a run. */
export interface LimitsEnforced {
  timeout: boolean;
  toolCalls: boolean;
  chainSteps: boolean;
  memory: boolean;
  cpu: boolean;
  pids: boolean;
  disk: boolean;
}

/** The backend that ran a snippet. */
export interface BackendInfo {
  kind: RuntimeBackendKind;
  readiness: BackendReadiness;
  details?: Record<string, unknown>;
}

/** The outcome of a snippet. */
export interface ExecuteResult {
  /** What the snippet returned at top level, or assigned to `__out`. */
  value?: unknown;
  stdout: string;
  stderr: string;
  toolCalls: ToolCallRecord[];
  durationMs: number;
  backend: BackendInfo;
  limitsEnforced: LimitsEnforced;
}

/** A sandbox implementation. */
export interface RuntimeBackend {
  readonly kind: RuntimeBackendKind;
  readonly readiness: BackendReadiness;
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
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
  /** Closes every backend. Idempotent. */
  close?(): Promise<void>;
}

/** Options of {@link createRuntime}. */
export interface RuntimeOptions {
  /** @defaultValue standard and hardened → wasm, dev → unsafe_host */
  backends?: Partial<Record<SecurityProfile, RuntimeBackend>>;
  /** Profiles that may never run on `unsafe_host` (BACKEND_DENIED). */
  denyUnsafeProfiles?: SecurityProfile[];
  /** @defaultValue 'standard' */
  defaultProfile?: SecurityProfile;
}
