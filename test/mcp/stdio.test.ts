import { realpathSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { hasErrorCode } from '../../src/model/index.js';
import { type SdkMcpExecutor, createMcpExecutor } from '../../src/mcp/index.js';
import { FIXTURE_TOOLS } from '../fixtures/mcp/fixture-server.mjs';
import {
  activeResources,
  expectNoLeakedResources,
  isProcessAlive,
  jsonText,
  rejection,
  stdioFixture,
  textOf,
  waitUntil,
} from './helpers.js';

interface Stats {
  pid: number;
  calls: number;
  cancelled: number;
}

let baseline: Map<string, number>;
const executors: SdkMcpExecutor[] = [];
const serverPids = new Set<number>();

function executor(options: Partial<Parameters<typeof createMcpExecutor>[0]> = {}): SdkMcpExecutor {
  const ex = createMcpExecutor({ servers: { fx: stdioFixture() }, ...options });
  executors.push(ex);
  return ex;
}

async function stats(ex: SdkMcpExecutor, server = 'fx'): Promise<Stats> {
  const s = jsonText<Stats>(await ex.callTool(server, { name: 'stats' }));
  serverPids.add(s.pid);
  return s;
}

beforeAll(() => {
  baseline = activeResources();
});

afterEach(async () => {
  await Promise.all(executors.splice(0).map((ex) => ex.close()));
});

afterAll(async () => {
  await Promise.all(executors.splice(0).map((ex) => ex.close()));
});

describe('stdio executor', () => {
  it('connects lazily and reuses one process for many calls', async () => {
    const stderr: string[] = [];
    const ex = executor({ onStderr: (server, text) => stderr.push(`${server}: ${text}`) });
    // Nothing starts before the first call (the fixture greets on stderr when it starts).
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(stderr).toEqual([]);
    const [a, b, c] = await Promise.all([stats(ex), stats(ex), stats(ex)]);
    expect(new Set([a.pid, b.pid, c.pid]).size).toBe(1);
    const echo = await ex.callTool('fx', { name: 'echo', arguments: { text: 'hi' } });
    expect(textOf(echo)).toBe('hi');
    const d = await stats(ex);
    expect(d.pid).toBe(a.pid);
    expect(d.calls).toBe(5);
    expect(stderr.join('')).toContain(`fx: fixture: stdio server ready (pid ${a.pid})`);
  });

  it('runs 1,000 concurrent calls over one connection', async () => {
    const ex = executor();
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => ex.callTool('fx', { name: 'echo', arguments: { text: `m${i}` } })),
    );
    results.forEach((result, i) => expect(textOf(result)).toBe(`m${i}`));
    const s = await stats(ex);
    expect(s.calls).toBe(1001);
  });

  it('carries a result of megabytes, read from the pipe in many chunks, next to small ones', async () => {
    const ex = executor();
    const big = `${'é'.repeat(1_500_000)}✓`;
    const [small1, large, small2] = await Promise.all([
      ex.callTool('fx', { name: 'echo', arguments: { text: 'before' } }),
      ex.callTool('fx', { name: 'echo', arguments: { text: big } }),
      ex.callTool('fx', { name: 'echo', arguments: { text: 'after' } }),
    ]);
    expect(textOf(small1)).toBe('before');
    expect(textOf(large)).toBe(big);
    expect(textOf(small2)).toBe('after');
  });

  it('closes the connection on a reply over the size bound: a clear EXECUTION, not retried, and the next call reconnects', async () => {
    const lost: string[] = [];
    const ex = executor({ onConnectionLost: (server) => lost.push(server) });
    const first = await stats(ex);
    const error = await rejection(ex.callTool('fx', { name: 'repeat', arguments: { text: 'x', times: 11 * 1024 * 1024 } }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toBe(
      'mcp: the connection to MCP server "fx" was closed during tools/call "repeat": a message from the server is over the 10485760-byte limit',
    );
    expect(error.details).toMatchObject({
      serverName: 'fx',
      closedByClient: 'a message from the server is over the 10485760-byte limit',
      connectionLost: false,
    });
    // the server was fine: it is not reported lost, and the next call gets a new one
    expect(lost).toEqual([]);
    expect(textOf(await ex.callTool('fx', { name: 'echo', arguments: { text: 'after' } }))).toBe('after');
    const second = await stats(ex);
    expect(second.pid).not.toBe(first.pid);
    expect(await waitUntil(() => !isProcessAlive(first.pid))).toBe(true);
  });

  it('lists every page of tools and imports them with namespace = server name', async () => {
    const ex = executor({ servers: { paged: stdioFixture({ FIXTURE_PAGE_SIZE: '3' }) } });
    const tools = await ex.listTools('paged');
    expect(tools.map((t) => t.name)).toEqual(FIXTURE_TOOLS.map((t) => t.name));
    const structured = tools.find((t) => t.name === 'structured');
    expect(structured?.outputSchema).toEqual(FIXTURE_TOOLS.find((t) => t.name === 'structured')?.outputSchema);

    const index = createToolIndex();
    const count = await ex.importTools(index);
    expect(count).toBe(FIXTURE_TOOLS.length);
    const { tool, backend } = index.getTool('paged:echo');
    expect(tool.namespace).toBe('paged');
    expect(backend).toEqual({ kind: 'mcp', mcp: { serverName: 'paged' } });
    expect(index.listNamespaces()).toEqual(['paged']);
  });

  it('gives the server a minimal environment plus the configured env, never the host env', async () => {
    process.env.TOOLEXEC_TEST_SECRET = 'do-not-leak';
    try {
      const ex = executor({ servers: { fx: stdioFixture({ FIXTURE_EXTRA: 'yes' }) } });
      const env = jsonText<Record<string, string>>(await ex.callTool('fx', { name: 'env' }));
      expect(env.FIXTURE_EXTRA).toBe('yes');
      expect(env.PATH).toBe(process.env.PATH);
      expect(env.TOOLEXEC_TEST_SECRET).toBeUndefined();
    } finally {
      delete process.env.TOOLEXEC_TEST_SECRET;
    }
  });

  it('aborts mid-call: ABORTED with the reason as cause, and the server is told to cancel', async () => {
    const ex = executor();
    await stats(ex);
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    const call = ex.callTool('fx', { name: 'slow', arguments: { ms: 10_000 } }, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 100);
    const error = await rejection(call);
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);
    expect(error.message).toContain('"fx"');
    // notifications/cancelled reached the server: its handler saw the abort.
    expect(await waitUntil(async () => (await stats(ex)).cancelled === 1)).toBe(true);
    // An already-aborted signal rejects without a call.
    const callsBefore = (await stats(ex)).calls;
    const early = await rejection(ex.callTool('fx', { name: 'echo', arguments: { text: 'x' } }, { signal: AbortSignal.abort(reason) }));
    expect(early.code).toBe('ABORTED');
    expect((await stats(ex)).calls).toBe(callsBefore + 1);
  });

  it('leaves no listener on the caller signal', async () => {
    const ex = executor();
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
      added++;
      add(...args);
    };
    signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
      removed++;
      remove(...args);
    };
    for (let i = 0; i < 5; i++) await ex.callTool('fx', { name: 'echo', arguments: { text: 'x' } }, { signal });
    expect(added).toBeGreaterThan(0);
    expect(removed).toBe(added);
  });

  it('times out a call that never answers: TIMEOUT', async () => {
    const ex = executor();
    const started = Date.now();
    const error = await rejection(ex.callTool('fx', { name: 'hang' }, { timeoutMs: 300 }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('"fx"');
    expect(Date.now() - started).toBeLessThan(3000);
    // The connection survives a timeout.
    expect(textOf(await ex.callTool('fx', { name: 'echo', arguments: { text: 'still here' } }))).toBe('still here');
  });

  it('uses requestTimeoutMs when the call gives no timeout', async () => {
    const ex = executor({ requestTimeoutMs: 300 });
    const error = await rejection(ex.callTool('fx', { name: 'slow', arguments: { ms: 5000 } }));
    expect(error.code).toBe('TIMEOUT');
  });

  it('restarts the timeout on progress and reports progress', async () => {
    const ex = executor();
    await stats(ex);
    const progress: unknown[] = [];
    // 7 steps 100 ms apart (700 ms in all) under a 450 ms timeout: only progress keeps it alive.
    const result = await ex.callTool(
      'fx',
      { name: 'progress', arguments: { steps: 7, delayMs: 100 } },
      { timeoutMs: 450, onProgress: (p) => progress.push(p) },
    );
    expect(textOf(result)).toBe('done 7');
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7].map((i) => ({ progress: i, total: 7, message: `step ${i}` })));
    // The same work without progress notifications times out.
    const error = await rejection(
      ex.callTool('fx', { name: 'slow', arguments: { ms: 1500 } }, { timeoutMs: 450, onProgress: () => undefined }),
    );
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('no answer or progress for 450 ms');
  });

  it('asks for progress only with a listener, unless alwaysRequestProgress is set', async () => {
    const ex = executor();
    await stats(ex);
    // No listener: no progress token, so the server cannot report progress and the call times out,
    // with a message that says why and what to change.
    const error = await rejection(ex.callTool('fx', { name: 'progress', arguments: { steps: 7, delayMs: 100 } }, { timeoutMs: 450 }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('did not ask for progress');
    expect(error.message).toContain('alwaysRequestProgress');
    // With alwaysRequestProgress the same call is kept alive by progress it does not listen to.
    const keepAlive = executor({ alwaysRequestProgress: true });
    await stats(keepAlive); // connected first: starting node may take longer than the short timeouts below
    const quiet = await keepAlive.callTool('fx', { name: 'progress', arguments: { steps: 7, delayMs: 100 } }, { timeoutMs: 450 });
    expect(textOf(quiet)).toBe('done 7');
    // A call that asked for progress but heard none still times out, with the plain message.
    const silent = await rejection(keepAlive.callTool('fx', { name: 'slow', arguments: { ms: 1500 } }, { timeoutMs: 300 }));
    expect(silent.message).toContain('no answer or progress for 300 ms');
    expect(() => executor({ alwaysRequestProgress: 'yes' as unknown as boolean })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining('alwaysRequestProgress must be a boolean') }),
    );
  });

  it('reports a crash mid-call as EXECUTION naming the server with its stderr, then reconnects', async () => {
    const ex = executor({ servers: { crashy: stdioFixture() } });
    const first = await stats(ex, 'crashy');
    const pending = ex.callTool('crashy', { name: 'slow', arguments: { ms: 10_000 } });
    const error = await rejection(ex.callTool('crashy', { name: 'crash' }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('MCP server "crashy"');
    expect(error.message).toContain('exit code 3');
    expect(error.message).toContain('crash requested');
    expect(error.details).toMatchObject({ serverName: 'crashy', exitCode: 3 });
    expect(error.cause).toBeInstanceOf(Error);
    // The other call in flight fails the same way.
    expect((await rejection(pending)).code).toBe('EXECUTION');
    // The next call starts a new server.
    const second = await stats(ex, 'crashy');
    expect(second.pid).not.toBe(first.pid);
    expect(isProcessAlive(first.pid)).toBe(false);
  });

  it('reports a server that fails to start as EXECUTION with its stderr, and retries later', async () => {
    const ex = executor({ servers: { broken: stdioFixture({ FIXTURE_FAIL_START: 'missing API key' }) } });
    const error = await rejection(ex.callTool('broken', { name: 'echo', arguments: { text: 'x' } }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('"broken"');
    expect(error.message).toContain('missing API key');
    const again = await rejection(ex.listTools('broken'));
    expect(again.code).toBe('EXECUTION');
    expect(again).not.toBe(error);
  });

  it("says what went wrong when the server's stderr ends in a stack trace (a wrong script path)", async () => {
    const ex = executor({ servers: { typo: { command: process.execPath, args: ['/nonexistent/toolexec-server.mjs'] } } });
    const error = await rejection(ex.callTool('typo', { name: 'echo' }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toMatch(/stderr: Error: Cannot find module '\/nonexistent\/toolexec-server\.mjs'.* \| … \| /);
    expect(error.message).toContain('Node.js v');
  });

  it('reports a missing command as EXECUTION naming the server', async () => {
    const ex = executor({ servers: { nope: { command: 'toolexec-no-such-command-xyz' } } });
    const error = await rejection(ex.callTool('nope', { name: 'echo' }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('"nope"');
    expect(error.message).toContain('ENOENT');
  });

  it('names a missing working directory', async () => {
    const ex = executor({ servers: { fx: { ...stdioFixture(), cwd: '/nonexistent/toolexec-dir' } } });
    const error = await rejection(ex.callTool('fx', { name: 'echo' }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('working directory /nonexistent/toolexec-dir does not exist');
  });

  it('runs the server in the configured working directory', async () => {
    const ex = executor({ servers: { fx: { ...stdioFixture(), cwd: '/tmp' } } });
    const { cwd } = jsonText<{ cwd: string }>(await ex.callTool('fx', { name: 'stats' }));
    expect(cwd).toBe(realpathSync('/tmp'));
  });

  it('close() ends the whole process tree, is idempotent, and later calls reject', async () => {
    const ex = executor();
    const { pid } = await stats(ex);
    const child = jsonText<{ pid: number }>(await ex.callTool('fx', { name: 'spawn_child' }));
    expect(isProcessAlive(pid)).toBe(true);
    expect(isProcessAlive(child.pid)).toBe(true);
    await Promise.all([ex.close(), ex.close()]);
    expect(await waitUntil(() => !isProcessAlive(child.pid), 2000)).toBe(true);
    expect(isProcessAlive(pid)).toBe(false);
    await ex.close();
    const error = await rejection(ex.callTool('fx', { name: 'echo', arguments: { text: 'x' } }));
    expect(error.code).toBe('CONNECTION_CLOSED');
    expect((await rejection(ex.listTools('fx'))).code).toBe('CONNECTION_CLOSED');
  });

  it('close() during a call rejects it with CONNECTION_CLOSED', async () => {
    const ex = executor();
    await stats(ex);
    const call = ex.callTool('fx', { name: 'hang' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await ex.close();
    const error = await rejection(call);
    expect(error.code).toBe('CONNECTION_CLOSED');
  });

  it('close() while connecting leaves no process behind', async () => {
    const ex = executor();
    const call = ex.callTool('fx', { name: 'stats' });
    await ex.close();
    const error = await rejection(call);
    expect(hasErrorCode(error, 'CONNECTION_CLOSED')).toBe(true);
  });

  it('leaves no child process, socket or timer behind', async () => {
    await Promise.all(executors.splice(0).map((ex) => ex.close()));
    expect(serverPids.size).toBeGreaterThan(5);
    for (const pid of serverPids) expect(await waitUntil(() => !isProcessAlive(pid), 2000)).toBe(true);
    await expectNoLeakedResources(baseline);
  });
});
