import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createExec, type ExecOptions } from '../../src/exec/index.js';
import { errorStatus, hasErrorCode, mcpBackend } from '../../src/model/index.js';
import type { CallToolResult, McpExecutor, StreamEvent } from '../../src/run/index.js';
import type { McpServerConfig } from '../../src/mcp/index.js';
import { FIXTURE_TOOLS, MEDIA_CONTENT, createFixtureServer, type FixtureState } from '../fixtures/mcp/fixture-server.mjs';
import { startStreamableHttpFixture, type StreamableHttpFixture } from '../fixtures/mcp/http-server.mjs';
import { activeResources, expectNoLeakedResources, isProcessAlive, stdioFixture, waitUntil } from '../mcp/helpers.js';
import { collect, localTools, rejection, trackedExecs } from './helpers.js';

const exec = trackedExecs();

describe('createExec with an MCP server over stdio', () => {
  it("imports the server's tools (namespace = server name) before the first search, then runs them", async () => {
    const e = exec({ mcpServers: { fx: stdioFixture() } });
    const hits = await e.searchTools('echo text argument', 5);
    expect(hits.map((h) => h.id)).toContain('fx:echo');
    expect(await e.listNamespaces()).toEqual(['fx', 'math', 'test']);
    expect((await e.runTool('fx:echo', { text: 'over stdio' })).value).toBe('over stdio');
    const result = await e.runTool('fx:structured', { a: 2, b: 40 });
    expect(result).toEqual({
      value: { sum: 42 },
      content: [{ type: 'text', text: '{"sum":42}' }],
      toolId: 'fx:structured',
      durationMs: expect.any(Number),
    });
    expect((await e.getToolDoc('fx:structured', 'schema')).summary).toContain('Adds a and b');
  });

  it("validates arguments against the server's schema before sending, and surfaces isError and bad output", async () => {
    const e = exec({ mcpServers: { fx: stdioFixture() } });
    const stats = async (): Promise<{ calls: number; pid: number }> =>
      (await e.runTool('fx:stats')).value as { calls: number; pid: number };
    const before = (await stats()).calls;
    const invalid = await rejection(e.runTool('fx:structured', { a: 'two', b: 1 }));
    expect(invalid.code).toBe('VALIDATION');
    expect(invalid.details?.violations).toEqual([expect.objectContaining({ field: '/a' })]);
    expect((await stats()).calls).toBe(before + 1);
    expect((await rejection(e.runTool('fx:fail', { reason: 'bad day' }))).code).toBe('EXECUTION');
    expect((await rejection(e.runTool('fx:bad_output'))).code).toBe('OUTPUT_VALIDATION');
  });

  it('an MCP call in flight when the facade closes rejects with CONNECTION_CLOSED (503), as later calls do', async () => {
    const e = exec({ mcpServers: { fx: stdioFixture() } });
    expect((await e.connect()).fx?.state).toBe('connected');
    const inFlight = rejection(e.runTool('fx:hang'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await e.close();
    const err = await inFlight;
    expect(err).toMatchObject({ code: 'CONNECTION_CLOSED', details: { serverName: 'fx' } });
    expect(errorStatus(err)).toBe(503);
    expect((await rejection(e.runTool('fx:echo', { text: 'x' }))).code).toBe('CONNECTION_CLOSED');
  });

  it('applies the default deadline to MCP calls and chains local and MCP steps', async () => {
    const e = exec({ mcpServers: { fx: stdioFixture() }, defaultTimeoutMs: 300 });
    // the 300 ms are for the calls, not for starting the server (slow on a loaded machine)
    expect((await e.connect()).fx?.state).toBe('connected');
    const started = performance.now();
    expect((await rejection(e.runTool('fx:hang'))).code).toBe('TIMEOUT');
    expect(performance.now() - started).toBeLessThan(3_000);
    const { result, steps } = await e.runChain([
      { toolId: 'fx:structured', args: { a: 1, b: 2 } },
      { toolId: 'fx:fail', stopOnError: false },
      { toolId: 'fx:echo', args: { text: 'end' } },
    ]);
    expect(steps.map((s) => [s.toolId, s.value, s.error?.code])).toEqual([
      ['fx:structured', { sum: 3 }, undefined],
      ['fx:fail', undefined, 'EXECUTION'],
      ['fx:echo', 'end', undefined],
    ]);
    expect(result.value).toBe('end');
  });

  it('keeps every content block a tool sent (text, image, audio, resource, resource_link) in Result.content, JSON-safe', async () => {
    const e = exec({ mcpServers: { fx: stdioFixture() } });
    const result = await e.runTool('fx:media');
    expect(result.value).toBe('a red pixel and friends');
    expect(result.content).toEqual(MEDIA_CONTENT);
    expect(JSON.parse(JSON.stringify(result.content))).toEqual(MEDIA_CONTENT);
    // A local tool's result has no content.
    expect('content' in (await e.runTool('math:add', { a: 1, b: 2 }))).toBe(false);
    // A snippet reaches the same blocks through the raw MCP result.
    const run = await e.executeCode({
      code: 'const r = await tools.runTool("fx:media"); return r.mcpResult?.content?.map((b) => b.type) ?? null',
    });
    expect(run.value).toEqual(MEDIA_CONTENT.map((block) => block.type));
  });

  it('streams MCP progress, then done', async () => {
    const e = exec({ mcpServers: { fx: stdioFixture() } });
    const { items, error } = await collect(e.runToolStream('fx:progress', { steps: 3, delayMs: 5 }));
    expect(error).toBeUndefined();
    // started, the server's three notifications, completed (docs/architecture.md, "Progress").
    const progress = items.filter((i: StreamEvent) => i.kind === 'progress');
    expect(progress).toHaveLength(5);
    expect(progress.at(0)?.data).toEqual({ progress: 0, total: 1, message: 'started' });
    expect(progress.at(-1)?.data).toEqual({ progress: 1, total: 1, message: 'completed' });
    expect(items.at(-1)).toMatchObject({ kind: 'done', toolId: 'fx:progress', data: 'done 3' });
  });

  it("passes mcpOptions to its MCP executor: requestTimeoutMs, and alwaysRequestProgress keeping a silent caller's call alive", async () => {
    // 6 progress reports 100 ms apart under a 350 ms request timeout, with a 10 s deadline on the call.
    // The server is in memory, so that connecting fits in 350 ms however busy the machine is.
    const inMemory = (): McpServerConfig => ({
      transport: 'custom',
      createTransport: async () => {
        const [client, server] = InMemoryTransport.createLinkedPair();
        await createFixtureServer().server.connect(server);
        return client;
      },
    });
    const slowWithProgress = ['fx:progress', { steps: 6, delayMs: 100 }, { timeoutMs: 10_000 }] as const;
    const plain = exec({ mcpServers: { fx: inMemory() }, mcpOptions: { requestTimeoutMs: 350 } });
    // The executor's own TIMEOUT stays a TIMEOUT through the run layer, with its message.
    const error = await rejection(plain.runTool(...slowWithProgress));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('did not ask for progress');
    // Listening asks for progress, which keeps the call alive.
    expect(
      (await plain.runTool(slowWithProgress[0], slowWithProgress[1], { ...slowWithProgress[2], onProgress: () => undefined })).value,
    ).toBe('done 6');
    const changed: string[] = [];
    const keepAlive = exec({
      mcpServers: { fx: inMemory() },
      mcpOptions: { requestTimeoutMs: 350, alwaysRequestProgress: true, onToolsListChanged: (name) => changed.push(name) },
    });
    expect((await keepAlive.runTool(...slowWithProgress)).value).toBe('done 6');
    // Bad executor options are refused when the facade is created.
    expect(() => createExec({ mcpServers: { fx: stdioFixture() }, mcpOptions: { requestTimeoutMs: -1 } })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining('requestTimeoutMs') }),
    );
    expect(() => createExec({ mcpOptions: { servers: {} } as never })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining('mcpOptions') }),
    );
    expect(changed).toEqual([]);
  });

  it('lets a code-mode snippet in the WASM sandbox call the MCP tools', async () => {
    const e = exec({ mcpServers: { fx: stdioFixture() } });
    const result = await e.executeCode({
      code: `
        const [hit] = await tools.searchTools('structured sum', 1);
        const r = await tools.runTool(hit.id, { a: 20, b: 22 });
        return { id: hit.id, sum: r.structured.sum };`,
    });
    expect(result.value).toEqual({ id: 'fx:structured', sum: 42 });
    expect(result.backend?.kind).toBe('wasm');
    expect(result.toolCalls).toMatchObject([{ toolId: 'fx:structured', backendKind: 'mcp' }]);
  });

  it('close() ends the server process and leaves no handle, timer or worker behind', async () => {
    const baseline = activeResources();
    const e = createExec({ tools: localTools().tools, mcpServers: { fx: stdioFixture() } });
    const { pid } = (await e.runTool('fx:stats')).value as { pid: number };
    expect(isProcessAlive(pid)).toBe(true);
    await e.executeCode({ code: 'return (await tools.runTool("math:add", { a: 1, b: 2 })).structured' });
    await e.runTool('math:add', { a: 1, b: 1 });
    await e.close();
    expect(await waitUntil(() => !isProcessAlive(pid))).toBe(true);
    await expectNoLeakedResources(baseline);
  });
});

describe('createExec with an MCP server over Streamable HTTP', () => {
  let http: StreamableHttpFixture;
  beforeAll(async () => {
    http = await startStreamableHttpFixture();
  });
  afterAll(async () => {
    await http.close();
  });

  it('imports and runs the remote tools, and closes the session', async () => {
    const e = createExec({ mcpServers: { remote: { transport: 'http', url: http.url } } });
    const hits = await e.searchTools('structured', 3);
    expect(hits[0]?.id).toBe('remote:structured');
    expect((await e.runTool('remote:structured', { a: 5, b: 6 })).value).toEqual({ sum: 11 });
    expect((await e.runTool('remote:echo', { text: 'over http' })).value).toBe('over http');
    expect(http.sessionCount()).toBe(1);
    await e.close();
    expect(await waitUntil(() => http.sessionCount() === 0)).toBe(true);
    expect((await rejection(e.runTool('remote:echo', { text: 'x' }))).code).toBe('CONNECTION_CLOSED');
  });
});

describe('lazy MCP import', () => {
  /** A real fixture server over an in-memory transport whose first `failures` connections fail. */
  function flaky(failures: number): {
    config: NonNullable<ExecOptions['mcpServers']>[string];
    connections: () => number;
    state: FixtureState;
  } {
    let attempts = 0;
    const state: FixtureState = { calls: 0, cancelled: 0, children: [] };
    return {
      state,
      connections: () => attempts,
      config: {
        transport: 'custom',
        createTransport: async () => {
          attempts++;
          if (attempts <= failures) throw new Error(`connection refused (attempt ${attempts})`);
          const [client, server] = InMemoryTransport.createLinkedPair();
          await createFixtureServer({ state }).server.connect(server);
          return client;
        },
      },
    };
  }

  it('connects on the first call, not at construction, and shares one import between concurrent calls', async () => {
    const fx = flaky(0);
    const e = exec({ mcpServers: { mem: fx.config } });
    expect(fx.connections()).toBe(0);
    const [a, b, c] = await Promise.all([e.searchTools('echo', 3), e.runTool('mem:echo', { text: 'x' }), e.listNamespaces()]);
    expect(a.map((h) => h.id)).toContain('mem:echo');
    expect(b.value).toBe('x');
    expect(c).toContain('mem');
    expect(fx.connections()).toBe(1);
  });

  it('a failed connection fails only its own tools: SERVER_UNAVAILABLE during the backoff, a fresh attempt after it', async () => {
    const fx = flaky(1);
    const e = exec({ mcpServers: { mem: fx.config }, mcpReconnect: { initialDelayMs: 200 } });
    // The local tool works at once: it does not wait for, or fail with, the server.
    expect((await e.runTool('math:add', { a: 1, b: 1 })).value).toBe(2);
    expect(await waitUntil(() => e.serverStatus().mem?.state === 'failed')).toBe(true);
    const error = await rejection(e.runTool('mem:echo', { text: 'too soon' }));
    expect(error.code).toBe('SERVER_UNAVAILABLE');
    expect(error.details).toMatchObject({ server: 'mem', toolId: 'mem:echo' });
    expect(error.message).toContain('connection refused (attempt 1)');
    expect(error.cause).toBe(e.serverStatus().mem?.error);
    // The failure was not retried by that call (no attempt on every call)...
    expect(fx.connections()).toBe(1);
    // ...but is after the backoff, and the call waits for that attempt.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await e.runTool('mem:echo', { text: 'second try' })).value).toBe('second try');
    expect(fx.connections()).toBe(2);
    expect(e.serverStatus().mem).toMatchObject({ state: 'connected', toolCount: FIXTURE_TOOLS.length });
  });

  it('servers fail alone: search lists what the working ones offer, and each failure is in serverStatus()', async () => {
    const good = flaky(0);
    const bad1 = flaky(1);
    const bad2 = flaky(1);
    const e = exec({ mcpServers: { good: good.config, bad1: bad1.config, bad2: bad2.config } });
    const hits = await e.searchTools('echo');
    expect(hits.map((h) => h.id)).toContain('good:echo');
    expect(hits.map((h) => h.id).filter((id) => id.startsWith('bad'))).toEqual([]);
    expect(await e.listNamespaces()).toEqual(['good', 'math', 'test']);
    const status = e.serverStatus();
    expect(status.good).toMatchObject({ state: 'connected', toolCount: FIXTURE_TOOLS.length });
    for (const name of ['bad1', 'bad2']) {
      expect(status[name]).toMatchObject({ state: 'failed', toolCount: 0, error: { code: 'EXECUTION' } });
      expect(status[name]?.error?.message).toContain('connection refused');
    }
    expect(good.connections()).toBe(1);
  });

  it('re-imports a server after it announces tools/list_changed', async () => {
    const fx = flaky(0);
    const e = exec({ mcpServers: { mem: fx.config } });
    expect((await e.searchTools('fresh_tool')).map((h) => h.id)).not.toContain('mem:fresh_tool');
    await e.runTool('mem:add_tool', { name: 'fresh_tool' });
    expect(await waitUntil(async () => (await e.searchTools('fresh_tool')).some((h) => h.id === 'mem:fresh_tool'))).toBe(true);
    expect((await e.runTool('mem:fresh_tool')).value).toBe('hello from fresh_tool');
  });

  it("routes servers it does not own to the caller's own MCP executor", async () => {
    const fx = flaky(0);
    const calls: string[] = [];
    const own: McpExecutor = {
      async callTool(serverName, params): Promise<CallToolResult> {
        calls.push(`${serverName}/${params.name}`);
        return { content: [{ type: 'text', text: 'from my executor' }] };
      },
    };
    const e = exec({ mcpServers: { mem: fx.config }, mcp: own });
    e.index.registerTool({ name: 'lookup', namespace: 'mine', inputSchema: { type: 'object' } }, mcpBackend('mine'));
    expect((await e.runTool('mine:lookup')).value).toBe('from my executor');
    expect((await e.runTool('mem:echo', { text: 'owned' })).value).toBe('owned');
    expect(calls).toEqual(['mine/lookup']);
    const { error } = await collect(e.runToolStream('mine:lookup'));
    expect(hasErrorCode(error, 'STREAM_NOT_SUPPORTED')).toBe(true);
  });
});
