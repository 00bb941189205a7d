/**
 * The run's outcome as the QuickJS prelude hands it to the worker: the value as JSON text, or the
 * thrown value read into a failure report (JSON text too), without trusting anything about it.
 */
import type { GuestFailureReport } from '../../gateway/codec.js';
import { GuestString, JSONStringify, sliceOf } from '../shared/primordials.js';

/** The longest stack handed to the worker, in characters (it keeps the snippet's frames). */
const MAX_STACK_CHARS = 8192;

/** Thrown by the size check: the result would be larger than the cap. */
const TOO_LARGE = { tooLarge: true };

/**
 * The snippet's value (`__out` when it returned nothing) as JSON text; `undefined` for no value;
 * `null` when it would be larger than `maxBytes`. Throws when not serializable.
 *
 * @remarks The size is checked while serializing, before any text is built: each string, key and
 * number counts at least its length, so a value far over the cap (a 50 MB string) is refused
 * without making its JSON copy, which could exhaust the VM's memory on the way out. The host
 * checks the exact UTF-8 size of what passes.
 */
export function resultJson(value: unknown, maxBytes: number): string | null | undefined {
  const result = value === undefined ? (globalThis as { __out?: unknown }).__out : value;
  if (result === undefined) return undefined;
  let size = 0;
  const count = (key: string, item: unknown): unknown => {
    size += key.length + 4;
    if (typeof item === 'string') size += item.length;
    // a marker, not an error: it never leaves resultJson
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (size > maxBytes) throw TOO_LARGE;
    return item;
  };
  try {
    return JSONStringify(result, count);
  } catch (error) {
    if (error === TOO_LARGE) return null;
    throw error;
  }
}

/**
 * What the snippet threw, as the JSON text of a report: name, message, code, stack and the
 * request id of a failed tool call. Every read is guarded: the value may be hostile.
 */
export function reportJson(error: unknown, requestIdOf: (error: unknown) => string | undefined): string {
  const isObject = error !== null && (typeof error === 'object' || typeof error === 'function');
  const thrown = (isObject ? error : {}) as { name?: unknown; message?: unknown; code?: unknown; stack?: unknown };
  const report: GuestFailureReport = { name: 'Error', message: '' };
  try {
    if (isObject && typeof thrown.name === 'string') report.name = thrown.name;
  } catch {
    // keep the default
  }
  try {
    report.message = isObject && typeof thrown.message === 'string' ? thrown.message : GuestString(error);
  } catch {
    report.message = 'the snippet threw a value that cannot be printed';
  }
  try {
    if (isObject && typeof thrown.code === 'string') report.code = thrown.code;
  } catch {
    // no code
  }
  try {
    if (isObject && typeof thrown.stack === 'string') report.stack = sliceOf(thrown.stack, 0, MAX_STACK_CHARS);
  } catch {
    // no stack
  }
  const requestId = isObject ? requestIdOf(error) : undefined;
  if (requestId !== undefined) report.requestId = requestId;
  return JSONStringify(report);
}
