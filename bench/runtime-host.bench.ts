/**
 * unsafe_host benchmark: what a snippet costs on the host backend, and what a tool call costs from
 * inside the sandbox, each against the irreducible work measured in the same run.
 *
 * - per-snippet latency (p50 / p95) of a trivial snippet (`return 1`) and of a snippet making 100
 *   sequential tool calls, versus the floor: spawning `node -e 0` with an empty environment and
 *   waiting for its exit (no runtime could start a fresh node process for less);
 * - the tool-call round trip from inside the sandbox ((snippet with N calls − trivial snippet) / N,
 *   from a 1000-call snippet), versus calling the same direct gateway in process, and versus the
 *   same call through the proxy gateway over in-memory NDJSON streams (the protocol alone, no
 *   process boundary).
 *
 * Targets: ≤ 60 ms per snippet, ≤ 1 ms per tool call. The machine is shared (2 cores): read the
 * floor next to the figures.
 *
 * Run: `node --import tsx bench/runtime-host.bench.ts [--json]`
 */
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { Bench } from 'tinybench';
import { createContractFixture } from '../src/testing/gateway-contract.js';
import {
  createDirectGateway,
  createProxyGateway,
  createStreamConnection,
  createUnsafeHostBackend,
  serveGateway,
} from '../src/runtime/index.js';

const asJson = process.argv.slice(2).includes('--json');
const SNIPPET_RUNS = 30;
const CALLS_SMALL = 100;
const CALLS_LARGE = 1000;
const IN_PROCESS_BATCH = 500;

const backend = createUnsafeHostBackend({ optIn: true });
const gateway = () => createDirectGateway(createContractFixture());
const loop = (n: number) => `for (let i = 0; i < ${n}; i++) await tools.runTool('test:add', { a: i, b: 1 });\nreturn ${n};`;

function spawnFloor(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { env: {}, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
}

async function snippet(code: string): Promise<void> {
  const result = await backend.execute({ code, gateway: gateway() });
  if (result.value === undefined) throw new Error('snippet produced no value');
}

const inProcess = gateway();
const toServer = new PassThrough();
const toClient = new PassThrough();
const server = serveGateway(gateway(), createStreamConnection(toServer, toClient));
const proxy = createProxyGateway({ connection: createStreamConnection(toClient, toServer) });

const ROUNDS = 6;
const PER_ROUND = Math.ceil(SNIPPET_RUNS / ROUNDS);
const tasks: [string, () => Promise<void>, number][] = [
  ['floor: spawn node -e 0 (empty env)', spawnFloor, PER_ROUND],
  ['unsafe_host: return 1', () => snippet('return 1'), PER_ROUND],
  [`unsafe_host: ${CALLS_SMALL} tool calls`, () => snippet(loop(CALLS_SMALL)), PER_ROUND],
  [`unsafe_host: ${CALLS_LARGE} tool calls`, () => snippet(loop(CALLS_LARGE)), 2],
  [
    `in process: direct gateway runTool ×${IN_PROCESS_BATCH}`,
    async () => {
      for (let i = 0; i < IN_PROCESS_BATCH; i += 1) await inProcess.runTool('test:add', { a: i, b: 1 });
    },
    PER_ROUND,
  ],
  [
    `in memory: proxy gateway runTool ×${IN_PROCESS_BATCH}`,
    async () => {
      for (let i = 0; i < IN_PROCESS_BATCH; i += 1) await proxy.runTool('test:add', { a: i, b: 1 });
    },
    PER_ROUND,
  ],
];

// Short rounds with every task back to back, so a load spike on the shared machine hits the
// floor and the figures alike; samples are pooled over the rounds.
const pools = new Map<string, number[]>(tasks.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  // one Bench per iteration count (tinybench sets iterations per bench)
  for (const count of new Set(tasks.map(([, , iterations]) => iterations))) {
    const bench = new Bench({ iterations: count, time: 0, warmup: round === 0, warmupIterations: 1, warmupTime: 0, retainSamples: true });
    for (const [name, fn, iterations] of tasks) if (iterations === count) bench.add(name, fn);
    for (const task of await bench.run()) {
      const samples = (task.result as { latency?: { samples?: readonly number[] } } | undefined)?.latency?.samples ?? [];
      pools.get(task.name)?.push(...samples);
    }
  }
}
await proxy.close();
await server.close();
await backend.close();

function stats(name: string): { p50: number; p95: number; mean: number } {
  const samples = [...(pools.get(name) ?? [])].sort((a, b) => a - b);
  const at = (q: number) =>
    samples.length === 0 ? Number.NaN : (samples[Math.min(samples.length - 1, Math.max(0, Math.ceil(samples.length * q) - 1))] as number);
  return { p50: at(0.5), p95: at(0.95), mean: samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length) };
}

const floor = stats('floor: spawn node -e 0 (empty env)');
const trivial = stats('unsafe_host: return 1');
const small = stats(`unsafe_host: ${CALLS_SMALL} tool calls`);
const large = stats(`unsafe_host: ${CALLS_LARGE} tool calls`);
const direct = stats(`in process: direct gateway runTool ×${IN_PROCESS_BATCH}`);
const memory = stats(`in memory: proxy gateway runTool ×${IN_PROCESS_BATCH}`);

const sandboxCallMs = (large.p50 - trivial.p50) / CALLS_LARGE;
const sandboxCallSmallMs = (small.p50 - trivial.p50) / CALLS_SMALL;
const directCallMs = direct.p50 / IN_PROCESS_BATCH;
const memoryCallMs = memory.p50 / IN_PROCESS_BATCH;

const figures = {
  snippet: {
    floorSpawnMs: { p50: floor.p50, p95: floor.p95 },
    trivialMs: { p50: trivial.p50, p95: trivial.p95 },
    hundredCallsMs: { p50: small.p50, p95: small.p95 },
    thousandCallsMs: { p50: large.p50, p95: large.p95 },
    overheadOverFloorMs: trivial.p50 - floor.p50,
    ratioToFloor: trivial.p50 / floor.p50,
  },
  toolCall: {
    sandboxRoundTripMs: sandboxCallMs,
    sandboxRoundTripFrom100Ms: sandboxCallSmallMs,
    directInProcessMs: directCallMs,
    proxyInMemoryMs: memoryCallMs,
    ratioToDirect: sandboxCallMs / directCallMs,
  },
  targets: { snippetP50Ms: 60, toolCallMs: 1 },
};

if (asJson) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  const ms = (v: number) => v.toFixed(2);
  const us = (v: number) => (v * 1000).toFixed(1);
  console.table([
    { case: 'floor: spawn node -e 0', 'p50 ms': ms(floor.p50), 'p95 ms': ms(floor.p95), 'per call µs': '', 'vs floor/direct': '1.00×' },
    {
      case: 'unsafe_host: return 1',
      'p50 ms': ms(trivial.p50),
      'p95 ms': ms(trivial.p95),
      'per call µs': '',
      'vs floor/direct': `${(trivial.p50 / floor.p50).toFixed(2)}× floor`,
    },
    {
      case: `unsafe_host: ${CALLS_SMALL} calls`,
      'p50 ms': ms(small.p50),
      'p95 ms': ms(small.p95),
      'per call µs': us(sandboxCallSmallMs),
      'vs floor/direct': '',
    },
    {
      case: `unsafe_host: ${CALLS_LARGE} calls`,
      'p50 ms': ms(large.p50),
      'p95 ms': ms(large.p95),
      'per call µs': us(sandboxCallMs),
      'vs floor/direct': `${(sandboxCallMs / directCallMs).toFixed(1)}× direct`,
    },
    { case: 'direct gateway (in process)', 'p50 ms': '', 'p95 ms': '', 'per call µs': us(directCallMs), 'vs floor/direct': '1.0× direct' },
    {
      case: 'proxy gateway (in-memory NDJSON)',
      'p50 ms': '',
      'p95 ms': '',
      'per call µs': us(memoryCallMs),
      'vs floor/direct': `${(memoryCallMs / directCallMs).toFixed(1)}× direct`,
    },
  ]);
  console.log(`targets: snippet p50 ≤ 60 ms (got ${ms(trivial.p50)}), tool call ≤ 1 ms (got ${ms(sandboxCallMs)} ms)`);
}
