import { describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { hasErrorCode, providerBackend, type Tool } from '../../src/model/index.js';
import { createRunner, type ProgressEvent, type StreamEvent } from '../../src/run/index.js';
import { createFakeMcpExecutor, createFakeProviderExecutor } from '../../src/testing/executor-doubles.js';

const objectSchema = { type: 'object' } as const;

describe('createFakeMcpExecutor', () => {
  const setup = () => {
    const mcp = createFakeMcpExecutor({
      files: {
        read: ({ path }) => ({ text: `contents of ${String(path)}` }),
        plain: () => 'just text',
        slow: (_args, ctx) =>
          new Promise((resolve) => {
            ctx.progress({ progress: 1, total: 2, message: 'half' });
            setTimeout(() => resolve({ done: true }), 50);
          }),
        hang: () => new Promise(() => undefined),
        broken: () => {
          throw new Error('disk on fire');
        },
        raw: () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }),
      },
    });
    const index = createToolIndex();
    const tools: Tool[] = ['read', 'plain', 'slow', 'hang', 'broken', 'raw', 'missing'].map((name) => ({
      name,
      inputSchema: objectSchema,
    }));
    index.registerToolsFromMcp('files', tools);
    return { mcp, runner: createRunner({ index, mcp }) };
  };

  it('serves scripted tools to the runner and records each call', async () => {
    const { mcp, runner } = setup();
    const result = await runner.run('files:read', { path: '/a' });
    expect(result.structured).toEqual({ text: 'contents of /a' });
    expect(result.mcpResult?.structuredContent).toEqual({ text: 'contents of /a' });
    expect((await runner.run('files:plain')).structured).toBe('just text');
    expect(mcp.calls).toEqual([
      { target: 'files', tool: 'read', args: { path: '/a' }, outcome: 'ok' },
      { target: 'files', tool: 'plain', args: {}, outcome: 'ok' },
    ]);
  });

  it('reports progress between started and completed', async () => {
    const { runner } = setup();
    const events: ProgressEvent[] = [];
    await runner.run('files:slow', {}, { onProgress: (p) => events.push(p) });
    expect(events.map((e) => e.message)).toEqual(['started', 'half', 'completed']);
  });

  it('turns failures into the codes real executors give', async () => {
    const { mcp, runner } = setup();
    await expect(runner.run('files:broken')).rejects.toSatisfy((err) => hasErrorCode(err, 'EXECUTION'));
    await expect(runner.run('files:raw')).rejects.toThrow(/nope/);
    await expect(runner.run('files:missing')).rejects.toThrow(/unknown tool: missing/);
    await expect(mcp.callTool('elsewhere', { name: 'x' })).rejects.toSatisfy((err) => hasErrorCode(err, 'CONFIGURATION'));
  });

  it('records a call to a tool the server does not have, with the answer it got, as it records the others', async () => {
    const { mcp, runner } = setup();
    await expect(runner.run('files:missing', { path: '/x' })).rejects.toThrow(/unknown tool: missing/);
    await expect(mcp.callTool('files', { name: 'made_up', arguments: { q: 1 } })).resolves.toEqual({
      content: [{ type: 'text', text: 'unknown tool: made_up' }],
      isError: true,
    });
    await expect(runner.run('files:broken')).rejects.toThrow(/disk on fire/);
    expect(mcp.calls).toEqual([
      { target: 'files', tool: 'missing', args: { path: '/x' }, outcome: 'error', error: 'unknown tool: missing' },
      { target: 'files', tool: 'made_up', args: { q: 1 }, outcome: 'error', error: 'unknown tool: made_up' },
      { target: 'files', tool: 'broken', args: {}, outcome: 'error', error: 'disk on fire' },
    ]);
    // a test can tell that the model tried a tool that does not exist
    expect(mcp.calls.filter((call) => call.error?.startsWith('unknown tool:')).map((call) => call.tool)).toEqual(['missing', 'made_up']);
  });

  it('records a call to a server it does not have, with the rejection, which stays CONFIGURATION', async () => {
    const { mcp } = setup();
    const error: unknown = await mcp.callTool('elsewhere', { name: 'x', arguments: { a: 1 } }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(hasErrorCode(error, 'CONFIGURATION'), String(error)).toBe(true);
    const message = 'testing: Unknown MCP server "elsewhere"; configured: "files"';
    expect((error as Error).message).toBe(message);
    // a stream to it is recorded the same way
    const events: StreamEvent[] = [];
    const streamed = (async () => {
      for await (const event of mcp.callToolStream('nowhere', { name: 'y' })) events.push(event);
    })();
    await expect(streamed).rejects.toSatisfy((err) => hasErrorCode(err, 'CONFIGURATION'));
    expect(events).toEqual([]);
    expect(mcp.calls).toEqual([
      { target: 'elsewhere', tool: 'x', args: { a: 1 }, outcome: 'error', error: message },
      {
        target: 'nowhere',
        tool: 'y',
        // read as the real executor reads params: no arguments are {}
        args: {},
        outcome: 'error',
        error: 'testing: Unknown MCP server "nowhere"; configured: "files"',
      },
    ]);
  });

  it('records a runner call bound to a server it does not have among the others', async () => {
    const mcp = createFakeMcpExecutor({ files: { read: () => 'text' } });
    const index = createToolIndex();
    index.registerToolsFromMcp('files', [{ name: 'read', inputSchema: objectSchema }]);
    index.registerToolsFromMcp('ghost', [{ name: 'haunt', inputSchema: objectSchema }]);
    const runner = createRunner({ index, mcp });
    await runner.run('files:read');
    // the runner reports any rejection of the executor as EXECUTION, the double's CONFIGURATION as its cause
    const error: unknown = await runner.run('ghost:haunt', { loud: true }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((error as { code?: unknown }).code).toBe('EXECUTION');
    expect(hasErrorCode(error, 'CONFIGURATION')).toBe(true);
    expect(mcp.calls).toEqual([
      { target: 'files', tool: 'read', args: {}, outcome: 'ok' },
      {
        target: 'ghost',
        tool: 'haunt',
        args: { loud: true },
        outcome: 'error',
        error: 'testing: Unknown MCP server "ghost"; configured: "files"',
      },
    ]);
  });

  it('fails a scripted value that is not JSON with CONFIGURATION, recorded as an error', async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const mcp = createFakeMcpExecutor({ s: { big: () => ({ n: 10n }), cycle: () => cycle, fn: () => () => 1 } });
    for (const name of ['big', 'cycle', 'fn']) {
      const error: unknown = await mcp.callTool('s', { name }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(hasErrorCode(error, 'CONFIGURATION'), String(error)).toBe(true);
      expect((error as Error).message).toContain(`testing: the scripted MCP tool "s/${name}" returned a value that is not JSON`);
    }
    expect(mcp.calls.map((call) => call.outcome)).toEqual(['error', 'error', 'error']);
    // undefined stays an empty result
    const empty = createFakeMcpExecutor({ s: { none: () => undefined } });
    await expect(empty.callTool('s', { name: 'none' })).resolves.toEqual({ content: [] });
  });

  it('honours abort and timeout', async () => {
    const { mcp, runner } = setup();
    await expect(runner.run('files:hang', {}, { timeoutMs: 30 })).rejects.toSatisfy((err) => hasErrorCode(err, 'TIMEOUT'));
    const controller = new AbortController();
    const pending = runner.run('files:hang', {}, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toSatisfy((err) => hasErrorCode(err, 'ABORTED'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(mcp.calls.map((call) => call.outcome)).toEqual(['aborted', 'aborted']);
  });

  it('honours timeoutMs and deadline given to it directly, as the real executors do, and refuses bad ones', async () => {
    const { mcp } = setup();
    const startedMs = Date.now();
    await expect(mcp.callTool('files', { name: 'hang' }, { timeoutMs: 30 })).rejects.toSatisfy((err) => hasErrorCode(err, 'TIMEOUT'));
    await expect(mcp.callTool('files', { name: 'hang' }, { deadline: Date.now() + 30 })).rejects.toSatisfy((err) =>
      hasErrorCode(err, 'TIMEOUT'),
    );
    expect(Date.now() - startedMs).toBeLessThan(2_000);
    // a deadline already past: TIMEOUT before the script runs
    let ran = false;
    const once = createFakeMcpExecutor({ s: { t: () => (ran = true) } });
    await expect(once.callTool('s', { name: 't' }, { deadline: new Date(Date.now() - 1) })).rejects.toSatisfy((err) =>
      hasErrorCode(err, 'TIMEOUT'),
    );
    expect(ran).toBe(false);
    // the script's ctx.signal aborts when the time is up
    let seen: unknown;
    const watched = createFakeMcpExecutor({
      s: {
        t: (_args, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => resolve((seen = (ctx.signal.reason as Error).name)));
          }),
      },
    });
    await expect(watched.callTool('s', { name: 't' }, { timeoutMs: 20 })).rejects.toSatisfy((err) => hasErrorCode(err, 'TIMEOUT'));
    expect(seen).toBe('TimeoutError');
    for (const bad of [{ timeoutMs: -1 }, { timeoutMs: 'soon' }, { deadline: 'tomorrow' }, { signal: 'stop' }]) {
      await expect(mcp.callTool('files', { name: 'read' }, bad as never), JSON.stringify(bad)).rejects.toSatisfy((err) =>
        hasErrorCode(err, 'INVALID_ARGUMENT'),
      );
    }
    expect(mcp.calls.slice(0, 2).map((call) => call.outcome)).toEqual(['aborted', 'aborted']);
    expect(mcp.calls.slice(2).map((call) => call.outcome)).toEqual(['error', 'error', 'error', 'error']);
    // a stream keeps them too
    const provider = createFakeProviderExecutor({ p: { slow: () => new Promise(() => undefined) } });
    const stream = provider.callToolStream('p', 'slow', {}, { timeoutMs: 20 });
    await expect(
      (async () => {
        for await (const event of stream) void event;
      })(),
    ).rejects.toSatisfy((err) => hasErrorCode(err, 'TIMEOUT'));
  });

  it('a scripted array is a text result, as any JSON value that is not an object (structuredContent is an object)', async () => {
    const mcp = createFakeMcpExecutor({ s: { list: () => [1, 2] } });
    const result = await mcp.callTool('s', { name: 'list' });
    expect(result).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
    const index = createToolIndex();
    index.registerToolsFromMcp('s', [{ name: 'list', inputSchema: objectSchema }]);
    expect((await createRunner({ index, mcp }).run('s:list')).structured).toEqual([1, 2]);
    expect(mcp.calls.map((call) => call.outcome)).toEqual(['ok', 'ok']);
  });

  it('reads its params as the real executor does: bad ones reject with INVALID_ARGUMENT, never a synchronous TypeError', async () => {
    const mcp = createFakeMcpExecutor({ s: { echo: (args) => args } });
    for (const params of [null, undefined, 5, { name: '' }, { name: 'echo', arguments: [1] }]) {
      const call = mcp.callTool('s', params as never);
      await expect(call).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      const stream = mcp.callToolStream('s', params as never);
      await expect(stream[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    await expect(mcp.callTool('s', null as never)).rejects.toThrow('params must be an object with a tool name, got null');
    expect(mcp.calls).toEqual([]);
  });

  it('streams progress then done', async () => {
    const { runner } = setup();
    const events: StreamEvent[] = [];
    for await (const event of runner.runStream('files:slow')) events.push(event);
    expect(events.map((e) => e.kind)).toEqual(['progress', 'done']);
    expect(events[1]?.data).toEqual({ done: true });
    expect(events.every((e) => e.toolId === 'files:slow')).toBe(true);
  });
});

describe('createFakeProviderExecutor', () => {
  it('serves provider tools by provider and tool ID', async () => {
    const provider = createFakeProviderExecutor({ weather: { 'forecast.v1': ({ city }) => ({ city, tempC: 21 }) } });
    const index = createToolIndex();
    index.registerTool({ name: 'forecast', namespace: 'weather', inputSchema: objectSchema }, providerBackend('weather', 'forecast.v1'));
    const runner = createRunner({ index, provider });
    expect((await runner.run('weather:forecast', { city: 'Oslo' })).structured).toEqual({ city: 'Oslo', tempC: 21 });
    expect(provider.calls).toEqual([{ target: 'weather', tool: 'forecast.v1', args: { city: 'Oslo' }, outcome: 'ok' }]);
    await expect(provider.callTool('weather', 'nope', {})).rejects.toSatisfy((err) => hasErrorCode(err, 'CONFIGURATION'));
    const events: StreamEvent[] = [];
    for await (const event of runner.runStream('weather:forecast', { city: 'Rome' })) events.push(event);
    expect(events).toEqual([{ kind: 'done', data: { city: 'Rome', tempC: 21 }, toolId: 'weather:forecast' }]);
  });

  it('records a call to a tool or a provider it does not have, rejecting with CONFIGURATION', async () => {
    const provider = createFakeProviderExecutor({ weather: { 'forecast.v1': () => ({ tempC: 21 }) }, maps: {} });
    const errors: unknown[] = [];
    for (const [providerId, toolId] of [
      ['weather', 'nope'],
      ['maps', 'route'],
      ['stocks', 'quote'],
    ] as const) {
      errors.push(
        await provider.callTool(providerId, toolId, { q: toolId }).then(
          () => undefined,
          (err: unknown) => err,
        ),
      );
    }
    expect(errors.every((err) => hasErrorCode(err, 'CONFIGURATION'))).toBe(true);
    const messages = [
      'testing: provider "weather" has no tool "nope" (known: forecast.v1)',
      'testing: provider "maps" has no tool "route" (known: none)',
      'testing: no provider named "stocks" (known: weather, maps)',
    ];
    expect(errors.map((err) => (err as Error).message)).toEqual(messages);
    expect(provider.calls).toEqual([
      { target: 'weather', tool: 'nope', args: { q: 'nope' }, outcome: 'error', error: messages[0] },
      { target: 'maps', tool: 'route', args: { q: 'route' }, outcome: 'error', error: messages[1] },
      { target: 'stocks', tool: 'quote', args: { q: 'quote' }, outcome: 'error', error: messages[2] },
    ]);
  });

  it('records a runner call, or a stream, bound to a tool it does not have among the others', async () => {
    const provider = createFakeProviderExecutor({ weather: { 'forecast.v1': ({ city }) => ({ city, tempC: 21 }) } });
    const index = createToolIndex();
    index.registerTool({ name: 'forecast', namespace: 'weather', inputSchema: objectSchema }, providerBackend('weather', 'forecast.v1'));
    index.registerTool({ name: 'outlook', namespace: 'weather', inputSchema: objectSchema }, providerBackend('weather', 'outlook.v2'));
    const runner = createRunner({ index, provider });
    await runner.run('weather:forecast', { city: 'Oslo' });
    // as for any rejection of a provider executor, the runner fails the call with EXECUTION, the double's CONFIGURATION as cause
    const error: unknown = await runner.run('weather:outlook', { city: 'Rome' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((error as { code?: unknown }).code).toBe('EXECUTION');
    expect(hasErrorCode(error, 'CONFIGURATION')).toBe(true);
    const streamed = (async () => {
      for await (const event of runner.runStream('weather:outlook', { city: 'Lima' })) void event;
    })();
    await expect(streamed).rejects.toSatisfy((err) => hasErrorCode(err, 'CONFIGURATION'));
    const missing = 'testing: provider "weather" has no tool "outlook.v2" (known: forecast.v1)';
    expect(provider.calls).toEqual([
      { target: 'weather', tool: 'forecast.v1', args: { city: 'Oslo' }, outcome: 'ok' },
      { target: 'weather', tool: 'outlook.v2', args: { city: 'Rome' }, outcome: 'error', error: missing },
      { target: 'weather', tool: 'outlook.v2', args: { city: 'Lima' }, outcome: 'error', error: missing },
    ]);
    // a test can tell which calls missed
    expect(provider.calls.filter((call) => call.outcome === 'error').map((call) => call.tool)).toEqual(['outlook.v2', 'outlook.v2']);
  });
});
