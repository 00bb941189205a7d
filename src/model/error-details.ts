/**
 * The `details` of a {@link ToolexecError}, by code: what each layer puts there when it makes an
 * error of that code. Every shape is open (`[key: string]: unknown`), since a wrapper may add its
 * own fields (a chain step adds `fromPrevious`, a ToolError copies the details of what it wraps).
 */
import type { ContractViolation } from './contract-violation.js';

/** Fields any error's details may carry, whatever its code. */
export interface BaseErrorDetails {
  /** For a failed chain step: the arguments that came from the previous step (`argsFrom`, `previous`). */
  fromPrevious?: string[];
  /** Further fields of the layer that made the error. */
  [key: string]: unknown;
}

/** `VALIDATION` / `OUTPUT_VALIDATION`: each field that failed its schema. */
export interface ValidationErrorDetails extends BaseErrorDetails {
  /** The fields that failed, each with its JSON pointer, code and (for a near-miss argument name) a rename suggestion. */
  violations: ContractViolation[];
  /** How many further violations were left out of `violations`. */
  omittedViolations?: number;
  /** The tool's ID (`namespace:name[:version]`, or the bare name), when the check was bound to a tool. */
  tool?: string;
  /** Which schema failed: `inputSchema` or `outputSchema`. */
  schema?: string;
}

/** `TOOL_NOT_FOUND`: what was looked up, and the closest known IDs. */
export interface ToolNotFoundErrorDetails extends BaseErrorDetails {
  /** The closest known tool IDs (namespace-qualified match, edit distance, search), best first; absent when none is close. */
  suggestions?: string[];
  /** The ID that was looked up (the index, the doc store). */
  toolId?: unknown;
  /** The backend that was asked (a local backend of `toolexec/backend`). */
  backend?: string;
  /** The tool name that backend was asked for. */
  tool?: unknown;
}

/** `SERVER_UNAVAILABLE`: which MCP server could not be reached, and when it is tried again. */
export interface ServerUnavailableErrorDetails extends BaseErrorDetails {
  /** The server's name in `mcpServers`. */
  server: string;
  /** Milliseconds until the next connection attempt. */
  retryInMs?: number;
  /** The tool the call asked for. */
  toolId?: string;
}

/** Which limit a `LIMIT_EXCEEDED` or `RESOURCE_LIMIT` error met. */
export type LimitName =
  'maxToolCalls' | 'maxChainSteps' | 'timeout' | 'queue' | 'resource' | 'memory' | 'output' | 'stack' | 'result' | 'sourceBytes';

/** `LIMIT_EXCEEDED` / `RESOURCE_LIMIT`: the limit that was met, its bound, and the run's partial result. */
export interface LimitErrorDetails extends BaseErrorDetails {
  /** The limit that was met. */
  limit?: LimitName;
  /** The bound of a counted limit (`maxToolCalls`, `maxChainSteps`). */
  max?: number;
  /** How many a chain or batch asked for. */
  requested?: number;
  /** The deadline of a `timeout` limit, in milliseconds. */
  timeoutMs?: number;
  /** How long a `queue` limit waited, in milliseconds. */
  queueTimeoutMs?: number;
  /**
   * The run's partial result (output and tool calls so far): a `CodeResult` of `toolexec/code` for
   * `executeCode` (read it typed with `codeResultOf(err)` of `toolexec/code`), an `ExecuteResult`
   * of `toolexec/runtime` for a runtime's `execute`.
   */
  result?: unknown;
}

/** `CODE_EXECUTION`: where the snippet failed, and its partial result. */
export interface CodeExecutionErrorDetails extends BaseErrorDetails {
  /** The run's partial result, as for {@link LimitErrorDetails.result}. */
  result?: unknown;
  /** The line of a syntax or runtime error in the snippet, when known. */
  line?: number;
  /** The column of a syntax error, when known. */
  column?: number;
  /** `compile` or `transpile` for a snippet that never ran. */
  phase?: string;
}

/** `INVALID_TOOL` / `INVALID_BACKEND` / `INVALID_CURSOR`: why the value was rejected. */
export interface ReasonErrorDetails extends BaseErrorDetails {
  /** Why, in a few words. */
  reason: string;
}

/** `INVALID_TOOL_ID`: the ID and why it is malformed (absent for the runner's empty-ID check). */
export interface InvalidToolIdErrorDetails extends BaseErrorDetails {
  /** The rejected ID. */
  id?: unknown;
  /** Why it is malformed. */
  reason?: string;
}

/** `EXECUTION` and the other failures of a call: where it ran and what the backend said. */
export interface ExecutionErrorDetails extends BaseErrorDetails {
  /** The MCP server that failed or answered with `isError`. */
  serverName?: string;
  /** The MCP result of a tool that answered with `isError: true`. */
  isError?: boolean;
  /** The HTTP status of a failed MCP connection. */
  httpStatus?: number;
  /** The partial result of a failed snippet. */
  result?: unknown;
}

/**
 * The shape of `details` for each error code (`ErrorCode`). Codes without a shape of their own carry
 * {@link BaseErrorDetails}.
 */
export interface ToolexecErrorDetails {
  /** A bad argument to a call. */
  INVALID_ARGUMENT: BaseErrorDetails;
  /** A bad option when something is created. */
  CONFIGURATION: BaseErrorDetails;
  /** An invalid tool definition. */
  INVALID_TOOL: ReasonErrorDetails;
  /** A malformed tool ID. */
  INVALID_TOOL_ID: InvalidToolIdErrorDetails;
  /** An invalid backend binding. */
  INVALID_BACKEND: ReasonErrorDetails;
  /** A JSON Schema that cannot be compiled. */
  INVALID_SCHEMA: BaseErrorDetails;
  /** An unknown tool. */
  TOOL_NOT_FOUND: ToolNotFoundErrorDetails;
  /** A cursor that is not this index's. */
  INVALID_CURSOR: ReasonErrorDetails;
  /** An unknown detail level. */
  INVALID_DETAIL: BaseErrorDetails;
  /** Arguments over the size caps. */
  ARGS_TOO_LARGE: BaseErrorDetails;
  /** A tool without backends. */
  NO_BACKENDS: BaseErrorDetails;
  /** Arguments that fail the input schema. */
  VALIDATION: ValidationErrorDetails;
  /** A result that fails the output schema. */
  OUTPUT_VALIDATION: ValidationErrorDetails;
  /** A tool that failed. */
  EXECUTION: ExecutionErrorDetails;
  /** A backend that cannot stream. */
  STREAM_NOT_SUPPORTED: BaseErrorDetails;
  /** A call its caller aborted. */
  ABORTED: BaseErrorDetails;
  /** A call past its deadline. */
  TIMEOUT: BaseErrorDetails;
  /** An unknown backend. */
  BACKEND_NOT_FOUND: BaseErrorDetails;
  /** A disabled backend. */
  BACKEND_DISABLED: BaseErrorDetails;
  /** A backend registered twice. */
  BACKEND_EXISTS: BaseErrorDetails;
  /** A snippet over a limit. */
  LIMIT_EXCEEDED: LimitErrorDetails;
  /** A snippet that failed. */
  CODE_EXECUTION: CodeExecutionErrorDetails;
  /** No sandbox for the profile. */
  RUNTIME_UNAVAILABLE: BaseErrorDetails;
  /** A sandbox the profile may not use. */
  BACKEND_DENIED: BaseErrorDetails;
  /** A snippet that broke the sandbox's rules. */
  SANDBOX_VIOLATION: BaseErrorDetails;
  /** A sandbox's resource cap. */
  RESOURCE_LIMIT: LimitErrorDetails;
  /** A run without a gateway. */
  MISSING_GATEWAY: BaseErrorDetails;
  /** A run without code. */
  MISSING_CODE: BaseErrorDetails;
  /** Malformed limits. */
  INVALID_LIMITS: BaseErrorDetails;
  /** A gateway connection that closed. */
  CONNECTION_CLOSED: BaseErrorDetails;
  /** A message that breaks the protocol. */
  PROTOCOL: BaseErrorDetails;
  /** An MCP server that cannot be reached. */
  SERVER_UNAVAILABLE: ServerUnavailableErrorDetails;
}
