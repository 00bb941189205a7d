/**
 * The runtime backend contract, what a snippet sees: its value (return, `__out`), console output,
 * the `tools` API (discovery, runs, chains, calls at once), a call left pending, TypeScript, the
 * result's description of the backend and its limits, and runs kept apart.
 */
import { expect, it } from 'vitest';
import { detailOf, expectCode, type RuntimeHarness } from './runtime-checks.js';

/** Registers the contract's tests of what a snippet sees (inside the suite's `describe`). */
export function sandboxSurfaceTests(h: RuntimeHarness): void {
  const { run, fail } = h;

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

  it('describes the backend and the limits it enforced', async () => {
    const memory = h.enforcesMemory ?? false;
    const result = await run('return 1', {
      limits: { maxToolCalls: 5, ...(memory === false ? {} : { memoryBytes: 256 * 1024 * 1024 }) },
    });
    expect(result.backend.kind, 'result.backend.kind (the kind the backend reports)').toBe(h.backend.kind);
    expect(result.backend.readiness, 'result.backend.readiness (the readiness the backend reports)').toBe(h.backend.readiness);
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
}
