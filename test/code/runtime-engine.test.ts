import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_ENGINE_PROFILE,
  codeResultOf,
  createCodeExecutor,
  createRuntimeEngine,
  createToolsEnvironment,
  mapRuntimeError,
  type CodeEngineParams,
} from '../../src/code/index.js';
import { ToolexecError, hasErrorCode, toErrorShape } from '../../src/model/index.js';
import { ToolError } from '../../src/run/index.js';
import { createRuntime, type ExecuteRequest, type ExecuteResult, type Runtime, type RuntimeBackend } from '../../src/runtime/index.js';
import { limitsEnforcedNone, runtimeError } from '../../src/runtime/internal.js';
import { fixture, rejection } from './helpers.js';

const okResult = (extra: Partial<ExecuteResult> = {}): ExecuteResult => ({
  stdout: '',
  stderr: '',
  toolCalls: [],
  durationMs: 1,
  backend: { kind: 'wasm', readiness: 'prod' },
  limitsEnforced: limitsEnforcedNone(),
  ...extra,
});

/** A runtime (a user-injected interface) that records requests and answers with `answer`. */
function capturingRuntime(answer: (request: ExecuteRequest) => Promise<ExecuteResult>) {
  const requests: ExecuteRequest[] = [];
  const runtime: Runtime & { requests: ExecuteRequest[] } = {
    requests,
    execute: (request) => {
      requests.push(request);
      return answer(request);
    },
  };
  return runtime;
}

function params(extra: Partial<CodeEngineParams> = {}): CodeEngineParams {
  return {
    code: 'test code',
    language: 'javascript',
    timeoutMs: 5_000,
    maxToolCalls: 20,
    maxChainSteps: 0,
    signal: new AbortController().signal,
    ...extra,
  };
}

describe('runtime engine: construction and request mapping (cases 257, 258, 260, 262)', () => {
  it('needs a runtime (RUNTIME_UNAVAILABLE) and defaults the profile to standard (257)', () => {
    expect(() => createRuntimeEngine({} as never)).toThrow(expect.objectContaining({ code: 'RUNTIME_UNAVAILABLE' }));
    expect(createRuntimeEngine({ runtime: capturingRuntime(async () => okResult()) }).profile).toBe('standard');
    expect(DEFAULT_ENGINE_PROFILE).toBe('standard');
    expect(() => createRuntimeEngine({ runtime: capturingRuntime(async () => okResult()), profile: 'root' as 'dev' })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION' }),
    );
  });

  it('maps params to the request: language, code, timeout, both limits, profile, metadata, signal, gateway (258)', async () => {
    const runtime = capturingRuntime(async () => okResult());
    const f = fixture();
    const tools = createToolsEnvironment({ index: f.index, docs: f.docs, runner: f.runner });
    const p = params({ maxChainSteps: 3, metadata: { trace: 'on' } });
    await createRuntimeEngine({ runtime }).execute(p, tools);
    expect(runtime.requests[0]).toEqual({
      language: 'javascript',
      code: 'test code',
      timeoutMs: 5_000,
      limits: { maxToolCalls: 20, maxChainSteps: 3 },
      profile: 'standard',
      gateway: tools,
      metadata: { trace: 'on' },
      signal: p.signal,
    });
    await createRuntimeEngine({ runtime, profile: 'hardened' }).execute(params(), tools);
    await createRuntimeEngine({ runtime, profile: 'hardened' }).execute(params({ profile: 'dev' }), tools);
    expect(runtime.requests.map((r) => r.profile)).toEqual(['standard', 'hardened', 'dev']);
  });

  it('maps the result back: value, stdout, stderr, backend, limits (260)', async () => {
    const runtime = capturingRuntime(async () => okResult({ value: 'result', stdout: 'output', stderr: 'err' }));
    const f = fixture();
    const out = await createRuntimeEngine({ runtime }).execute(
      params(),
      createToolsEnvironment({ index: f.index, docs: f.docs, runner: f.runner }),
    );
    expect(out).toEqual({
      value: 'result',
      stdout: 'output',
      stderr: 'err',
      backend: { kind: 'wasm', readiness: 'prod' },
      limitsEnforced: limitsEnforcedNone(),
    });
  });

  it("hands a backend a gateway that reaches the execution's tools environment (262)", async () => {
    const seen: unknown[] = [];
    const backend: RuntimeBackend = {
      kind: 'wasm',
      readiness: 'prod',
      async execute(request) {
        seen.push(await request.gateway.searchTools('add', 5), await request.gateway.listNamespaces());
        await request.gateway.runTool('math:add', { a: 2, b: 3 });
        return okResult({ value: 'done' });
      },
    };
    const f = fixture();
    const code = createCodeExecutor({
      index: f.index,
      docs: f.docs,
      runner: f.runner,
      runtime: createRuntime({ backends: { standard: backend } }),
    });
    const result = await code.executeCode({ code: 'anything' });
    expect((seen[0] as { id: string }[])[0]?.id).toBe('math:add');
    expect(seen[1]).toEqual(['demo', 'math']);
    expect(result.value).toBe('done');
    expect(result.toolCalls).toMatchObject([{ toolId: 'math:add', structured: 5 }]);
  });
});

describe('runtime engine: error mapping (case 259)', () => {
  const partial = okResult({ stdout: 'partial out', stderr: 'partial err' });

  it.each([
    ['TIMEOUT', 'LIMIT_EXCEEDED'],
    ['RESOURCE_LIMIT', 'LIMIT_EXCEEDED'],
    ['SANDBOX_VIOLATION', 'CODE_EXECUTION'],
    ['MISSING_CODE', 'MISSING_CODE'],
    ['RUNTIME_UNAVAILABLE', 'RUNTIME_UNAVAILABLE'],
    ['ABORTED', 'ABORTED'],
  ] as const)('maps %s to %s, keeping the original as cause and the partial result', async (from, to) => {
    const original = runtimeError(from, `${from} happened`, { result: partial, details: { limit: 'memory' } });
    const runtime = capturingRuntime(async () => Promise.reject(original));
    const f = fixture();
    const error = await rejection(
      createRuntimeEngine({ runtime }).execute(params(), createToolsEnvironment({ index: f.index, docs: f.docs, runner: f.runner })),
    );
    expect(error.code).toBe(to);
    expect(hasErrorCode(error, from)).toBe(true);
    if (from !== to) expect(error.cause).toBe(original);
    expect(error.details?.result).toMatchObject({ stdout: 'partial out', stderr: 'partial err' });
  });

  it("leaves a TIMEOUT that a tool call reported alone (the tool's deadline, not the snippet's)", () => {
    const toolTimeout = new ToolError({ code: 'TIMEOUT', op: 'execute', toolId: 'demo:wait', reason: 'timed out' });
    const fromSnippet = new ToolexecError('TIMEOUT', toolTimeout.message, { cause: toolTimeout, details: { line: 1 } });
    const mapped = mapRuntimeError(fromSnippet);
    expect(mapped.code).toBe('TIMEOUT');
    expect(mapped.cause).toBe(toolTimeout);
  });

  it('turns a non-library failure into CODE_EXECUTION with it as cause', () => {
    const boom = new Error('runtime exploded');
    const mapped = mapRuntimeError(boom);
    expect(mapped.code).toBe('CODE_EXECUTION');
    expect(mapped.cause).toBe(boom);
  });
});

describe('runtime engine on the default runtime: the WASM sandbox', () => {
  const f = fixture();
  const code = createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, maxToolCalls: 5 });
  afterAll(() => code.close());

  it('runs a snippet that searches, describes and calls tools, with its stdout and the trace', async () => {
    const result = await code.executeCode({
      code: `
        const hits = await tools.searchTools('add numbers', 3);
        const doc = await tools.describeTool(hits[0].id, 'schema');
        console.log('found', hits[0].id, doc.summary);
        const r = await tools.runTool(hits[0].id, { a: 40, b: 2 });
        return r.structured;`,
    });
    expect(result.value).toBe(42);
    expect(result.stdout).toBe('found math:add Adds a and b\n');
    expect(result.backend?.kind).toBe('wasm');
    expect(result.limitsEnforced?.toolCalls).toBe(true);
    expect(result.toolCalls).toMatchObject([{ toolId: 'math:add', args: { a: 40, b: 2 }, structured: 42, backendKind: 'local' }]);
  });

  it('warns about a missing await (a tool call still pending at return), and fails a strict call with CODE_EXECUTION', async () => {
    const snippet = "const r = tools.runTool('math:add', { a: 1, b: 2 });\nreturn r.structured;";
    const result = await code.executeCode({ code: snippet });
    expect(result.value).toBeUndefined();
    expect(result.warnings).toEqual([
      {
        code: 'PENDING_TOOL_CALL',
        message: "tools.runTool('math:add') was still pending when the snippet returned: a missing await?",
        method: 'runTool',
        toolId: 'math:add',
      },
    ]);
    const error = await rejection(code.executeCode({ code: snippet, strict: true }));
    expect(error.code).toBe('CODE_EXECUTION');
    expect(error.message).toContain("tools.runTool('math:add') was still pending");
    expect(error.details).toMatchObject({ pendingCalls: [{ method: 'runTool', toolId: 'math:add' }] });
    expect(codeResultOf(error)?.warnings).toHaveLength(1);
    await expect(code.executeCode({ code: 'return 1', strict: 'yes' as unknown as boolean })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'strict' },
    });
  });

  it('fails with LIMIT_EXCEEDED when the snippet caught the budget error', async () => {
    const error = await rejection(
      code.executeCode({
        code: 'for (let i = 0; i < 10; i++) { try { await tools.runTool("math:add", { a: i, b: 0 }); } catch {} }\nreturn "ok";',
      }),
    );
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ limit: 'maxToolCalls', max: 5 });
    expect(codeResultOf(error)?.toolCalls).toHaveLength(5);
  });

  it('runs TypeScript without the language named', async () => {
    const result = await code.executeCode({ code: 'const n: number = 40;\ninterface X { a: number }\nreturn (n as number) + 2;' });
    expect(result.value).toBe(42);
  });

  it("maps the sandbox's own timeout to LIMIT_EXCEEDED with the TIMEOUT as cause and keeps the output so far", async () => {
    const error = await rejection(code.executeCode({ code: 'console.log("started"); while (true) {}', timeoutMs: 150 }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect((error.cause as ToolexecError).code).toBe('TIMEOUT');
    expect(codeResultOf(error)).toMatchObject({ stdout: 'started\n', backend: { kind: 'wasm' } });
    // the partial result is reported once: not again on the runtime's error under it
    expect(toErrorShape(error).error.cause?.details?.result).toBeUndefined();
  });

  it('maps a stack overflow (RESOURCE_LIMIT) to LIMIT_EXCEEDED', async () => {
    const error = await rejection(code.executeCode({ code: 'function f(n) { return f(n + 1) + 1; } return f(0);' }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(hasErrorCode(error, 'RESOURCE_LIMIT')).toBe(true);
  });

  it('enforces the call cap inside the sandbox: LIMIT_EXCEEDED at call 6 when capped at 5', async () => {
    const error = await rejection(
      code.executeCode({ code: 'for (let i = 0; i < 10; i++) await tools.runTool("math:add", { a: i, b: 0 });' }),
    );
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(codeResultOf(error)?.toolCalls).toHaveLength(5);
  });

  it('keeps a snippet error as CODE_EXECUTION with its line, and rejects empty code with MISSING_CODE', async () => {
    const error = await rejection(code.executeCode({ code: 'const a = 1;\nthrow new Error("nope");' }));
    expect(error.code).toBe('CODE_EXECUTION');
    expect(error.details?.line).toBe(2);
    // one report of the failure: no copy of itself (message, line, partial result) as its cause
    expect(error.cause).toBeUndefined();
    expect(JSON.stringify(toErrorShape(error)).split('nope').length - 1).toBe(error.details?.stack === undefined ? 1 : 2);
    expect((await rejection(code.executeCode({ code: '' }))).code).toBe('MISSING_CODE');
  });

  it('runs TypeScript', async () => {
    const result = await code.executeCode({ code: 'const n: number = 2; return n * 21;', language: 'typescript' });
    expect(result.value).toBe(42);
  });
});
