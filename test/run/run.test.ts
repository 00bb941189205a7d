import { describe, expect, it, vi } from 'vitest';
import { defaultBackendSelector } from '../../src/discovery/index.js';
import { ToolexecError, hasErrorCode, type SchemaValidator, type ToolBackend } from '../../src/model/index.js';
import { DefaultRunner, ToolError, createLocalRegistry, createRunner, type LocalHandler } from '../../src/run/index.js';
import {
  FakeMcpExecutor,
  FakeProviderExecutor,
  RecordingValidator,
  echoTool,
  indexWith,
  localBackend,
  mcpBackend,
  providerBackend,
  rejectionOf,
  tool,
} from './helpers.js';

describe('construction and config (cases 1–8)', () => {
  it('case 1: defaults validate input and output with the real validator and select local first', async () => {
    const index = indexWith([echoTool, mcpBackend('srv')]);
    index.registerTool(echoTool, localBackend('echo'));
    const mcp = new FakeMcpExecutor();
    const runner = createRunner({ index, mcp, local: { echo: (args) => ({ echoed: args.message }) } });
    expect(runner).toBeInstanceOf(DefaultRunner);
    const bad = await rejectionOf(runner.run('demo:echo', {}));
    expect(bad.code).toBe('VALIDATION');
    const ok = await runner.run('demo:echo', { message: 'hi' });
    expect(ok.backend.kind).toBe('local');
    expect(mcp.calls).toHaveLength(0);
    const badOut = createRunner({ index, local: { echo: () => ({ echoed: 1 }) } });
    expect((await rejectionOf(badOut.run('demo:echo', { message: 'x' }))).code).toBe('OUTPUT_VALIDATION');
  });

  it.each([
    [true, false],
    [false, true],
    [false, false],
  ])('case 2: validateInput=%s validateOutput=%s are honoured', async (input, output) => {
    const validator = new RecordingValidator();
    const runner = createRunner({
      toolResolver: () => tool('t'),
      backendsResolver: () => [localBackend('h')],
      local: { h: () => 1 },
      validator,
      validateInput: input,
      validateOutput: output,
    });
    await runner.run('t');
    expect(validator.inputCalls).toBe(input ? 1 : 0);
    expect(validator.outputCalls).toBe(output ? 1 : 0);
  });

  const selectCase = async (backends: ToolBackend[], selector?: (b: ToolBackend[]) => ToolBackend): Promise<ToolBackend> => {
    const runner = createRunner({
      toolResolver: () => tool('t'),
      backendsResolver: () => backends,
      local: { l: () => 'local' },
      mcp: Object.assign(new FakeMcpExecutor(), { result: { content: [], structuredContent: { via: 'mcp' } } }),
      provider: new FakeProviderExecutor(),
      validateInput: false,
      validateOutput: false,
      ...(selector === undefined ? {} : { backendSelector: selector }),
    });
    return (await runner.run('t')).backend;
  };

  it('case 3: [mcp, local, provider] → local', async () => {
    expect((await selectCase([mcpBackend('s'), localBackend('l'), providerBackend('p', 't')])).kind).toBe('local');
  });

  it('case 4: [mcp, provider] → provider', async () => {
    expect((await selectCase([mcpBackend('s'), providerBackend('p', 't')])).kind).toBe('provider');
  });

  it('case 5: [mcp] → mcp', async () => {
    expect((await selectCase([mcpBackend('s')])).kind).toBe('mcp');
  });

  it('case 6: an empty backend list → NO_BACKENDS', async () => {
    const runner = createRunner({ toolResolver: () => tool('t'), backendsResolver: () => [] });
    const err = await rejectionOf(runner.run('t'));
    expect(err.code).toBe('NO_BACKENDS');
    expect(hasErrorCode(err, 'NO_BACKENDS')).toBe(true);
  });

  it('case 7: a custom selector that prefers mcp picks mcp from [local, mcp]', async () => {
    const preferMcp = (b: ToolBackend[]) => b.find((x) => x.kind === 'mcp') ?? (b[0] as ToolBackend);
    expect((await selectCase([localBackend('l'), mcpBackend('s')], preferMcp)).kind).toBe('mcp');
  });

  it('case 8: backends of unknown kinds only → the first one (then unknown kind at dispatch)', async () => {
    const odd = [{ kind: 'grpc' }, { kind: 'ws' }] as unknown as ToolBackend[];
    expect(defaultBackendSelector(odd)).toBe(odd[0]);
    const runner = createRunner({ toolResolver: () => tool('t'), backendsResolver: () => odd, validateInput: false });
    const err = await rejectionOf(runner.run('t'));
    expect(err.message).toContain('unknown backend kind: grpc');
  });

  it('a custom selector gets its own copy of the backends (it may sort in place)', async () => {
    const index = indexWith([tool('t'), mcpBackend('a')]);
    index.registerTool(tool('t'), mcpBackend('b'));
    const seen: ToolBackend[][] = [];
    const runner = createRunner({
      index,
      mcp: new FakeMcpExecutor(),
      validateInput: false,
      backendSelector: (b) => {
        seen.push(b);
        b.reverse();
        return b[0] as ToolBackend;
      },
    });
    expect((await runner.run('t')).backend).toEqual(mcpBackend('b'));
    expect((await runner.run('t')).backend).toEqual(mcpBackend('b'));
    expect(seen[0]).not.toBe(seen[1]);
  });

  it('a selector that throws or returns nothing fails with op select_backend', async () => {
    const boom = new Error('selector broke');
    const throwing = createRunner({
      toolResolver: () => tool('t'),
      backendsResolver: () => [localBackend('l')],
      backendSelector: () => {
        throw boom;
      },
    });
    const err = (await rejectionOf(throwing.run('t'))) as ToolError;
    expect(err.op).toBe('select_backend');
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(boom);
    const empty = createRunner({
      toolResolver: () => tool('t'),
      backendsResolver: () => [localBackend('l')],
      backendSelector: () => undefined as unknown as ToolBackend,
    });
    const err2 = (await rejectionOf(empty.run('t'))) as ToolError;
    expect(err2.op).toBe('select_backend');
  });

  it('rejects options of the wrong type with CONFIGURATION', () => {
    expect(() => createRunner({ validateOutput: 'loud' as unknown as boolean })).toThrow(ToolexecError);
    expect(() => createRunner({ validateOutput: 'loud' as unknown as boolean })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION' }),
    );
    expect(() => createRunner({ toolResolver: 42 as unknown as () => undefined })).toThrow(/toolResolver must be a function/);
  });
});

describe('the run pipeline (cases 9–42)', () => {
  const localRunner = (handler: LocalHandler, extra: Parameters<typeof createRunner>[0] = {}) =>
    createRunner({
      toolResolver: (id) => (id === 't' ? tool('t') : undefined),
      backendsResolver: () => [localBackend('h')],
      local: { h: handler },
      ...extra,
    });

  it('case 9: an empty tool ID → INVALID_TOOL_ID, op validate_tool_id', async () => {
    const err = (await rejectionOf(createRunner().run(''))) as ToolError;
    expect(err).toBeInstanceOf(ToolError);
    expect(err.code).toBe('INVALID_TOOL_ID');
    expect(err.op).toBe('validate_tool_id');
    expect(err.message).toBe('run: validate_tool_id : invalid tool id');
  });

  it('case 10 (TS): an aborted signal → ABORTED with the reason as cause, handler never called', async () => {
    const handler = vi.fn(() => 1);
    const controller = new AbortController();
    const reason = new Error('stop');
    controller.abort(reason);
    const err = await rejectionOf(localRunner(handler).run('t', {}, { signal: controller.signal }));
    expect(err.code).toBe('ABORTED');
    expect(err.cause).toBe(reason);
    expect(handler).not.toHaveBeenCalled();
  });

  it('case 11: an aborted signal is checked before the tool ID', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await rejectionOf(createRunner().run('', {}, { signal: controller.signal }));
    expect(err.code).toBe('ABORTED');
  });

  it('case 12: nothing resolves → TOOL_NOT_FOUND, op resolve, no backend', async () => {
    const err = (await rejectionOf(createRunner().run('nonexistent'))) as ToolError;
    expect(err.code).toBe('TOOL_NOT_FOUND');
    expect(err.op).toBe('resolve');
    expect(err.backend).toBeUndefined();
    expect(err.message).toBe('run: resolve nonexistent: tool not found');
  });

  it('case 13: a malformed ID is not format-checked: it fails as not found', async () => {
    const index = indexWith([tool('x'), localBackend('h')]);
    const err = (await rejectionOf(createRunner({ index }).run('a:b:c:d'))) as ToolError;
    expect(err.code).toBe('TOOL_NOT_FOUND');
    expect(err.op).toBe('resolve');
  });

  it('case 14: an MCP tool with structured content returns tool, mcp backend and mcpResult', async () => {
    const mcp = new FakeMcpExecutor();
    const raw = { content: [], structuredContent: { result: 'success' } };
    mcp.result = raw;
    const runner = createRunner({
      index: indexWith([tool('mcptool'), mcpBackend('srv')]),
      mcp,
      validateInput: false,
      validateOutput: false,
    });
    const result = await runner.run('mcptool', { a: 1 });
    expect(result.tool.name).toBe('mcptool');
    expect(result.backend.kind).toBe('mcp');
    expect(result.mcpResult).toBe(raw);
    expect(result.structured).toEqual({ result: 'success' });
  });

  it('case 15: a provider backend with no args succeeds; args become {}', async () => {
    const provider = new FakeProviderExecutor();
    provider.result = { from: 'provider' };
    const runner = createRunner({ index: indexWith([tool('p'), providerBackend('prov', 'ptool')]), provider });
    const result = await runner.run('p');
    expect(result.backend.kind).toBe('provider');
    expect(result.structured).toEqual({ from: 'provider' });
    expect(provider.calls[0]?.args).toEqual({});
    expect('mcpResult' in result).toBe(false);
  });

  it('case 16: a local backend returns the handler value as structured', async () => {
    const value = { answer: 42 };
    const result = await localRunner(() => value).run('t', {});
    expect(result.backend).toEqual(localBackend('h'));
    expect(result.structured).toBe(value);
  });

  it('cases 17–20, 22: the validator is called once per side when on, never when off', async () => {
    const validator = new RecordingValidator();
    await localRunner(() => 1, { validator }).run('t', {});
    expect(validator.inputCalls).toBe(1);
    expect(validator.outputCalls).toBe(1);
    const off = new RecordingValidator();
    off.inputError = new Error('would fail');
    off.outputError = new Error('would fail');
    await localRunner(() => 1, { validator: off, validateInput: false, validateOutput: false }).run('t', {});
    expect(off.inputCalls).toBe(0);
    expect(off.outputCalls).toBe(0);
  });

  it('a validator with forTool is bound once per resolved tool, again after the index changes', async () => {
    const bound: string[] = [];
    const base = new RecordingValidator();
    const validator: SchemaValidator = {
      validateInput: (t, args) => base.validateInput(t, args),
      validateOutput: (t, value) => base.validateOutput(t, value),
      validate: () => undefined,
      forTool(t) {
        bound.push(t.name);
        return { validateInput: (args) => base.validateInput(t, args), validateOutput: (value) => base.validateOutput(t, value) };
      },
    };
    const index = indexWith([tool('t'), localBackend('h')]);
    const runner = createRunner({ index, local: { h: () => 1 }, validator });
    for (let i = 0; i < 5; i++) await runner.run('t', {});
    await runner.run('t', {}, { timeoutMs: 1_000 });
    expect(bound).toEqual(['t']);
    expect(base.inputCalls).toBe(6);
    expect(base.outputCalls).toBe(6);
    index.registerTool(tool('u'), localBackend('h'));
    await runner.run('t', {});
    expect(bound).toEqual(['t', 't']);
    // With both validations off nothing is bound (no schema is compiled).
    const off = createRunner({ index, local: { h: () => 1 }, validator, validateInput: false, validateOutput: false });
    for (let i = 0; i < 3; i++) await off.run('t', {});
    expect(bound).toEqual(['t', 't']);
  });

  it('a forTool that throws or returns no checks falls back to the plain methods, errors at their step', async () => {
    for (const forTool of [
      () => {
        throw new Error('cannot bind');
      },
      () => ({ validateInput: 'no' }),
      () => null,
    ]) {
      const base = new RecordingValidator();
      base.outputError = new ToolexecError('OUTPUT_VALIDATION', 'output validation error: nope');
      const validator = Object.assign(base, { forTool }) as unknown as SchemaValidator;
      const err = (await rejectionOf(localRunner(() => 1, { validator }).run('t', {}))) as ToolError;
      expect(err.code).toBe('OUTPUT_VALIDATION');
      expect(err.op).toBe('validate_output');
      expect(base.inputCalls).toBe(1);
    }
  });

  it('a repeated call (served from the resolution cache) ends exactly like the first', async () => {
    const schemaTool = tool('t', {
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    const handlers: Record<string, LocalHandler> = {
      ok: () => ({ ok: true }),
      async: async () => ({ ok: true }),
      stream: async function* () {
        yield { ok: false };
        yield { ok: true };
      },
      throws: () => {
        throw new Error('boom');
      },
      badOutput: () => ({ ok: 'yes' }),
    };
    const outcome = async (p: Promise<unknown>): Promise<unknown> => {
      try {
        const r = (await p) as { structured: unknown; backend: unknown };
        return { structured: r.structured, backend: r.backend };
      } catch (err) {
        const e = err as ToolError;
        return { code: e.code, op: e.op, message: e.message, cause: (e.cause as Error | undefined)?.message };
      }
    };
    for (const [name, args] of [
      ['ok', { n: 1 }],
      ['ok', { n: 'x' }],
      ['async', { n: 1 }],
      ['stream', { n: 1 }],
      ['throws', { n: 1 }],
      ['badOutput', { n: 1 }],
      ['missing', { n: 1 }],
    ] as const) {
      const runner = createRunner({ index: indexWith([schemaTool, localBackend(name)]), local: handlers });
      const first = await outcome(runner.run('t', args));
      for (let i = 0; i < 3; i++) expect(await outcome(runner.run('t', args))).toEqual(first);
    }
  });

  it('case 18 (TS): failing input validation → VALIDATION, cause = the validator error, handler not called', async () => {
    const validator = new RecordingValidator();
    const inner = new ToolexecError('VALIDATION', 'validation error: bad input', {
      details: { violations: [{ code: 'RequiredMissing', field: '/x', message: 'm' }] },
    });
    validator.inputError = inner;
    const handler = vi.fn(() => 1);
    const err = (await rejectionOf(localRunner(handler, { validator }).run('t', {}))) as ToolError;
    expect(err.code).toBe('VALIDATION');
    expect(err.op).toBe('validate_input');
    expect(err.cause).toBe(inner);
    expect(err.details?.violations).toEqual(inner.details?.violations);
    expect(handler).not.toHaveBeenCalled();
  });

  it('case 21: failing output validation → OUTPUT_VALIDATION, op validate_output, no result', async () => {
    const validator = new RecordingValidator();
    const inner = new Error('wrong shape');
    validator.outputError = inner;
    const err = (await rejectionOf(localRunner(() => 1, { validator }).run('t', {}))) as ToolError;
    expect(err.code).toBe('OUTPUT_VALIDATION');
    expect(err.op).toBe('validate_output');
    expect(err.cause).toBe(inner);
    expect(err.message).toBe('run: validate_output t [local]: output validation error: wrong shape');
  });

  it('case 23: without an outputSchema, validateOutput is still called and the real validator passes', async () => {
    const validator = new RecordingValidator();
    await localRunner(() => 'anything', { validator }).run('t', {});
    expect(validator.outputCalls).toBe(1);
    const result = await localRunner(() => 'anything').run('t', {});
    expect(result.structured).toBe('anything');
  });

  it('cases 24–25 (TS): an executor error → EXECUTION with the original error as cause, tool ID and backend set', async () => {
    const mcp = new FakeMcpExecutor();
    const original = new Error('connection refused');
    mcp.error = original;
    const runner = createRunner({ index: indexWith([tool('m', { namespace: 'ns' }), mcpBackend('srv')]), mcp });
    const err = (await rejectionOf(runner.run('ns:m', {}))) as ToolError;
    expect(err.code).toBe('EXECUTION');
    expect(err.op).toBe('execute');
    expect(err.toolId).toBe('ns:m');
    expect(err.backend).toEqual(mcpBackend('srv'));
    expect(err.cause).toBe(original);
    expect(err.message).toBe('run: execute ns:m [mcp]: execution error: connection refused');
  });

  it('case 26 (TS, differs from Go): a handler error that is a library error stays reachable through cause', async () => {
    const inner = new ToolexecError('ABORTED', 'handler gave up');
    const err = await rejectionOf(localRunner(() => Promise.reject(inner)).run('t', {}));
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(inner);
    expect(hasErrorCode(err, 'ABORTED')).toBe(true);
  });

  it('case 27: an input validation message starts "run: validate_input <id> [<kind>]: validation error: "', async () => {
    const runner = createRunner({ index: indexWith([echoTool, localBackend('echo')]), local: { echo: () => ({ echoed: '' }) } });
    const err = await rejectionOf(runner.run('demo:echo', { message: 5 }));
    expect(err.message.startsWith('run: validate_input demo:echo [local]: validation error: ')).toBe(true);
    expect(err.message).toContain('/message');
    expect(err.details?.violations).toEqual([expect.objectContaining({ code: 'InvalidType', field: '/message' })]);
  });

  it('case 28: the real validator, a required message and {message:"hello"} → {echoed:"hello"}', async () => {
    const runner = createRunner({
      index: indexWith([echoTool, localBackend('echo')]),
      local: { echo: (args) => ({ echoed: args.message }) },
    });
    expect((await runner.run('demo:echo', { message: 'hello' })).structured).toEqual({ echoed: 'hello' });
  });

  it('case 29 (TS): undefined args reach the handler as {} (the handler type promises an object)', async () => {
    const handler = vi.fn((_args: Record<string, unknown>) => 1);
    await localRunner(handler, { validateInput: false, validateOutput: false }).run('t');
    expect(handler.mock.calls[0]?.[0]).toEqual({});
  });

  it('args are passed through as given, not copied', async () => {
    const args = { a: 1 };
    let seen: unknown;
    await localRunner((a) => {
      seen = a;
      return 1;
    }).run('t', args);
    expect(seen).toBe(args);
  });

  it('cases 30–31: MCP dispatch uses tool.name (not the ID) and the backend server name', async () => {
    const mcp = new FakeMcpExecutor();
    const runner = createRunner({ index: indexWith([tool('mytool', { namespace: 'myns' }), mcpBackend('server-1')]), mcp });
    await runner.run('myns:mytool', { q: 1 });
    expect(mcp.calls[0]?.serverName).toBe('server-1');
    expect(mcp.calls[0]?.params).toEqual({ name: 'mytool', arguments: { q: 1 } });
  });

  it('case 32: no MCP executor → EXECUTION "MCP executor not configured"', async () => {
    const runner = createRunner({ index: indexWith([tool('m'), mcpBackend('s')]) });
    const err = await rejectionOf(runner.run('m', {}));
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toContain('MCP executor not configured');
  });

  it('case 33: an MCP backend without its mcp part → "MCP backend missing server name"', async () => {
    const runner = createRunner({
      toolResolver: () => tool('m'),
      backendsResolver: () => [{ kind: 'mcp' } as unknown as ToolBackend],
      mcp: new FakeMcpExecutor(),
    });
    expect((await rejectionOf(runner.run('m'))).message).toContain('MCP backend missing server name');
  });

  it('case 34: an empty server name is passed on unchecked', async () => {
    const mcp = new FakeMcpExecutor();
    const runner = createRunner({ toolResolver: () => tool('m'), backendsResolver: () => [mcpBackend('')], mcp });
    await runner.run('m');
    expect(mcp.calls[0]?.serverName).toBe('');
  });

  it('case 35: provider dispatch passes exactly the backend provider and tool IDs', async () => {
    const provider = new FakeProviderExecutor();
    const runner = createRunner({ index: indexWith([tool('p', { namespace: 'ns' }), providerBackend('prov-1', 'remote-tool')]), provider });
    await runner.run('ns:p', { z: 1 });
    expect(provider.calls[0]).toMatchObject({ providerId: 'prov-1', toolId: 'remote-tool', args: { z: 1 } });
  });

  it('case 36: no provider executor → EXECUTION "provider executor not configured"', async () => {
    const runner = createRunner({ index: indexWith([tool('p'), providerBackend('a', 'b')]) });
    expect((await rejectionOf(runner.run('p'))).message).toContain('provider executor not configured');
  });

  it('case 37: a missing local handler → EXECUTION local handler "x" not found', async () => {
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('x')]), local: {} });
    const err = await rejectionOf(runner.run('t'));
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toBe('run: execute t [local]: execution error: local handler "x" not found');
  });

  it('case 38: a registry returning a non-function handler → not found', async () => {
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('x')]),
      local: { get: () => undefined },
    });
    expect((await rejectionOf(runner.run('t'))).message).toContain('local handler "x" not found');
    const record = createRunner({ index: indexWith([tool('t'), localBackend('x')]), local: { x: null as unknown as LocalHandler } });
    expect((await rejectionOf(record.run('t'))).message).toContain('local handler "x" not found');
  });

  it('record lookups use own properties only (no Object.prototype members)', async () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const runner = createRunner({ index: indexWith([tool('t'), localBackend(name)]), local: { echo: () => 1 } });
      expect((await rejectionOf(runner.run('t'))).message).toContain(`local handler "${name}" not found`);
    }
  });

  it('case 39: a handler error (sync throw or rejection) → EXECUTION with that error as cause', async () => {
    const boom = new Error('boom');
    const sync = await rejectionOf(
      localRunner(() => {
        throw boom;
      }).run('t', {}),
    );
    const async_ = await rejectionOf(
      localRunner(async () => {
        throw boom;
      }).run('t', {}),
    );
    for (const err of [sync, async_]) {
      expect(err.code).toBe('EXECUTION');
      expect(err.cause).toBe(boom);
      expect(err.message).toBe('run: execute t [local]: execution error: boom');
    }
    const thrownString = await rejectionOf(
      localRunner(() => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- a handler may throw anything
        throw 'plain string';
      }).run('t', {}),
    );
    expect(thrownString.cause).toBe('plain string');
  });

  it('case 40: an unknown backend kind → "unknown backend kind: unknown"', async () => {
    const runner = createRunner({ toolResolver: () => tool('t'), backendsResolver: () => [{ kind: 'unknown' } as unknown as ToolBackend] });
    const err = (await rejectionOf(runner.run('t'))) as ToolError;
    expect(err.message).toBe('run: execute t [unknown]: execution error: unknown backend kind: unknown');
  });

  it('case 41: no local registry → EXECUTION "local registry not configured"', async () => {
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]) });
    const err = await rejectionOf(runner.run('t'));
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toContain('local registry not configured');
  });

  it('case 42: an MCP executor resolving null → success, structured undefined, no mcpResult', async () => {
    const mcp = new FakeMcpExecutor();
    mcp.result = null;
    const runner = createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp });
    const result = await runner.run('m');
    expect(result.structured).toBeUndefined();
    expect(result.mcpResult).toBeUndefined();
  });

  it('case 72 (TS, differs from Go): an MCP result with isError is an EXECUTION error carrying the server text', async () => {
    const mcp = new FakeMcpExecutor();
    const raw = { content: [{ type: 'text' as const, text: 'boom' }], isError: true };
    mcp.result = raw;
    const validator = new RecordingValidator();
    const runner = createRunner({ index: indexWith([tool('m'), mcpBackend('s')]), mcp, validator });
    const err = (await rejectionOf(runner.run('m'))) as ToolError;
    expect(err.code).toBe('EXECUTION');
    expect(err.op).toBe('execute');
    expect(err.message).toBe('run: execute m [mcp]: execution error: boom');
    expect(err.details).toEqual({ isError: true, mcpResult: raw });
    expect(validator.outputCalls).toBe(0);
  });

  it('MCP text content is normalized and output validation runs on it', async () => {
    const mcp = new FakeMcpExecutor();
    mcp.result = { content: [{ type: 'text', text: '{"echoed":"x"}' }] };
    const runner = createRunner({ index: indexWith([echoTool, mcpBackend('s')]), mcp });
    expect((await runner.run('demo:echo', { message: 'x' })).structured).toEqual({ echoed: 'x' });
    mcp.result = { content: [{ type: 'text', text: '{"echoed":7}' }] };
    expect((await rejectionOf(runner.run('demo:echo', { message: 'x' }))).code).toBe('OUTPUT_VALIDATION');
  });

  it('a local handler returning an AsyncIterable: run resolves with the last chunk', async () => {
    const runner = localRunner(async function* () {
      yield 'a';
      yield 'b';
      yield { final: true };
    });
    expect((await runner.run('t', {})).structured).toEqual({ final: true });
    const failing = localRunner(async function* () {
      yield 1;
      throw new Error('mid-stream');
    });
    const err = await rejectionOf(failing.run('t', {}));
    expect(err.code).toBe('EXECUTION');
    expect((err.cause as Error).message).toBe('mid-stream');
    const promised = localRunner(async () =>
      (async function* () {
        yield 'only';
      })(),
    );
    expect((await promised.run('t', {})).structured).toBe('only');
  });

  it('a createLocalRegistry registry works and sees later registrations', async () => {
    const registry = createLocalRegistry();
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: registry });
    expect((await rejectionOf(runner.run('t'))).message).toContain('not found');
    registry.registerHandler('h', () => 'now');
    expect((await runner.run('t')).structured).toBe('now');
  });

  it('a record holding a tool named `get` beside others is a record, not a registry; a lone `get` reads as a registry literal', async () => {
    const seen: unknown[] = [];
    const runner = createRunner({
      index: indexWith([tool('echo'), localBackend('echo')], [tool('get'), localBackend('get')]),
      local: {
        get: (args: Record<string, unknown>) => {
          seen.push(args);
          return 'got';
        },
        echo: (args) => args.text,
      },
    });
    expect((await runner.run('echo', { text: 'hi' })).structured).toBe('hi');
    expect((await runner.run('get', { key: 'k' })).structured).toBe('got');
    expect(seen).toEqual([{ key: 'k' }]);
    const literal = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: { get: (name: string) => (name === 'h' ? () => 'h ran' : undefined) },
    });
    expect((await literal.run('t')).structured).toBe('h ran');
  });

  it('a local registry whose get throws → EXECUTION with that cause', async () => {
    const boom = new Error('registry down');
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        get: () => {
          throw boom;
        },
      },
    });
    const err = await rejectionOf(runner.run('t'));
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(boom);
  });

  it('the handler gets the tool ID and a signal', async () => {
    let ctxSeen: { toolId: string; signal: AbortSignal } | undefined;
    await localRunner((_a, ctx) => {
      ctxSeen = { toolId: ctx.toolId, signal: ctx.signal };
      return 1;
    }).run('t');
    expect(ctxSeen?.toolId).toBe('t');
    expect(ctxSeen?.signal).toBeInstanceOf(AbortSignal);
    expect(ctxSeen?.signal.aborted).toBe(false);
  });

  it('sees index changes right away (the resolution cache follows the index version)', async () => {
    const index = indexWith([tool('t'), localBackend('a')]);
    const runner = createRunner({ index, local: { a: () => 'a', b: () => 'b' } });
    expect((await runner.run('t')).structured).toBe('a');
    index.unregisterBackend('t', 'local', 'a');
    await rejectionOf(runner.run('t'));
    index.registerTool(tool('t'), localBackend('b'));
    expect((await runner.run('t')).structured).toBe('b');
  });

  it('rejects malformed per-call options with INVALID_ARGUMENT', async () => {
    const runner = localRunner(() => 1);
    expect((await rejectionOf(runner.run('t', {}, { timeoutMs: Number.NaN }))).code).toBe('INVALID_ARGUMENT');
    expect((await rejectionOf(runner.run('t', {}, { signal: {} as AbortSignal }))).code).toBe('INVALID_ARGUMENT');
    expect((await rejectionOf(runner.run('t', {}, { onProgress: 5 as unknown as () => void }))).code).toBe('INVALID_ARGUMENT');
  });

  it('a non-string tool ID → INVALID_TOOL_ID', async () => {
    const err = await rejectionOf(createRunner().run(42 as unknown as string));
    expect(err.code).toBe('INVALID_TOOL_ID');
  });
});
