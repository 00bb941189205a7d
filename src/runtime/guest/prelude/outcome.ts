/**
 * The run's failure as the QuickJS prelude hands it to the worker: the thrown value read into a
 * failure report (JSON text), without trusting anything about it. (The value goes through
 * `shared/result.ts`.)
 */
import type { GuestFailureReport } from '../../gateway/codec.js';
import { GuestString, JSONStringify, sliceOf } from '../shared/primordials.js';

/** The longest stack handed to the worker, in characters (it keeps the snippet's frames). */
const MAX_STACK_CHARS = 8192;

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
