// A server's unusual but legitimate answers, over stdio and Streamable HTTP on 127.0.0.1: a JSON-RPC
// error of code -32000 is the server's answer, not a lost connection; one malformed tool in
// tools/list is refused alone, not the whole server.
import { fileURLToPath } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { type DefaultExec, type ExecOptions, type ServerStatus, createExec } from '../../src/exec/index.js';
import { type McpServerConfig, type SdkMcpExecutor, createMcpExecutor } from '../../src/mcp/index.js';
import type { ToolexecError } from '../../src/model/index.js';
import { type OddHttpServer, startOddHttpServer } from '../fixtures/mcp/odd-server.mjs';
import { rejection } from '../exec/helpers.js';
import { jsonText, textOf } from './helpers.js';

const ODD_SERVER = fileURLToPath(new URL('../fixtures/mcp/odd-server.mjs', import.meta.url));

interface OddStats {
  pid: number;
  quotaCalls: number;
  initialized: number;
}

const closers: (() => Promise<unknown>)[] = [];
let http: OddHttpServer;
let malformedHttp: OddHttpServer;

beforeAll(async () => {
  [http, malformedHttp] = await Promise.all([startOddHttpServer(), startOddHttpServer({ malformed: true })]);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  await Promise.all([http.close(), malformedHttp.close()]);
});

function stdioOdd(malformed = false): McpServerConfig {
  return { command: process.execPath, args: [ODD_SERVER], env: malformed ? { ODD_MALFORMED: '1' } : {} };
}

function executor(servers: Record<string, McpServerConfig>, lost: string[] = []): SdkMcpExecutor {
  const ex = createMcpExecutor({ servers, onConnectionLost: (name) => lost.push(name) });
  closers.push(() => ex.close());
  return ex;
}

function exec(options: ExecOptions): DefaultExec {
  const e = createExec(options);
  closers.push(() => e.close());
  return e;
}

const stats = async (ex: SdkMcpExecutor, server: string): Promise<OddStats> =>
  jsonText<OddStats>(await ex.callTool(server, { name: 'stats' }));

describe('a JSON-RPC error of code -32000 is the server answering, not a lost connection', () => {
  for (const transport of ['stdio', 'Streamable HTTP'] as const) {
    it(`over ${transport}: EXECUTION with the server's message; the connection and other calls in flight are untouched`, async () => {
      const lost: string[] = [];
      const ex = executor({ api: transport === 'stdio' ? stdioOdd() : { url: http.url } }, lost);
      const before = await stats(ex, 'api');
      const slow = ex.callTool('api', { name: 'slow', arguments: { ms: 300 } });
      const error = await rejection(ex.callTool('api', { name: 'quota' }));
      expect(error.code).toBe('EXECUTION');
      expect(error.message).toContain('rate limit exceeded for this API key');
      expect(error.message).not.toContain('closed the connection');
      expect(error.details).toMatchObject({ serverName: 'api', tool: 'quota', mcpCode: -32000 });
      expect(error.details?.connectionLost).toBeUndefined();
      // The call in flight on the same connection completes.
      expect(textOf(await slow)).toBe('slept 300');
      // Same connection: the same process over stdio, no new initialization over HTTP.
      const after = await stats(ex, 'api');
      if (transport === 'stdio') expect(after.pid).toBe(before.pid);
      else expect(http.state.initialized).toBe(1);
      expect(lost).toEqual([]);
    });
  }

  it('through the facade: the server stays connected and a read-only tool is not retried as a lost connection', async () => {
    const statuses: ServerStatus['state'][] = [];
    const e = exec({ mcpServers: { api: stdioOdd() }, onServerStatus: (_name, status) => statuses.push(status.state) });
    await e.connect();
    const error = await rejection(e.runTool('api:quota', {}));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('rate limit exceeded for this API key');
    expect((error.cause as ToolexecError | undefined)?.details).toMatchObject({ mcpCode: -32000 });
    const after = (await e.runTool('api:stats', {})).value as OddStats;
    expect(after.quotaCalls).toBe(1);
    expect(e.serverStatus().api?.state).toBe('connected');
    expect(statuses).not.toContain('failed');
  });

  it('through the facade over Streamable HTTP: one call, one initialization', async () => {
    const server = await startOddHttpServer();
    closers.push(() => server.close());
    const e = exec({ mcpServers: { h: { url: server.url } } });
    await e.connect();
    expect((await rejection(e.runTool('h:quota', {}))).message).toContain('rate limit exceeded');
    expect((await e.runTool('h:slow', { ms: 1 })).value).toBe('slept 1');
    expect(server.state).toEqual({ quotaCalls: 1, initialized: 1 });
    expect(e.serverStatus().h?.state).toBe('connected');
  });
});

describe('one malformed tool in tools/list is refused alone', () => {
  const good = ['quota', 'slow', 'stats', 'second_page'];
  const reasons: Record<string, string> = {
    no_schema: 'invalid tool: inputSchema is missing',
    array_input: 'invalid tool: inputSchema.type must be "object" (got "array")',
    null_description: 'invalid tool: description must be a string (got null)',
    bad_title: 'invalid tool: title must be a string (got 42)',
  };

  for (const transport of ['stdio', 'Streamable HTTP'] as const) {
    it(`over ${transport}: the others are listed (both pages), each refused one is reported with a short reason naming the field`, async () => {
      const ex = executor({ s2: transport === 'stdio' ? stdioOdd(true) : { url: malformedHttp.url } });
      const rejected: [unknown, ToolexecError][] = [];
      const tools = await ex.listTools('s2', { onRejectedTool: (tool, error) => rejected.push([tool, error]) });
      expect(tools.map((t) => t.name)).toEqual(good);
      expect(rejected.map(([tool]) => (tool as { name: string }).name)).toEqual(Object.keys(reasons));
      for (const [tool, error] of rejected) {
        const name = (tool as { name: string }).name;
        expect(error.code).toBe('INVALID_TOOL');
        expect(error.message).toBe(reasons[name]);
        expect(error.details).toMatchObject({ serverName: 's2', tool: name });
      }
      // The connection is fine: a call works.
      expect(textOf(await ex.callTool('s2', { name: 'slow', arguments: { ms: 1 } }))).toBe('slept 1');
      // Without a listener the refused tools are left out all the same; importTools registers the others.
      expect((await ex.listTools('s2')).map((t) => t.name)).toEqual(good);
      const index = createToolIndex();
      expect(await ex.importTools(index)).toBe(4);
    });
  }

  it('through the facade: the server is connected with its other tools, not failed', async () => {
    const e = exec({ mcpServers: { s2: stdioOdd(true) } });
    const status = (await e.connect()).s2;
    expect(status).toMatchObject({ state: 'connected', toolCount: 4 });
    expect(status?.error).toBeUndefined();
    expect(status?.rejectedTools?.map((tool) => tool.name)).toEqual(['no_schema', 'array_input', 'null_description', 'bad_title']);
    expect(status?.rejectedTools?.[0]?.error.message).toBe(
      'exec: MCP server "s2" listed a tool that cannot be imported ("no_schema"): invalid tool: inputSchema is missing',
    );
    expect((await e.searchTools('', 50)).map((hit) => hit.id).sort()).toEqual(good.map((name) => `s2:${name}`).sort());
  });

  it('a page that is itself malformed (tools not an array, nextCursor not a string) is PROTOCOL naming the field', async () => {
    const answers: unknown[] = [{ tools: { name: 'x' } }, { tools: [], nextCursor: 7 }];
    for (const answer of answers) {
      const ex = executor({
        bad: {
          transport: 'custom',
          createTransport: async () => {
            const [client, serverSide] = InMemoryTransport.createLinkedPair();
            const server = new Server({ name: 'bad-list', version: '1.0.0' }, { capabilities: { tools: {} } });
            server.setRequestHandler(ListToolsRequestSchema, () => answer as never);
            await server.connect(serverSide);
            return client;
          },
        },
      });
      const error = await rejection(ex.listTools('bad'));
      expect(error.code).toBe('PROTOCOL');
      expect(error.message).toMatch(
        /MCP server "bad" sent an invalid tools\/list result: (tools must be an array|nextCursor must be a string)/,
      );
    }
  });
});
