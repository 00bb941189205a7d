/**
 * remote and spec-backend benchmark: what the signed HTTP exchange of the `remote` backend and the
 * spec-backend pipeline (containerd with the local process client) add on top of the same
 * snippet on the `unsafe_host` backend, measured in the same run.
 *
 * - per-snippet latency (p50 / p95) of `return 1` and of a snippet making 100 sequential tool
 *   calls: unsafe_host (the floor: one node process, file mode), containerd through the local
 *   process client (the same node process, started from stdin through the loader), and remote over
 *   127.0.0.1 (a node:http server whose handler runs the snippet on unsafe_host, every tool call
 *   crossing the HTTP exchange back to the caller, each message MAC'd);
 * - the tool-call round trip ((100-call snippet − trivial snippet) / 100) on each.
 *
 * Run: `node --import tsx bench/runtime-remote.bench.ts [--json]`
 */
import { createServer } from 'node:http';
import { Bench } from 'tinybench';
import { createContractFixture } from '../src/testing/gateway-contract.js';
import { createLocalProcessClient } from '../src/testing/runtime-clients.js';
import {
  createContainerdBackend,
  createDirectGateway,
  createRemoteBackend,
  createUnsafeHostBackend,
  type RuntimeBackend,
} from '../src/runtime/index.js';
import { createRemoteRuntimeHandler } from '../src/runtime/backends/remote/index.js';

const asJson = process.argv.slice(2).includes('--json');
const CALLS = 100;
const ROUNDS = 5;
const PER_ROUND = 6;
const SECRET = 'bench-secret-0123456789abcdef';

const host = createUnsafeHostBackend({ optIn: true });
const client = createLocalProcessClient();
const containerd = createContainerdBackend({ client });
const handler = createRemoteRuntimeHandler({ backend: host, secret: SECRET });
const server = createServer(handler);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const remote = createRemoteBackend({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, secret: SECRET });

const gateway = () => createDirectGateway(createContractFixture());
const loop = `for (let i = 0; i < ${CALLS}; i++) await tools.runTool('test:add', { a: i, b: 1 });\nreturn ${CALLS};`;
async function snippet(backend: RuntimeBackend, code: string): Promise<void> {
  const result = await backend.execute({ code, gateway: gateway() });
  if (result.value === undefined) throw new Error('snippet produced no value');
}

const backends: [string, RuntimeBackend][] = [
  ['unsafe_host', host],
  ['containerd (local client)', containerd],
  ['remote (127.0.0.1)', remote],
];
const tasks: [string, () => Promise<void>][] = backends.flatMap(([name, backend]): [string, () => Promise<void>][] => [
  [`${name}: return 1`, () => snippet(backend, 'return 1')],
  [`${name}: ${CALLS} tool calls`, () => snippet(backend, loop)],
]);

// short rounds with every task back to back, samples pooled: a load spike hits all alike
const pools = new Map<string, number[]>(tasks.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  const bench = new Bench({ iterations: PER_ROUND, time: 0, warmup: round === 0, warmupIterations: 1, warmupTime: 0, retainSamples: true });
  for (const [name, fn] of tasks) bench.add(name, fn);
  for (const task of await bench.run()) {
    const samples = (task.result as { latency?: { samples?: readonly number[] } } | undefined)?.latency?.samples ?? [];
    pools.get(task.name)?.push(...samples);
  }
}
await remote.close();
await handler.close();
await new Promise<void>((resolve) => {
  server.close(() => resolve());
  server.closeAllConnections();
});
await containerd.close();
await client.close();
await host.close();

function stats(name: string): { p50: number; p95: number } {
  const samples = [...(pools.get(name) ?? [])].sort((a, b) => a - b);
  const at = (q: number) =>
    samples.length === 0 ? Number.NaN : (samples[Math.min(samples.length - 1, Math.max(0, Math.ceil(samples.length * q) - 1))] as number);
  return { p50: at(0.5), p95: at(0.95) };
}

const rows = backends.map(([name]) => {
  const trivial = stats(`${name}: return 1`);
  const calls = stats(`${name}: ${CALLS} tool calls`);
  return { name, trivial, calls, perCallMs: (calls.p50 - trivial.p50) / CALLS };
});
const floor = rows[0] as (typeof rows)[number];
const figures = Object.fromEntries(
  rows.map((row) => [
    row.name,
    {
      trivialMs: row.trivial,
      hundredCallsMs: row.calls,
      toolCallMs: row.perCallMs,
      snippetOverFloorMs: row.trivial.p50 - floor.trivial.p50,
      snippetRatioToFloor: row.trivial.p50 / floor.trivial.p50,
      toolCallRatioToFloor: row.perCallMs / floor.perCallMs,
    },
  ]),
);

if (asJson) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  const ms = (v: number) => v.toFixed(2);
  console.table(
    rows.map((row) => ({
      backend: row.name,
      'return 1 p50 ms': ms(row.trivial.p50),
      'p95 ms': ms(row.trivial.p95),
      [`${CALLS} calls p50 ms`]: ms(row.calls.p50),
      'per call µs': (row.perCallMs * 1000).toFixed(1),
      'snippet vs unsafe_host': `${(row.trivial.p50 / floor.trivial.p50).toFixed(2)}×`,
      'call vs unsafe_host': `${(row.perCallMs / floor.perCallMs).toFixed(2)}×`,
    })),
  );
}
