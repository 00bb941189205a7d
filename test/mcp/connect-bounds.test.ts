// What bounds a connection attempt and what it leaves behind: the connect timeout covers the
// transport's start (an HTTP+SSE stream that never sends its `endpoint` event), a failed attempt is
// forgotten, close() ends one in flight at once, no reconnection leaves a listener behind or cancels
// `initialize`, and a direct call's deadline covers connecting as well as the request.
import { fileURLToPath } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createExec } from '../../src/exec/index.js';
import { type McpStdioServerConfig, type SdkMcpExecutor, createMcpExecutor } from '../../src/mcp/index.js';
import { createFixtureServer } from '../fixtures/mcp/fixture-server.mjs';
import { type StallingSseFixture, startStallingSseFixture } from '../fixtures/mcp-stalling-sse-server.mjs';
import { listenerWarningsDuring } from '../listener-warnings.js';
import { activeResources, expectNoLeakedResources, rejection, stdioFixture, textOf, waitUntil } from './helpers.js';

const SLOW_START_SERVER = fileURLToPath(new URL('../fixtures/mcp-slow-start-server.mjs', import.meta.url));

/** The fixture server over stdio, answering `initialize` only after `startDelayMs`. */
function slowStartFixture(startDelayMs: number, listDelayMs = 0): McpStdioServerConfig {
  return {
    command: process.execPath,
    args: [SLOW_START_SERVER],
    env: { START_DELAY_MS: String(startDelayMs), LIST_DELAY_MS: String(listDelayMs) },
  };
}

const executors: SdkMcpExecutor[] = [];
const fixtures: StallingSseFixture[] = [];

function executor(options: Parameters<typeof createMcpExecutor>[0]): SdkMcpExecutor {
  const ex = createMcpExecutor(options);
  executors.push(ex);
  return ex;
}

async function stallingFixture(mode: 'silent-stream' | 'no-answer'): Promise<StallingSseFixture> {
  const fixture = await startStallingSseFixture(mode);
  fixtures.push(fixture);
  return fixture;
}

/** `promise`'s outcome, or `'pending'` when it has not settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<'settled' | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'pending'>((resolve) => {
    timer = setTimeout(resolve, ms, 'pending');
  });
  try {
    return await Promise.race([promise.then(() => 'settled' as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

afterEach(async () => {
  // Bounded, so that a close that hangs fails its own test instead of this hook.
  await within(Promise.allSettled(executors.splice(0).map((ex) => ex.close())), 5000);
  await Promise.allSettled(fixtures.splice(0).map((fixture) => fixture.close()));
});

describe('a legacy HTTP+SSE server whose event stream stalls', () => {
  it.each(['silent-stream', 'no-answer'] as const)(
    'over the Streamable HTTP fallback (%s): TIMEOUT within connectTimeoutMs, the stream closed, a reconnect once it is healthy',
    async (mode) => {
      const fixture = await stallingFixture(mode);
      const ex = executor({ servers: { old: { url: fixture.url } }, connectTimeoutMs: 500, requestTimeoutMs: 10_000 });
      const started = Date.now();
      const error = await rejection(ex.callTool('old', { name: 'echo', arguments: { text: 'first' } }));
      const elapsedMs = Date.now() - started;
      expect(error.code).toBe('TIMEOUT');
      expect(error.message).toContain('HTTP+SSE');
      expect(elapsedMs).toBeGreaterThanOrEqual(450);
      expect(elapsedMs).toBeLessThan(2000);
      expect(fixture.stats.stalledStreams).toBe(1);
      // The attempt's transport was closed: the client no longer holds the stream open.
      expect(await waitUntil(() => fixture.stats.openStalledStreams === 0)).toBe(true);
      // The failed attempt is not remembered: once the server works, the next call connects.
      fixture.heal();
      expect(textOf(await ex.callTool('old', { name: 'echo', arguments: { text: 'healed' } }))).toBe('healed');
      const closing = ex.close();
      expect(await within(closing, 2000)).toBe('settled');
    },
  );

  it('type sse: close() during a stalled attempt ends it at once, leaving no socket and no timer', async () => {
    const baseline = activeResources();
    const fixture = await stallingFixture('silent-stream');
    // A connect timeout far beyond the test: only close() can end the attempt.
    const ex = executor({ servers: { old: { type: 'sse', url: fixture.url } }, connectTimeoutMs: 600_000 });
    const call = rejection(ex.callTool('old', { name: 'echo', arguments: { text: 'never' } }));
    expect(await waitUntil(() => fixture.stats.stalledStreams === 1)).toBe(true);
    const started = Date.now();
    expect(await within(ex.close(), 2000)).toBe('settled');
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await call).code).toBe('CONNECTION_CLOSED');
    expect(await waitUntil(() => fixture.stats.openStalledStreams === 0)).toBe(true);
    // What the server side still holds goes with it; this side holds nothing.
    await fixture.close();
    await expectNoLeakedResources(baseline);
  });

  it('the facade: the server fails with TIMEOUT, the others work, and exec.close() ends at once', async () => {
    const fixture = await stallingFixture('silent-stream');
    const exec = createExec({
      mcpServers: { old: { type: 'sse', url: fixture.url }, good: stdioFixture() },
      // Time enough for the stdio server to start on a busy machine.
      mcpOptions: { connectTimeoutMs: 2000 },
    });
    try {
      const started = Date.now();
      const status = await exec.connect({ timeoutMs: 8000 });
      expect(Date.now() - started).toBeLessThan(4500);
      expect(status.old?.state).toBe('failed');
      expect(status.old?.error?.code).toBe('TIMEOUT');
      expect(status.good?.state).toBe('connected');
      expect((await exec.runTool('good:echo', { text: 'still here' })).value).toBe('still here');
    } finally {
      const started = Date.now();
      expect(await within(exec.close(), 3000)).toBe('settled');
      expect(Date.now() - started).toBeLessThan(2500);
    }
    expect(await waitUntil(() => fixture.stats.openStalledStreams === 0)).toBe(true);
  });
});

describe('reconnections', () => {
  it('leave no abort listener behind, and close() never cancels initialize', async () => {
    const sent: JSONRPCMessage[] = [];
    let serverSide: InMemoryTransport | undefined;
    const ex = executor({
      servers: {
        mem: {
          transport: 'custom',
          createTransport: async () => {
            const [client, server] = InMemoryTransport.createLinkedPair();
            await createFixtureServer().server.connect(server);
            serverSide = server;
            // What the client sends, recorded on its way out.
            const send = client.send.bind(client);
            client.send = (message, options) => {
              sent.push(message);
              return send(message, options);
            };
            return client;
          },
        },
      },
    });
    const warnings = await listenerWarningsDuring(async () => {
      for (let i = 0; i < 14; i++) {
        expect(textOf(await ex.callTool('mem', { name: 'echo', arguments: { text: `round ${i}` } }))).toBe(`round ${i}`);
        // The server goes away: the next call reconnects.
        await serverSide?.close();
      }
      expect(textOf(await ex.callTool('mem', { name: 'echo', arguments: { text: 'last' } }))).toBe('last');
    });
    expect(warnings).toEqual([]);
    expect(sent.filter((m) => 'method' in m && m.method === 'initialize')).toHaveLength(15);
    await ex.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.filter((m) => 'method' in m && m.method === 'notifications/cancelled')).toEqual([]);
  });
});

describe("a direct call's deadline covers connecting", () => {
  it('deadline: TIMEOUT when connecting and the request together take longer', async () => {
    // Connecting takes ~300 ms plus Node's start, the tool 800 ms: over the 1000 ms in all.
    const ex = executor({ servers: { slow: slowStartFixture(300) } });
    const started = Date.now();
    const error = await rejection(ex.callTool('slow', { name: 'slow', arguments: { ms: 800 } }, { deadline: Date.now() + 1000 }));
    const elapsedMs = Date.now() - started;
    expect(error.code).toBe('TIMEOUT');
    expect(elapsedMs).toBeLessThan(1250);
    // Connected meanwhile: a call with time enough succeeds on the same connection.
    expect(textOf(await ex.callTool('slow', { name: 'slow', arguments: { ms: 10 } }, { deadline: Date.now() + 5000 }))).toBe('slept 10');
  });

  it('timeoutMs: the same', async () => {
    const ex = executor({ servers: { slow: slowStartFixture(300) } });
    const started = Date.now();
    const error = await rejection(ex.callTool('slow', { name: 'slow', arguments: { ms: 800 } }, { timeoutMs: 1000 }));
    expect(error.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(1250);
  });

  it('a call whose budget covers connecting and the request succeeds', async () => {
    const ex = executor({ servers: { slow: slowStartFixture(300) } });
    const result = await ex.callTool('slow', { name: 'slow', arguments: { ms: 100 } }, { deadline: Date.now() + 3000 });
    expect(textOf(result)).toBe('slept 100');
  });

  it('listTools: one timeoutMs for connecting and the pages', async () => {
    const ex = executor({ servers: { slow: slowStartFixture(300, 800) } });
    const started = Date.now();
    const error = await rejection(ex.listTools('slow', { timeoutMs: 1000 }));
    expect(error.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(1250);
    // Connected now: the listing alone fits its budget.
    expect((await ex.listTools('slow', { timeoutMs: 3000 })).length).toBeGreaterThan(0);
  });
});
