import { ToolexecError, errorMessage, type ErrorCode, type ToolBackend } from '../model/index.js';
import type { StepResult } from './types.js';

/** The pipeline stage a {@link ToolError} comes from. */
export type ToolErrorOp = 'validate_tool_id' | 'resolve' | 'select_backend' | 'validate_input' | 'execute' | 'validate_output' | 'stream';

/** Every {@link ToolErrorOp}, in pipeline order. */
export const TOOL_ERROR_OPS: readonly ToolErrorOp[] = [
  'validate_tool_id',
  'resolve',
  'select_backend',
  'validate_input',
  'execute',
  'validate_output',
  'stream',
];

/** What a {@link ToolError} is built from. */
export interface ToolErrorInit {
  /** The error's stable code. */
  code: ErrorCode;
  /** The pipeline stage that failed. */
  op: ToolErrorOp;
  /** The tool ID the call was made with (`''` for an empty one). */
  toolId: string;
  /** The selected backend; absent for failures before selection. */
  backend?: ToolBackend;
  /** What went wrong, without the `run: <op> <id>` prefix. */
  reason: string;
  /** The original error: a handler's own error, a validator's error, an abort reason. */
  cause?: unknown;
  /** Structured, JSON-safe data about the failure (e.g. schema violations). */
  details?: Record<string, unknown>;
}

/**
 * A failed tool call: which tool, which backend, which pipeline stage, and the original error as
 * `cause`.
 *
 * @remarks
 * The message is `run: <op> <toolId> [<backend kind>]: <reason>` (without ` [<kind>]` before a
 * backend was selected), as in Go. Unlike Go the inner error is never flattened: a handler's
 * error, a validator's {@link ToolexecError} or an abort reason stays reachable through `cause`,
 * and `hasErrorCode` finds codes anywhere on that chain.
 */
export class ToolError extends ToolexecError {
  /** The tool ID the call was made with. */
  readonly toolId: string;
  /** The backend the call was dispatched to, when one had been selected. */
  declare readonly backend?: ToolBackend;
  /** The pipeline stage that failed. */
  readonly op: ToolErrorOp;
  /** The message without the `run: <op> <toolId> [<kind>]: ` prefix. */
  readonly reason: string;

  constructor(init: ToolErrorInit) {
    const options: { cause?: unknown; details?: Record<string, unknown> } = {};
    if (init.cause !== undefined) options.cause = init.cause;
    if (init.details !== undefined) options.details = init.details;
    super(init.code, formatToolErrorMessage(init.op, init.toolId, init.backend, init.reason), options);
    this.toolId = init.toolId;
    if (init.backend !== undefined) this.backend = init.backend;
    this.op = init.op;
    this.reason = init.reason;
  }

  /** True for a {@link ToolError} (or subclass) from any copy of this package. */
  static isToolError(value: unknown): value is ToolError {
    return (
      ToolexecError.isInstance(value) &&
      typeof (value as { op?: unknown }).op === 'string' &&
      typeof (value as { toolId?: unknown }).toolId === 'string'
    );
  }

  override toJSON(): Record<string, unknown> {
    const json = super.toJSON();
    json.toolId = this.toolId;
    json.op = this.op;
    if (this.backend !== undefined) json.backend = this.backend;
    return json;
  }
}

/** `run: <op> <toolId> [<kind>]: <reason>`; the ` [<kind>]` part only when there is a backend. */
export function formatToolErrorMessage(op: ToolErrorOp, toolId: string, backend: ToolBackend | undefined, reason: string): string {
  const kind = backend === undefined ? '' : ` [${String((backend as { kind?: unknown }).kind)}]`;
  return `run: ${op} ${toolId}${kind}: ${reason}`;
}

/**
 * A failed chain: the failing step's {@link ToolError} as `cause` (its code, op, tool ID and
 * backend are copied up) and the step results so far, the failed one included.
 *
 * @remarks
 * When the chain is aborted or times out between steps, no step result is added for the step that
 * never ran (as in Go); `stepIndex` still names it.
 */
export class ChainError extends ToolError {
  /** The step results so far; the last one is the failed step unless the chain stopped between steps. */
  readonly steps: StepResult[];
  /** The 0-based index of the step that failed (or would have run). */
  readonly stepIndex: number;

  constructor(error: ToolError, steps: StepResult[], stepIndex: number) {
    const init: ToolErrorInit = {
      code: error.code,
      op: error.op,
      toolId: error.toolId,
      reason: `chain step ${stepIndex} failed: ${error.message}`,
      cause: error,
    };
    if (error.backend !== undefined) init.backend = error.backend;
    if (error.details !== undefined) init.details = error.details;
    super(init);
    this.message = `run: chain step ${stepIndex} (${error.toolId}): ${error.message}`;
    this.steps = steps;
    this.stepIndex = stepIndex;
  }
}

/**
 * Every rejection is a ToolexecError: the pipeline throws ToolErrors itself; anything else comes
 * from a misbehaving injected object (a throwing getter) and is reported as EXECUTION with it as
 * cause.
 *
 * @internal
 */
export function asRunFailure(err: unknown, toolId: unknown): ToolexecError {
  if (ToolexecError.isInstance(err)) return err;
  return new ToolError({
    code: 'EXECUTION',
    op: 'resolve',
    toolId: typeof toolId === 'string' ? toolId : String(toolId),
    reason: `unexpected failure: ${errorMessage(err)}`,
    cause: err,
  });
}

/** True when an abort reason means a deadline passed (a `TimeoutError`, or a TIMEOUT error). */
export function isTimeoutReason(reason: unknown): boolean {
  if (typeof reason !== 'object' || reason === null) return false;
  if ((reason as { name?: unknown }).name === 'TimeoutError') return true;
  return ToolexecError.isInstance(reason) && reason.code === 'TIMEOUT';
}

/** The ABORTED or TIMEOUT {@link ToolError} for an aborted call; `cause` is the abort reason. */
export function abortToolError(toolId: string, op: ToolErrorOp, backend: ToolBackend | undefined, reason: unknown): ToolError {
  const timedOut = isTimeoutReason(reason);
  const init: ToolErrorInit = {
    code: timedOut ? 'TIMEOUT' : 'ABORTED',
    op,
    toolId,
    reason: timedOut ? `timed out: ${errorMessage(reason)}` : `aborted: ${errorMessage(reason)}`,
    cause: reason,
  };
  if (backend !== undefined) init.backend = backend;
  return new ToolError(init);
}
