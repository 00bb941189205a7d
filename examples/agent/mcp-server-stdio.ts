/**
 * toolexec as an MCP server over stdio: any MCP client (Claude Desktop, an IDE, another agent)
 * gets the facade's tools — here the shop's local tools and the `fx` MCP server's, proxied — and
 * every call runs through toolexec (validation, deadlines, progress, cancellation).
 *
 *   node --import tsx examples/agent/mcp-server-stdio.ts           the demo: starts the server below, as a client would
 *   node --import tsx examples/agent/mcp-server-stdio.ts --serve   the server itself (what a client config starts)
 *
 * In an MCP client's config:
 *   { "mcpServers": { "shop": { "command": "npx", "args": ["tsx", "examples/agent/mcp-server-stdio.ts", "--serve"] } } }
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createExec } from 'toolexec';
import { createMcpServer } from 'toolexec/agent';
import { check, json, runExample, show } from '../shared/report.js';
import { fxServer, shopTools } from '../shared/shop.js';

async function serve(): Promise<void> {
  const exec = createExec({ tools: shopTools(), mcpServers: { fx: fxServer } });
  const server = createMcpServer(exec, { expose: 'tools', name: 'shop', version: '1.0.0' });
  const transport = new StdioServerTransport();
  // The client closed stdin: close the facade (and the fx server it started), then leave.
  transport.onclose = () => void exec.close().then(() => process.exit(0));
  await server.connect(transport);
}

const text = (result: CallToolResult): string =>
  result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');

async function demo(): Promise<void> {
  // What an MCP client does with the config above.
  const client = new Client({ name: 'example-client', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'],
    stderr: 'inherit',
  });
  await runExample(
    'mcp-server-stdio',
    async () => {
      await client.connect(transport);
      show('server', json(client.getServerVersion()));
      const { tools } = await client.listTools();
      show('tools', tools.map((t) => t.name).join(', '));
      check(tools.some((t) => t.name.includes('convert')) && tools.some((t) => t.name.includes('quote')), 'local and fx tools listed');

      const quoteName = tools.find((t) => t.name.includes('quote'))?.name ?? '';
      const quote = (await client.callTool({ name: quoteName, arguments: { skus: ['MUG-1'], quantity: 2 } })) as CallToolResult;
      show('quote', json(quote.structuredContent));
      check((quote.structuredContent as { totalCents?: number }).totalCents === 2400, 'quote total');

      // A bad call is a result the model can read and fix, not a protocol error.
      const bad = (await client.callTool({ name: quoteName, arguments: { skus: ['mug'] } })) as CallToolResult;
      show('bad call', `isError=${String(bad.isError)} ${text(bad).split('\n')[0]?.slice(0, 110) ?? ''}`);
      check(bad.isError === true && text(bad).startsWith('Error (VALIDATION)'), 'validation error as a result');

      // Progress reaches the client's progress token. (The SDK client hands a notification to its
      // handler a microtask after reading it, so a report that arrives with the result may be missed.)
      const restockName = tools.find((t) => t.name.includes('restock'))?.name ?? '';
      const progress: string[] = [];
      await client.callTool({ name: restockName, arguments: { sku: 'MUG-1', units: 3 } }, undefined, {
        onprogress: (p) => progress.push(p.message ?? String(p.progress)),
      });
      show('progress', progress.join(' → '));
      check(progress.includes('unit 1 of 3') && progress.includes('unit 2 of 3'), 'progress forwarded');
    },
    () => client.close(),
  );
}

if (process.argv.includes('--serve')) await serve();
else await demo();
