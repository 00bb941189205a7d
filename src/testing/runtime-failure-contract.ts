/**
 * The runtime backend contract, failures and limits: a tool's error inside and outside the
 * snippet, the call budgets, a call left pending in a strict run, thrown and syntax errors with
 * their lines, an unknown language, timeouts, aborts and the output cap — each with its code,
 * the request named, and the partial result.
 */
import { expect, it } from 'vitest';
import { createDirectGateway, type ToolGateway } from '../runtime/index.js';
import { createContractFixture } from './gateway-contract.js';
import { detailOf, expectCode, partial, type RuntimeHarness } from './runtime-checks.js';

/** How long a stopped run is watched for tool calls (twice: calls already on their way may land in the first). */
const QUIET_MS = 300;

/** The contract's gateway, counting the tool calls that reach it. */
function countingGateway(): { gateway: ToolGateway; count: () => number } {
  const inner = createDirectGateway(createContractFixture());
  let calls = 0;
  const gateway: ToolGateway = {
    searchTools: (query, limit, options) => inner.searchTools(query, limit, options),
    listNamespaces: (options) => inner.listNamespaces(options),
    describeTool: (id, level, options) => inner.describeTool(id, level, options),
    listToolExamples: (id, max, options) => inner.listToolExamples(id, max, options),
    runTool: (id, args, options) => {
      calls++;
      return inner.runTool(id, args, options);
    },
    runChain: (steps, options) => {
      calls++;
      return inner.runChain(steps, options);
    },
  };
  return { gateway, count: () => calls };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Registers the contract's tests of failures and limits (inside the suite's `describe`). */
export function failureTests(h: RuntimeHarness): void {
  const { run, fail, timeoutMs, stopWithinMs, stopTestTimeout } = h;

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
    expect(partial(error).backend.kind, "the partial result's h.backend.kind (the kind the backend reports)").toBe(h.backend.kind);
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

  it(
    'a run stopped by its timeout or an abort is stopped for real: no tool call reaches the gateway afterwards',
    { timeout: 2 * (stopTestTimeout + 2 * QUIET_MS) },
    async () => {
      // a backend that only rejects on time and lets the snippet run on would pass the two tests above
      const code = "for (;;) {\n  await tools.runTool('test:echo', {});\n  await new Promise((resolve) => setTimeout(resolve, 5));\n}";
      for (const stop of ['timeout', 'abort'] as const) {
        const { gateway, count } = countingGateway();
        const controller = new AbortController();
        const timer = stop === 'abort' ? setTimeout(() => controller.abort(new Error('stop')), timeoutMs) : undefined;
        const extra = stop === 'timeout' ? { timeoutMs, gateway } : { signal: controller.signal, gateway };
        const error = await fail(code, extra, timeoutMs + stopWithinMs);
        clearTimeout(timer);
        expectCode(error, stop === 'timeout' ? 'TIMEOUT' : 'ABORTED');
        expect(count(), `tool calls before the ${stop}`).toBeGreaterThan(0);
        await sleep(QUIET_MS);
        const settled = count();
        await sleep(QUIET_MS);
        expect(count(), `tool calls ${QUIET_MS}-${2 * QUIET_MS} ms after the ${stop} stopped the run`).toBe(settled);
      }
    },
  );

  it('caps output (RESOURCE_LIMIT)', async () => {
    const error = await fail("for (let i = 0; i < 1000; i++) console.log('x'.repeat(100));", { limits: { maxOutputBytes: 2000 } });
    expectCode(error, 'RESOURCE_LIMIT');
    expect(error.details?.limit, detailOf(error, 'limit')).toBe('output');
    expect(partial(error).stdout.length).toBeLessThanOrEqual(2000);
  });
}
