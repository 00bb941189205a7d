/**
 * A toolexec facade served as an MCP server over stdio, for the tests' SDK client: the local tools
 * of mcp-server-tools.ts plus the MCP fixture server's tools (namespace `up`), proxied.
 * `node --import tsx mcp-server-stdio-script.ts [tools|meta]`.
 */
import { fileURLToPath } from 'node:url';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../../src/agent/index.js';
import { createExec } from '../../src/exec/index.js';
import { servedTools } from './mcp-server-tools.js';

const upstream = fileURLToPath(new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url));
const exec = createExec({ tools: servedTools(), mcpServers: { up: { command: process.execPath, args: [upstream] } } });
const server = createMcpServer(exec, { expose: process.argv[2] === 'meta' ? 'meta' : 'tools', name: 'toolexec-test' });
const transport = new StdioServerTransport();
transport.onclose = () => {
  void exec.close().then(() => process.exit(0));
};
await server.connect(transport);
