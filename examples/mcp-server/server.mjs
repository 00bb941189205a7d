#!/usr/bin/env node
// A small MCP server for the examples: currency conversion at fixed rates (no network).
// Built with the MCP SDK's McpServer, in plain JavaScript so it starts fast.
//   node examples/mcp-server/server.mjs          serves over stdio
//   node examples/mcp-server/server.mjs --http   serves Streamable HTTP on 127.0.0.1 (a free port,
//                                                or --port N) and prints its URL on the first line
// The examples start it themselves, as the MCP server "fx" (its tools become fx:rates, fx:convert
// and fx:convert_many).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/** Units of each currency per 1 USD (fixed, so the examples can check their results). */
const RATES = { USD: 1, EUR: 0.92, GBP: 0.79, CHF: 0.88 };
const currency = z.enum(Object.keys(RATES));
const MAX_AMOUNT_CENTS = 100_000_000;

function convert(amountCents, from, to) {
  const rate = RATES[to] / RATES[from];
  return { amountCents: Math.round(amountCents * rate), currency: to, rate: Math.round(rate * 1e6) / 1e6 };
}

function createFxServer() {
  const server = new McpServer({ name: 'fx', version: '1.0.0' });

  server.registerTool(
    'rates',
    {
      description: 'Exchange rates of every supported currency against a base currency.',
      inputSchema: { base: currency.default('USD').describe('The base currency.') },
      outputSchema: { base: currency, rates: z.record(z.string(), z.number()) },
    },
    async ({ base }) => {
      const rates = Object.fromEntries(Object.keys(RATES).map((c) => [c, convert(1_000_000, base, c).amountCents / 1_000_000]));
      const structuredContent = { base, rates };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );

  server.registerTool(
    'convert',
    {
      description:
        'Convert a money amount in cents between currencies (USD, EUR, GBP, CHF) at fixed exchange rates. ' +
        'In a chain, the amount and currency can come from the previous step (previous.totalCents, previous.currency).',
      inputSchema: {
        amountCents: z.number().int().min(0).optional().describe('The amount in cents (minor units).'),
        from: currency.optional().describe('The currency of the amount.'),
        to: currency.describe('The currency to convert to.'),
        previous: z.object({ totalCents: z.number().int(), currency }).passthrough().optional(),
      },
      outputSchema: { amountCents: z.number().int(), currency, rate: z.number() },
    },
    async ({ amountCents, from, to, previous }) => {
      const amount = amountCents ?? previous?.totalCents;
      const source = from ?? previous?.currency;
      if (amount === undefined || source === undefined) {
        return {
          isError: true,
          content: [{ type: 'text', text: 'convert needs amountCents and from (or a previous step with totalCents and currency)' }],
        };
      }
      if (amount > MAX_AMOUNT_CENTS) {
        return { isError: true, content: [{ type: 'text', text: `amount ${amount} exceeds the limit of ${MAX_AMOUNT_CENTS} cents` }] };
      }
      const structuredContent = convert(amount, source, to);
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );

  server.registerTool(
    'convert_many',
    {
      description: 'Convert a list of amounts, reporting progress after each one.',
      inputSchema: {
        amountsCents: z.array(z.number().int().min(0)).min(1).max(100),
        from: currency,
        to: currency,
        delayMs: z.number().int().min(0).max(1000).default(20).describe('Pause after each amount, to make progress visible.'),
      },
      outputSchema: { results: z.array(z.number().int()), currency },
    },
    async ({ amountsCents, from, to, delayMs }, extra) => {
      const token = extra._meta?.progressToken;
      const results = [];
      for (const [i, amount] of amountsCents.entries()) {
        if (extra.signal.aborted) throw new Error('cancelled');
        results.push(convert(amount, from, to).amountCents);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken: token,
              progress: i + 1,
              total: amountsCents.length,
              message: `converted ${i + 1} of ${amountsCents.length}`,
            },
          });
        }
      }
      const structuredContent = { results, currency: to };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
  return server;
}

if (process.argv.includes('--http')) {
  // Stateless Streamable HTTP: a fresh server and transport per request.
  const { createServer } = await import('node:http');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const portArg = process.argv.indexOf('--port');
  const port = portArg === -1 ? 0 : Number(process.argv[portArg + 1]);
  const http = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const server = createFxServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((err) => {
        console.error(err);
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  http.listen(port, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${http.address().port}/mcp`);
  });
  process.on('SIGTERM', () => {
    http.close(() => process.exit(0));
    http.closeAllConnections(); // idle keep-alive connections would hold close() for seconds
  });
} else {
  await createFxServer().connect(new StdioServerTransport());
}
