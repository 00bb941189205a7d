/**
 * MCP benchmark: a tool call through `runner.run` → MCP executor → server, versus the raw SDK
 * `Client.callTool` on an identical server, in the same run.
 *
 * Two transports:
 * - in-memory: the executor's `custom` transport over `InMemoryTransport.createLinkedPair()`, the
 *   raw client over another linked pair (the floor: no I/O at all, so overhead shows most);
 * - stdio: the fixture server as a child process, one for the executor and one for the raw client.
 *
 * For each: sequential awaited calls (latency) and bursts of concurrent calls (throughput), for
 * `echo` (text result, no output schema) and `structured` (structuredContent checked against the
 * outputSchema: by the runner, and by the raw client, which validates after `listTools`).
 * A call without a progress listener sends no progress token, like the raw `callTool`. A second
 * pair measures what asking for progress costs: the executor with an `onProgress` listener (or
 * `alwaysRequestProgress`), which sends `_meta.progressToken` so that progress can restart the
 * timeout, against the raw client's `request('tools/call')` with an `onprogress` handler
 * (`raw+token`): the difference between the two baselines is the price of the token (the SDK
 * and the server), the ratio between the pair is the executor's own.
 * Tasks run batches so the harness's per-iteration timing does not dominate. The machine is shared
 * (2 cores), so every task is measured in many short rounds, the raw, executor and runner tasks of
 * a case back to back, in an order that rotates from round to round, each after a full GC (with
 * `--expose-gc`); a ratio is the median over rounds of that round's ratio (paired in time), and a
 * per-call time is the median over rounds.
 *
 * Last, the runner's own share of an MCP call without the SDK and the server (whose scheduling
 * swings the transports' figures by several per cent from run to run): `runner.run` against an
 * injected executor that answers at once, versus calling that executor and normalizing directly.
 *
 * Run: `node --import tsx bench/mcp.bench.ts [--json]`
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Bench } from 'tinybench';
import { createToolIndex } from '../src/discovery/index.js';
import { type McpServerConfig, createMcpExecutor } from '../src/mcp/index.js';
import { type CallToolResult, type McpExecutor, createRunner, normalizeMcpResult } from '../src/run/index.js';
import { createFixtureServer } from '../test/fixtures/mcp/fixture-server.mjs';

const asJson = process.argv.slice(2).includes('--json');
const STDIO_SERVER = new URL('../test/fixtures/mcp/stdio-server.mjs', import.meta.url).pathname;
const BURST = 100;
const ROUNDS = 20;
/** Tasks per case (tool × mode): raw, raw+token, executor, executor+progress, runner. */
const CASE_TASKS = 5;

interface Setup {
  label: string;
  batch: number;
  config: McpServerConfig;
  rawClient: () => Promise<Client>;
}

async function inMemoryPair(): Promise<InMemoryTransport> {
  const [client, server] = InMemoryTransport.createLinkedPair();
  await createFixtureServer().server.connect(server);
  return client;
}

const setups: Setup[] = [
  {
    label: 'in-memory',
    batch: 200,
    config: { transport: 'custom', createTransport: inMemoryPair },
    rawClient: async () => {
      const client = new Client({ name: 'raw', version: '1.0.0' });
      await client.connect(await inMemoryPair());
      return client;
    },
  },
  {
    label: 'stdio',
    batch: 50,
    config: { command: process.execPath, args: [STDIO_SERVER] },
    rawClient: async () => {
      const client = new Client({ name: 'raw', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [STDIO_SERVER], stderr: 'ignore' }));
      return client;
    },
  },
];

const withToken = { timeout: 60_000, resetTimeoutOnProgress: true, onprogress: () => undefined };
/** Executor call options with a progress listener: the call asks for progress (sends a token). */
const listening = { onProgress: () => undefined };
const callRequest = (name: string, args: Record<string, unknown>) => ({ method: 'tools/call' as const, params: { name, arguments: args } });

const echoArgs = { text: 'hello' };
const sumArgs = { a: 2, b: 3 };

interface Row {
  transport: string;
  tool: string;
  mode: 'sequential' | `burst ${number}`;
  rawUsPerCall: number;
  rawTokenUsPerCall: number;
  runnerUsPerCall: number;
  executorUsPerCall: number;
  executorProgressUsPerCall: number;
  runnerRatio: number;
  executorRatio: number;
  executorVsTokenRatio: number;
  runnerCallsPerSecond: number;
}

const rows: Row[] = [];

for (const setup of setups) {
  const executor = createMcpExecutor({ servers: { fx: setup.config } });
  const index = createToolIndex();
  await executor.importTools(index, ['fx']);
  const runner = createRunner({ index, mcp: executor });
  const raw = await setup.rawClient();
  await raw.listTools(); // so the raw client validates structuredContent like the runner does

  // Sanity: every path gives the same answer before anything is timed.
  const viaRunner = await runner.run('fx:structured', sumArgs);
  const viaRaw = await raw.callTool({ name: 'structured', arguments: sumArgs });
  if (JSON.stringify(viaRunner.structured) !== JSON.stringify(viaRaw.structuredContent)) throw new Error('paths disagree');
  if ((await runner.run('fx:echo', echoArgs)).structured !== 'hello') throw new Error('runner gave a wrong result');

  const { batch } = setup;
  const bursts = Math.max(1, Math.round(batch / BURST));
  const tasks = new Map<string, () => Promise<void>>();
  for (const [tool, args] of [
    ['echo', echoArgs],
    ['structured', sumArgs],
  ] as const) {
    tasks.set(`${tool} raw seq`, async () => {
      for (let i = 0; i < batch; i++) await raw.callTool({ name: tool, arguments: args });
    });
    tasks.set(`${tool} raw+token seq`, async () => {
      for (let i = 0; i < batch; i++) await raw.request(callRequest(tool, args), CallToolResultSchema, withToken);
    });
    tasks.set(`${tool} executor seq`, async () => {
      for (let i = 0; i < batch; i++) await executor.callTool('fx', { name: tool, arguments: args });
    });
    tasks.set(`${tool} executor+progress seq`, async () => {
      for (let i = 0; i < batch; i++) await executor.callTool('fx', { name: tool, arguments: args }, listening);
    });
    tasks.set(`${tool} runner seq`, async () => {
      for (let i = 0; i < batch; i++) await runner.run(`fx:${tool}`, args);
    });
    tasks.set(`${tool} raw burst`, async () => {
      for (let b = 0; b < bursts; b++) {
        await Promise.all(Array.from({ length: BURST }, () => raw.callTool({ name: tool, arguments: args })));
      }
    });
    tasks.set(`${tool} raw+token burst`, async () => {
      for (let b = 0; b < bursts; b++) {
        await Promise.all(Array.from({ length: BURST }, () => raw.request(callRequest(tool, args), CallToolResultSchema, withToken)));
      }
    });
    tasks.set(`${tool} executor burst`, async () => {
      for (let b = 0; b < bursts; b++) {
        await Promise.all(Array.from({ length: BURST }, () => executor.callTool('fx', { name: tool, arguments: args })));
      }
    });
    tasks.set(`${tool} executor+progress burst`, async () => {
      for (let b = 0; b < bursts; b++) {
        await Promise.all(Array.from({ length: BURST }, () => executor.callTool('fx', { name: tool, arguments: args }, listening)));
      }
    });
    tasks.set(`${tool} runner burst`, async () => {
      for (let b = 0; b < bursts; b++) {
        await Promise.all(Array.from({ length: BURST }, () => runner.run(`fx:${tool}`, args)));
      }
    });
  }
  const samples = new Map<string, number[]>();
  const names = [...tasks.keys()];
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: 100, warmupTime: round === 0 ? 300 : 20 });
    for (const name of rotatedOrder(names, round)) bench.add(name, tasks.get(name) as () => Promise<void>, { beforeAll: collectGarbage });
    await bench.run();
    for (const name of tasks.keys()) {
      const result = bench.getTask(name)?.result;
      if (result === undefined || !('latency' in result)) throw new Error(`no result for ${name}`);
      samples.set(name, [...(samples.get(name) ?? []), result.latency.mean]);
    }
  }

  const usPerCall = (name: string, calls: number): number => (median(samples.get(name) ?? []) * 1e3) / calls;
  const pairedRatio = (name: string, baseline: string): number => {
    const ours = samples.get(name) ?? [];
    const base = samples.get(baseline) ?? [];
    return median(ours.map((value, i) => value / (base[i] ?? NaN)));
  };
  for (const tool of ['echo', 'structured']) {
    for (const [mode, suffix, calls] of [
      ['sequential', 'seq', batch],
      [`burst ${BURST}`, 'burst', bursts * BURST],
    ] as const) {
      const rawUs = usPerCall(`${tool} raw ${suffix}`, calls);
      const runnerUs = usPerCall(`${tool} runner ${suffix}`, calls);
      const executorUs = usPerCall(`${tool} executor ${suffix}`, calls);
      rows.push({
        transport: setup.label,
        tool,
        mode,
        rawUsPerCall: round(rawUs),
        rawTokenUsPerCall: round(usPerCall(`${tool} raw+token ${suffix}`, calls)),
        runnerUsPerCall: round(runnerUs),
        executorUsPerCall: round(executorUs),
        executorProgressUsPerCall: round(usPerCall(`${tool} executor+progress ${suffix}`, calls)),
        runnerRatio: round(pairedRatio(`${tool} runner ${suffix}`, `${tool} raw ${suffix}`), 3),
        executorRatio: round(pairedRatio(`${tool} executor ${suffix}`, `${tool} raw ${suffix}`), 3),
        executorVsTokenRatio: round(pairedRatio(`${tool} executor+progress ${suffix}`, `${tool} raw+token ${suffix}`), 3),
        runnerCallsPerSecond: Math.round(1e6 / runnerUs),
      });
    }
  }
  await executor.close();
  await raw.close();
}

// The runner's own share of an MCP call, without the SDK's and the server's noise: an executor
// that answers at once (an injected McpExecutor, as a user's test would give), called directly and
// normalized, against runner.run of the same tool (lookup, input validation, dispatch,
// normalization, result).
const ownShare = await runnerOwnShare();

const figures = { burst: BURST, rounds: ROUNDS, target: 'runnerRatio <= 1.05', rows, runnerOwnShare: ownShare };
if (asJson) {
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} else {
  const header = [
    'transport',
    'tool',
    'mode',
    'raw µs',
    'raw+token µs',
    'executor µs',
    'executor+progress µs',
    'runner µs',
    'executor ×',
    'executor+progress × token',
    'runner ×',
    'runner calls/s',
  ];
  const lines = rows.map((r) => [
    r.transport,
    r.tool,
    r.mode,
    r.rawUsPerCall.toFixed(1),
    r.rawTokenUsPerCall.toFixed(1),
    r.executorUsPerCall.toFixed(1),
    r.executorProgressUsPerCall.toFixed(1),
    r.runnerUsPerCall.toFixed(1),
    r.executorRatio.toFixed(3),
    r.executorVsTokenRatio.toFixed(3),
    r.runnerRatio.toFixed(3),
    String(r.runnerCallsPerSecond),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]?.length ?? 0)));
  const format = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  process.stdout.write(`${format(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const line of lines) process.stdout.write(`${format(line)}\n`);
  process.stdout.write(
    `\n× = time per call relative to the raw SDK Client.callTool on the same transport (target: runner ≤ 1.05);\n` +
      `× token = the executor with a progress listener (it sends a progress token) relative to the raw client sending one.\n`,
  );
  process.stdout.write(
    `\nThe runner's own share of an MCP call (an executor that answers at once): ${ownShare.runnerNs} ns per runner.run ` +
      `vs ${ownShare.directNs} ns calling it directly and normalizing: ${ownShare.extraNs} ns a call.\n`,
  );
}

/**
 * The task order of one round: each case's tasks stay together (paired in time) but start at a
 * different one every round, so that no task always runs after the same neighbour (and pays for
 * the garbage it left).
 */
function rotatedOrder(names: string[], round: number): string[] {
  const order: string[] = [];
  for (let start = 0; start < names.length; start += CASE_TASKS) {
    const group = names.slice(start, start + CASE_TASKS);
    const shift = round % group.length;
    order.push(...group.slice(shift), ...group.slice(0, shift));
  }
  return order;
}

/** A full collection before each task when the process runs with `--expose-gc` (`npm run bench` does). */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function runnerOwnShare(): Promise<{ directNs: number; runnerNs: number; extraNs: number }> {
  const index = createToolIndex();
  index.registerToolsFromMcp('fx', [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }]);
  const answer: CallToolResult = { content: [{ type: 'text', text: 'hello' }] };
  const instant: McpExecutor = {
    callTool: () => Promise.resolve(answer),
  };
  const runner = createRunner({ index, mcp: instant });
  if ((await runner.run('fx:echo', echoArgs)).structured !== 'hello') throw new Error('runner gave a wrong result');
  const calls = 1_000;
  const direct: number[] = [];
  const viaRunner: number[] = [];
  for (let round = 0; round < 15; round++) {
    const bench = new Bench({ time: 100, warmupTime: round === 0 ? 200 : 20 });
    bench
      .add('direct', async () => {
        for (let i = 0; i < calls; i++) normalizeMcpResult(await instant.callTool('fx', { name: 'echo', arguments: echoArgs }));
      })
      .add('runner', async () => {
        for (let i = 0; i < calls; i++) await runner.run('fx:echo', echoArgs);
      });
    await bench.run();
    const mean = (name: string): number => {
      const result = bench.getTask(name)?.result;
      if (result === undefined || !('latency' in result)) throw new Error(`no result for ${name}`);
      return (result.latency.mean * 1e6) / calls;
    };
    direct.push(mean('direct'));
    viaRunner.push(mean('runner'));
  }
  const directNs = round(median(direct), 0);
  const runnerNs = round(median(viaRunner), 0);
  return { directNs, runnerNs, extraNs: runnerNs - directNs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
