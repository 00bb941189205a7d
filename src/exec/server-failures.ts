/**
 * The errors of the facade's MCP servers and the small waits their imports use (servers.ts), and
 * the facade's error for a failure that is nobody's input ({@link unexpectedFailure}).
 *
 * @internal
 * @module
 */
import { ToolexecError, errorMessage } from '../model/index.js';
import { describeValue, layerErrors } from '../model/internal.js';
import { ToolError } from '../run/index.js';
import { unexpectedFailure as runUnexpectedFailure } from '../run/internal.js';
import type { RejectedTool, ServerStatus } from './types.js';

const errors = layerErrors('exec');

/** What {@link unavailableError} reads of a server. */
export interface ServerFailure {
  readonly name: string;
  readonly status: ServerStatus;
  /** When the next attempt may start (`Date.now()` clock). */
  readonly retryAtMs: number;
}

/** SERVER_UNAVAILABLE for a failed server: its last connect error as `cause`, `details.server`. */
export function unavailableError(entry: ServerFailure, toolId?: string): ToolexecError {
  const cause = entry.status.error;
  const retryInMs = Math.max(0, entry.retryAtMs - Date.now());
  const details: Record<string, unknown> = { server: entry.name, retryInMs };
  if (toolId !== undefined) details.toolId = toolId;
  const last = cause === undefined ? 'it is not connected' : `last error: ${cause.message}`;
  return errors('SERVER_UNAVAILABLE', `MCP server "${entry.name}" is unavailable (next attempt in ${retryInMs} ms); ${last}`, {
    cause,
    details,
  });
}

/** A tool the index refused, named with its server. */
export function rejectedTool(serverName: string, tool: unknown, error: unknown): RejectedTool {
  const given = tool !== null && typeof tool === 'object' ? (tool as { name?: unknown }).name : undefined;
  const name = typeof given === 'string' ? given : describeValue(given);
  const reason = errorMessage(error);
  return {
    name,
    error: errors('INVALID_TOOL', `MCP server "${serverName}" listed a tool that cannot be imported (${JSON.stringify(name)}): ${reason}`, {
      cause: error,
      details: { server: serverName, tool: name },
    }),
  };
}

/** Resolves when `attempt` settles or after `waitMs`, whichever is first (the timer never holds the process). */
export function boundedWait(attempt: Promise<void>, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    timer.unref();
    void attempt.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function toToolexecError(error: unknown): ToolexecError {
  return ToolexecError.isInstance(error) ? error : errors('EXECUTION', String(error), { cause: error });
}

/** CONNECTION_CLOSED: the facade was closed. */
export function closedError(): ToolexecError {
  return errors('CONNECTION_CLOSED', 'the Exec instance is closed');
}

/**
 * A call of the facade (`runTool`, `runChain`, `runToolStream`) that failed with something other
 * than a library error, outside anything the caller handed over (a bug): `EXECUTION` (502),
 * `exec: <what> failed: unexpected failure: <message>`, with it as `cause` — the run layer's last
 * resort, in the facade's words. A library error is returned as it is.
 */
export function unexpectedFailure(what: string, error: unknown): ToolexecError {
  return runUnexpectedFailure(what, error, errors);
}

/**
 * The facade's own SERVER_UNAVAILABLE, when the runner wrapped it (a tool of a failed server is
 * found missing at the runner's resolve step): the caller gets the error that names the server.
 */
export function unwrapUnavailable(err: unknown): unknown {
  if (err instanceof ToolError && err.op === 'resolve' && err.code === 'SERVER_UNAVAILABLE' && ToolexecError.isInstance(err.cause)) {
    return err.cause;
  }
  return err;
}
