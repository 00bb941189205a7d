/**
 * toolexec as an MCP server over Streamable HTTP: an HTTP endpoint (`POST /mcp`) in front of the
 * facade, stateless — each request gets its own `McpServer` and transport (the SDK's stateless
 * pattern), all over one facade. The example starts it on 127.0.0.1, serves one client call made
 * with the SDK's client, and closes.
 *
 *   node --import tsx examples/agent/mcp-server-http.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createExec } from 'toolexec';
import { createMcpServer } from 'toolexec/agent';
import { check, json, runExample, show } from '../shared/report.js';
import { shopTools } from '../shared/shop.js';

const exec = createExec({ tools: shopTools() });

const http = createServer((req, res) => {
  if (req.url !== '/mcp' || req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  // Stateless: no session ID; the request's server and transport close with the response.
  const server = createMcpServer(exec, { name: 'shop-http', version: '1.0.0', timeoutMs: 10_000 });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void server.close());
  server
    .connect(transport)
    .then(() => transport.handleRequest(req, res))
    .catch((error: unknown) => {
      console.error('mcp request failed:', error);
      if (!res.headersSent) res.writeHead(500).end();
    });
});

const client = new Client({ name: 'example-http-client', version: '1.0.0' });

await runExample(
  'mcp-server-http',
  async () => {
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    show('listening', url.href);
    await client.connect(new StreamableHTTPClientTransport(url));
    const { tools } = await client.listTools();
    show('tools', tools.map((t) => t.name).join(', '));
    const find = tools.find((t) => t.name.includes('find_products'));
    check(find !== undefined, 'find_products listed');
    const result = (await client.callTool({ name: find.name, arguments: { query: 'mug' } })) as CallToolResult;
    const items = (result.structuredContent as { items: { sku: string }[] }).items;
    show('call', `${find.name} {"query":"mug"} → ${json(items.map((i) => i.sku))}`);
    check(items.length === 2, 'two mugs found');
  },
  async () => {
    await client.close();
    await new Promise((resolve) => http.close(resolve));
    await exec.close();
  },
);
