/**
 * MCP peers: the same `echo` call to the reference server `@modelcontextprotocol/server-everything`
 * over stdio, one call at a time, through three clients:
 * - `ai-sdk`: the AI SDK's MCP client (`@ai-sdk/mcp`, its own JSON-RPC client and stdio transport);
 * - `sdk`: the official SDK `Client.callTool` over the SDK's `StdioClientTransport`;
 * - `runner`: `runner.run('ev:echo', …)` through toolexec's MCP executor (the official SDK inside).
 *
 * Each client talks to its own server processes: three of each, which successive groups take in
 * turn, so that no one process's speed decides a figure. toolexec comes from the built package
 * (`dist/`), as users load it (`npm run bench` builds first). Before any timing, every client makes
 * 2,000 calls to each of its servers, the same for all three: with only the warm-up groups (~130
 * calls per server) a call took 2–6× as long as warm (0.25–0.9 ms on the 2-vCPU VM against
 * 0.08–0.25 ms), so the figure was mostly about the servers' warm-up, not the clients (whose own
 * work is ~15 µs a call). Blocks of sequential calls are timed back to back in a shuffled order,
 * many times over (bench/paired.ts), and a path's ratio is the median over the groups of its block
 * time over the AI SDK client's block time in the same group. The bench pins itself (and so every
 * server it spawns) to CPU 0 when `taskset` is there.
 *
 * Run: `npm run bench -- mcp-peers` (or `node --import tsx bench/mcp-peers.bench.ts [--json]`).
 */
import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as DiscoveryModule from '../src/discovery/index.js';
import type * as McpModule from '../src/mcp/index.js';
import type { SdkMcpExecutor } from '../src/mcp/index.js';
import type * as RunModule from '../src/run/index.js';
import type { Runner } from '../src/run/index.js';
import { importBuilt } from './built.js';
import { bootstrapCi, median, pairedRatios, pinToCpu0, round, timeGroups } from './paired.js';

// toolexec's path from the built package, as users load it (see bench/built.ts)
const { createToolIndex } = await importBuilt<typeof DiscoveryModule>('discovery');
const { createMcpExecutor } = await importBuilt<typeof McpModule>('mcp');
const { createRunner } = await importBuilt<typeof RunModule>('run');

const asJson = process.argv.slice(2).includes('--json');
const pinned = pinToCpu0();

const SERVER = new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url).pathname;
const SERVER_ARGS = [SERVER, 'stdio'];
const ARGS = { message: 'hello' };
const PROCESSES = 3;
const BLOCK = 20;
const GROUPS = Number(process.env.MCP_PEERS_GROUPS ?? 120);
const WARM_CALLS = 2000;

interface Clients {
  aiSdk: MCPClient;
  sdk: Client;
  executor: SdkMcpExecutor;
  runner: Runner;
}

async function connectAll(): Promise<Clients> {
  const aiSdk = await createMCPClient({
    transport: new Experimental_StdioMCPTransport({ command: process.execPath, args: SERVER_ARGS, stderr: 'ignore' }),
  });
  const sdk = new Client({ name: 'bench-sdk', version: '1.0.0' });
  await sdk.connect(new StdioClientTransport({ command: process.execPath, args: SERVER_ARGS, stderr: 'ignore' }));
  const executor = createMcpExecutor({ servers: { ev: { command: process.execPath, args: SERVER_ARGS } } });
  const index = createToolIndex();
  await executor.importTools(index, ['ev']);
  const runner = createRunner({ index, mcp: executor });
  // Every path gives the same answer before anything is timed.
  const expected = ((await sdk.callTool({ name: 'echo', arguments: ARGS })).content as Array<{ text: string }>)[0]?.text;
  const viaAiSdk = ((await aiSdk.callTool({ name: 'echo', arguments: ARGS })).content as Array<{ text: string }>)[0]?.text;
  const viaRunner = await runner.run('ev:echo', ARGS);
  if (expected === undefined || viaAiSdk !== expected || viaRunner.structured !== expected) {
    throw new Error(`paths disagree: ${expected} / ${viaAiSdk} / ${JSON.stringify(viaRunner.structured)}`);
  }
  return { aiSdk, sdk, executor, runner };
}

const sets: Clients[] = [];
for (let k = 0; k < PROCESSES; k++) sets.push(await connectAll());
let set = sets[0] as Clients;

const sequential =
  (call: () => Promise<unknown>): (() => Promise<void>) =>
  async () => {
    for (let i = 0; i < BLOCK; i++) await call();
  };
const blocks = {
  'ai-sdk': sequential(() => set.aiSdk.callTool({ name: 'echo', arguments: ARGS })),
  sdk: sequential(() => set.sdk.callTool({ name: 'echo', arguments: ARGS })),
  runner: sequential(() => set.runner.run('ev:echo', ARGS)),
};
// Every server and client path is brought to its steady state first, each by the same calls.
for (const clients of sets) {
  set = clients;
  for (const block of Object.values(blocks)) for (let i = 0; i < WARM_CALLS / BLOCK; i++) await block();
}
const times = await timeGroups(blocks, GROUPS, Math.max(20, GROUPS / 10), (group) => {
  set = sets[((group % sets.length) + sets.length) % sets.length] as Clients;
});

const rows = (['ai-sdk', 'sdk', 'runner'] as const).map((path) => {
  const ratios = pairedRatios(times[path], times['ai-sdk']);
  return {
    path,
    msPerCall: round(median(times[path]) / BLOCK, 4),
    vsAiSdk: round(median(ratios), 3),
    ci95: bootstrapCi(ratios),
  };
});

for (const clients of sets) {
  await clients.aiSdk.close();
  await clients.sdk.close();
  await clients.executor.close();
}

if (asJson) {
  process.stdout.write(`${JSON.stringify({ pinned, rows })}\n`);
} else {
  process.stdout.write(
    `MCP echo over stdio, server-everything, ${GROUPS} groups × ${BLOCK} sequential calls${pinned ? ' (pinned to CPU 0)' : ''}\n`,
  );
  for (const row of rows) {
    process.stdout.write(
      `  ${row.path.padEnd(8)} ${row.msPerCall.toFixed(4)} ms/call  ${row.vsAiSdk.toFixed(3)}× the AI SDK client  [${row.ci95.join(', ')}]\n`,
    );
  }
}
