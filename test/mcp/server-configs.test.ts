import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { type McpExecutorOptions, type McpServerConfig, type SdkMcpExecutor, createMcpExecutor } from '../../src/mcp/index.js';
import type { ToolexecError } from '../../src/model/index.js';
import {
  type LegacySseFixture,
  type StreamableHttpFixture,
  type UnauthorizedFixture,
  startLegacySseFixture,
  startStreamableHttpFixture,
  startUnauthorizedFixture,
} from '../fixtures/mcp/http-server.mjs';
import { createExec } from '../../src/exec/index.js';
import { rejection } from '../exec/helpers.js';
import { isProcessAlive, misbehavingFixture, stdioFixture, textOf, waitUntil } from './helpers.js';

let http: StreamableHttpFixture;
let legacy: LegacySseFixture;
let unauthorized: UnauthorizedFixture;
const executors: SdkMcpExecutor[] = [];

function executor(servers: Record<string, McpServerConfig>, options: Omit<McpExecutorOptions, 'servers'> = {}): SdkMcpExecutor {
  const ex = createMcpExecutor({ servers, ...options });
  executors.push(ex);
  return ex;
}

beforeAll(async () => {
  [http, legacy, unauthorized] = await Promise.all([startStreamableHttpFixture(), startLegacySseFixture(), startUnauthorizedFixture()]);
});
afterEach(async () => {
  await Promise.all(executors.splice(0).map((ex) => ex.close()));
});
afterAll(async () => {
  await Promise.all([http.close(), legacy.close(), unauthorized.close()]);
});

const echo = (ex: SdkMcpExecutor, server: string): Promise<string> =>
  ex.callTool(server, { name: 'echo', arguments: { text: server } }).then(textOf);

describe('server configs as MCP clients write them', () => {
  it('{ url } is Streamable HTTP, type: "http" too; { command } and type: "stdio" are stdio; type: "sse" is the legacy transport', async () => {
    const ex = executor({
      bare: { url: http.url },
      typed: { type: 'http', url: http.url, headers: { 'x-api-key': 'k' } },
      old: { type: 'sse', url: legacy.url },
      local: stdioFixture(),
      typedLocal: { type: 'stdio', ...stdioFixture() },
    });
    const rejectedPosts = legacy.stats.rejectedPosts;
    for (const name of ['bare', 'typed', 'old', 'local', 'typedLocal']) expect(await echo(ex, name)).toBe(name);
    // type: 'sse' goes straight to the legacy transport: no Streamable HTTP POST first.
    expect(legacy.stats.rejectedPosts).toBe(rejectedPosts);
  });

  it('refuses contradictory or incomplete configs up front (CONFIGURATION naming the server)', () => {
    const bad: [unknown, string][] = [
      [{ type: 'http', transport: 'stdio', url: http.url }, 'disagree'],
      [{}, 'a command (stdio) or a url'],
      [{ type: 'sse' }, 'needs a valid url'],
      [{ url: http.url, headers: { n: 1 } }, 'header values'],
      [{ url: http.url, headers: ['x-a', 'b'] }, 'headers must be an object'],
      // Refused up front, not at every connection attempt ("Headers.append: ... invalid header name").
      [{ url: http.url, headers: { 'bad header': 'x' } }, 'MCP server "s": header "bad header" is not a valid header name'],
      [{ type: 'sse', url: legacy.url, headers: { 'x-a:': 'x' } }, 'header "x-a:" is not a valid header name'],
      [{ url: http.url, headers: { 'X-A': 'a\r\nInjected: 1' } }, 'MCP server "s": the value of header "X-A" contains "\\r" at index 1'],
      [{ url: http.url, headers: { 'X-A': 'a\n' } }, 'the value of header "X-A" contains "\\n"'],
      [{ url: http.url, headers: { 'X-A': 'a\u0000' } }, 'the value of header "X-A" contains "\\u0000"'],
      [{ url: http.url, headers: { 'X-A': 'snow \u2603' } }, 'the value of header "X-A" contains "\u2603"'],
      [{ command: 'node', required: 'yes' }, 'required must be a boolean'],
      [{ type: 'websocket', url: http.url }, 'unknown transport "websocket"'],
    ];
    for (const [config, text] of bad) {
      expect(() => createMcpExecutor({ servers: { s: config as McpServerConfig } }), JSON.stringify(config)).toThrow(
        expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining(text) }),
      );
    }
  });

  it('refuses a header fetch could never send when the facade is created, and accepts any valid one', () => {
    expect(() => createExec({ mcpServers: { api: { url: http.url, headers: { 'bad header': 'x' } } } })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining('MCP server "api": header "bad header"') }),
    );
    const headers = { "x-Odd_name.1!#$%&'*+^`|~": 'caf\u00e9 ', authorization: 'Bearer a=b; c' };
    expect(() => executor({ ok: { url: http.url, headers } })).not.toThrow();
  });

  it('passes authProvider to the transport: a protected server asks the provider for tokens', async () => {
    const asked: string[] = [];
    const authProvider: OAuthClientProvider = {
      get redirectUrl() {
        return 'http://127.0.0.1/callback';
      },
      get clientMetadata() {
        return { redirect_uris: ['http://127.0.0.1/callback'], client_name: 'toolexec test' };
      },
      clientInformation: () => ({ client_id: 'test-client' }),
      tokens: () => {
        asked.push('tokens');
        return { access_token: 'secret-token', token_type: 'Bearer' };
      },
      saveTokens: () => undefined,
      redirectToAuthorization: () => {
        asked.push('redirect');
      },
      saveCodeVerifier: () => undefined,
      codeVerifier: () => 'verifier',
    };
    const ex = executor({ remote: { url: http.url, authProvider } });
    expect(await echo(ex, 'remote')).toBe('remote');
    expect(asked).toContain('tokens');
  });
});

describe('connection failures name the server, the transport and the HTTP status once', () => {
  it('a 401: EXECUTION with details.httpStatus, no SSE fallback, no doubled prefix', async () => {
    const ex = executor({ locked: { url: unauthorized.url } });
    const before = unauthorized.stats.requests;
    const error = await rejection(echo(ex, 'locked'));
    expect(error.code).toBe('EXECUTION');
    expect(error.details).toMatchObject({ serverName: 'locked', transport: 'http', httpStatus: 401 });
    expect(error.message).toMatch(/^mcp: could not connect to MCP server "locked" over Streamable HTTP: HTTP 401/);
    expect(error.message.match(/could not connect/gi)).toHaveLength(1);
    expect(error.message.match(/401/g)).toHaveLength(1);
    // One POST: a 401 is about credentials, so the client does not try the SSE transport.
    expect(unauthorized.stats.requests - before).toBe(1);
  });

  it('Streamable HTTP refused, then the SSE fallback failing: both reasons once each, the last status in details', async () => {
    const server = createServer((req, res) => {
      req.resume();
      if (req.method === 'POST') res.writeHead(405, { allow: 'GET' }).end('use the old transport');
      else res.writeHead(503).end('down for maintenance');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const ex = executor({ both: { url: `http://127.0.0.1:${port}/mcp` } });
      const error = await rejection(echo(ex, 'both'));
      expect(error.code).toBe('EXECUTION');
      expect(error.message).toMatch(
        /^mcp: could not connect to MCP server "both": Streamable HTTP failed \(HTTP 405: .*use the old transport\), then HTTP\+SSE failed \(HTTP 503/,
      );
      expect(error.message.match(/could not connect/g)).toHaveLength(1);
      expect(error.details).toMatchObject({ serverName: 'both', transport: 'sse', httpStatus: 503 });
      expect(error.cause).toBeInstanceOf(AggregateError);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a refused TCP connection: the socket error is in the message and details, not only "fetch failed"', async () => {
    // a port that was just free: nothing listens there
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const ex = executor({ gone: { url: `http://127.0.0.1:${port}/mcp` } });
    const error = await rejection(echo(ex, 'gone'));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toMatch(/could not connect to MCP server "gone"/);
    expect(error.message).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(error.message.match(/ECONNREFUSED/g)).toHaveLength(1);
    expect(error.details).toMatchObject({ serverName: 'gone', transport: 'http', networkCode: 'ECONNREFUSED' });
  });

  it('a URL whose port fetch refuses (a blocked port) says so, not only "fetch failed"', async () => {
    const ex = executor({ blocked: { url: 'http://127.0.0.1:1/mcp' } });
    const error = await rejection(echo(ex, 'blocked'));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toMatch(/could not connect to MCP server "blocked" over Streamable HTTP: fetch failed \(bad port\)/);
    expect(error.details?.networkCode).toBeUndefined();
  });

  it('a process that never answers initialize fails after connectTimeoutMs (TIMEOUT) and is ended', async () => {
    const pids: number[] = [];
    const ex = executor(
      { silent: misbehavingFixture('hang') },
      { connectTimeoutMs: 400, onStderr: (_n, text) => pids.push(Number(/pid (\d+)/.exec(text)?.[1])) },
    );
    const started = performance.now();
    const error = await rejection(echo(ex, 'silent'));
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('MCP server "silent" over stdio did not answer initialize within 400 ms');
    expect(error.details).toMatchObject({ serverName: 'silent', transport: 'stdio' });
    expect(await waitUntil(() => pids.length > 0 && !isProcessAlive(pids[0]!))).toBe(true);
  });

  it('a process writing garbage to stdout fails with the parse error quoted', async () => {
    const ex = executor({ noisy: misbehavingFixture('garbage') }, { connectTimeoutMs: 400 });
    const error: ToolexecError = await rejection(echo(ex, 'noisy'));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('last transport error');
    expect(error.details?.transportError).toEqual(expect.any(String));
  });

  it('reports a connection lost after it was open (onConnectionLost), not one it closed itself', async () => {
    const lost: [string, ToolexecError][] = [];
    const ex = executor({ fx: stdioFixture(), calm: stdioFixture() }, { onConnectionLost: (name, error) => lost.push([name, error]) });
    await Promise.all([echo(ex, 'fx'), echo(ex, 'calm')]);
    await rejection(ex.callTool('fx', { name: 'crash' }));
    expect(await waitUntil(() => lost.length === 1)).toBe(true);
    expect(lost[0]![0]).toBe('fx');
    expect(lost[0]![1]).toMatchObject({ code: 'EXECUTION', details: { serverName: 'fx', exitCode: 3 } });
    expect(lost[0]![1].message).toContain('crash requested');
    await ex.close();
    expect(lost).toHaveLength(1);
  });
});
