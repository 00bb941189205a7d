import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExec, type DefaultExec, type ExecOptions, type ServerStatus } from '../../src/exec/index.js';
import { FIXTURE_TOOLS } from '../fixtures/mcp/fixture-server.mjs';
import { type UnauthorizedFixture, startUnauthorizedFixture } from '../fixtures/mcp/http-server.mjs';
import { isProcessAlive, misbehavingFixture, stdioFixture, waitUntil } from '../mcp/helpers.js';
import { localTools, rejection } from './helpers.js';

let unauthorized: UnauthorizedFixture;
const open: DefaultExec[] = [];
/** Server process IDs, read from what the fixtures print on stderr. */
const pids = new Set<number>();

function exec(options: ExecOptions): DefaultExec {
  const instance = createExec({
    tools: localTools().tools,
    ...options,
    mcpOptions: {
      onStderr: (_name, text) => {
        for (const match of text.matchAll(/pid (\d+)/g)) pids.add(Number(match[1]));
      },
      ...options.mcpOptions,
    },
  });
  open.push(instance);
  return instance;
}

beforeAll(async () => {
  unauthorized = await startUnauthorizedFixture();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
  // No orphan: every server process the test started is gone after close().
  for (const pid of pids) expect(await waitUntil(() => !isProcessAlive(pid)), `process ${pid}`).toBe(true);
  pids.clear();
});
afterAll(async () => {
  await unauthorized.close();
});

const since = (start: number): number => performance.now() - start;

describe('every MCP server fails alone', () => {
  it('servers that cannot start, hang at initialize, write garbage or answer 401 do not stop local tools, a working server, search or code mode', async () => {
    const events: [string, ServerStatus['state']][] = [];
    const e = exec({
      mcpServers: {
        good: stdioFixture(),
        broken: stdioFixture({ FIXTURE_FAIL_START: 'no config file' }),
        missing: { command: '/nonexistent/mcp-server' },
        silent: misbehavingFixture('hang'),
        noisy: misbehavingFixture('garbage'),
        locked: { url: unauthorized.url },
      },
      mcpOptions: { connectTimeoutMs: 2000 },
      mcpReconnect: { initialDelayMs: 60_000 },
      onServerStatus: (name, status) => events.push([name, status.state]),
    });

    // A local call runs at once, whatever the servers do.
    let started = performance.now();
    expect((await e.runTool('math:add', { a: 1, b: 2 }, { timeoutMs: 1000 })).value).toBe(3);
    expect(since(started)).toBeLessThan(500);

    // A call for the hanging server's tool waits for it only as long as the call allows.
    started = performance.now();
    const timedOut = await rejection(e.runTool('silent:echo', { text: 'x' }, { timeoutMs: 1000 }));
    expect(timedOut.code).toBe('TIMEOUT');
    expect(since(started)).toBeGreaterThan(900);
    expect(since(started)).toBeLessThan(1900);

    // Search waits for the first attempts (each bounded by connectTimeoutMs), then finds what works.
    started = performance.now();
    const ids = (await e.searchTools('echo', 50)).map((hit) => hit.id);
    expect(since(started)).toBeLessThan(4000);
    expect(ids).toContain('good:echo');
    expect(ids.filter((id) => !id.startsWith('good:') && !id.startsWith('math:') && !id.startsWith('test:'))).toEqual([]);
    expect(await e.listNamespaces()).toEqual(['good', 'math', 'test']);

    const status = e.serverStatus();
    expect(status.good).toMatchObject({ state: 'connected', toolCount: FIXTURE_TOOLS.length });
    expect(status.broken).toMatchObject({ state: 'failed', toolCount: 0, error: { code: 'EXECUTION', details: { exitCode: 2 } } });
    expect(status.broken?.error?.message).toContain('refusing to start: no config file');
    expect(status.missing?.error?.message).toContain('ENOENT');
    expect(status.silent).toMatchObject({ state: 'failed', error: { code: 'TIMEOUT', details: { transport: 'stdio' } } });
    expect(status.noisy).toMatchObject({ state: 'failed', error: { code: 'TIMEOUT', details: { transportError: expect.any(String) } } });
    expect(status.locked).toMatchObject({ state: 'failed', error: { code: 'EXECUTION', details: { transport: 'http', httpStatus: 401 } } });
    for (const name of ['good', 'broken', 'missing', 'silent', 'noisy', 'locked']) {
      // Each starts `connecting` (serverStatus() says so before the first use): one event each.
      expect(events.filter(([n]) => n === name).map(([, state]) => state)).toEqual([name === 'good' ? 'connected' : 'failed']);
    }

    // A tool of a failed server: SERVER_UNAVAILABLE at once, naming the server, its connect error as cause.
    for (const name of ['broken', 'missing', 'silent', 'noisy', 'locked']) {
      started = performance.now();
      const error = await rejection(e.runTool(`${name}:echo`, { text: 'x' }));
      expect(since(started)).toBeLessThan(200);
      expect(error.code).toBe('SERVER_UNAVAILABLE');
      expect(error.details).toMatchObject({ server: name, toolId: `${name}:echo` });
      expect(error.cause).toBe(status[name]?.error);
      expect(error.message).toContain(`last error: ${status[name]?.error?.message}`);
    }
    // Its doc is not "not found" either: the server is down, as a call of the tool says.
    const doc = await rejection(e.getToolDoc('broken:echo'));
    expect(doc.code).toBe('SERVER_UNAVAILABLE');
    expect(doc.details).toMatchObject({ server: 'broken', toolId: 'broken:echo' });
    expect(doc.cause).toBe(status.broken?.error);
    // a working server's unknown tool, and an ID in no server's namespace, stay TOOL_NOT_FOUND
    expect((await rejection(e.getToolDoc('good:nope'))).code).toBe('TOOL_NOT_FOUND');
    expect((await rejection(e.getToolDoc('nowhere:echo'))).code).toBe('TOOL_NOT_FOUND');
    // No new attempt was made for those calls (the backoff is a minute).
    expect(events).toHaveLength(6);

    expect((await e.runTool('good:echo', { text: 'still here' })).value).toBe('still here');
    const run = await e.executeCode({
      code: `
        const sum = await tools.runTool('math:add', { a: 2, b: 3 });
        const echo = await tools.runTool('good:echo', { text: 'from a snippet' });
        let unavailable;
        try { await tools.runTool('broken:echo', { text: 'x' }); } catch (error) { unavailable = { code: error.code, message: error.message }; }
        return [sum.structured, echo.structured, unavailable];`,
    });
    expect(run.value).toEqual([5, 'from a snippet', { code: 'SERVER_UNAVAILABLE', message: expect.stringContaining('refusing to start') }]);

    // In a chain the step's ToolError carries the server in its own details too.
    const chainError = await rejection(
      e.runChain([
        { toolId: 'math:add', args: { a: 1, b: 1 } },
        { toolId: 'broken:echo', args: { text: 'x' } },
      ]),
    );
    expect(chainError.code).toBe('SERVER_UNAVAILABLE');
    expect(chainError.details).toMatchObject({ server: 'broken', toolId: 'broken:echo' });
  });

  it("a snippet's describeTool and listToolExamples of a failed server's tool: SERVER_UNAVAILABLE naming the server, as getToolDoc", async () => {
    const e = exec({
      mcpServers: { broken: { command: process.execPath, args: ['-e', 'process.exit(1)'] } },
      mcpReconnect: { initialDelayMs: 60_000 },
    });
    const run = await e.executeCode({
      code: `
        const failure = async (lookup) => {
          try { await lookup(); return 'found'; } catch (error) { return { code: error.code, message: error.message, details: error.details }; }
        };
        return [
          await failure(() => tools.describeTool('broken:echo')),
          await failure(() => tools.listToolExamples('broken:echo')),
          await failure(() => tools.describeTool('nowhere:echo')),
        ];`,
    });
    const status = e.serverStatus().broken;
    expect(status?.state).toBe('failed');
    const doc = await rejection(e.getToolDoc('broken:echo'));
    expect(doc.code).toBe('SERVER_UNAVAILABLE');
    const [described, examples, elsewhere] = run.value as Array<{ code: string; message: string; details: Record<string, unknown> }>;
    for (const seen of [described, examples]) {
      expect(seen).toEqual({
        code: 'SERVER_UNAVAILABLE',
        message: expect.stringContaining(`MCP server "broken" is unavailable`),
        details: expect.objectContaining({ server: 'broken', toolId: 'broken:echo' }),
      });
      // the connect error, which getToolDoc carries as its cause, is quoted
      expect(seen?.message).toContain(`last error: ${status?.error?.message}`);
    }
    // an ID in no server's namespace stays "not found"
    expect(elsewhere?.code).toBe('TOOL_NOT_FOUND');
  });

  it('a server that crashes mid-call fails that call, is failed until it reconnects in the background, and works again', async () => {
    const e = exec({ mcpServers: { crashy: stdioFixture() }, mcpReconnect: { initialDelayMs: 1000, maxDelayMs: 1000 } });
    const first = (await e.runTool('crashy:stats')).value as { pid: number };
    const crash = await rejection(e.runTool('crashy:crash'));
    expect(crash.code).toBe('EXECUTION');
    expect(crash.message).toContain('crash requested');
    expect(await waitUntil(() => e.serverStatus().crashy?.state === 'failed')).toBe(true);
    expect(e.serverStatus().crashy?.error?.message).toContain('exit code 3');
    expect((await rejection(e.runTool('crashy:echo', { text: 'x' }))).code).toBe('SERVER_UNAVAILABLE');
    expect((await e.runTool('math:add', { a: 1, b: 1 })).value).toBe(2);
    expect(await waitUntil(() => e.serverStatus().crashy?.state === 'connected', 6000)).toBe(true);
    const second = (await e.runTool('crashy:stats')).value as { pid: number };
    expect(second.pid).not.toBe(first.pid);
    expect(isProcessAlive(first.pid)).toBe(false);
  });

  it('a reply over the size bound fails that call only: the server stays connected and the next call works', async () => {
    const e = exec({ mcpServers: { big: stdioFixture() } });
    const first = (await e.runTool('big:stats')).value as { pid: number };
    const error = await rejection(e.runTool('big:repeat', { text: 'x', times: 11 * 1024 * 1024 }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('a message from the server is over the 10485760-byte limit');
    expect(e.serverStatus().big?.state).toBe('connected');
    expect((await e.runTool('big:echo', { text: 'after' })).value).toBe('after');
    expect(e.serverStatus().big?.state).toBe('connected');
    expect(await waitUntil(() => !isProcessAlive(first.pid))).toBe(true);
  });

  it("an ID in no server's namespace waits for the first imports, so a fresh facade suggests a server's tool; later it answers at once", async () => {
    const e = exec({ mcpServers: { fx: stdioFixture() } });
    // the very first call: the server is still connecting
    const err = await rejection(e.runTool('structured', { a: 1, b: 2 }));
    expect(err.code).toBe('TOOL_NOT_FOUND');
    expect(err.message).toContain("did you mean 'fx:structured'?");
    expect(err.details?.suggestions).toEqual(['fx:structured']);
    expect(e.serverStatus().fx?.state).toBe('connected');
    // the same through the docs
    const doc = await rejection(e.getToolDoc('fx:structurd'));
    expect(doc.details?.suggestions).toEqual(['fx:structured']);
    const start = performance.now();
    expect((await rejection(e.runTool('nothing_like_it', {}))).code).toBe('TOOL_NOT_FOUND');
    expect(since(start)).toBeLessThan(1000);
  });

  it('connect() resolves with every status once each server connected or failed, and never rejects for one not required', async () => {
    const e = exec({ mcpServers: { good: stdioFixture(), broken: stdioFixture({ FIXTURE_FAIL_START: 'nope' }) } });
    expect(e.serverStatus()).toMatchObject({ good: { state: 'connecting' }, broken: { state: 'connecting' } });
    const status = await e.connect();
    expect(status).toMatchObject({ good: { state: 'connected', toolCount: FIXTURE_TOOLS.length }, broken: { state: 'failed' } });
    expect(status.broken?.since).toBeLessThanOrEqual(Date.now());
    await e.close();
    expect(e.serverStatus()).toMatchObject({ good: { state: 'closed' }, broken: { state: 'closed' } });
    expect((await rejection(e.connect())).code).toBe('CONNECTION_CLOSED');
  });

  it('connect({ timeoutMs }) resolves when the time is up, with the servers still connecting marked so; an abort rejects', async () => {
    const e = exec({ mcpServers: { silent: misbehavingFixture('hang') }, mcpOptions: { connectTimeoutMs: 5000 } });
    const started = performance.now();
    expect(await e.connect({ timeoutMs: 200 })).toMatchObject({ silent: { state: 'connecting' } });
    expect(since(started)).toBeLessThan(1000);
    const controller = new AbortController();
    const pending = e.connect({ signal: controller.signal });
    controller.abort(new Error('user gave up'));
    const error = await rejection(pending);
    expect(error.code).toBe('ABORTED');
    expect((error.cause as Error).message).toBe('user gave up');
  });

  it("a snippet's signal, deadline and timeoutMs bound its wait for a server hung at initialize", async () => {
    const e = exec({ mcpServers: { silent: misbehavingFixture('hang') }, mcpOptions: { connectTimeoutMs: 5000 } });
    const code = 'return (await tools.runTool("math:add", { a: 1, b: 2 })).structured';

    const controller = new AbortController();
    let started = performance.now();
    const pending = e.executeCode({ code, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user gave up')), 200);
    expect((await rejection(pending)).code).toBe('ABORTED');
    expect(since(started)).toBeLessThan(1500);

    started = performance.now();
    expect((await rejection(e.executeCode({ code, deadline: Date.now() + 200 }))).code).toBe('TIMEOUT');
    expect(since(started)).toBeLessThan(1500);

    // timeoutMs counts from the snippet's start; the wait before it ends within it too, and the snippet runs
    started = performance.now();
    expect((await e.executeCode({ code, timeoutMs: 1000 })).value).toBe(3);
    expect(since(started)).toBeLessThan(2500);
    expect(e.serverStatus().silent?.state).toBe('connecting');

    // a language no runtime of the library runs is refused at once, not after the wait
    started = performance.now();
    expect((await rejection(e.executeCode({ code, language: 'cobol' }))).code).toBe('INVALID_ARGUMENT');
    expect(since(started)).toBeLessThan(500);
  });

  it('an onServerStatus listener that throws or rejects is a process warning: the facade and the process go on', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      for (const listener of [
        () => {
          throw new Error('bug in the status listener');
        },
        () => Promise.reject(new Error('async bug in the status listener')),
      ]) {
        // eslint-disable-next-line @typescript-eslint/no-misused-promises -- an async listener that rejects is the case under test
        const e = exec({ mcpServers: { good: stdioFixture() }, onServerStatus: listener });
        expect((await e.connect()).good?.state).toBe('connected');
        expect((await e.runTool('good:echo', { text: 'still here' })).value).toBe('still here');
      }
      await waitUntil(() => warnings.length >= 4);
      expect(warnings.every((w) => w.name === 'ToolexecListenerWarning')).toBe(true);
      expect(warnings.map((w) => w.message)).toContain(
        'an onServerStatus listener threw on server "good" becoming connected: bug in the status listener',
      );
      expect(warnings.map((w) => w.message)).toContain(
        'an onServerStatus listener threw on server "good" becoming connected: async bug in the status listener',
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('refuses an mcpServers that is not a record of configs, naming the server and what is wrong', () => {
    const cases: [unknown, string][] = [
      [{ s: null }, 'mcpServers (server "s": the config must be an object like { command, args } or { url }, got null)'],
      [{ s: 'node srv.mjs' }, 'mcpServers (server "s": the config must be an object like { command, args } or { url }, got string)'],
      [[{ command: 'node' }], 'mcpServers (must be a record of server configs by name)'],
    ];
    for (const [mcpServers, reason] of cases) {
      expect(() => createExec({ mcpServers } as ExecOptions)).toThrow(
        expect.objectContaining({
          code: 'CONFIGURATION',
          message: `exec: invalid exec options: ${reason}`,
          details: { invalid: ['mcpServers'] },
        }),
      );
    }
  });

  it('lists a server named __proto__ (an own key of a JSON config) in its status like any other', async () => {
    const e = exec({ mcpServers: JSON.parse(`{"__proto__": ${JSON.stringify(stdioFixture())}}`) as ExecOptions['mcpServers'] });
    const status = await e.connect();
    expect(Object.keys(status)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(status)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(status, '__proto__')?.value).toMatchObject({ state: 'connected' });
    expect(Object.keys(e.serverStatus())).toEqual(['__proto__']);
  });

  it('refuses a bad onServerStatus or mcpReconnect when the facade is created', () => {
    for (const options of [
      { onServerStatus: 'log' },
      { mcpReconnect: { initialDelayMs: -1 } },
      { mcpReconnect: { maxDelayMs: Infinity } },
      { mcpReconnect: { initialDelayMs: 5_000, maxDelayMs: 1_000 } },
    ]) {
      const field = Object.keys(options)[0]!;
      expect(() => createExec(options as ExecOptions), field).toThrow(
        expect.objectContaining({ code: 'CONFIGURATION', details: { invalid: [field] } }),
      );
    }
  });

  it('a required server is all-or-nothing: its failure rejects connect() and every call', async () => {
    const e = exec({
      mcpServers: { good: stdioFixture(), must: { ...stdioFixture({ FIXTURE_FAIL_START: 'broken' }), required: true } },
      mcpReconnect: { initialDelayMs: 60_000 },
    });
    const error = await rejection(e.connect());
    expect(error.code).toBe('SERVER_UNAVAILABLE');
    expect(error.details).toMatchObject({ server: 'must' });
    expect(error.cause).toBe(e.serverStatus().must?.error);
    expect((await rejection(e.runTool('math:add', { a: 1, b: 1 }))).code).toBe('SERVER_UNAVAILABLE');
    expect((await rejection(e.searchTools('echo'))).code).toBe('SERVER_UNAVAILABLE');
  });
});
