import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDocStore, createToolIndex } from '../../src/discovery/index.js';
import {
  DEFAULT_MAX_TOOL_CALLS,
  DEFAULT_SECURITY_PROFILE,
  DEFAULT_TIMEOUT_MS,
  type DefaultExec,
  ExecChainError,
  createExec,
  durationOf,
  resolveExecOptions,
  type ExecOptions,
  type LocalToolDefinition,
} from '../../src/exec/index.js';
import { ChainError, ToolError, type ProgressEvent, type StreamEvent } from '../../src/run/index.js';
import { ToolexecError, errorStatus, hasErrorCode, localBackend } from '../../src/model/index.js';
import { LocalBackend } from '../../src/backend/index.js';
import { collect, localTools, rejection } from './helpers.js';

const open: DefaultExec[] = [];
function exec(options: ExecOptions = {}): DefaultExec & { calls: Record<string, number>; aborted: string[] } {
  const { tools, calls, aborted } = localTools();
  const instance = createExec({ tools, ...options });
  open.push(instance);
  return Object.assign(instance, { calls, aborted });
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

describe('createExec: construction and defaults (cases 112–115, 129, 130)', () => {
  it('creates the index and doc store when absent (112–114: Go requires both)', async () => {
    const e = createExec();
    open.push(e);
    expect(e.index).toBeDefined();
    expect(e.docs).toBeDefined();
    expect(await e.searchTools('anything')).toEqual([]);
    expect(await e.listNamespaces()).toEqual([]);
  });

  it('uses an injected index and doc store (115)', async () => {
    const index = createToolIndex();
    const docs = createDocStore({ index });
    index.registerTool({ name: 'pre', namespace: 'ns', inputSchema: { type: 'object' } }, localBackend('pre'));
    const e = exec({ index, docs, localHandlers: { pre: () => 'pre-registered' } });
    expect(e.index).toBe(index);
    expect(e.docs).toBe(docs);
    expect((await e.runTool('ns:pre')).value).toBe('pre-registered');
  });

  it('keeps every local tool in one store, a LocalBackend: tools, localHandlers and later registrations', async () => {
    const e = exec({ localHandlers: { pre: () => 'pre-registered' } });
    expect(e.localHandlers).toBeInstanceOf(LocalBackend);
    expect(e.localHandlers.has('test:greet')).toBe(true);
    expect(e.localHandlers.has('pre')).toBe(true);
    e.index.registerTool({ name: 'later', namespace: 'ns', inputSchema: { type: 'object' } }, localBackend('later'));
    e.localHandlers.registerHandler('later', (_args, ctx) => `later via ${ctx.toolId}`);
    expect((await e.runTool('ns:later')).value).toBe('later via ns:later');
    expect(await e.localHandlers.execute('later', {})).toBe('later via local:later');
    e.localHandlers.setEnabled(false);
    const disabled = await rejection(e.runTool('ns:later'));
    expect(disabled).toMatchObject({ code: 'BACKEND_DISABLED', details: { backend: 'local', tool: 'later' } });
    expect(errorStatus(disabled)).toBe(503);
  });

  it('resolves the defaults Go documents but does not apply (115, 129; §5 items 2, 3)', () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
    expect(DEFAULT_MAX_TOOL_CALLS).toBe(100);
    expect(DEFAULT_SECURITY_PROFILE).toBe('standard');
    expect(resolveExecOptions({})).toMatchObject({
      validateInput: true,
      validateOutput: true,
      defaultTimeoutMs: 30_000,
      maxToolCalls: 100,
      maxChainSteps: 0,
      securityProfile: 'standard',
      defaultLanguage: 'javascript',
    });
    expect(resolveExecOptions({ defaultTimeoutMs: Infinity }).defaultTimeoutMs).toBeUndefined();
  });

  it('validates input by default: a bad argument is VALIDATION with violations naming the field (129: Go lets it through)', async () => {
    const e = exec();
    const error = await rejection(e.runTool('math:add', { a: 'one', b: 2 }));
    expect(error.code).toBe('VALIDATION');
    expect(error.details?.violations).toEqual([expect.objectContaining({ field: '/a', code: 'InvalidType' })]);
    expect(error.message).toContain('/a');
    expect(e.calls.add).toBeUndefined();
  });

  it('validates output by default and can turn validation off', async () => {
    const index = createToolIndex();
    index.registerTool(
      {
        name: 'liar',
        namespace: 'x',
        inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
        outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      },
      localBackend('liar'),
    );
    const handlers = { liar: () => ({ nope: true }) };
    const strict = exec({ index, localHandlers: handlers });
    expect((await rejection(strict.runTool('x:liar', {}))).code).toBe('OUTPUT_VALIDATION');
    const lax = exec({ index, localHandlers: handlers, validateInput: false, validateOutput: false });
    expect((await lax.runTool('x:liar', { n: 'not a number' })).value).toEqual({ nope: true });
  });

  it('reports a local tool without a handler as EXECUTION (130)', async () => {
    const index = createToolIndex();
    index.registerTool({ name: 'orphan', namespace: 'x', inputSchema: { type: 'object' } }, localBackend('orphan'));
    const error = await rejection(exec({ index }).runTool('x:orphan'));
    expect(error.code).toBe('EXECUTION');
  });

  it('names every invalid option in one CONFIGURATION error', () => {
    expect(() =>
      createExec({
        defaultTimeoutMs: 0,
        maxToolCalls: -1,
        securityProfile: 'root' as 'dev',
        validateOutput: 'loud' as 'warn',
        tools: [{}] as never,
      }),
    ).toThrow('exec: invalid exec options: tools, validateOutput, defaultTimeoutMs, securityProfile, maxToolCalls');
    expect(() => createExec(null as never)).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
  });

  it('refuses a local tool defined twice, and a bad tool definition', () => {
    const { tools } = localTools();
    expect(() => createExec({ tools: [...tools, tools[0]!] })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
    expect(() => createExec({ tools: tools.slice(0, 1), localHandlers: { 'test:greet': () => 1 } })).toThrow(/defined twice/);
    expect(() => createExec({ tools: [{ tool: { name: 'bad name!', inputSchema: { type: 'object' } }, handler: () => 1 }] })).toThrow(
      expect.objectContaining({ code: 'INVALID_TOOL' }),
    );
  });
});

describe('runTool (cases 116–119)', () => {
  it("runs a local tool: value, the caller's tool ID and a measured duration (116)", async () => {
    const result = await exec().runTool('test:greet', { name: 'World' });
    expect(result).toEqual({ value: { greeting: 'Hello, World!' }, toolId: 'test:greet', durationMs: expect.any(Number) });
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('keeps a sub-microsecond duration (a warm call to a synchronous tool) instead of rounding it to 0 (116)', async () => {
    for (const e of [exec(), exec({ defaultTimeoutMs: Infinity })]) {
      await e.runTool('test:greet', { name: 'W' });
      // A clock that advances 0.25 µs per read: the call's two reads are 0.25 µs apart.
      let now = 5_000;
      const clock = vi.spyOn(performance, 'now').mockImplementation(() => (now += 0.00025));
      try {
        const { durationMs } = await e.runTool('test:greet', { name: 'W' });
        expect(durationMs).toBeGreaterThan(0);
        expect(durationMs).toBeLessThan(0.001);
      } finally {
        clock.mockRestore();
      }
    }
  });

  it("rejects an unknown tool with TOOL_NOT_FOUND, the run layer's error carrying the duration (117)", async () => {
    const error = await rejection(exec().runTool('nope:nothing'));
    expect(error.code).toBe('TOOL_NOT_FOUND');
    expect(ToolError.isToolError(error)).toBe(true);
    expect(durationOf(error)).toBeGreaterThanOrEqual(0);
    expect(Object.keys(error)).not.toContain('durationMs');
  });

  it("rejects a handler failure with EXECUTION, the handler's error as cause (118)", async () => {
    const error = await rejection(exec().runTool('test:fail'));
    expect(error.code).toBe('EXECUTION');
    expect((error.cause as Error).message).toBe('handler exploded');
  });

  it('rejects an aborted call with ABORTED and tells the handler (119)', async () => {
    const e = exec();
    const controller = new AbortController();
    const pending = e.runTool('test:hang', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user cancelled')), 10);
    const error = await rejection(pending);
    expect(error.code).toBe('ABORTED');
    expect(e.aborted).toEqual(['hang']);
    expect((await rejection(e.runTool('test:greet', { name: 'x' }, { signal: AbortSignal.abort() }))).code).toBe('ABORTED');
  });

  it('applies defaultTimeoutMs to a call that sets none: a handler that never resolves times out and hears it', async () => {
    const e = exec({ defaultTimeoutMs: 60 });
    const started = performance.now();
    const error = await rejection(e.runTool('test:hang'));
    expect(error.code).toBe('TIMEOUT');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(e.aborted).toEqual(['hang']);
  });

  it('lets a call set its own timeout, or none with Infinity', async () => {
    const e = exec({ defaultTimeoutMs: 5_000 });
    const started = performance.now();
    expect((await rejection(e.runTool('test:hang', {}, { timeoutMs: 30 }))).code).toBe('TIMEOUT');
    expect(performance.now() - started).toBeLessThan(2_000);
    const controller = new AbortController();
    const pending = e.runTool('test:hang', {}, { timeoutMs: Infinity, signal: controller.signal });
    const raced = await Promise.race([
      pending.then(
        () => 'settled',
        () => 'settled',
      ),
      new Promise((r) => setTimeout(() => r('still running'), 80)),
    ]);
    expect(raced).toBe('still running');
    controller.abort();
    expect((await rejection(pending)).code).toBe('ABORTED');
  });

  it('reports progress through onProgress', async () => {
    const events: ProgressEvent[] = [];
    await exec().runTool('test:greet', { name: 'p' }, { onProgress: (p) => events.push(p) });
    expect(events.map((p) => p.message)).toEqual(['started', 'completed']);
  });

  it('gives the same result shape and a duration on every way a call ends (deadline or not, sync or async, progress or not)', async () => {
    const slow: LocalToolDefinition = {
      tool: { name: 'slow', namespace: 'test', description: 'Answers after 15 ms', inputSchema: { type: 'object' } },
      handler: () => new Promise((resolve) => setTimeout(() => resolve({ late: true }), 15)),
    };
    const asyncFail: LocalToolDefinition = {
      tool: { name: 'later_fail', namespace: 'test', description: 'Fails after an await', inputSchema: { type: 'object' } },
      handler: async () => {
        await Promise.resolve();
        throw new Error('async explosion');
      },
    };
    const bounded = exec({ tools: [...localTools().tools, slow, asyncFail] });
    const unbounded = exec({ tools: [...localTools().tools, slow, asyncFail], defaultTimeoutMs: Infinity });
    const withProgress = { onProgress: () => undefined };
    for (const e of [bounded, unbounded]) {
      for (const options of [undefined, withProgress, { timeoutMs: 5_000 }]) {
        // Synchronous handler, async handler (the duration covers the wait).
        expect(await e.runTool('test:greet', { name: 'a' }, options)).toEqual({
          value: { greeting: 'Hello, a!' },
          toolId: 'test:greet',
          durationMs: expect.any(Number),
        });
        const late = await e.runTool('test:slow', {}, options);
        expect(late).toEqual({ value: { late: true }, toolId: 'test:slow', durationMs: expect.any(Number) });
        expect(late.durationMs).toBeGreaterThanOrEqual(10);
        // Failures decided before dispatch, thrown synchronously by a handler, and rejected later.
        for (const [id, args, code] of [
          ['nope:nothing', {}, 'TOOL_NOT_FOUND'],
          ['test:greet', { name: 1 }, 'VALIDATION'],
          ['test:fail', {}, 'EXECUTION'],
          ['test:later_fail', {}, 'EXECUTION'],
        ] as const) {
          const error = await rejection(e.runTool(id, args, options));
          expect(error.code).toBe(code);
          expect(ToolError.isToolError(error)).toBe(true);
          expect(durationOf(error)).toBeGreaterThanOrEqual(0);
        }
      }
      // A malformed option is INVALID_ARGUMENT, with the duration too.
      const invalid = await rejection(e.runTool('test:greet', { name: 'a' }, { timeoutMs: 'soon' as unknown as number }));
      expect(invalid.code).toBe('INVALID_ARGUMENT');
      expect(durationOf(invalid)).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('runChain (cases 120–123, Go §5 item 4)', () => {
  it('runs steps in order, passing previous: OK steps, the last value, real durations (120)', async () => {
    const { result, steps } = await exec().runChain([
      { toolId: 'math:add', args: { a: 2, b: 3 } },
      { toolId: 'math:double', usePrevious: true },
    ]);
    expect(result).toEqual({ value: 10, toolId: 'math:double', durationMs: expect.any(Number) });
    expect(steps).toEqual([
      { stepIndex: 0, toolId: 'math:add', args: { a: 2, b: 3 }, value: 5, durationMs: expect.any(Number) },
      { stepIndex: 1, toolId: 'math:double', value: 10, durationMs: expect.any(Number) },
    ]);
    expect(steps.every((s) => s.durationMs > 0)).toBe(true);
    expect(result.durationMs).toBeGreaterThanOrEqual(steps[0]!.durationMs + steps[1]!.durationMs);
  });

  it('rejects a stopping failure with a ChainError carrying every step: ran, failed, skipped (121)', async () => {
    const e = exec();
    const error = await rejection(
      e.runChain([{ toolId: 'math:add', args: { a: 1, b: 1 } }, { toolId: 'test:fail' }, { toolId: 'math:double', usePrevious: true }]),
    );
    expect(error).toBeInstanceOf(ChainError);
    expect(error).toBeInstanceOf(ExecChainError);
    const chainError = error as ExecChainError;
    expect(chainError.code).toBe('EXECUTION');
    expect(chainError.stepIndex).toBe(1);
    expect(chainError.steps.map((s) => [s.toolId, s.error?.code])).toEqual([
      ['math:add', undefined],
      ['test:fail', 'EXECUTION'],
    ]);
    expect(chainError.execSteps).toEqual([
      { stepIndex: 0, toolId: 'math:add', args: { a: 1, b: 1 }, value: 2, durationMs: expect.any(Number) },
      { stepIndex: 1, toolId: 'test:fail', durationMs: expect.any(Number), error: expect.any(ToolError) },
      { stepIndex: 2, toolId: 'math:double', durationMs: 0, skipped: true },
    ]);
    expect(chainError.durationMs).toBeGreaterThan(0);
    expect(e.calls.double).toBeUndefined();
  });

  it("reports the caller's args without the injected previous (122)", async () => {
    const args = { extra: true };
    const { steps } = await exec().runChain([
      { toolId: 'math:add', args: { a: 1, b: 1 } },
      { toolId: 'math:double', args, usePrevious: true },
    ]);
    expect(steps[1]?.args).toBe(args);
    expect(args).toEqual({ extra: true });
  });

  it('goes on after a step with stopOnError: false, reporting it failed (123: Go always stops)', async () => {
    const e = exec();
    const { result, steps } = await e.runChain([
      { toolId: 'math:add', args: { a: 4, b: 1 } },
      { toolId: 'test:fail', stopOnError: false },
      { toolId: 'math:double', usePrevious: true },
    ]);
    expect(steps.map((s) => [s.toolId, s.error?.code, s.value])).toEqual([
      ['math:add', undefined, 5],
      ['test:fail', 'EXECUTION', undefined],
      // previous = the last successful value (5), not the failed step's nothing
      ['math:double', undefined, 10],
    ]);
    expect(result).toEqual({ value: 10, toolId: 'math:double', durationMs: expect.any(Number) });
  });

  it('reports a failed last step that did not stop the chain on the chain result', async () => {
    const { result, steps } = await exec().runChain([
      { toolId: 'math:add', args: { a: 1, b: 2 } },
      { toolId: 'math:add', args: { a: 'x' }, stopOnError: false },
    ]);
    expect(result.toolId).toBe('math:add');
    expect(result.value).toBeUndefined();
    expect(result.error?.code).toBe('VALIDATION');
    expect(steps[1]?.error?.code).toBe('VALIDATION');
  });

  it('gives an empty chain an empty tool ID and no steps', async () => {
    expect(await exec().runChain([])).toEqual({ result: { toolId: '', durationMs: expect.any(Number) }, steps: [] });
    expect((await rejection(exec().runChain('nope' as never))).code).toBe('INVALID_ARGUMENT');
    // no steps at all is an empty chain, as for runner.runChain
    for (const none of [null, undefined]) expect((await exec().runChain(none as never)).steps).toEqual([]);
  });

  it('bounds the whole chain by the deadline, whatever stopOnError says', async () => {
    const e = exec({ defaultTimeoutMs: 80 });
    // Warm up (the first call compiles the schemas): a chain whose deadline passes during a step
    // that runs synchronously does not start the next step at all.
    await e.runTool('math:add', { a: 0, b: 0 });
    const error = await rejection(
      e.runChain([
        { toolId: 'math:add', args: { a: 1, b: 1 } },
        { toolId: 'test:hang', stopOnError: false },
        { toolId: 'math:add', args: { a: 2, b: 2 } },
      ]),
    );
    expect(error.code).toBe('TIMEOUT');
    const chainError = error as ExecChainError;
    expect(chainError.execSteps.map((s) => [s.toolId, s.error?.code, s.skipped])).toEqual([
      ['math:add', undefined, undefined],
      ['test:hang', 'TIMEOUT', undefined],
      ['math:add', undefined, true],
    ]);
    expect(e.aborted).toEqual(['hang']);
    expect(e.calls.add).toBe(2);
  });

  it('stops between steps when the caller aborts, skipping the rest', async () => {
    const controller = new AbortController();
    const e = exec();
    const error = await rejection(
      e.runChain(
        [
          { toolId: 'math:add', args: { a: 1, b: 1 } },
          { toolId: 'math:add', args: { a: 1, b: 1 } },
        ],
        {
          signal: controller.signal,
          onProgress: (p) => {
            if (p.message === 'step_completed') controller.abort(new Error('enough'));
          },
        },
      ),
    );
    expect(error.code).toBe('ABORTED');
    expect((error as ExecChainError).stepIndex).toBe(1);
    expect((error as ExecChainError).execSteps[1]).toMatchObject({ stepIndex: 1, skipped: true });
    expect(e.calls.add).toBe(1);
  });

  it('reports chain progress like the runner', async () => {
    const events: ProgressEvent[] = [];
    await exec().runChain(
      [
        { toolId: 'math:add', args: { a: 1, b: 1 } },
        { toolId: 'test:fail', stopOnError: false },
      ],
      {
        onProgress: (p) => {
          events.push(p);
          throw new Error('a listener that throws does not fail the chain');
        },
      },
    );
    expect(events).toEqual([
      { progress: 0, total: 2, message: 'started' },
      { progress: 1, total: 2, message: 'step_completed' },
      { progress: 2, total: 2, message: 'step_error' },
    ]);
  });
});

describe('discovery (cases 124, 125)', () => {
  it('finds a registered tool by search, first (124), with the default limit of 10', async () => {
    const e = exec();
    expect((await e.searchTools('greet'))[0]?.id).toBe('test:greet');
    for (let i = 0; i < 15; i++)
      e.index.registerTool(
        { name: `tool${i}`, namespace: 'bulk', description: 'bulk tool', inputSchema: { type: 'object' } },
        localBackend(`b${i}`),
      );
    expect(await e.searchTools('bulk')).toHaveLength(10);
    expect(await e.searchTools('bulk', 3)).toHaveLength(3);
    expect(await e.listNamespaces()).toEqual(['bulk', 'math', 'test']);
  });

  it('returns the documentation of a tool (125), at summary level by default', async () => {
    const e = exec();
    const full = await e.getToolDoc('test:greet', 'full');
    expect(full.tool?.name).toBe('greet');
    expect(full.summary).toBe('Says hello');
    expect(full.notes).toBe('Be nice');
    expect(full.examples).toHaveLength(1);
    const summary = await e.getToolDoc('test:greet');
    expect(summary.summary).toBe('Says hello');
    expect(summary.tool).toBeUndefined();
    expect((await rejection(e.getToolDoc('nope:nothing'))).code).toBe('TOOL_NOT_FOUND');
  });
});

describe('runToolStream', () => {
  it('streams a local generator: chunks then done', async () => {
    const { items, error } = await collect(exec().runToolStream('test:ticker', { n: 3 }));
    expect(error).toBeUndefined();
    expect(items.map((e: StreamEvent) => [e.kind, e.data])).toEqual([
      ['progress', { progress: 0, total: 1, message: 'started' }],
      ['chunk', 1],
      ['chunk', 2],
      ['chunk', 3],
      ['progress', { progress: 1, total: 1, message: 'completed' }],
      ['done', 3],
    ]);
    expect(items.every((e) => e.toolId === 'test:ticker')).toBe(true);
  });

  it('fails the first iteration for an unknown tool, and applies the default deadline', async () => {
    const { error } = await collect(exec().runToolStream('nope:nothing'));
    expect(hasErrorCode(error, 'TOOL_NOT_FOUND')).toBe(true);
    const e = exec({ defaultTimeoutMs: 50 });
    const started = performance.now();
    const slow = await collect(e.runToolStream('test:hang'));
    expect(hasErrorCode(slow.error, 'TIMEOUT')).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('close()', () => {
  it('is idempotent, and every later call rejects with CONNECTION_CLOSED', async () => {
    const e = exec();
    await e.close();
    await e.close();
    for (const call of [
      e.runTool('test:greet', { name: 'x' }),
      e.runChain([{ toolId: 'math:add', args: { a: 1, b: 1 } }]),
      e.searchTools('greet'),
      e.listNamespaces(),
      e.getToolDoc('test:greet'),
      e.executeCode({ code: 'return 1' }),
    ]) {
      const error = await rejection(call);
      expect(error.code).toBe('CONNECTION_CLOSED');
    }
    const { error } = await collect(e.runToolStream('test:ticker'));
    expect(hasErrorCode(error, 'CONNECTION_CLOSED')).toBe(true);
    expect(ToolexecError.isInstance(error)).toBe(true);
  });
});
