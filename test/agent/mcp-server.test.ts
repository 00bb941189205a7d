import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Progress,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { META_TOOL_NAMES, createMcpServer } from '../../src/agent/index.js';
import { type DefaultExec, type ExecOptions, createExec } from '../../src/exec/index.js';
import { localBackend, type Tool } from '../../src/model/index.js';
import { waitUntil } from '../mcp/helpers.js';
import { MEDIA_CONTENT } from '../fixtures/mcp/fixture-server.mjs';
import { type ServedToolsState, servedTools } from './mcp-server-tools.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STDIO_SCRIPT = fileURLToPath(new URL('./mcp-server-stdio-script.ts', import.meta.url));

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function exec(options: ExecOptions = {}): DefaultExec {
  const e = createExec(options);
  closers.push(() => e.close());
  return e;
}

/** An SDK client connected in memory to `server`; counts tools/list_changed notifications. */
async function connectInMemory(server: McpServer): Promise<{ client: Client; listChanged: () => number }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  await client.connect(clientSide);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return { client, listChanged: () => changes };
}

const textOf = (result: CallToolResult): string => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('createMcpServer: the facade as an MCP server (in memory)', () => {
  it('lists every tool with its schemas, title and annotations, named by the name encoding (math:add → math--add)', async () => {
    const { client } = await connectInMemory(createMcpServer(exec({ tools: servedTools() })));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['math--add', 'text--greet', 'work--steps', 'work--wait']);
    const add = tools.find((t) => t.name === 'math--add');
    expect(add).toMatchObject({
      title: 'Add',
      description: 'Adds two numbers.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    });
    expect(client.getServerVersion()).toEqual({ name: 'toolexec', version: '0.1.0' });
  });

  it('runs calls through the facade: structured results, text results, and validation failures a model can act on', async () => {
    const { client } = await connectInMemory(createMcpServer(exec({ tools: servedTools() }), { name: 'mine', version: '2.0.0' }));
    expect(client.getServerVersion()).toEqual({ name: 'mine', version: '2.0.0' });
    const sum = (await client.callTool({ name: 'math--add', arguments: { a: 2, b: 3 } })) as CallToolResult;
    expect(sum.structuredContent).toEqual({ sum: 5 });
    expect(JSON.parse(textOf(sum))).toEqual({ sum: 5 });
    const greeting = (await client.callTool({ name: 'text--greet', arguments: { name: 'Ada' } })) as CallToolResult;
    expect(greeting).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
    const invalid = (await client.callTool({ name: 'math--add', arguments: { a: 'two', c: 1 } })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/^Error \(VALIDATION\): /);
    for (const field of ["'/b' is required", "'/c' is not allowed", "'/a' must be number, got string"])
      expect(textOf(invalid)).toContain(field);
    // a JSON-RPC InvalidParams error whose message carries the SDK's prefix once
    const unknown = await client.callTool({ name: 'math--nope', arguments: {} }).catch((err: unknown) => err);
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown).toMatchObject({ code: ErrorCode.InvalidParams, message: 'MCP error -32602: Tool math--nope not found' });
  });

  it("forwards the run's progress to the client's progress token, always increasing", async () => {
    const { client } = await connectInMemory(createMcpServer(exec({ tools: servedTools() })));
    const reports: Progress[] = [];
    const result = (await client.callTool({ name: 'work--steps', arguments: { count: 3 } }, undefined, {
      onprogress: (progress) => reports.push(progress),
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ done: 3 });
    expect(reports.map((r) => r.progress)).toEqual([0, 2, 3, 4]);
    expect(reports.slice(1).map((r) => r.message)).toEqual(['step 1', 'step 2', 'step 3']);
    expect(reports.at(-1)?.total).toBe(5);
  });

  it("the client's cancellation aborts the run; the server's deadline ends it with TIMEOUT", async () => {
    const state: ServedToolsState = { aborted: [] };
    const e = exec({ tools: servedTools(state) });
    const { client } = await connectInMemory(createMcpServer(e));
    const controller = new AbortController();
    const call = client.callTool({ name: 'work--wait', arguments: {} }, undefined, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(new Error('user pressed stop'));
    await expect(call).rejects.toThrow(/user pressed stop/);
    expect(await waitUntil(() => state.aborted.length === 1)).toBe(true);

    const { client: bounded } = await connectInMemory(createMcpServer(e, { timeoutMs: 100 }));
    const startedMs = Date.now();
    const timedOut = (await bounded.callTool({ name: 'work--wait', arguments: {} })) as CallToolResult;
    expect(timedOut.isError).toBe(true);
    expect(textOf(timedOut)).toMatch(/^Error \(TIMEOUT\): /);
    expect(Date.now() - startedMs).toBeLessThan(5000);
    expect(state.aborted).toHaveLength(2);
  });

  it('sends tools/list_changed once per burst of index changes, and lists the new tools', async () => {
    const e = exec({ tools: servedTools() });
    const { client, listChanged } = await connectInMemory(createMcpServer(e));
    expect((await client.listTools()).tools).toHaveLength(4);
    for (const name of ['one', 'two', 'three']) {
      e.index.registerTool({ name, namespace: 'more', inputSchema: { type: 'object' } }, localBackend(`more:${name}`));
      e.localHandlers.registerHandler(`more:${name}`, () => name);
    }
    expect(await waitUntil(() => listChanged() === 1)).toBe(true);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['more--one', 'more--two', 'more--three']));
    expect(textOf((await client.callTool({ name: 'more--two', arguments: {} })) as CallToolResult)).toBe('two');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(listChanged()).toBe(1);
  });

  it('stops listening to the index when the server closes (a server per request leaks nothing)', async () => {
    const e = exec({ tools: servedTools() });
    const subscribe = e.index.onChange.bind(e.index);
    let listening = 0;
    e.index.onChange = (listener) => {
      listening++;
      const off = subscribe(listener);
      return () => {
        listening--;
        off();
      };
    };
    for (let i = 0; i < 3; i++) {
      const server = createMcpServer(e);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'short-lived', version: '1.0.0' });
      await client.connect(clientSide);
      expect((await client.listTools()).tools).toHaveLength(4);
      expect(listening).toBe(1);
      await client.close();
      await server.close();
      expect(listening).toBe(0);
    }
  });

  it("lists a tool whose schema root has no type: 'object' (with a root union) without breaking the list", async () => {
    const tools = [
      ...servedTools(),
      {
        tool: {
          name: 'find',
          namespace: 'users',
          description: 'A root anyOf without type, as a zod union gives it.',
          inputSchema: {
            anyOf: [
              { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
              { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
            ],
          } as unknown as Tool['inputSchema'],
        },
        handler: (args: Record<string, unknown>) => args,
      },
    ];
    const { client } = await connectInMemory(createMcpServer(exec({ tools })));
    // the SDK client parses tools/list with its schema: one tool without an object root failed them all
    const listed = (await client.listTools()).tools;
    expect(listed.map((t) => t.name).sort()).toEqual(['math--add', 'text--greet', 'users--find', 'work--steps', 'work--wait']);
    expect(listed.find((t) => t.name === 'users--find')?.inputSchema).toEqual({ type: 'object', anyOf: tools[4]?.tool.inputSchema.anyOf });
    const found = (await client.callTool({ name: 'users--find', arguments: { email: 'a@b.c' } })) as CallToolResult;
    expect(found.structuredContent).toEqual({ email: 'a@b.c' });
  });

  it('lists only what ids / query / limit select', async () => {
    const { client } = await connectInMemory(createMcpServer(exec({ tools: servedTools() }), { ids: ['text:greet'], query: 'add' }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['text--greet', 'math--add']);
    await expect(client.callTool({ name: 'work--steps', arguments: { count: 1 } })).rejects.toThrow(/not found/);
  });

  it("expose: 'meta' lists the six meta-tools, and a model works the catalogue through them", async () => {
    const { client, listChanged } = await connectInMemory(createMcpServer(exec({ tools: servedTools() }), { expose: 'meta' }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...META_TOOL_NAMES]);
    const found = (await client.callTool({ name: 'search_tools', arguments: { query: 'add numbers' } })) as CallToolResult;
    expect(textOf(found)).toContain('math:add');
    const ran = (await client.callTool({ name: 'run_tool', arguments: { id: 'math:add', args: '{"a":1,"b":2}' } })) as CallToolResult;
    expect(ran.isError).toBeFalsy();
    expect(textOf(ran)).toContain('3');
    const bad = (await client.callTool({ name: 'run_tool', arguments: { id: 'math:add', args: '{"a":1}' } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain("'/b' is required");
    expect(listChanged()).toBe(0);
  });

  it('refuses bad options with CONFIGURATION when it is made, the selection included', () => {
    const e = exec();
    expect(() => createMcpServer(e, { expose: 'all' as never })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
    expect(() => createMcpServer(e, { timeoutMs: -1 })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
    expect(() => createMcpServer(e, { name: '' })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
    expect(() => createMcpServer(e, 'tools' as never)).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: 'agent: options must be an object' }),
    );
    expect(() => createMcpServer(e, { limit: 0 })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: 'agent: option limit must be a number ≥ 1', details: { field: 'limit' } }),
    );
    expect(() => createMcpServer(e, { ids: 'math:add' as never })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
  });
});

describe('createMcpServer over stdio (a script serving a facade with an upstream MCP server)', () => {
  async function connectStdio(mode: 'tools' | 'meta'): Promise<{ client: Client; listChanged: () => number }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', STDIO_SCRIPT, mode],
      cwd: ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    await client.connect(transport);
    closers.push(() => client.close());
    return { client, listChanged: () => changes };
  }

  it('serves local and proxied tools, every content block of the upstream result, and list_changed when upstream changes', async () => {
    const { client, listChanged } = await connectStdio('tools');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['math--add', 'up--echo', 'up--media', 'up--add_tool']));
    expect(((await client.callTool({ name: 'math--add', arguments: { a: 1, b: 1 } })) as CallToolResult).structuredContent).toEqual({
      sum: 2,
    });
    const media = (await client.callTool({ name: 'up--media', arguments: {} })) as CallToolResult;
    expect(media.content).toEqual(MEDIA_CONTENT);
    // The upstream server adds a tool and says so: the facade re-imports it, and our client hears of it.
    const before = listChanged();
    await client.callTool({ name: 'up--add_tool', arguments: { name: 'fresh' } });
    expect(await waitUntil(() => listChanged() > before, 10_000)).toBe(true);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('up--fresh');
  });

  it("expose: 'meta' over stdio", async () => {
    const { client } = await connectStdio('meta');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...META_TOOL_NAMES]);
    const namespaces = (await client.callTool({ name: 'list_namespaces', arguments: {} })) as CallToolResult;
    for (const ns of ['math', 'text', 'up', 'work']) expect(textOf(namespaces)).toContain(ns);
  });
});

describe('createMcpServer over Streamable HTTP on 127.0.0.1', () => {
  it('serves an SDK client and a toolexec facade that reaches it through mcpServers { url }', async () => {
    const served = exec({ tools: servedTools() });
    const transports = new Map<string, StreamableHTTPServerTransport>();
    const http: HttpServer = createServer((req, res) => {
      void (async () => {
        const sessionId = req.headers['mcp-session-id'];
        let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
        if (transport === undefined) {
          const fresh: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
            sessionIdGenerator: randomUUID,
            onsessioninitialized: (id: string): void => {
              transports.set(id, fresh);
            },
          });
          fresh.onclose = () => {
            if (fresh.sessionId !== undefined) transports.delete(fresh.sessionId);
          };
          await createMcpServer(served).connect(fresh);
          transport = fresh;
        }
        await transport.handleRequest(req, res);
      })();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      await Promise.all([...transports.values()].map((t) => t.close()));
      await new Promise((resolve) => http.close(resolve));
    });
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const client = new Client({ name: 'http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    closers.push(() => client.close());
    expect((await client.listTools()).tools).toHaveLength(4);
    const sum = (await client.callTool({ name: 'math--add', arguments: { a: 20, b: 22 } })) as CallToolResult;
    expect(sum.structuredContent).toEqual({ sum: 42 });

    // toolexec as the client of toolexec: the served tools under the namespace "remote".
    const consumer = exec({ mcpServers: { remote: { url } } });
    const result = await consumer.runTool('remote:math--add', { a: 1, b: 2 });
    expect(result.value).toEqual({ sum: 3 });
  });
});
