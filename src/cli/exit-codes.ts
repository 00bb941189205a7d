/**
 * The `toolexec` command's exit codes: one per class of failure, stable across releases, and the
 * one mapping from every {@link ErrorCode} to its class (docs/cli.md prints this table).
 */
import { ToolexecError, hasErrorCode, type ErrorCode } from '../model/index.js';

/**
 * Every exit code of the command, by class.
 *
 * | code | class | when |
 * |---|---|---|
 * | 0 | `OK` | the command did what it was asked |
 * | 1 | `FAILURE` | an unexpected failure that is not a library error (a bug: please report it) |
 * | 2 | `USAGE` | bad usage: an unknown command or option, a bad option value, an unreadable or invalid config, arguments that are not JSON |
 * | 3 | `VALIDATION` | the tool's arguments do not match its input schema |
 * | 4 | `NOT_FOUND` | no such tool (or backend, or namespace) |
 * | 5 | `TIMEOUT` | the call, snippet or connection ran out of time (`--timeout`) |
 * | 6 | `UNAVAILABLE` | an MCP server, backend or sandbox cannot be reached; `servers` when any server is not connected |
 * | 7 | `EXECUTION` | the tool or snippet ran and failed (or broke its output schema, or a limit) |
 * | 130 | `INTERRUPTED` | stopped by Ctrl-C (SIGINT) or SIGTERM |
 */
export const EXIT_CODES = Object.freeze({
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  VALIDATION: 3,
  NOT_FOUND: 4,
  TIMEOUT: 5,
  UNAVAILABLE: 6,
  EXECUTION: 7,
  INTERRUPTED: 130,
} as const);

/** A class of outcome of the command (a key of {@link EXIT_CODES}). */
export type ExitClass = keyof typeof EXIT_CODES;

/**
 * The class of each library {@link ErrorCode}. Typed as a complete record: a new error code does
 * not compile until it is given a class here.
 */
export const EXIT_CLASS_OF_CODE: Readonly<Record<ErrorCode, ExitClass>> = Object.freeze({
  INVALID_ARGUMENT: 'USAGE',
  CONFIGURATION: 'USAGE',
  INVALID_TOOL: 'USAGE',
  INVALID_TOOL_ID: 'USAGE',
  INVALID_BACKEND: 'USAGE',
  INVALID_SCHEMA: 'USAGE',
  INVALID_CURSOR: 'USAGE',
  INVALID_DETAIL: 'USAGE',
  STREAM_NOT_SUPPORTED: 'USAGE',
  BACKEND_EXISTS: 'USAGE',
  BACKEND_DENIED: 'USAGE',
  MISSING_GATEWAY: 'USAGE',
  MISSING_CODE: 'USAGE',
  INVALID_LIMITS: 'USAGE',
  VALIDATION: 'VALIDATION',
  ARGS_TOO_LARGE: 'VALIDATION',
  TOOL_NOT_FOUND: 'NOT_FOUND',
  BACKEND_NOT_FOUND: 'NOT_FOUND',
  TIMEOUT: 'TIMEOUT',
  ABORTED: 'INTERRUPTED',
  SERVER_UNAVAILABLE: 'UNAVAILABLE',
  NO_BACKENDS: 'UNAVAILABLE',
  BACKEND_DISABLED: 'UNAVAILABLE',
  RUNTIME_UNAVAILABLE: 'UNAVAILABLE',
  CONNECTION_CLOSED: 'UNAVAILABLE',
  EXECUTION: 'EXECUTION',
  OUTPUT_VALIDATION: 'EXECUTION',
  PROTOCOL: 'EXECUTION',
  CODE_EXECUTION: 'EXECUTION',
  SANDBOX_VIOLATION: 'EXECUTION',
  LIMIT_EXCEEDED: 'EXECUTION',
  RESOURCE_LIMIT: 'EXECUTION',
});

/**
 * The class of a failure: its code's class; a snippet stopped by its deadline (`LIMIT_EXCEEDED`
 * caused by `TIMEOUT`) is a `TIMEOUT`; anything that is not a library error is a `FAILURE`.
 */
export function exitClassOf(err: unknown): ExitClass {
  if (!ToolexecError.isInstance(err)) return 'FAILURE';
  if (err.code === 'LIMIT_EXCEEDED' && hasErrorCode(err.cause, 'TIMEOUT')) return 'TIMEOUT';
  return EXIT_CLASS_OF_CODE[err.code] ?? 'FAILURE';
}

/** The exit code of a failure ({@link exitClassOf}, then {@link EXIT_CODES}). */
export function exitCodeOf(err: unknown): number {
  return EXIT_CODES[exitClassOf(err)];
}
