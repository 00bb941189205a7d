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
 * The deepest nesting of objects and arrays in the tool arguments and results a sandbox exchanges
 * with the host: node's `JSON.stringify` and `structuredClone` overflow past ~1,500 levels, QuickJS's
 * JSON (512 KiB stack) past ~5,000; a snippet meets an error beyond it, never a cut value.
 */
export const MAX_VALUE_DEPTH = 512;

/**
 * Whether `value` nests objects and arrays more than `maxDepth` levels deep (`{}` is one level).
 * Walked without recursion, each object once, so a value too deep for the stack is measured too.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const pending: { object: object; depth: number }[] = [{ object: value, depth: 1 }];
  const seen = new Set<object>();
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > maxDepth) return true;
    if (seen.has(next.object)) continue;
    seen.add(next.object);
    for (const key of Object.keys(next.object)) {
      const child: unknown = (next.object as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') pending.push({ object: child, depth: next.depth + 1 });
    }
  }
  return false;
}

/** Plain data deeper than this is copied by `structuredClone` (no recursion limit of our own to hit). */
const PLAIN_COPY_DEPTH = 32;

/**
 * A deep copy of a JSON-like value: plain objects, arrays and primitives are copied directly (the
 * common case, tool arguments parsed from JSON: several times cheaper than `structuredClone`);
 * anything else (class instances, cycles, very deep values) through `structuredClone`, or a JSON
 * round trip when that fails (class instances become plain objects, functions disappear).
 * `undefined` stays `undefined`.
 */
export function cloneJson<T>(value: T): T {
  if (value === undefined || value === null || typeof value !== 'object') return value;
  const plain = copyPlain(value, 0);
  if (plain !== NOT_PLAIN) return plain as T;
  try {
    return structuredClone(value);
  } catch {
    const text = JSON.stringify(value) as string | undefined;
    return (text === undefined ? undefined : JSON.parse(text)) as T;
  }
}

const NOT_PLAIN = Symbol('not plain');

/** A copy of plain JSON data, or NOT_PLAIN as soon as something else (or too deep a value) shows up. */
function copyPlain(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint' ? NOT_PLAIN : value;
  }
  if (depth >= PLAIN_COPY_DEPTH) return NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = copyPlain(value[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyPlain((value as Record<string, unknown>)[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    // a `__proto__` key stays an own property, as JSON.parse makes it
    if (key === '__proto__') Object.defineProperty(out, key, { value: item, writable: true, enumerable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

/** Wall-clock milliseconds since `start` (from `performance.now()`), rounded to 0.001 ms. */
export function elapsedMs(start: number): number {
  return Math.round((performance.now() - start) * 1000) / 1000;
}
