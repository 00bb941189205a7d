/**
 * The runtime backend contract: a vitest suite every {@link RuntimeBackend} must pass — the sandbox
 * surface (tools, console, return / `__out`, TypeScript), failures with their codes and partial
 * results, limits, timeouts and aborts.
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
import { detailOf, executeLabel, expectCode, expectResultShape, labels, partial } from './runtime-checks.js';
import { createContractFixture } from './gateway-contract.js';

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

    it('returns the top-level return value', async () => {
      const result = await run("return 'hello'");
      expect(result.value).toBe('hello');
    });

    it('returns the value assigned to __out', async () => {
      const result = await run("__out = 'hello'");
      expect(result.value).toBe('hello');
    });

    it('prefers return over __out', async () => {
      const result = await run("__out = 'out'; return 'returned'");
      expect(result.value).toBe('returned');
    });

    it('gives no value when the snippet produces none', async () => {
      const result = await run('const x = 1;');
      expect(result.value).toBeUndefined();
    });

    it('returns JSON values intact', async () => {
      const result = await run("return { list: [1, 'two', null, true], nested: { n: 1.5 } }");
      expect(result.value).toEqual({ list: [1, 'two', null, true], nested: { n: 1.5 } });
    });

    it('supports top-level await', async () => {
      const result = await run('const v = await Promise.resolve(41);\nreturn v + 1;');
      expect(result.value).toBe(42);
    });

    it('captures console output', async () => {
      const result = await run(
        "console.log('out', 1, { a: 1 }); console.info('info'); console.debug('debug');\nconsole.error('err'); console.warn('warn');",
      );
      expect(result.stdout).toBe('out 1 {"a":1}\ninfo\ndebug\n');
      expect(result.stderr).toBe('err\nwarn\n');
    });

    it('reaches searchTools, listNamespaces, describeTool and listToolExamples', async () => {
      const result = await run(
        [
          "const found = await tools.searchTools('add', 5);",
          'const namespaces = await tools.listNamespaces();',
          "const doc = await tools.describeTool('test:add', 'schema');",
          "const examples = await tools.listToolExamples('test:add', 1);",
          'return { first: found[0].id, namespaces, summary: doc.summary, required: doc.schemaInfo.required, examples: examples.length };',
        ].join('\n'),
      );
      expect(result.value).toEqual({ first: 'test:add', namespaces: ['test'], summary: 'Adds a and b', required: ['a', 'b'], examples: 1 });
    });

    it('runs tools and records each call', async () => {
      const result = await run("const r = await tools.runTool('test:add', { a: 2, b: 3 });\nreturn r;");
      expect(result.value).toMatchObject({ structured: 5, tool: { name: 'add' }, backend: { kind: 'local' } });
      expect(result.toolCalls).toHaveLength(1);
      expect(result.toolCalls[0]).toMatchObject({ toolId: 'test:add', args: { a: 2, b: 3 }, structured: 5, backendKind: 'local' });
      expect(result.toolCalls[0]?.durationMs).toBeGreaterThanOrEqual(0);
    });

    it("gives a run's results of one tool the same definition, read-only", async () => {
      const result = await run(
        [
          "const a = await tools.runTool('test:add', { a: 1, b: 2 });",
          "const b = await tools.runTool('test:add', { a: 3, b: 4 });",
          "try { b.tool.name = 'changed'; b.tool.inputSchema.required.push('c'); } catch {}",
          // calls sent together before any definition of the tool is held share one too
          "const burst = await Promise.all([1, 2, 3, 4].map((value) => tools.runTool('test:double', { value })));",
          "const [c, d] = await Promise.all([tools.runTool('test:add', { a: 5, b: 6 }), tools.runTool('test:double', { value: 4 })]);",
          'const together = burst.every((r) => r.tool === d.tool && r.backend === d.backend && Object.isFrozen(r.tool));',
          'return { results: [a, b, c, d], same: a.tool === c.tool && a.backend === c.backend && together, keys: Object.keys(c) };',
        ].join('\n'),
      );
      const { results, same, keys } = result.value as { results: { tool: unknown; structured: unknown }[]; same: boolean; keys: string[] };
      const add = { name: 'add', namespace: 'test', inputSchema: { required: ['a', 'b'] } };
      expect(results.map((r) => r.structured)).toEqual([3, 7, 11, 8]);
      for (const r of results.slice(0, 3)) expect(r).toMatchObject({ tool: add, backend: { kind: 'local' } });
      expect(results[3]).toMatchObject({ tool: { name: 'double' } });
      // one definition shared, frozen (the mutations above changed nothing), the fields in their order
      expect(same).toBe(true);
      expect(keys).toEqual(Object.keys(results[0] as object));
      expect(result.toolCalls).toHaveLength(8);
    });

    it('runs chains and records every step with its effective arguments', async () => {
      const result = await run(
        "return await tools.runChain([{ toolId: 'test:add', args: { a: 1, b: 2 } }, { toolId: 'test:double', usePrevious: true }]);",
      );
      const chain = result.value as { result: { structured: unknown }; steps: unknown[] };
      expect(chain.result.structured).toBe(6);
      expect(chain.steps).toHaveLength(2);
      expect(result.toolCalls.map((call) => call.toolId)).toEqual(['test:add', 'test:double']);
      expect(result.toolCalls[1]?.args).toEqual({ previous: 3 });
    });

    it('makes concurrent tool calls from one snippet', async () => {
      const result = await run(
        "const rs = await Promise.all([1, 2, 3, 4, 5].map((a) => tools.runTool('test:add', { a, b: 10 })));\nreturn rs.map((r) => r.structured);",
      );
      expect(result.value).toEqual([11, 12, 13, 14, 15]);
      expect(result.toolCalls).toHaveLength(5);
    });

    it('surfaces a tool error inside the snippet with its code', async () => {
      const result = await run(
        "try {\n  await tools.runTool('test:missing', {});\n  return 'no error';\n} catch (err) {\n  return { isError: err instanceof Error, code: err.code, message: err.message };\n}",
      );
      expect(result.value).toMatchObject({ isError: true, code: 'TOOL_NOT_FOUND' });
      expect(result.toolCalls[0]).toMatchObject({ toolId: 'test:missing', errorCode: 'TOOL_NOT_FOUND', errorOp: 'run' });
    });

    it('fails the run with the code of an uncaught tool error', async () => {
      const error = await fail("console.log('before');\nawait tools.runTool('test:fail', {});");
      expectCode(error, 'EXECUTION');
      expect(error.message).toContain('tool failed on purpose');
      const result = partial(error);
      expect(result.stdout).toBe('before\n');
      expect(result.toolCalls).toHaveLength(1);
    });

    it('enforces maxToolCalls (LIMIT_EXCEEDED)', async () => {
      const code = "for (let i = 0; i < 3; i++) await tools.runTool('test:add', { a: i, b: 1 });\nreturn 'done';";
      const error = await fail(code, { limits: { maxToolCalls: 2 } });
      expectCode(error, 'LIMIT_EXCEEDED');
      expect(partial(error).toolCalls).toHaveLength(2);
    });

    it('enforces maxChainSteps (LIMIT_EXCEEDED)', async () => {
      const code =
        "return await tools.runChain([{ toolId: 'test:add', args: { a: 1, b: 2 } }, { toolId: 'test:double', usePrevious: true }]);";
      expectCode(await fail(code, { limits: { maxChainSteps: 1 } }), 'LIMIT_EXCEEDED');
    });

    it('fails the run with a budget error the snippet caught (LIMIT_EXCEEDED)', async () => {
      const code =
        "const seen = [];\nfor (let i = 0; i < 3; i++) {\n  try { await tools.runTool('test:add', { a: i, b: 1 }); } catch (err) { seen.push(err.code); }\n}\nconsole.log('caught', seen.join());\nreturn 'swallowed';";
      const error = await fail(code, { limits: { maxToolCalls: 2 } });
      expectCode(error, 'LIMIT_EXCEEDED');
      expect(error.details?.limit, detailOf(error, 'limit')).toBe('maxToolCalls');
      const result = partial(error);
      expect(result.toolCalls).toHaveLength(2);
      expect(result.stdout).toBe('caught LIMIT_EXCEEDED\n');
      const chain =
        "try {\n  await tools.runChain([{ toolId: 'test:add', args: { a: 1, b: 2 } }, { toolId: 'test:double', usePrevious: true }]);\n} catch {}\nreturn 'swallowed';";
      const chainError = await fail(chain, { limits: { maxChainSteps: 1 } });
      expectCode(chainError, 'LIMIT_EXCEEDED');
      expect(chainError.details?.limit, detailOf(chainError, 'limit')).toBe('maxChainSteps');
    });

    it('warns about a tool call still pending when the snippet returned (a missing await)', async () => {
      const code = "const r = tools.runTool('test:slow', { ms: 100 });\nreturn r.structured;";
      const result = await run(code);
      expect(result.value).toBeUndefined();
      expect(result.warnings).toEqual([
        {
          code: 'PENDING_TOOL_CALL',
          message: "tools.runTool('test:slow') was still pending when the snippet returned: a missing await?",
          method: 'runTool',
          toolId: 'test:slow',
        },
      ]);
      const awaited = await run("const r = await tools.runTool('test:add', { a: 1, b: 2 });\nreturn r.structured;");
      expect(awaited.value).toBe(3);
      expect(awaited.warnings).toBeUndefined();
    });

    it('fails a strict run with a tool call still pending (CODE_EXECUTION naming the call)', async () => {
      const code = "console.log('before');\ntools.runTool('test:slow', { ms: 100 });\ntools.searchTools('add');\nreturn 1;";
      const error = await fail(code, { strict: true });
      expectCode(error, 'CODE_EXECUTION');
      expect(error.message).toBe(
        "code execution error: tools.runTool('test:slow') was still pending when the snippet returned: a missing await? (and 1 more pending call)",
      );
      expect(error.details?.pendingCalls, detailOf(error, 'pendingCalls')).toEqual([
        { method: 'runTool', toolId: 'test:slow' },
        { method: 'searchTools' },
      ]);
      const result = partial(error);
      expect(result.value).toBe(1);
      expect(result.stdout).toBe('before\n');
      expect(result.warnings).toHaveLength(2);
      expect((await run('return 2;', { strict: true })).value).toBe(2);
    });

    it('reports a thrown error as CODE_EXECUTION with its line', async () => {
      const error = await fail("const a = 1;\nconst b = 2;\nthrow new Error('boom on three');");
      expectCode(error, 'CODE_EXECUTION');
      expect(error.message).toContain('boom on three');
      expect(error.details?.line, detailOf(error, 'line')).toBe(3);
      expect(partial(error).backend.kind, "the partial result's backend.kind (the kind the backend reports)").toBe(backend.kind);
    });

    it('tells a snippet that reads a name tools does not have how to call a tool', async () => {
      const error = await fail('const r = await tools.math.add({ a: 1, b: 2 });\nreturn r;');
      expectCode(error, 'CODE_EXECUTION');
      expect(error.message).toContain('tools has no "math": call a tool by its ID, e.g. await tools.runTool("math:<tool>", args)');
      expect(error.details?.line, detailOf(error, 'line')).toBe(1);
      // a method misnamed gets the methods it starts
      const misnamed = await fail("return await tools.run_tool('math:add', { a: 1, b: 2 });");
      expect(misnamed.message).toContain('tools has no "run_tool": did you mean tools.runTool?');
      const run2 = await fail("return await tools.run('math:add', { a: 1, b: 2 });");
      expect(run2.message).toContain('did you mean tools.runTool or tools.runChain?');
      // what probes an object reads as usual
      const probed = await run(
        'return [typeof tools.then, typeof tools.toJSON, JSON.stringify(tools), Object.keys(tools).length, typeof tools.runTool];',
      );
      expect(probed.value).toEqual(['undefined', 'undefined', '{}', 6, 'function']);
    });

    it('reports a syntax error as CODE_EXECUTION with its line', async () => {
      const error = await fail('const a = 1;\nconst = ;\n');
      expectCode(error, 'CODE_EXECUTION');
      expect(error.details?.line, detailOf(error, 'line')).toBe(2);
    });

    it('runs TypeScript, keeping line numbers', async () => {
      const result = await run('const n: number = 40;\ninterface X { a: number }\nreturn n + 2;', { language: 'typescript' });
      expect(result.value).toBe(42);
      const error = await fail("type T = string;\nconst s: T = 'x';\nthrow new Error(s);", { language: 'ts' });
      expectCode(error, 'CODE_EXECUTION');
      expect(error.details?.line, detailOf(error, 'line')).toBe(3);
    });

    it('runs TypeScript without the language named, keeping line numbers', async () => {
      const code =
        "interface Sum { total: number }\nconst r = (await tools.runTool('test:add', { a: 1, b: 2 })) as { structured: number };\nconst s: Sum = { total: r.structured };\nreturn s.total;";
      expect((await run(code)).value).toBe(3);
      const error = await fail("type T = string;\nconst s: T = 'x';\nthrow new Error(s as T);");
      expectCode(error, 'CODE_EXECUTION');
      expect(error.details?.line, detailOf(error, 'line')).toBe(3);
      const syntax = await fail('const a: number = 1;\nconst = ;\n');
      expectCode(syntax, 'CODE_EXECUTION');
      expect(syntax.details?.line, detailOf(syntax, 'line')).toBe(2);
    });

    it('rejects other languages (RUNTIME_UNAVAILABLE)', async () => {
      // a language no backend runs (python is one some backends declare in `languages`)
      const error = await fail('puts 1', { language: 'ruby' });
      expectCode(error, 'RUNTIME_UNAVAILABLE');
      expect(error.message).toContain('ruby');
    });

    it('stops an endless loop at timeoutMs (TIMEOUT)', { timeout: stopTestTimeout }, async () => {
      const started = performance.now();
      const error = await fail('while (true) {}', { timeoutMs }, timeoutMs + stopWithinMs);
      expectCode(error, 'TIMEOUT');
      expect(performance.now() - started).toBeLessThan(timeoutMs + stopWithinMs);
      expect(partial(error).limitsEnforced.timeout, 'limitsEnforced.timeout of the partial result').toBe(true);
    });

    it('stops when the signal aborts (ABORTED)', { timeout: stopTestTimeout }, async () => {
      const controller = new AbortController();
      const started = performance.now();
      setTimeout(() => controller.abort(new Error('stop')), 150);
      const code = "console.log('started');\nawait new Promise((resolve) => setTimeout(resolve, 20000));";
      const error = await fail(code, { signal: controller.signal }, 150 + stopWithinMs);
      expectCode(error, 'ABORTED');
      expect(performance.now() - started).toBeLessThan(150 + stopWithinMs);
      const before = new AbortController();
      before.abort();
      expectCode(await fail('return 1', { signal: before.signal }, stopWithinMs), 'ABORTED');
    });

    it('caps output (RESOURCE_LIMIT)', async () => {
      const error = await fail("for (let i = 0; i < 1000; i++) console.log('x'.repeat(100));", { limits: { maxOutputBytes: 2000 } });
      expectCode(error, 'RESOURCE_LIMIT');
      expect(error.details?.limit, detailOf(error, 'limit')).toBe('output');
      expect(partial(error).stdout.length).toBeLessThanOrEqual(2000);
    });

    it('describes the backend and the limits it enforced', async () => {
      const memory = options.enforcesMemory ?? false;
      const result = await run('return 1', {
        limits: { maxToolCalls: 5, ...(memory === false ? {} : { memoryBytes: 256 * 1024 * 1024 }) },
      });
      expect(result.backend.kind, 'result.backend.kind (the kind the backend reports)').toBe(backend.kind);
      expect(result.backend.readiness, 'result.backend.readiness (the readiness the backend reports)').toBe(backend.readiness);
      expect(result.durationMs).toBeGreaterThan(0);
      const keys = ['timeout', 'toolCalls', 'chainSteps', 'memory', 'cpu', 'pids', 'disk'];
      expect(Object.keys(result.limitsEnforced).sort()).toEqual([...keys].sort());
      for (const key of keys) expect(typeof (result.limitsEnforced as unknown as Record<string, unknown>)[key]).toBe('boolean');
      expect(result.limitsEnforced).toMatchObject({ timeout: true, toolCalls: true, chainSteps: true });
      if (memory !== false) expect(result.limitsEnforced.memory).toBe(true);
      const unlimited = await run('return 1');
      if (memory !== false) expect(unlimited.limitsEnforced.memory).toBe(memory === 'always');
    });

    it('keeps concurrent runs apart', async () => {
      const ids = [1, 2, 3, 4];
      const results = await Promise.all(
        ids.map((id) =>
          run(`console.log('run ${id}');\nconst r = await tools.runTool('test:echo', { id: ${id} });\nreturn r.structured.id;`),
        ),
      );
      results.forEach((result, i) => {
        expect(result.value).toBe(ids[i]);
        expect(result.stdout).toBe(`run ${ids[i]}\n`);
        expect(result.toolCalls).toHaveLength(1);
        expect(result.toolCalls[0]?.args).toEqual({ id: ids[i] });
      });
    });
  });
}
