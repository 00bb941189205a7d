/**
 * What the contract suites use to call the implementation under test: every call is checked to
 * return a promise (a synchronous throw or a plain value fails with the method's name), bounded
 * in time (a call that never settles fails with its name instead of the test timing out), and
 * reported with what it resolved or rejected with.
 */
import { expect } from 'vitest';
import { hasErrorCode, type ErrorCode } from '../model/index.js';
import { ABORTED, Deadline } from '../model/internal.js';

/** An error as the suites read it. */
export type Failure = Error & { code?: string; details?: Record<string, unknown> };

/** How a checked call ended. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: Failure };

/** How long a call may take to settle by default before the suite fails it. */
export const SETTLE_WITHIN_MS = 3_000;

/** A short, printable form of a value for a failure message. */
export function show(value: unknown): string {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return `${value.name}${typeof code === 'string' ? ` ${code}` : ''}: ${value.message}`;
  }
  if (typeof value === 'function') return `a function (${value.name || 'anonymous'})`;
  if (typeof value === 'bigint') return `${value}n`;
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_key, item: unknown) =>
      item instanceof AbortSignal ? `[AbortSignal${item.aborted ? ', aborted' : ''}]` : item,
    );
  } catch {
    text = undefined;
  }
  text ??= String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * Calls `call` as `label` and waits for it: fails (naming `label`) when it throws synchronously,
 * returns something other than a promise, or does not settle within `withinMs` (`Infinity`: no bound).
 */
export async function settle<T>(label: string, call: () => Promise<T>, withinMs = SETTLE_WITHIN_MS): Promise<Settled<T>> {
  let returned: unknown;
  try {
    returned = call();
  } catch (err) {
    throw new Error(`${label} threw synchronously (${show(err)}): it must return a promise and reject it instead`, { cause: err });
  }
  if (returned === null || typeof (returned as { then?: unknown }).then !== 'function') {
    throw new Error(`${label} returned ${show(returned)} instead of a promise`);
  }
  // the model's deadline bounds the wait (none for `Infinity`); the call itself is not stopped
  const deadline = Number.isFinite(withinMs) ? new Deadline(undefined, withinMs, true) : undefined;
  try {
    const settled = (returned as Promise<T>).then(
      (value): Settled<T> => ({ ok: true, value }),
      (error: unknown): Settled<T> => ({ ok: false, error: error as Failure }),
    );
    const outcome = deadline === undefined ? await settled : await deadline.race(settled);
    if (outcome === ABORTED) throw new Error(`${label} did not settle within ${withinMs}ms`);
    return outcome;
  } finally {
    deadline?.dispose();
  }
}

/** `owner.method(args…)` for a failure message, trailing `undefined` arguments left out. */
export function callLabel(owner: string, method: string, args: readonly unknown[]): string {
  const given = [...args];
  while (given.length > 0 && given[given.length - 1] === undefined) given.pop();
  return `${owner}.${method}(${given.map(show).join(', ')})`;
}

/** Checks that `value`, what `label` resolved with, is an array. */
export function expectArray(value: unknown, label: string): asserts value is unknown[] {
  expect(Array.isArray(value), `${label} must resolve with an array, got ${show(value)}`).toBe(true);
}

/** Waits for `call` as {@link settle} does and returns its value; fails naming `label` when it rejects. */
export async function resolved<T>(label: string, call: () => Promise<T>, withinMs?: number): Promise<T> {
  const outcome = await settle(label, call, withinMs);
  if (!outcome.ok) throw new Error(`${label} rejected: ${show(outcome.error)}`, { cause: outcome.error });
  return outcome.value;
}

/** Waits for `call` as {@link settle} does and returns its error; fails naming `label` when it resolves. */
export async function rejected(label: string, call: () => Promise<unknown>, withinMs?: number): Promise<Failure> {
  const outcome = await settle(label, call, withinMs);
  if (outcome.ok) throw new Error(`expected ${label} to reject, but it resolved with ${show(outcome.value)}`);
  return outcome.error;
}

/** Checks that `error`, what `label` rejected with, carries `code`. */
export function expectCode(error: Failure, code: ErrorCode, label: string): void {
  expect(error?.code, `expected ${label} to reject with ${code}, got ${String(error?.code)}: ${show(error)}`).toBe(code);
  expect(hasErrorCode(error, code), `${label} rejected with a ${code} error hasErrorCode() does not recognise`).toBe(true);
}

/**
 * Calls `call` as `label` and returns what it returned; fails naming `label` when it throws (for
 * the synchronous interfaces: the tool index, the schema validator).
 */
export function returned<T>(label: string, call: () => T): T {
  try {
    return call();
  } catch (err) {
    throw new Error(`${label} threw: ${show(err)}`, { cause: err });
  }
}

/** Calls `call` as `label` expecting it to throw `code`; returns the error, or fails naming `label` and what it returned. */
export function expectThrows(label: string, call: () => unknown, code: ErrorCode): Failure {
  let value: unknown;
  try {
    value = call();
  } catch (err) {
    expectCode(err as Failure, code, label);
    return err as Failure;
  }
  throw new Error(`expected ${label} to throw ${code}, but it returned ${show(value)}`);
}
