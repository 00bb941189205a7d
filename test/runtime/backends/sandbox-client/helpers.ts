import { expect } from 'vitest';
import { hasErrorCode, type ErrorCode } from '../../../../src/model/index.js';
import { createDirectGateway, type ExecuteRequest, type ExecuteResult, type ToolGateway } from '../../../../src/runtime/index.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';

/** A failed run as the tests see it. */
export type Failure = Error & { code?: string; cause?: unknown; details?: Record<string, unknown> & { result?: ExecuteResult } };

/** A fresh direct gateway over the contract's tools. */
export function gateway(): ToolGateway {
  return createDirectGateway(createContractFixture());
}

/** A request for `code` with a fresh gateway. */
export function request(code: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest {
  return { code, gateway: gateway(), ...extra };
}

/** The rejection of `promise` (fails the test when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected the run to fail, but it succeeded');
}

/** Asserts the library code of `error` (own code and `hasErrorCode`). */
export function expectCode(error: Failure, code: ErrorCode): void {
  expect(error.code, `expected ${code}, got ${String(error.code)}: ${error.message}`).toBe(code);
  expect(hasErrorCode(error, code)).toBe(true);
}

/** A health checker that fails (or succeeds) and counts its calls. */
export function healthChecker(error?: Error): { ping: () => Promise<void>; readonly calls: number } {
  let calls = 0;
  return {
    async ping() {
      calls += 1;
      if (error !== undefined) throw error;
    },
    get calls() {
      return calls;
    },
  };
}
