/**
 * MCP: connect to MCP servers over stdio and Streamable HTTP with `toolexec/mcp`, import their
 * tools into an index, and run them through a validating runner.
 *
 *   node --import tsx examples/mcp/main.ts
 *
 * Both servers are `examples/mcp-server/server.mjs`: once started by the executor over stdio (it
 * owns the process and ends it on `close()`), once started here with `--http`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createToolIndex } from 'toolexec/discovery';
import { createMcpExecutor } from 'toolexec/mcp';
import { hasErrorCode } from 'toolexec/model';
import { createRunner } from 'toolexec/run';
import { FX_SERVER_PATH, fxServer } from '../shared/shop.js';
import { check, failure, json, runExample, show } from '../shared/report.js';

// The HTTP server: a child process that prints its URL on the first line of stdout.
const httpServer = spawn(process.execPath, [FX_SERVER_PATH, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
const [url] = (await once(createInterface({ input: httpServer.stdout }), 'line')) as [string];

const mcp = createMcpExecutor({
  servers: {
    fx: fxServer, // { command: process.execPath, args: ['examples/mcp-server/server.mjs'] }
    remote: { transport: 'http', url },
  },
  requestTimeoutMs: 10_000,
});

await runExample(
  'mcp',
  async () => {
    const listed = await mcp.listTools('fx');
    show('listTools', `fx (stdio): ${listed.map((t) => t.name).join(', ')}`);
    check(listed.length === 3, 'three tools');

    // Import every server's tools: the namespace is the server name.
    const index = createToolIndex();
    const count = await mcp.importTools(index);
    show('importTools', `${count} tools; namespaces ${index.listNamespaces().join(', ')}`);
    check(count === 6 && json(index.listNamespaces()) === json(['fx', 'remote']), 'six tools in two namespaces');

    // The runner validates arguments against the listed schema, calls the server and normalizes
    // the result (structuredContent, else the text content parsed as JSON, else the text).
    const runner = createRunner({ index, mcp });
    const converted = await runner.run('fx:convert', { amountCents: 2500, from: 'EUR', to: 'USD' });
    show('run', `fx:convert → ${json(converted.structured)}`);
    show('', `raw MCP result content: ${json(converted.mcpResult?.content)}`);
    check((converted.structured as { amountCents: number }).amountCents === 2717, '25.00 EUR = 27.17 USD');

    const rates = await runner.run('remote:rates', { base: 'CHF' });
    show('run', `remote:rates (HTTP ${url}) → ${json(rates.structured)}`);
    check((rates.structured as { rates: Record<string, number> }).rates.CHF === 1, 'CHF per CHF is 1');

    // Progress notifications from the server reach onProgress.
    const progress: string[] = [];
    await runner.run(
      'remote:convert_many',
      { amountsCents: [10, 20, 30], from: 'USD', to: 'CHF', delayMs: 5 },
      {
        onProgress: (p) => progress.push(p.message ?? `${p.progress}`),
      },
    );
    show('progress', progress.join(' | '));
    check(progress.includes('converted 3 of 3'), 'the server reported progress');

    // Failures: invalid arguments never reach the server; a tool result with isError is EXECUTION.
    const invalid = await failure(runner.run('fx:convert', { amountCents: -1, to: 'EUR' }), 'a negative amount');
    show('VALIDATION', (invalid as Error).message);
    check(hasErrorCode(invalid, 'VALIDATION'), 'VALIDATION');
    const refused = await failure(
      runner.run('fx:convert', { amountCents: 500_000_000, from: 'USD', to: 'EUR' }),
      'an amount over the limit',
    );
    show('EXECUTION', (refused as Error).message);
    check(hasErrorCode(refused, 'EXECUTION') && (refused as Error).message.includes('exceeds the limit'), 'the server refused');
    const late = await failure(
      runner.run('fx:convert_many', { amountsCents: [1, 2, 3], from: 'USD', to: 'EUR', delayMs: 500 }, { timeoutMs: 100 }),
      'a slow call',
    );
    show('TIMEOUT', (late as Error).message);
    check(hasErrorCode(late, 'TIMEOUT'), 'TIMEOUT');
  },
  async () => {
    await mcp.close(); // closes the sessions and ends the stdio server's process group
    httpServer.kill('SIGTERM');
    await once(httpServer, 'exit');
  },
);
