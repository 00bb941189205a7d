/**
 * The runtime's error factory: every runtime error is made here ({@link runtimeError}, and
 * {@link runtimeErrors} for bad options), so codes, messages (`<category>: <detail>`, e.g.
 * `runtime unavailable: ...`) and the partial result under `details.result` have one shape.
 * Also the "nothing enforced" limits record and JSON-safe copies (how work stops is in `stopping.ts`).
 */
import { ToolexecError, type ErrorCode } from '../../model/index.js';
import { layerErrors } from '../../model/internal.js';
import type { ExecuteResult, LimitsEnforced } from './types.js';

/** The runtime's error factory: `runtime: <message>`, `INVALID_ARGUMENT` for a bad call argument, `CONFIGURATION` for a bad option. */
export const runtimeErrors = layerErrors('runtime');

/** Options of {@link runtimeError}. */
export interface RuntimeErrorOptions {
  /** The original failure (a gateway error, an abort reason, a spawn error, ...). */
  cause?: unknown;
  /** The partial result of the run; stored under `details.result`. */
  result?: ExecuteResult;
  /** Further structured data (`line`, `column`, `limit`, ...). */
  details?: Record<string, unknown>;
}

/**
 * Builds the failure of a run: a {@link ToolexecError} with `code`, the original error as `cause`
 * and the partial {@link ExecuteResult} under `details.result`.
 */
export function runtimeError(code: ErrorCode, message: string, options: RuntimeErrorOptions = {}): ToolexecError {
  const details: Record<string, unknown> = { ...options.details };
  if (options.result !== undefined) details.result = options.result;
  return new ToolexecError(code, message, {
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    ...(Object.keys(details).length > 0 ? { details } : {}),
  });
}

/**
 * `err` as a run's failure carrying `result` under `details.result`.
 *
 * @remarks A library error keeps its code, message and details, and its `cause` becomes the
 * original failure (`err.cause`, or `err` itself when it has none); an error that already carries
 * a partial result is returned as is. Any other value becomes `fallbackCode` with it as `cause`.
 */
export function withPartialResult(err: unknown, result: ExecuteResult, fallbackCode: ErrorCode = 'CODE_EXECUTION'): ToolexecError {
  if (ToolexecError.isInstance(err)) {
    if (err.details?.result !== undefined) return err;
    return new ToolexecError(err.code, err.message, { cause: err.cause ?? err, details: { ...err.details, result } });
  }
  const message = err instanceof Error ? err.message : String(err);
  return runtimeError(fallbackCode, message, { cause: err, result });
}

/** The `details.result` a runtime failure carries, if any. */
export function partialResultOf(err: unknown): ExecuteResult | undefined {
  if (!ToolexecError.isInstance(err)) return undefined;
  const result = err.details?.result;
  return result !== null && typeof result === 'object' ? (result as ExecuteResult) : undefined;
}

/** A {@link LimitsEnforced} record with every limit `false`: what a backend reports before it enforces anything. */
export function limitsEnforcedNone(): LimitsEnforced {
  return { timeout: false, toolCalls: false, chainSteps: false, memory: false, cpu: false, pids: false, disk: false };
}

/**
 * A deep copy of a JSON-like value: `structuredClone` when it can, otherwise a JSON round trip
 * (class instances become plain objects, functions disappear). `undefined` stays `undefined`.
 */
export function cloneJson<T>(value: T): T {
  if (value === undefined || value === null || typeof value !== 'object') return value;
  try {
    return structuredClone(value);
  } catch {
    const text = JSON.stringify(value) as string | undefined;
    return (text === undefined ? undefined : JSON.parse(text)) as T;
  }
}

/** Wall-clock milliseconds since `start` (from `performance.now()`), rounded to 0.001 ms. */
export function elapsedMs(start: number): number {
  return Math.round((performance.now() - start) * 1000) / 1000;
}
