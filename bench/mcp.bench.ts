/**
 * MCP benchmark: a tool call through `runner.run` → MCP executor → server, versus the raw SDK
 * `Client.callTool` on an identical server, in the same run.
 *
 * Transports:
 * - in-memory: the executor's `custom` transport over `InMemoryTransport.createLinkedPair()`, the
 *   raw client over another linked pair (no I/O at all, so the layers' cost shows most);
 * - stdio, same core: the fixture server as a child process on the bench's core;
 * - stdio, cross core: the server pinned to the other core (a call then wakes the other core twice).
 *
 * Where the processes run decides a stdio call's time more than any layer does: on a VM, a server
 * that the scheduler puts on the other (idle) vCPU pays for waking it on every round trip, and the
 * scheduler places each server process differently, so two identical raw clients measured side by
 * side differ by up to 1.9× unpinned. So the bench pins itself to CPU 0 (re-running under `taskset`
 * when it is installed; it says so when not) and places every server of a transport the same way.
 *
 * For each transport, tool (`echo`: text result, no output schema; `structured`: structuredContent
 * checked against the outputSchema, by the runner and by the raw client, which validates after
 * `listTools`) and mode (sequential awaited calls; bursts of 100 concurrent calls), six paths:
 * raw `callTool`, raw with a progress token (`request('tools/call')` with `onprogress`), the
 * executor, the executor with a progress listener (it sends a token), `runner.run`, and the
 * control: one more raw client on its own server (its ratio is how far two identical paths differ
 * on that transport). They are timed in short blocks (one tinybench task run each), all six back
 * to back in a shuffled order, many times over; a path's ratio is the median over those groups of
 * its block time over the raw block time of the same group (paired in time, so the VM's drifts
 * cancel), with a bootstrap 95% interval of that median; a per-call time is the median block time
 * over the calls in a block. Over stdio the raw client and the executor come in three pairs of
 * server processes, which successive groups take in turn (ratios within a pair), so that no one
 * process's speed decides the figure.
 * The raw client is the SDK as its users call it: it rebuilds every result through zod's
 * `CallToolResultSchema` (~0.1 µs for a text result, ~0.4 µs with `structuredContent`); the
 * executor accepts a plain result with a direct check that gives the same verdict
 * (`src/mcp/call-result.ts`, ~25–40 ns), which is why the executor alone can read below 1.
 * The runner is also compared with the executor it calls: they share the connection and the server
 * process, so that ratio is free of the differences between server processes (which the control
 * shows can reach tens of per cent over stdio) and is the run layer's own cost.
 *
 * Last, the runner's own share of an MCP call without the SDK and the server: `runner.run` against
 * an injected executor that answers at once, versus calling that executor and normalizing directly.
 *
 * Run: `npm run bench -- mcp` (or `node --import tsx bench/mcp.bench.ts [--json]`);
 * `MCP_BENCH_TRANSPORT=in-memory` (or `stdio`) runs only the transports whose label starts so.
 */
import { cpus } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Bench } from 'tinybench';
import { createToolIndex } from '../src/discovery/index.js';
import { type McpServerConfig, type SdkMcpExecutor, createMcpExecutor } from '../src/mcp/index.js';
import { type CallToolResult, type McpExecutor, type Runner, createRunner, normalizeMcpResult } from '../src/run/index.js';
import { createFixtureServer } from '../test/fixtures/mcp/fixture-server.mjs';
import { bootstrapCi, findExecutable, median, pairedRatios, pinToCpu0, round, timeGroups } from './paired.js';

const asJson = process.argv.slice(2).includes('--json');
// Pin the whole bench (and so every server it spawns) to CPU 0.
const pinned = pinToCpu0();
const taskset = pinned ? findExecutable('taskset') : undefined;

const STDIO_SERVER = new URL('../test/fixtures/mcp/stdio-server.mjs', import.meta.url).pathname;
const BURST = 100;
const PATHS = ['raw', 'raw (2nd)', 'raw+token', 'executor', 'executor+progress', 'runner'] as const;
type PathName = (typeof PATHS)[number];

interface Setup {
  label: string;
  /** Sequential calls per block. */
  block: number;
  /** Groups of blocks (each path once per group). */
  groups: number;
  /** Pairs of server processes (raw client's, executor's) that the groups take in turn. */
  processPairs: number;
  config: McpServerConfig;
  rawTransport: () => Promise<Parameters<Client['connect']>[0]>;
}

async function inMemoryPair(): Promise<InMemoryTransport> {
  const [client, server] = InMemoryTransport.createLinkedPair();
  await createFixtureServer().server.connect(server);
  return client;
}

/** A stdio server: on the bench's core, or pinned to another. */
function stdioSetup(label: string, serverCpu: number | undefined): Setup {
  const [command, args] =
    serverCpu === undefined || taskset === undefined
      ? [process.execPath, [STDIO_SERVER]]
      : [taskset, ['-c', String(serverCpu), process.execPath, STDIO_SERVER]];
  return {
    label,
    block: 20,
    groups: 252,
    processPairs: 3,
    config: { command, args },
    rawTransport: () => Promise.resolve(new StdioClientTransport({ command, args, stderr: 'ignore' })),
  };
}

const setupsAll: Setup[] = [
  {
    label: 'in-memory',
    block: 50,
    groups: 500,
    processPairs: 1,
    config: { transport: 'custom', createTransport: inMemoryPair },
    rawTransport: inMemoryPair,
  },
  stdioSetup(pinned ? 'stdio, same core' : 'stdio (unpinned)', undefined),
];
if (pinned && cpus().length > 1) setupsAll.push(stdioSetup('stdio, cross core', 1));

const only = process.env.MCP_BENCH_TRANSPORT;
const setups = setupsAll.filter((setup) => only === undefined || setup.label.startsWith(only));

const withToken = { timeout: 60_000, resetTimeoutOnProgress: true, onprogress: () => undefined };
/** Executor call options with a progress listener: the call asks for progress (sends a token). */
const listening = { onProgress: () => undefined };
const callRequest = (name: string, args: Record<string, unknown>) => ({ method: 'tools/call' as const, params: { name, arguments: args } });

const echoArgs = { text: 'hello' };
const sumArgs = { a: 2, b: 3 };

interface PathFigures {
  usPerCall: number;
  /** Median over groups of this path's block time over raw's. */
  ratio: number;
  /** Bootstrap 95% interval of that median. */
  ratioCi95: [number, number];
}

interface Row {
  transport: string;
  tool: string;
  mode: 'sequential' | `burst ${number}`;
  paths: Record<PathName, PathFigures>;
  /** The executor with a listener over the raw client sending a token (the token's own cost cancels). */
  executorProgressVsRawToken: number;
  /** The runner over the executor it calls: same connection and server, so no process differences. */
  runnerVsExecutor: number;
  runnerCallsPerSecond: number;
}

const rows: Row[] = [];

for (const setup of setups) {
  // Over stdio each server process has its own speed (the control shows how far two identical ones
  // differ), so the raw client and the executor come in several pairs of processes; successive
  // groups take the pairs in turn, and every ratio is to the raw client of the same pair.
  const pairs: Array<{ executor: SdkMcpExecutor; runner: Runner; raw: Client }> = [];
  for (let k = 0; k < setup.processPairs; k++) {
    const executor = createMcpExecutor({ servers: { fx: setup.config } });
    const index = createToolIndex();
    await executor.importTools(index, ['fx']);
    const runner = createRunner({ index, mcp: executor });
    const raw = new Client({ name: 'raw', version: '1.0.0' });
    await raw.connect(await setup.rawTransport());
    await raw.listTools(); // so the raw client validates structuredContent like the runner does
    // Sanity: every path gives the same answer before anything is timed.
    const viaRunner = await runner.run('fx:structured', sumArgs);
    const viaRaw = await raw.callTool({ name: 'structured', arguments: sumArgs });
    if (JSON.stringify(viaRunner.structured) !== JSON.stringify(viaRaw.structuredContent)) throw new Error('paths disagree');
    if ((await runner.run('fx:echo', echoArgs)).structured !== 'hello') throw new Error('runner gave a wrong result');
    pairs.push({ executor, runner, raw });
  }
  // The control: one more raw client on its own server. Its ratio to the raw clients is the noise
  // floor of the transport (the server processes' own differences, the scheduler's placement).
  const rawControl = new Client({ name: 'raw-control', version: '1.0.0' });
  await rawControl.connect(await setup.rawTransport());
  await rawControl.listTools();
  let pair = pairs[0] as (typeof pairs)[number];
  const usePair = (group: number): void => {
    pair = pairs[((group % pairs.length) + pairs.length) % pairs.length] as (typeof pairs)[number];
  };

  for (const [tool, args] of [
    ['echo', echoArgs],
    ['structured', sumArgs],
  ] as const) {
    const calls: Record<PathName, () => Promise<unknown>> = {
      raw: () => pair.raw.callTool({ name: tool, arguments: args }),
      'raw (2nd)': () => rawControl.callTool({ name: tool, arguments: args }),
      'raw+token': () => pair.raw.request(callRequest(tool, args), CallToolResultSchema, withToken),
      executor: () => pair.executor.callTool('fx', { name: tool, arguments: args }),
      'executor+progress': () => pair.executor.callTool('fx', { name: tool, arguments: args }, listening),
      runner: () => pair.runner.run(`fx:${tool}`, args),
    };
    for (const mode of ['sequential', `burst ${BURST}`] as const) {
      const perBlock = mode === 'sequential' ? setup.block : BURST;
      const groups = mode === 'sequential' ? setup.groups : Math.round(setup.groups / 2);
      const block = (call: () => Promise<unknown>): (() => Promise<void>) =>
        mode === 'sequential'
          ? async () => {
              for (let i = 0; i < perBlock; i++) await call();
            }
          : async () => {
              await Promise.all(Array.from({ length: BURST }, call));
            };
      const blocks = Object.fromEntries(PATHS.map((path) => [path, block(calls[path])])) as Record<PathName, () => Promise<void>>;
      const times = await timeGroups(blocks, groups, Math.max(20, groups / 10), usePair);
      const figures = {} as Record<PathName, PathFigures>;
      for (const path of PATHS) {
        const ratios = pairedRatios(times[path], times.raw);
        figures[path] = {
          usPerCall: round((median(times[path]) * 1e3) / perBlock),
          ratio: round(median(ratios), 3),
          ratioCi95: bootstrapCi(ratios),
        };
      }
      rows.push({
        transport: setup.label,
        tool,
        mode,
        paths: figures,
        executorProgressVsRawToken: round(median(pairedRatios(times['executor+progress'], times['raw+token'])), 3),
        runnerVsExecutor: round(median(pairedRatios(times.runner, times.executor)), 3),
        runnerCallsPerSecond: Math.round(1e6 / figures.runner.usPerCall),
      });
    }
  }
  for (const { executor, raw } of pairs) {
    await executor.close();
    await raw.close();
  }
  await rawControl.close();
}

// The runner's own share of an MCP call, without the SDK's and the server's work: an executor
// that answers at once (an injected McpExecutor, as a user's test would give), called directly and
// normalized, against runner.run of the same tool (lookup, input validation, dispatch,
// normalization, result).
const ownShare = await runnerOwnShare();

const figures = { burst: BURST, pinned, target: 'runner ratio <= 1.05', rows, runnerOwnShare: ownShare };
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
    'runner µs',
    '2nd raw × (noise)',
    'executor ×',
    'executor+progress × token',
    'runner ×',
    'runner 95% CI',
    'runner × executor',
    'runner calls/s',
  ];
  const lines = rows.map((r) => [
    r.transport,
    r.tool,
    r.mode,
    r.paths.raw.usPerCall.toFixed(1),
    r.paths['raw+token'].usPerCall.toFixed(1),
    r.paths.executor.usPerCall.toFixed(1),
    r.paths.runner.usPerCall.toFixed(1),
    `${r.paths['raw (2nd)'].ratio.toFixed(3)} (${r.paths['raw (2nd)'].ratioCi95.map((x) => x.toFixed(3)).join('–')})`,
    r.paths.executor.ratio.toFixed(3),
    r.executorProgressVsRawToken.toFixed(3),
    `${r.paths.runner.ratio.toFixed(3)} ${r.paths.runner.ratio <= 1.05 ? '✓' : '✗'}`,
    r.paths.runner.ratioCi95.map((x) => x.toFixed(3)).join('–'),
    r.runnerVsExecutor.toFixed(3),
    String(r.runnerCallsPerSecond),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]?.length ?? 0)));
  const format = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  process.stdout.write(`${format(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const line of lines) process.stdout.write(`${format(line)}\n`);
  process.stdout.write(
    `\n× = time per call relative to the raw SDK Client.callTool on the same transport, the median over groups timed back to back (target: runner ≤ 1.05);\n` +
      `× token = the executor with a progress listener (it sends a progress token) relative to the raw client sending one.\n` +
      `2nd raw = a second raw client on its own server, timed like the others: how far two identical paths differ here.\n` +
      `runner × executor = the runner over the executor it calls (same connection, same server process): the run layer's own cost.\n` +
      (pinned
        ? 'The bench ran pinned to CPU 0 (taskset); "cross core" servers were pinned to CPU 1.\n'
        : 'taskset was not found: the bench ran unpinned, so stdio figures depend on where the scheduler put each server.\n'),
  );
  process.stdout.write(
    `\nThe runner's own share of an MCP call (an executor that answers at once): ${ownShare.runnerNs} ns per runner.run ` +
      `vs ${ownShare.directNs} ns calling it directly and normalizing: ${ownShare.extraNs} ns a call.\n`,
  );
}

async function runnerOwnShare(): Promise<{ directNs: number; runnerNs: number; extraNs: number }> {
  const index = createToolIndex();
  index.registerToolsFromMcp('fx', [
    { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  ]);
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
