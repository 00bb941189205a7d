/**
 * The checks of the runtime backend contract: every result's shape, failures named by the request
 * that caused them, partial results.
 */
import { expect } from 'vitest';
import type { ErrorCode } from '../model/index.js';
import type { ExecuteRequest, ExecuteResult, RuntimeBackend } from '../runtime/index.js';
import { expectCode as expectCodeOf, show, type Failure } from './contract-checks.js';

/**
 * What the runtime backend contract's groups of tests share (runtime-contract.ts makes it): the
 * backend under test, the calls that run a snippet on it (checked and named), and its bounds.
 */
export interface RuntimeHarness {
  /** The backend under test; made before the first test, so read it inside a test. */
  readonly backend: RuntimeBackend;
  /** Runs `code` and returns its result, checked; fails naming the request when it rejects. */
  readonly run: (code: string, extra?: Partial<ExecuteRequest>) => Promise<ExecuteResult>;
  /** Runs `code` expecting it to reject within `withinMs` (unbounded by default); returns the error. */
  readonly fail: (code: string, extra?: Partial<ExecuteRequest>, withinMs?: number) => Promise<Failure>;
  /** `timeoutMs` of the timeout test. */
  readonly timeoutMs: number;
  /** Upper bound for a run to stop after its timeout or abort. */
  readonly stopWithinMs: number;
  /** The vitest timeout of the tests that time a stop: past their own bound, so their message shows. */
  readonly stopTestTimeout: number;
  /** How the backend caps memory (`RuntimeBackendContractOptions.enforcesMemory`). */
  readonly enforcesMemory: boolean | 'always';
}

/** What each failure came from, for the failure messages. */
export const labels = new WeakMap<object, string>();

/** Checks that `error` carries `code`, naming the request it came from. */
export function expectCode(error: Failure, code: ErrorCode): void {
  expectCodeOf(error, code, labelOf(error));
}

/** `backend.execute({ code, … })` for a failure message: the code and the request's other fields. */
export function executeLabel(request: Partial<ExecuteRequest>): string {
  const extra = Object.keys(request).filter(
    (key) => !['code', 'gateway', 'metadata'].includes(key) && request[key as keyof ExecuteRequest] !== undefined,
  );
  const fields = [`code: ${show(request.code)}`, ...extra.map((key) => `${key}: ${show(request[key as keyof ExecuteRequest])}`)];
  return `backend.execute({ ${fields.join(', ')} })`;
}

/** Checks the fields every {@link ExecuteResult} has, naming the one missing. */
export function expectResultShape(result: ExecuteResult, label: string): void {
  const fields = result as unknown as Record<string, unknown> | undefined;
  expect(typeof fields, `${label} must resolve with an ExecuteResult object, got ${show(result)}`).toBe('object');
  const wrong = (key: string, what: string) => `${label} resolved with ${key} = ${show(fields?.[key])}: must be ${what}`;
  expect(typeof fields?.stdout, wrong('stdout', 'a string')).toBe('string');
  expect(typeof fields?.stderr, wrong('stderr', 'a string')).toBe('string');
  expect(Array.isArray(fields?.toolCalls), wrong('toolCalls', 'an array (of the tool calls made)')).toBe(true);
  expect(typeof fields?.limitsEnforced, wrong('limitsEnforced', 'an object')).toBe('object');
  expect(typeof fields?.backend, wrong('backend', 'an object ({ kind, readiness })')).toBe('object');
  expect(['function', 'symbol', 'bigint'], wrong('value', 'a JSON value')).not.toContain(typeof fields?.value);
}

/** The partial result a failed run carries in `details.result`; fails naming the run when it has none. */
export function partial(error: Failure): ExecuteResult {
  const result = error.details?.result as ExecuteResult | undefined;
  expect(result, `a failed run carries its partial result in details.result: ${labelOf(error)} rejected with ${show(error)}`).toBeDefined();
  return result as ExecuteResult;
}

/** What `error` came from. */
function labelOf(error: Failure): string {
  return (error !== null && typeof error === 'object' ? labels.get(error) : undefined) ?? 'the run';
}

/** The message of a check on `details[key]` of `error`. */
export function detailOf(error: Failure, key: string): string {
  return `details.${key} of the error ${labelOf(error)} rejected with (${show(error)})`;
}
