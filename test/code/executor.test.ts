import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CODE_LANGUAGE,
  DEFAULT_CODE_TIMEOUT_MS,
  ENGINE_STOP_GRACE_MS,
  type RuntimeEngine,
  codeResultOf,
  createCodeExecutor,
  createToolsEnvironment,
  type CodeEngine,
  type CodeEngineParams,
  type CodeEngineResult,
  type CodeExecutorOptions,
  type ToolsEnvironment,
} from '../../src/code/index.js';
import { ToolexecError, hasErrorCode } from '../../src/model/index.js';
import { fixture, rejection } from './helpers.js';

/** An engine (a user-injected interface) that records what it got and runs `body`. */
function engine(body: (params: CodeEngineParams, tools: ToolsEnvironment) => Promise<CodeEngineResult> | CodeEngineResult = () => ({})) {
  const calls: { params: CodeEngineParams; tools: ToolsEnvironment }[] = [];
  const eng: CodeEngine & { calls: typeof calls } = {
    calls,
    async execute(params, tools) {
      calls.push({ params, tools });
      return body(params, tools);
    },
  };
  return eng;
}

function executor(eng: CodeEngine, options: Partial<CodeExecutorOptions> = {}) {
  const f = fixture();
  return { ...f, code: createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, engine: eng, ...options }) };
}

/** Resolves when `signal` aborts; rejects with its reason (an engine that honours the signal). */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

describe('createCodeExecutor: configuration (cases 153–155)', () => {
  it('names every missing required field in one CONFIGURATION error (153, 154)', () => {
    let error: unknown;
    try {
      createCodeExecutor({} as CodeExecutorOptions);
    } catch (e) {
      error = e;
    }
    expect(hasErrorCode(error, 'CONFIGURATION')).toBe(true);
    expect((error as Error).message).toBe('configuration error: missing required fields: index, docs, runner');
    expect((error as ToolexecError).details).toMatchObject({ missing: ['index', 'docs', 'runner'] });
  });

  it('names just the missing field when one is missing (153)', () => {
    const f = fixture();
    for (const field of ['index', 'docs', 'runner'] as const) {
      const options: Partial<CodeExecutorOptions> = { index: f.index, docs: f.docs, runner: f.runner };
      delete options[field];
      expect(() => createCodeExecutor(options as CodeExecutorOptions)).toThrow(`missing required fields: ${field}`);
    }
  });

  it('rejects invalid optional fields together with missing ones', () => {
    const f = fixture();
    expect(() =>
      createCodeExecutor({
        index: f.index,
        docs: f.docs,
        runner: f.runner,
        defaultTimeoutMs: -1,
        maxToolCalls: 1.5,
        profile: 'nope' as 'dev',
      }),
    ).toThrow('invalid fields: defaultTimeoutMs, maxToolCalls, profile');
    expect(() => createCodeExecutor({ index: f.index, docs: f.docs } as CodeExecutorOptions)).toThrow(/missing required fields: runner/);
  });

  it('defaults the language to javascript (155; Go: "go") and keeps a configured one', async () => {
    expect(DEFAULT_CODE_LANGUAGE).toBe('javascript');
    const eng = engine();
    await executor(eng).code.executeCode({ code: 'x' });
    expect(eng.calls[0]?.params.language).toBe('javascript');
    const eng2 = engine();
    await executor(eng2, { defaultLanguage: 'typescript' }).code.executeCode({ code: 'x', language: '' });
    expect(eng2.calls[0]?.params.language).toBe('typescript');
  });
});

describe('executeCode: defaults and limits (cases 156–164)', () => {
  it('applies the default language and timeout (156, 157)', async () => {
    const eng = engine();
    const { code } = executor(eng, { defaultLanguage: 'typescript', defaultTimeoutMs: 5_000 });
    await code.executeCode({ code: 'x' });
    expect(eng.calls[0]?.params).toMatchObject({ language: 'typescript', timeoutMs: 5_000 });
    await code.executeCode({ code: 'x', language: 'javascript', timeoutMs: 12.2 });
    expect(eng.calls[1]?.params).toMatchObject({ language: 'javascript', timeoutMs: 13 });
  });

  it('has a 30 s deadline by default (Go: none), visible to the engine as an abort signal (158)', async () => {
    expect(DEFAULT_CODE_TIMEOUT_MS).toBe(30_000);
    const eng = engine();
    await executor(eng).code.executeCode({ code: 'x' });
    expect(eng.calls[0]?.params.timeoutMs).toBe(30_000);
    expect(eng.calls[0]?.params.signal).toBeInstanceOf(AbortSignal);
    expect(eng.calls[0]?.params.signal.aborted).toBe(false);
  });

  it('times out an engine that waits for its signal: LIMIT_EXCEEDED with the TIMEOUT as cause, in well under 1 s (159)', async () => {
    const eng = engine((params) => untilAborted(params.signal));
    const started = performance.now();
    const error = await rejection(executor(eng).code.executeCode({ code: 'x', timeoutMs: 50 }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toBe('limit exceeded: timeout after 50 ms');
    expect((error.cause as ToolexecError).code).toBe('TIMEOUT');
    expect(hasErrorCode(error, 'TIMEOUT')).toBe(true);
    expect(error.details).toMatchObject({ limit: 'timeout', timeoutMs: 50 });
    expect(codeResultOf(error)).toMatchObject({ stdout: '', stderr: '', toolCalls: [] });
  });

  it('stops waiting for an engine that ignores its signal, one grace period after the deadline', async () => {
    let release: () => void = () => undefined;
    const eng = engine(() => new Promise<CodeEngineResult>((resolve) => (release = () => resolve({ value: 'late' }))));
    const started = performance.now();
    const error = await rejection(executor(eng).code.executeCode({ code: 'x', timeoutMs: 30 }));
    const elapsed = performance.now() - started;
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(elapsed).toBeGreaterThanOrEqual(30 + ENGINE_STOP_GRACE_MS - 5);
    expect(elapsed).toBeLessThan(30 + ENGINE_STOP_GRACE_MS + 1_500);
    release();
  });

  it('reports the caller aborting as ABORTED with the reason as cause, and an already-aborted signal without running the engine', async () => {
    const eng = engine((params) => untilAborted(params.signal));
    const { code } = executor(eng);
    const controller = new AbortController();
    const pending = code.executeCode({ code: 'x', signal: controller.signal });
    const reason = new Error('user stop');
    setTimeout(() => controller.abort(reason), 10);
    const error = await rejection(pending);
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);

    const before = eng.calls.length;
    const error2 = await rejection(code.executeCode({ code: 'x', signal: AbortSignal.abort('gone') }));
    expect(error2.code).toBe('ABORTED');
    expect(eng.calls.length).toBe(before);
  });

  it("a caller's timeout signal (AbortSignal.timeout) is TIMEOUT, as on runTool; the snippet's own deadline stays LIMIT_EXCEEDED", async () => {
    const eng = engine((params) => untilAborted(params.signal));
    const { code } = executor(eng);
    const signal = AbortSignal.timeout(20);
    const error = await rejection(code.executeCode({ code: 'x', signal }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toBe('code execution timed out: The operation was aborted due to timeout');
    expect(error.cause).toBe(signal.reason);
    expect((await rejection(code.executeCode({ code: 'x', timeoutMs: 20 }))).code).toBe('LIMIT_EXCEEDED');
  });

  it("caps the call limit by the config; the engine sees the capped value (160; Go passes the caller's)", async () => {
    const eng = engine();
    const { code } = executor(eng, { maxToolCalls: 10 });
    await code.executeCode({ code: 'x', maxToolCalls: 100 });
    await code.executeCode({ code: 'x', maxToolCalls: 0 });
    await code.executeCode({ code: 'x', maxToolCalls: 3 });
    expect(eng.calls.map((c) => c.params.maxToolCalls)).toEqual([10, 10, 3]);
    const eng2 = engine();
    await executor(eng2).code.executeCode({ code: 'x', maxToolCalls: 7 });
    expect(eng2.calls[0]?.params.maxToolCalls).toBe(7);
  });

  it('fails the third call with LIMIT_EXCEEDED when the config allows 2 (161)', async () => {
    const eng = engine(async (_params, tools) => {
      for (let i = 0; i < 3; i++) await tools.runTool('math:add', { a: i, b: 1 });
      return { value: 'unreachable' };
    });
    const error = await rejection(executor(eng, { maxToolCalls: 2 }).code.executeCode({ code: 'x' }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toContain('max 2 tool calls exceeded');
    expect(codeResultOf(error)?.toolCalls.map((c) => c.structured)).toEqual([1, 2]);
  });

  it('fails with LIMIT_EXCEEDED even when the engine caught the budget error, keeping the partial result', async () => {
    const eng = engine(async (_params, tools) => {
      for (let i = 0; i < 3; i++) await tools.runTool('math:add', { a: i, b: 1 }).catch(() => undefined);
      tools.println('swallowed');
      return { value: 'survived' };
    });
    const error = await rejection(executor(eng, { maxToolCalls: 2 }).code.executeCode({ code: 'x' }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toContain('max 2 tool calls exceeded');
    expect(error.details?.limit).toBe('maxToolCalls');
    expect(codeResultOf(error)).toMatchObject({ value: 'survived', stdout: 'swallowed\n' });
    expect(codeResultOf(error)?.toolCalls.map((c) => c.structured)).toEqual([1, 2]);
  });

  it("collects println output (162) and keeps the engine's own stdout before it (Go drops it, 167)", async () => {
    const eng = engine((_params, tools) => {
      tools.println('hello');
      tools.println('world');
      return { stdout: 'from the sandbox\n', stderr: 'warn\n', value: 42 };
    });
    const result = await executor(eng).code.executeCode({ code: 'x' });
    expect(result.stdout).toBe('from the sandbox\nhello\nworld\n');
    expect(result.stderr).toBe('warn\n');
    expect(result.value).toBe(42);
    const only = await executor(engine(() => ({ stdout: 'x' }))).code.executeCode({ code: 'x' });
    expect(only.stdout).toBe('x');
  });

  it('records the tool calls of the run (163) and measures the duration', async () => {
    const eng = engine(async (_params, tools) => {
      const r = await tools.runTool('demo:echo', { text: 'hi' });
      return { value: r.structured };
    });
    const result = await executor(eng).code.executeCode({ code: 'x' });
    expect(result.value).toEqual({ echoed: 'hi' });
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({
      toolId: 'demo:echo',
      args: { text: 'hi' },
      structured: { echoed: 'hi' },
      backendKind: 'local',
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('passes empty code to the engine (164)', async () => {
    const eng = engine(() => ({}));
    const result = await executor(eng).code.executeCode({ code: '' });
    expect(eng.calls[0]?.params.code).toBe('');
    expect(result).toEqual({ stdout: '', stderr: '', toolCalls: [], durationMs: result.durationMs });
  });

  it('records a tool failure the engine swallowed, with message, code and op (166)', async () => {
    const eng = engine(async (_params, tools) => {
      await tools.runTool('demo:fail', {}).catch(() => undefined);
      return { value: 'survived' };
    });
    const result = await executor(eng).code.executeCode({ code: 'x' });
    expect(result.value).toBe('survived');
    expect(result.toolCalls[0]).toMatchObject({ toolId: 'demo:fail', errorOp: 'run', errorCode: 'EXECUTION', backendKind: 'local' });
    expect(result.toolCalls[0]?.error).toContain('boom');
  });

  it('gives every execution a fresh environment: budgets and traces are not shared', async () => {
    const eng = engine(async (_params, tools) => {
      await tools.runTool('math:add', { a: 1, b: 1 });
      return {};
    });
    const { code } = executor(eng, { maxToolCalls: 1 });
    const [a, b] = await Promise.all([code.executeCode({ code: 'x' }), code.executeCode({ code: 'y' })]);
    expect(a.toolCalls).toHaveLength(1);
    expect(b.toolCalls).toHaveLength(1);
    expect(eng.calls[0]?.tools).not.toBe(eng.calls[1]?.tools);
  });

  it('counts and traces concurrent tool calls exactly (Promise.all in an engine)', async () => {
    const eng = engine(async (_params, tools) => {
      const settled = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => tools.runTool('demo:wait', { ms: (i % 4) * 2 })));
      return { value: settled.filter((s) => s.status === 'fulfilled').length };
    });
    // the five refused calls fail the run even though the engine settled them (LIMIT_EXCEEDED)
    const error = await rejection(executor(eng, { maxToolCalls: 15 }).code.executeCode({ code: 'x' }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    const result = codeResultOf(error);
    expect(result?.value).toBe(15);
    expect(result?.toolCalls).toHaveLength(15);
    expect(new Set(result?.toolCalls.map((c) => JSON.stringify(c.args))).size).toBeGreaterThan(1);
  });

  it("keeps an engine's error code and its partial output; a non-library error becomes CODE_EXECUTION", async () => {
    const eng = engine((_params, tools) => {
      tools.println('before');
      throw new ToolexecError('TOOL_NOT_FOUND', 'tool not found: x', { details: { result: { stdout: 'partial\n', stderr: 'e' } } });
    });
    const error = await rejection(executor(eng).code.executeCode({ code: 'x' }));
    expect(error.code).toBe('TOOL_NOT_FOUND');
    expect(codeResultOf(error)).toMatchObject({ stdout: 'partial\nbefore\n', stderr: 'e', toolCalls: [] });
    const error2 = await rejection(executor(engine(() => Promise.reject(new TypeError('bad engine')))).code.executeCode({ code: 'x' }));
    expect(error2.code).toBe('CODE_EXECUTION');
    expect(error2.cause).toBeInstanceOf(TypeError);
    expect(codeResultOf(error2)).toBeDefined();
  });

  it('rejects bad parameters with INVALID_ARGUMENT (and a partial result), without running the engine', async () => {
    const eng = engine();
    const { code } = executor(eng);
    for (const params of [
      null,
      { code: 1 },
      { code: 'x', timeoutMs: 0 },
      { code: 'x', timeoutMs: Number.NaN },
      { code: 'x', maxToolCalls: -1 },
      { code: 'x', profile: 'root' },
    ]) {
      const error = await rejection(code.executeCode(params as never));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(codeResultOf(error)).toMatchObject({ toolCalls: [] });
    }
    expect(eng.calls).toHaveLength(0);
    // each refusal says what it got, as the timeoutMs one does
    for (const [field, value, got] of [
      ['queueTimeoutMs', -1, '-1'],
      ['queueTimeoutMs', 'soon', '"soon"'],
      ['memoryBytes', 1.5, '1.5'],
      ['maxToolCalls', Number.NaN, 'NaN'],
      ['profile', 'root', '"root"'],
    ] as const) {
      const error = await rejection(code.executeCode({ code: 'x', [field]: value }));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(new RegExp(`^executeCode: ${field} must .*, got ${got.replace('.', '\\.')}$`));
    }
  });

  it("passes profile and metadata to the engine; the call's profile wins over the config's", async () => {
    const eng = engine();
    const { code } = executor(eng, { profile: 'hardened', maxChainSteps: 4 });
    await code.executeCode({ code: 'x' });
    await code.executeCode({ code: 'x', profile: 'dev', metadata: { unsafeOptIn: true } });
    expect(eng.calls[0]?.params).toMatchObject({ profile: 'hardened', maxChainSteps: 4 });
    expect(eng.calls[1]?.params).toMatchObject({ profile: 'dev', metadata: { unsafeOptIn: true } });
  });

  it('close() leaves an injected engine open (its owner closes it), and later calls reject', async () => {
    let closed = 0;
    const eng: CodeEngine = { execute: async () => ({}), close: async () => void closed++ };
    const { code } = executor(eng);
    await code.close();
    await code.close();
    expect(closed).toBe(0);
    expect((await rejection(code.executeCode({ code: 'x' }))).code).toBe('RUNTIME_UNAVAILABLE');
  });

  it('close() closes the runtime it created: the sandbox is released', async () => {
    const f = fixture();
    const code = createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner });
    expect((await code.executeCode({ code: 'return 1' })).value).toBe(1);
    await code.close();
    const runtime = (code.engine as RuntimeEngine).runtime;
    const gateway = createToolsEnvironment({ index: f.index, docs: f.docs, runner: f.runner });
    expect((await rejection(runtime.execute({ code: 'return 1', gateway }))).code).toBe('RUNTIME_UNAVAILABLE');
  });
});
