import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { type SdkMcpExecutor, createMcpExecutor } from '../../src/mcp/index.js';
import { FIXTURE_TOOLS } from '../fixtures/mcp/fixture-server.mjs';
import {
  type LegacySseFixture,
  type StreamableHttpFixture,
  startLegacySseFixture,
  startStreamableHttpFixture,
} from '../fixtures/mcp/http-server.mjs';
import { activeResources, expectNoLeakedResources, jsonText, rejection, textOf, waitUntil } from './helpers.js';

let baseline: Map<string, number>;
let http: StreamableHttpFixture;
let legacy: LegacySseFixture;
const executors: SdkMcpExecutor[] = [];

function executor(servers: Parameters<typeof createMcpExecutor>[0]['servers'], requestTimeoutMs?: number): SdkMcpExecutor {
  const ex = createMcpExecutor({ servers, ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }) });
  executors.push(ex);
  return ex;
}

beforeAll(async () => {
  baseline = activeResources();
  http = await startStreamableHttpFixture();
  legacy = await startLegacySseFixture();
});

afterEach(async () => {
  await Promise.all(executors.splice(0).map((ex) => ex.close()));
});

afterAll(async () => {
  await Promise.all(executors.splice(0).map((ex) => ex.close()));
  await http.close();
  await legacy.close();
});

describe('Streamable HTTP executor', () => {
  it('calls tools over one session, with progress', async () => {
    const ex = executor({ remote: { transport: 'http', url: http.url } });
    const before = http.stats.initialized;
    expect(textOf(await ex.callTool('remote', { name: 'echo', arguments: { text: 'over http' } }))).toBe('over http');
    const progress: number[] = [];
    const result = await ex.callTool(
      'remote',
      { name: 'progress', arguments: { steps: 3, delayMs: 10 } },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(textOf(result)).toBe('done 3');
    expect(progress).toEqual([1, 2, 3]);
    const structured = await ex.callTool('remote', { name: 'structured', arguments: { a: 2, b: 3 } });
    expect(structured.structuredContent).toEqual({ sum: 5 });
    expect(http.stats.initialized - before).toBe(1);
  });

  it('sends headers with every request', async () => {
    const ex = executor({ remote: { transport: 'http', url: http.url, headers: { 'x-api-key': 'k1' } } });
    expect(textOf(await ex.callTool('remote', { name: 'echo', arguments: { text: 'ok' } }))).toBe('ok');
  });

  it('lists and imports tools (namespace = server name)', async () => {
    const ex = executor({ remote: { transport: 'http', url: http.url } });
    const index = createToolIndex();
    expect(await ex.importTools(index, ['remote'])).toBe(FIXTURE_TOOLS.length);
    expect(index.getTool('remote:structured').backend).toEqual({ kind: 'mcp', mcp: { serverName: 'remote' } });
  });

  it('re-initializes a session the server forgot (404) and replays the call once', async () => {
    const ex = executor({ remote: { transport: 'http', url: http.url } });
    await ex.callTool('remote', { name: 'echo', arguments: { text: 'one' } });
    const initialized = http.stats.initialized;
    const notFound = http.stats.notFound;
    await http.forgetSessions();
    const results = await Promise.all([1, 2, 3].map((i) => ex.callTool('remote', { name: 'echo', arguments: { text: `after ${i}` } })));
    expect(results.map(textOf)).toEqual(['after 1', 'after 2', 'after 3']);
    expect(http.stats.notFound - notFound).toBeGreaterThanOrEqual(1);
    // One new session for all three replays.
    expect(http.stats.initialized - initialized).toBe(1);
    expect(textOf(await ex.callTool('remote', { name: 'echo', arguments: { text: 'later' } }))).toBe('later');
  });

  it('aborts a call: ABORTED, and the server gets notifications/cancelled', async () => {
    const ex = executor({ remote: { transport: 'http', url: http.url } });
    const cancelled = http.state.cancelled;
    const controller = new AbortController();
    const call = ex.callTool('remote', { name: 'slow', arguments: { ms: 10_000 } }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const error = await rejection(call);
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(controller.signal.reason);
    expect(await waitUntil(() => http.state.cancelled === cancelled + 1)).toBe(true);
  });

  it('times out: TIMEOUT', async () => {
    const ex = executor({ remote: { transport: 'http', url: http.url } });
    const error = await rejection(ex.callTool('remote', { name: 'slow', arguments: { ms: 2000 } }, { timeoutMs: 200 }));
    expect(error.code).toBe('TIMEOUT');
  });

  it('terminates its session on close()', async () => {
    const ex = executor({ remote: { transport: 'http', url: http.url } });
    await ex.callTool('remote', { name: 'echo', arguments: { text: 'x' } });
    const deleted = http.stats.deleted;
    const sessions = http.sessionCount();
    await ex.close();
    expect(http.stats.deleted).toBe(deleted + 1);
    expect(http.sessionCount()).toBe(sessions - 1);
  });

  it('reports an unreachable server as EXECUTION naming it', async () => {
    const ex = executor({ gone: { transport: 'http', url: 'http://127.0.0.1:9/mcp' } }, 2000);
    const error = await rejection(ex.callTool('gone', { name: 'echo', arguments: { text: 'x' } }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('"gone"');
  });
});

describe('legacy HTTP+SSE fallback', () => {
  it('falls back to SSE when the server rejects Streamable HTTP with a 4xx, and stays on SSE', async () => {
    const ex = executor({ old: { transport: 'http', url: legacy.url } });
    const rejected = legacy.stats.rejectedPosts;
    const streams = legacy.stats.streams;
    expect(textOf(await ex.callTool('old', { name: 'echo', arguments: { text: 'via sse' } }))).toBe('via sse');
    expect(legacy.stats.rejectedPosts - rejected).toBe(1);
    expect(legacy.stats.streams - streams).toBe(1);
    const progress: number[] = [];
    await ex.callTool('old', { name: 'progress', arguments: { steps: 2, delayMs: 5 } }, { onProgress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2]);
    const tools = await ex.listTools('old');
    expect(tools).toHaveLength(FIXTURE_TOOLS.length);
    const stats = jsonText<{ calls: number }>(await ex.callTool('old', { name: 'stats' }));
    expect(stats.calls).toBeGreaterThanOrEqual(3);
    expect(legacy.stats.streams - streams).toBe(1);
  });
});

describe('HTTP resources', () => {
  it('leaves no socket or timer behind', async () => {
    await Promise.all(executors.splice(0).map((ex) => ex.close()));
    await http.close();
    await legacy.close();
    await expectNoLeakedResources(baseline);
    // Restart the fixtures for afterAll's symmetric close.
    http = await startStreamableHttpFixture();
    legacy = await startLegacySseFixture();
  });
});
