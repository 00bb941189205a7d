// createMcpServer's tools/list: cursor pagination (opaque cursors, invalid ones refused with -32602)
// and the tools capability it declares (listChanged only when the listing can change).
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, ListToolsResultSchema, McpError, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { META_TOOL_NAMES, type CreateMcpServerOptions, createMcpServer } from '../../src/agent/index.js';
import { type DefaultExec, type ExecOptions, type LocalToolDefinition, createExec } from '../../src/exec/index.js';
import { localBackend } from '../../src/model/index.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function exec(options: ExecOptions = {}): DefaultExec {
  const e = createExec(options);
  closers.push(() => e.close());
  return e;
}

/** `count` local tools `n:t0`, `n:t1`, ... each answering its own name. */
function numbered(count: number): LocalToolDefinition[] {
  return Array.from({ length: count }, (_, i) => ({
    tool: { name: `t${i}`, namespace: 'n', description: `Tool number ${i}.`, inputSchema: { type: 'object' } },
    handler: () => `t${i}`,
  }));
}

async function connect(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'pages-test', version: '1.0.0' });
  await client.connect(clientSide);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return client;
}

async function served(e: DefaultExec, options: CreateMcpServerOptions): Promise<Client> {
  return connect(createMcpServer(e, options));
}

/** Every page, following nextCursor; the pages' sizes. */
async function listAll(client: Client): Promise<{ names: string[]; sizes: number[] }> {
  const names: string[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    names.push(...page.tools.map((t: McpTool) => t.name));
    sizes.push(page.tools.length);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { names, sizes };
}

async function listError(client: Client, cursor: string): Promise<McpError> {
  const error = await client.request({ method: 'tools/list', params: { cursor } }, ListToolsResultSchema).then(
    () => {
      throw new Error(`cursor ${JSON.stringify(cursor)} was accepted`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('createMcpServer: tools/list in pages', () => {
  it('lists in pages of pageSize with opaque cursors, every tool once, in the order of one listing', async () => {
    const e = exec({ tools: numbered(7) });
    const whole = (await (await served(e, { pageSize: Infinity })).listTools()).tools.map((t) => t.name);
    expect(whole).toHaveLength(7);
    const client = await served(e, { pageSize: 3 });
    const first = await client.listTools();
    expect(first.tools).toHaveLength(3);
    expect(first.nextCursor).toEqual(expect.any(String));
    // Opaque: not a bare number or a tool name.
    expect(first.nextCursor).not.toMatch(/^\d+$/);
    expect(whole).not.toContain(first.nextCursor);
    expect(await listAll(client)).toEqual({ names: whole, sizes: [3, 3, 1] });
    // Calls work for a tool of any page.
    expect(await client.callTool({ name: 'n--t6', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 't6' }] });
  });

  it('lists up to 100 tools in one page by default', async () => {
    const hundred = await served(exec({ tools: numbered(100) }), {});
    const page = await hundred.listTools();
    expect(page.tools).toHaveLength(100);
    expect(page.nextCursor).toBeUndefined();
    const more = await served(exec({ tools: numbered(101) }), {});
    expect((await listAll(more)).sizes).toEqual([100, 1]);
  });

  it('refuses a cursor it did not issue with InvalidParams (-32602), without a doubled "MCP error" prefix', async () => {
    const e = exec({ tools: numbered(5) });
    const client = await served(e, { pageSize: 2 });
    const issued = (await client.listTools()).nextCursor ?? '';
    const [version] = JSON.parse(atob(issued)) as [number, number];
    const forged = [
      'garbage',
      '',
      btoa('[1,2,3]'),
      btoa(JSON.stringify([version, 0])),
      btoa(JSON.stringify([version, 5])),
      btoa(JSON.stringify([version, 99])),
      btoa(JSON.stringify([version, 1.5])),
      btoa(JSON.stringify([version, -2])),
      btoa(JSON.stringify(['x', 2])),
      btoa(JSON.stringify([null, 2])),
      btoa(JSON.stringify([version + 1, 2])),
      ` ${issued}`,
    ];
    for (const cursor of forged) {
      const error = await listError(client, cursor);
      expect(error.code, cursor).toBe(ErrorCode.InvalidParams);
      expect(error.message).toMatch(/^MCP error -32602: Invalid cursor for tools\/list: /);
    }
    // The issued one still works.
    expect((await client.listTools({ cursor: issued })).tools).toHaveLength(2);
  });

  it('a cursor from before the tools changed continues at the same place in the new listing (the client hears list_changed and lists again)', async () => {
    const e = exec({ tools: numbered(4) });
    const client = await served(e, { pageSize: 2 });
    const first = await client.listTools();
    e.index.registerTool({ name: 'late', namespace: 'n', inputSchema: { type: 'object' } }, localBackend('n:late'));
    const rest = await client.listTools({ cursor: first.nextCursor ?? '' });
    expect(rest.tools.length).toBeGreaterThan(0);
    const all = await listAll(client);
    expect(all.names).toHaveLength(5);
    expect(all.names).toContain('n--late');
  });

  it('refuses a bad pageSize with CONFIGURATION', () => {
    const e = exec();
    for (const pageSize of [0, -1, 1.5, Number.NaN, '10' as unknown as number]) {
      expect(() => createMcpServer(e, { pageSize }), String(pageSize)).toThrow(
        expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining('pageSize') }),
      );
    }
  });

  it('a toolexec facade follows the pages over Streamable HTTP on 127.0.0.1 and imports every tool', async () => {
    const source = exec({ tools: numbered(5) });
    const http: HttpServer = createServer((req, res) => {
      void (async () => {
        // Stateless: a server per request, so the cursor must mean the same to every instance.
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        const server = createMcpServer(source, { pageSize: 2 });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res);
      })();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const client = new Client({ name: 'http-pages', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    closers.push(() => client.close());
    expect((await listAll(client)).sizes).toEqual([2, 2, 1]);
    const consumer = exec({ mcpServers: { remote: { url } } });
    expect((await consumer.connect()).remote).toMatchObject({ state: 'connected', toolCount: 5 });
    expect((await consumer.runTool('remote:n--t4', {})).value).toBe('t4');
  });
});

describe('createMcpServer: the tools capability', () => {
  it("declares tools.listChanged with expose: 'tools' (the listing follows the index)", async () => {
    const client = await served(exec({ tools: numbered(1) }), {});
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
  });

  it("does not declare listChanged with expose: 'meta': the six meta-tools never change", async () => {
    const client = await served(exec({ tools: numbered(1) }), { expose: 'meta' });
    expect(client.getServerCapabilities()?.tools).toEqual({});
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...META_TOOL_NAMES]);
  });
});
