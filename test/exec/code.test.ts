import { afterAll, describe, expect, it } from 'vitest';
import { codeResultOf } from '../../src/code/index.js';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { type ToolexecError, hasErrorCode } from '../../src/model/index.js';
import { createRuntime, type ExecuteRequest, type RuntimeBackend } from '../../src/runtime/index.js';
import { limitsEnforcedNone } from '../../src/runtime/internal.js';
import { localTools, rejection } from './helpers.js';

const { tools } = localTools();
const exec: DefaultExec = createExec({ tools });
afterAll(() => exec.close());

describe('executeCode through createExec, on the default WASM sandbox', () => {
  it('runs a snippet that searches for tools, describes one and calls it', async () => {
    const result = await exec.executeCode({
      code: `
        const hits = await tools.searchTools('greet someone', 5);
        const doc = await tools.describeTool(hits[0].id, 'full');
        const examples = await tools.listToolExamples(hits[0].id, 1);
        const r = await tools.runTool(hits[0].id, examples[0].args);
        console.log(doc.summary, '->', r.structured.greeting);
        return { id: hits[0].id, greeting: r.structured.greeting, namespaces: await tools.listNamespaces() };`,
    });
    expect(result.value).toEqual({ id: 'test:greet', greeting: 'Hello, World!', namespaces: ['math', 'test'] });
    expect(result.stdout).toBe('Says hello -> Hello, World!\n');
    expect(result.backend?.kind).toBe('wasm');
    expect(result.toolCalls).toHaveLength(1);
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('runs tool calls concurrently with Promise.all and traces each one', async () => {
    const result = await exec.executeCode({
      code: `
        const sums = await Promise.all(Array.from({ length: 12 }, (_, i) => tools.runTool('math:add', { a: i, b: i })));
        return sums.map((r) => r.structured);`,
    });
    expect(result.value).toEqual(Array.from({ length: 12 }, (_, i) => 2 * i));
    expect(result.toolCalls).toHaveLength(12);
    expect(result.toolCalls.map((c) => c.structured).sort((a, b) => (a as number) - (b as number))).toEqual(result.value);
  });

  it('runs chains from a snippet', async () => {
    const result = await exec.executeCode({
      code: `
        const out = await tools.runChain([{ toolId: 'math:add', args: { a: 3, b: 4 } }, { toolId: 'math:double', usePrevious: true }]);
        return out.result.structured;`,
    });
    expect(result.value).toBe(14);
    expect(result.toolCalls.map((c) => [c.toolId, c.args])).toEqual([
      ['math:add', { a: 3, b: 4 }],
      ['math:double', { previous: 7 }],
    ]);
  });

  it('allows 100 tool calls by default and fails the 101st with LIMIT_EXCEEDED', async () => {
    const ok = await exec.executeCode({
      code: 'for (let i = 0; i < 100; i++) await tools.runTool("math:add", { a: i, b: 1 }); return "all 100";',
    });
    expect(ok.value).toBe('all 100');
    expect(ok.toolCalls).toHaveLength(100);
    const error = await rejection(
      exec.executeCode({ code: 'for (let i = 0; i < 101; i++) await tools.runTool("math:add", { a: i, b: 1 });' }),
    );
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toContain('max 100 tool calls exceeded');
    expect(codeResultOf(error)?.toolCalls).toHaveLength(100);
  });

  it('lets a call ask for fewer tool calls, never more than the facade allows', async () => {
    const error = await rejection(
      exec.executeCode({ code: 'for (let i = 0; i < 3; i++) await tools.runTool("math:add", { a: i, b: 1 });', maxToolCalls: 2 }),
    );
    expect(error.code).toBe('LIMIT_EXCEEDED');
    const small = createExec({ tools, maxToolCalls: 1 });
    try {
      const capped = await rejection(
        small.executeCode({
          code: 'await tools.runTool("math:add", { a: 1, b: 1 }); await tools.runTool("math:add", { a: 1, b: 1 });',
          maxToolCalls: 50,
        }),
      );
      expect(capped.code).toBe('LIMIT_EXCEEDED');
    } finally {
      await small.close();
    }
  });

  it('times out with LIMIT_EXCEEDED whose cause is the TIMEOUT, keeping the output so far', async () => {
    const error = await rejection(exec.executeCode({ code: 'console.log("working"); while (true) {}', timeoutMs: 150 }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect((error.cause as ToolexecError).code).toBe('TIMEOUT');
    expect(codeResultOf(error)?.stdout).toBe('working\n');
  });

  it('applies defaultTimeoutMs to snippets that set none', async () => {
    const quick = createExec({ tools, defaultTimeoutMs: 120 });
    try {
      const started = performance.now();
      const error = await rejection(quick.executeCode({ code: 'while (true) {}' }));
      expect(error.code).toBe('LIMIT_EXCEEDED');
      expect(hasErrorCode(error, 'TIMEOUT')).toBe(true);
      expect(performance.now() - started).toBeLessThan(3_000);
    } finally {
      await quick.close();
    }
  });

  it("reports a failing tool call that the snippet does not catch with the tool's code", async () => {
    const error = await rejection(exec.executeCode({ code: 'await tools.runTool("test:fail", {});' }));
    expect(error.code).toBe('EXECUTION');
    expect(codeResultOf(error)?.toolCalls).toMatchObject([{ toolId: 'test:fail', errorOp: 'run' }]);
    const invalid = await rejection(exec.executeCode({ code: 'await tools.runTool("math:add", { a: "x", b: 1 });' }));
    expect(invalid.code).toBe('VALIDATION');
  });
});

describe('executeCode security profiles', () => {
  /** A backend (a user-injected interface, e.g. a Docker backend's place) that records the requests it gets. */
  function recordingBackend(): RuntimeBackend & { requests: ExecuteRequest[] } {
    const requests: ExecuteRequest[] = [];
    return {
      kind: 'docker',
      readiness: 'prod',
      requests,
      async execute(request) {
        requests.push(request);
        return {
          value: 'ran in docker',
          stdout: '',
          stderr: '',
          toolCalls: [],
          durationMs: 1,
          backend: { kind: 'docker', readiness: 'prod' },
          limitsEnforced: limitsEnforcedNone(),
        };
      },
    };
  }

  it('never runs on the host unless dev is named: standard is the sandbox, dev gets the opt-in', async () => {
    const sandboxed = await exec.executeCode({ code: 'return typeof process' });
    expect(sandboxed.backend?.kind).toBe('wasm');
    expect(sandboxed.value).toBe('undefined');
    const onHost = await exec.executeCode({ code: 'return typeof process', profile: 'dev' });
    expect(onHost.backend?.kind).toBe('unsafe_host');
    expect(onHost.value).toBe('object');
  });

  it('respects an explicit unsafeOptIn: false for dev', async () => {
    const error = await rejection(exec.executeCode({ code: 'return 1', profile: 'dev', metadata: { unsafeOptIn: false } }));
    expect(error.code).toBe('BACKEND_DENIED');
  });

  it('uses a runtime the caller registers (e.g. Docker for standard) and does not close it', async () => {
    const backend = recordingBackend();
    const runtime = createRuntime({ backends: { standard: backend } });
    const e = createExec({ tools, runtime, securityProfile: 'standard', maxToolCalls: 7 });
    const result = await e.executeCode({ code: 'return 1' });
    expect(result.value).toBe('ran in docker');
    expect(backend.requests[0]).toMatchObject({
      profile: 'standard',
      timeoutMs: 30_000,
      limits: { maxToolCalls: 7 },
    });
    // A call naming no language names none to the runtime: JavaScript, TypeScript syntax stripped.
    expect(backend.requests[0]?.language).toBeUndefined();
    await e.close();
    expect((await runtime.execute({ code: 'return 2', gateway: backend.requests[0]!.gateway })).value).toBe('ran in docker');
    await runtime.close();
  });

  it('close() stops a snippet running on a runtime the caller registered: no tool call after close, RUNTIME_UNAVAILABLE', async () => {
    const runtime = createRuntime();
    let calls = 0;
    const counted = createExec({
      runtime,
      tools: [
        {
          tool: { namespace: 'bank', name: 'transfer', inputSchema: { type: 'object' } },
          handler: () => ++calls,
        },
      ],
    });
    try {
      const run = rejection(
        counted.executeCode({ code: 'for (;;) { await tools.runTool("bank:transfer", {}); await new Promise((r) => setTimeout(r, 5)); }' }),
      );
      while (calls < 3) await new Promise((resolve) => setTimeout(resolve, 5));
      const closedAt = performance.now();
      await counted.close();
      const afterClose = calls;
      const error = await run;
      expect(error.code).toBe('RUNTIME_UNAVAILABLE');
      expect(error.message).toContain('closed during the run');
      expect(performance.now() - closedAt).toBeLessThan(2_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(calls).toBe(afterClose);
      // the caller's runtime stays open for its other users
      const other = createExec({ runtime, tools });
      expect((await other.executeCode({ code: 'return 2' })).value).toBe(2);
      await other.close();
    } finally {
      await runtime.close();
    }
  });

  it('runs every snippet on dev when the facade is configured with it by name', async () => {
    const e = createExec({ tools, securityProfile: 'dev' });
    try {
      const result = await e.executeCode({ code: 'return (await tools.runTool("math:add", { a: 20, b: 22 })).structured' });
      expect(result.backend?.kind).toBe('unsafe_host');
      expect(result.value).toBe(42);
    } finally {
      await e.close();
    }
  });
});
