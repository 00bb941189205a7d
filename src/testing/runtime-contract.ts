/**
 * The runtime backend contract: a vitest suite every {@link RuntimeBackend} must pass — the sandbox
 * surface (tools, console, return / `__out`, TypeScript: runtime-surface-contract.ts), failures
 * with their codes and partial results, limits, timeouts and aborts (runtime-failure-contract.ts).
 * This file holds the suite itself: the backend's setup, the calls the tests make, and the
 * checks of a request (identity, missing gateway or code, bad limits, the opt-in).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDirectGateway,
  type BackendReadiness,
  type ExecuteRequest,
  type ExecuteResult,
  type RuntimeBackend,
  type RuntimeBackendKind,
  type ToolGateway,
} from '../runtime/index.js';
import { settle, show, type Failure } from './contract-checks.js';
import { executeLabel, expectCode, expectResultShape, labels, type RuntimeHarness } from './runtime-checks.js';
import { createContractFixture } from './gateway-contract.js';
import { sandboxSurfaceTests } from './runtime-surface-contract.js';
import { failureTests } from './runtime-failure-contract.js';

/** What a backend declares about itself to the contract suite. */
export interface RuntimeBackendContractOptions {
  /** The backend's kind. @defaultValue the kind the backend reports (only checked to be non-empty) */
  expectedKind?: RuntimeBackendKind;
  /** The backend's readiness. */
  expectedReadiness?: BackendReadiness;
  /** Merged into every request's metadata (e.g. `{ unsafeOptIn: true }`). */
  metadata?: Record<string, unknown>;
  /**
   * The backend refuses requests without `metadata.unsafeOptIn === true` (checked with BACKEND_DENIED,
   * including for the string `"true"`). @defaultValue false
   */
  requiresOptIn?: boolean;
  /**
   * How the backend caps memory (`limitsEnforced.memory`): `true` only when `limits.memoryBytes`
   * is set, `'always'` on every run (a default cap), `false` never checked. @defaultValue false
   */
  enforcesMemory?: boolean | 'always';
  /** Timeout used by the timeout test. @defaultValue 300 */
  timeoutMs?: number;
  /** Upper bound for a run to stop after its timeout or abort. @defaultValue 5000 */
  stopWithinMs?: number;
}

/**
 * Registers the runtime backend contract for `name`.
 *
 * @param factory Creates the backend (once for the suite; `close()` is called at the end).
 * @remarks `execute` must return a promise (a synchronous throw fails the test as such) and every
 * result it resolves with is checked for the fields of an {@link ExecuteResult}. The timeout and
 * abort tests wait `timeoutMs` + `stopWithinMs` at most, under a vitest timeout 5 s past that;
 * the other tests leave a run unbounded (the vitest timeout applies). Failures name the request.
 */
export function runtimeBackendContract(
  name: string,
  factory: () => RuntimeBackend | Promise<RuntimeBackend>,
  options: RuntimeBackendContractOptions = {},
): void {
  describe(`runtime backend contract: ${name}`, () => {
    let backend: RuntimeBackend;
    const timeoutMs = options.timeoutMs ?? 300;
    const stopWithinMs = options.stopWithinMs ?? 5_000;

    beforeAll(async () => {
      backend = await factory();
    });
    afterAll(async () => {
      await backend?.close?.();
    });

    const gateway = (): ToolGateway => createDirectGateway(createContractFixture());
    const request = (code: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
      code,
      gateway: gateway(),
      ...extra,
      metadata: { ...options.metadata, ...extra.metadata },
    });
    /** Runs `req`, bounded by `withinMs`: a successful run's result, checked, or a failure naming the call. */
    const attempt = async (req: ExecuteRequest, withinMs = Infinity) => {
      const label = executeLabel(req);
      const outcome = await settle(label, () => backend.execute(req), withinMs);
      if (outcome.ok) expectResultShape(outcome.value, label);
      else if (outcome.error !== null && typeof outcome.error === 'object') labels.set(outcome.error, label);
      return { ...outcome, label };
    };
    const run = async (code: string, extra: Partial<ExecuteRequest> = {}): Promise<ExecuteResult> => {
      const outcome = await attempt(request(code, extra));
      if (!outcome.ok) throw new Error(`${outcome.label} rejected: ${show(outcome.error)}`, { cause: outcome.error });
      return outcome.value;
    };
    const failWith = async (req: ExecuteRequest, withinMs?: number): Promise<Failure> => {
      const outcome = await attempt(req, withinMs);
      if (outcome.ok) throw new Error(`expected ${outcome.label} to reject, but it resolved with ${show(outcome.value)}`);
      return outcome.error;
    };
    const fail = (code: string, extra: Partial<ExecuteRequest> = {}, withinMs?: number) => failWith(request(code, extra), withinMs);
    // the tests that time a stop get a vitest timeout past their own bound, so their message shows
    const stopTestTimeout = timeoutMs + stopWithinMs + 5_000;

    it('reports its kind and readiness', () => {
      expect(typeof backend.kind).toBe('string');
      expect(backend.kind).not.toBe('');
      if (options.expectedKind !== undefined) expect(backend.kind).toBe(options.expectedKind);
      expect(['prod', 'beta', 'stub']).toContain(backend.readiness);
      if (options.expectedReadiness !== undefined) expect(backend.readiness).toBe(options.expectedReadiness);
    });

    it('rejects a request without a gateway (MISSING_GATEWAY)', async () => {
      const error = await failWith({ ...request('return 1'), gateway: undefined as unknown as ToolGateway });
      expectCode(error, 'MISSING_GATEWAY');
    });

    it('rejects a request without code (MISSING_CODE)', async () => {
      expectCode(await fail(''), 'MISSING_CODE');
    });

    it('rejects negative limits (INVALID_LIMITS)', async () => {
      const error = await fail('return 1', { limits: { maxToolCalls: -1 } });
      expectCode(error, 'INVALID_LIMITS');
      expect(error.message).toContain('maxToolCalls');
    });

    if (options.requiresOptIn === true) {
      it('requires the boolean opt-in (BACKEND_DENIED)', async () => {
        const plain = { code: 'return 1', gateway: gateway() };
        expectCode(await failWith(plain), 'BACKEND_DENIED');
        expectCode(await failWith({ ...plain, metadata: { unsafeOptIn: 'true' } }), 'BACKEND_DENIED');
        await expect(backend.execute({ ...plain, metadata: { unsafeOptIn: true } })).resolves.toMatchObject({ value: 1 });
      });
    }

    const harness: RuntimeHarness = {
      get backend() {
        return backend;
      },
      run,
      fail,
      timeoutMs,
      stopWithinMs,
      stopTestTimeout,
      enforcesMemory: options.enforcesMemory ?? false,
    };
    sandboxSurfaceTests(harness);
    failureTests(harness);
  });
}
