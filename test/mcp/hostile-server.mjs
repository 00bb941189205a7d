#!/usr/bin/env node
// An MCP server (the SDK's low-level Server, so it can answer what McpServer would refuse) for the
// tests of a demanding direct user of the MCP executor: secrets quoted back in JSON-RPC errors and
// stderr, malformed results, a server that dies or hangs mid-call. Run as a script it serves over
// stdio; createHostileServer() builds one instance for an in-memory or HTTP transport.
//
// Tools (every argument optional):
// - `rpc_leak` answers a JSON-RPC error quoting its `token` argument (and `card.number`, which the
//   tool's `_meta['toolexec/redact']` declares);
// - `stderr_leak` writes its `token` and $HOSTILE_API_KEY to stderr, then exits with code 7 mid-call;
// - `raw_answer` writes `message` (plus the request's ID) to the transport itself, bypassing the
//   SDK's check of results, and never answers otherwise;
// - `meta` answers the request's `_meta`; `progress` reports progress twice, then answers;
// - `answer` answers `result` as it is (whatever shape: the test decides what is malformed);
// - `big` answers text content and structuredContent of `bytes` characters;
// - `exit` exits with code 3 after `ms` milliseconds, mid-call;
// - `hang` never answers (counts cancellations in `stats`);
// - `stats` answers { pid, calls, cancelled }.
// With HOSTILE_NO_TOOLS=1 the server offers no tools at all (tools/list is "method not found"); with
// HOSTILE_LIST_HANG=1 it never answers tools/list.
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

const open = { type: 'object', properties: {} };

/** The tools, as listed. */
export const HOSTILE_TOOLS = ['rpc_leak', 'stderr_leak', 'raw_answer', 'meta', 'progress', 'answer', 'big', 'exit', 'hang', 'stats'].map(
  (name) => ({
    name,
    inputSchema: open,
    ...(name === 'rpc_leak' ? { _meta: { 'toolexec/redact': ['card.number'] } } : {}),
  }),
);

/**
 * Builds one server instance.
 * @param {{ noTools?: boolean, listHang?: boolean }} [options]
 */
export function createHostileServer(options = {}) {
  const state = { calls: 0, cancelled: 0 };
  const server = new Server({ name: 'toolexec-hostile', version: '1.0.0' }, { capabilities: options.noTools ? {} : { tools: {} } });
  if (options.noTools) return { server, state };
  server.setRequestHandler(ListToolsRequestSchema, async () =>
    options.listHang ? new Promise(() => undefined) : { tools: HOSTILE_TOOLS },
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    state.calls++;
    switch (request.params.name) {
      case 'rpc_leak':
        throw new McpError(-32602, `bad token ${String(args.token)} for card ${String(args.card?.number)}`, { token: args.token });
      case 'stderr_leak':
        process.stderr.write(`refusing token ${String(args.token)} with key ${process.env.HOSTILE_API_KEY}\n`, () => process.exit(7));
        return new Promise(() => undefined);
      case 'raw_answer':
        await server.transport.send({ jsonrpc: '2.0', id: extra.requestId, ...args.message });
        return new Promise(() => undefined);
      case 'meta':
        return { content: [{ type: 'text', text: JSON.stringify(request.params._meta ?? null) }] };
      case 'progress': {
        const token = request.params._meta?.progressToken;
        for (let i = 1; token !== undefined && i <= 2; i++) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 2 } });
        }
        return { content: [{ type: 'text', text: 'done' }] };
      }
      case 'answer':
        return args.result;
      case 'big': {
        const text = 'x'.repeat(Number(args.bytes ?? 0));
        return { content: [{ type: 'text', text }], structuredContent: { text } };
      }
      case 'exit':
        setTimeout(() => process.exit(3), Number(args.ms ?? 0));
        return new Promise(() => undefined);
      case 'hang':
        return new Promise((resolve) => {
          extra.signal.addEventListener('abort', () => {
            state.cancelled++;
            resolve({ content: [] });
          });
        });
      case 'stats':
        return { content: [{ type: 'text', text: JSON.stringify({ pid: process.pid, calls: state.calls, cancelled: state.cancelled }) }] };
      default:
        return { isError: true, content: [{ type: 'text', text: `unknown tool ${request.params.name}` }] };
    }
  });
  return { server, state };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const options = { noTools: process.env.HOSTILE_NO_TOOLS === '1', listHang: process.env.HOSTILE_LIST_HANG === '1' };
  await createHostileServer(options).server.connect(new StdioServerTransport());
}
