import { ToolexecError, type ErrorCode, type ToolBackend } from '../model/index.js';
import { textOf } from '../model/internal.js';
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
 * backend was selected). The inner error is never flattened: a handler's error, a validator's
 * {@link ToolexecError} or an abort reason stays reachable through `cause`, and `hasErrorCode`
 * finds codes anywhere on that chain.
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
  return `run: ${op} ${textOf(toolId)}${kind}: ${reason}`;
}

/**
 * A failed chain: the failing step's {@link ToolError} as `cause` (its code, op, tool ID and
 * backend are copied up) and the step results so far, the failed one included.
 *
 * @remarks
 * When the chain is aborted or times out between steps, no step result is added for the step that
 * never ran; `stepIndex` still names it.
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
