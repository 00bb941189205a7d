import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/model/index.js';
import type { McpCustomServerConfig } from '../../src/mcp/index.js';
import { startStreamableHttpFixture } from '../fixtures/mcp/http-server.mjs';
import { waitUntil } from '../mcp/helpers.js';
import { rejection, trackedExecs } from './helpers.js';

/** What one in-process SDK server (a new one per connection) offers, and what it saw. */
interface ServerPlan {
  /** The tools of the n-th tools/list (0-based); the last applies from then on. */
  listings?: McpTool[][];
  /** Called while tools/list #n is being answered, before the answer leaves (the server, to notify). */
  duringList?: (server: Server, n: number) => Promise<void>;
  /** How long tools/list takes. */
  listDelayMs?: number;
  /** Offer resources only, no tools capability. */
  resourcesOnly?: boolean;
}

/** A server built with the SDK's low-level `Server`, reached over an in-memory transport. */
function sdkServer(plan: ServerPlan): { config: McpCustomServerConfig; lists: () => number; connections: () => number } {
  let lists = 0;
  let connections = 0;
  const config: McpCustomServerConfig = {
    transport: 'custom',
    createTransport: async () => {
      connections++;
      const server = new Server(
        { name: 'plan', version: '1.0.0' },
        { capabilities: plan.resourcesOnly ? { resources: {} } : { tools: { listChanged: true } } },
      );
      if (plan.resourcesOnly) server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
      else {
        server.setRequestHandler(ListToolsRequestSchema, async () => {
          const n = lists++;
          if (plan.listDelayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, plan.listDelayMs));
          const listings = plan.listings ?? [[]];
          const tools = listings[Math.min(n, listings.length - 1)] ?? [];
          if (plan.duringList !== undefined) await plan.duringList(server, n);
          return { tools };
        });
        server.setRequestHandler(CallToolRequestSchema, (request) => ({
          content: [{ type: 'text', text: `called ${request.params.name}` }],
        }));
      }
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return client;
    },
  };
  return { config, lists: () => lists, connections: () => connections };
}

const objectSchema = { type: 'object' as const };
const exec = trackedExecs();

describe('what an MCP server lists is imported tool by tool', () => {
  it('a tool the index refuses (a bad name, a name listed twice) is left out and reported; the rest of the server and everything else work', async () => {
    const odd = sdkServer({
      listings: [
        [
          { name: 'fine', inputSchema: objectSchema },
          { name: 'bad name', inputSchema: objectSchema },
          { name: 'a/b', inputSchema: objectSchema },
          { name: 'fine', description: 'again', inputSchema: objectSchema },
        ],
      ],
    });
    const e = exec({ mcpServers: { odd: odd.config } });
    // The import runs in the background: a local call first, then connect(); nothing is left
    // unhandled (vitest fails a run on an unhandled rejection).
    expect((await e.runTool('math:add', { a: 1, b: 2 })).value).toBe(3);
    const status = (await e.connect()).odd;
    expect(status?.state).toBe('connected');
    expect(status?.toolCount).toBe(1);
    expect(status?.rejectedTools?.map((r) => r.name)).toEqual(['bad name', 'a/b', 'fine']);
    for (const rejected of status?.rejectedTools ?? []) {
      expect(rejected.error.code).toBe('INVALID_TOOL');
      expect(rejected.error.message).toContain(`MCP server "odd" listed a tool that cannot be imported (${JSON.stringify(rejected.name)})`);
      expect(rejected.error.details).toEqual({ server: 'odd', tool: rejected.name });
    }
    expect((await e.runTool('odd:fine', {})).value).toBe('called fine');
    expect((await e.searchTools('', 50)).map((t) => t.id)).toContain('odd:fine');
    // The first of the two `fine`s is the one imported.
    expect((await e.getToolDoc('odd:fine', 'full')).tool?.description).toBeUndefined();
  });

  it('a server that offers no tools (resources only) is connected with none, and is not retried', async () => {
    const resources = sdkServer({ resourcesOnly: true });
    const e = exec({ mcpServers: { res: resources.config }, mcpReconnect: { initialDelayMs: 20 } });
    const status = (await e.connect()).res;
    expect(status?.state).toBe('connected');
    expect(status?.toolCount).toBe(0);
    expect(status?.error).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resources.connections()).toBe(1);
    expect(e.serverStatus().res?.state).toBe('connected');
  });

  it('tools/list_changed sent while an import is listing makes it list again', async () => {
    const changing = sdkServer({
      listings: [
        [{ name: 'a', inputSchema: objectSchema }],
        [
          { name: 'a', inputSchema: objectSchema },
          { name: 'b', inputSchema: objectSchema },
        ],
      ],
      // Announced while the first listing is in flight: that listing may be stale already.
      duringList: async (server, n) => {
        if (n === 0) await server.sendToolListChanged();
      },
    });
    const e = exec({ mcpServers: { c: changing.config } });
    await e.connect();
    expect(await waitUntil(() => changing.lists() >= 2 && e.serverStatus().c?.toolCount === 2)).toBe(true);
    expect((await e.runTool('c:b', {})).value).toBe('called b');
  });

  it('a search waits for a server slow to list its tools no longer than the connect timeout and a second; its tools appear once listed', async () => {
    const slow = sdkServer({ listings: [[{ name: 'late', inputSchema: objectSchema }]], listDelayMs: 3000 });
    const e = exec({ mcpServers: { slow: slow.config }, mcpOptions: { connectTimeoutMs: 200 } });
    const started = performance.now();
    const ids = (await e.searchTools('', 50)).map((t) => t.id);
    expect(performance.now() - started).toBeLessThan(2500);
    expect(ids).not.toContain('slow:late');
    expect(e.serverStatus().slow?.state).toBe('connecting');
    expect(await waitUntil(() => e.serverStatus().slow?.state === 'connected', 6000)).toBe(true);
    expect((await e.searchTools('', 50)).map((t) => t.id)).toContain('slow:late');
  });

  it('a tool whose schema cannot be compiled fails with INVALID_SCHEMA (the tool is broken, not the arguments)', async () => {
    const broken = sdkServer({
      listings: [[{ name: 'odd', inputSchema: { type: 'object', properties: { a: { type: 'bogus' } } } }]],
    });
    const e = exec({ mcpServers: { b: broken.config } });
    await e.connect();
    const err = await rejection(e.runTool('b:odd', { a: 1 }));
    expect(err.code).toBe('INVALID_SCHEMA');
    expect(err.message).toContain('invalid JSON Schema: inputSchema of tool "b:odd"');
    expect(errorStatus(err)).toBe(500);
  });
});

describe('a server that goes away is failed, whatever its transport', () => {
  it('a Streamable HTTP server that stops answering is failed after the call that finds it; later calls get SERVER_UNAVAILABLE', async () => {
    const fixture = await startStreamableHttpFixture();
    const e = exec({ mcpServers: { web: { url: fixture.url } }, mcpReconnect: { initialDelayMs: 60_000 } });
    expect((await e.connect()).web?.state).toBe('connected');
    expect((await e.runTool('web:echo', { text: 'hi' })).value).toBeDefined();
    await fixture.close();
    const first = await rejection(e.runTool('web:echo', { text: 'hi' }, { timeoutMs: 5000 }));
    expect(['EXECUTION', 'SERVER_UNAVAILABLE']).toContain(first.code);
    expect(e.serverStatus().web?.state).toBe('failed');
    const started = performance.now();
    const later = await rejection(e.runTool('web:echo', { text: 'hi' }));
    expect(later.code).toBe('SERVER_UNAVAILABLE');
    expect(later.details).toMatchObject({ server: 'web' });
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('a stream of a failed server’s tool rejects with the same SERVER_UNAVAILABLE as runTool (the connect error as cause)', async () => {
    const e = exec({ mcpServers: { dead: { command: '/nonexistent/mcp-server' } }, mcpReconnect: { initialDelayMs: 60_000 } });
    const status = (await e.connect()).dead;
    const viaRun = await rejection(e.runTool('dead:x', {}));
    const viaStream = await rejection(
      (async () => {
        for await (const event of e.runToolStream('dead:x', {})) void event;
      })(),
    );
    for (const err of [viaRun, viaStream]) {
      expect(err.code).toBe('SERVER_UNAVAILABLE');
      expect(err.cause).toBe(status?.error);
      expect(err.message).toMatch(/^exec: MCP server "dead" is unavailable/);
    }
  });

  it('a failed server whose name has a colon is named by its tools’ IDs too', async () => {
    const e = exec({ mcpServers: { 'team:files': { command: '/nonexistent/mcp-server' } }, mcpReconnect: { initialDelayMs: 60_000 } });
    expect((await e.connect())['team:files']?.state).toBe('failed');
    const err = await rejection(e.runTool('team:files:read', {}));
    expect(err.code).toBe('SERVER_UNAVAILABLE');
    expect(err.details).toMatchObject({ server: 'team:files' });
    // and so is a failed server by a versioned tool ID
    const plain = exec({ mcpServers: { plain: { command: '/nonexistent/mcp-server' } }, mcpReconnect: { initialDelayMs: 60_000 } });
    await plain.connect();
    expect((await rejection(plain.runTool('plain:read:1.0.0', {}))).details).toMatchObject({ server: 'plain' });
  });
});
