/**
 * docker / gvisor benchmark: what a snippet costs in a container, and what a tool call costs over
 * the container's attached stdio, each against the irreducible work measured in the same run.
 *
 * - per-run latency (p50 / p95) of `return 1`: docker cold (a fresh container per run), docker
 *   pooled (the warm pool refilled between runs, not timed), gvisor cold; versus the floor: the
 *   same hardened container running `node -e 0` through the raw engine API (create, attach, start,
 *   wait for the exit; removal untimed, as in the backends), which no cold container run can beat;
 * - the tool-call round trip over the attached stdio: a snippet timing 1000 sequential
 *   `tools.runTool` calls from inside the container (also checked from outside as
 *   (1000 calls − trivial) / 1000), versus the same call on the direct gateway in process.
 *
 * Targets: docker cold ≤ 300 ms, pooled ≤ 100 ms, round trip ≤ 1 ms. The machine is shared (2
 * cores): read the floor next to the figures.
 *
 * Needs a Docker engine (and `runsc` registered for the gvisor row); without one it prints why and
 * exits 0. Run: `node --import tsx bench/runtime-docker.bench.ts [--json]`
 */
import { Agent } from 'node:http';
import { Bench } from 'tinybench';
import type Dockerode from 'dockerode';
import { createContractFixture } from '../src/testing/gateway-contract.js';
import { DEFAULT_DOCKER_LIMITS, buildSandboxImage, type ContainerSandboxBackend } from '../src/runtime/backends/docker/index.js';
import { containerCreateOptions } from '../src/runtime/backends/docker/container-spec.js';
import { createDirectGateway, createDockerBackend, createGvisorBackend } from '../src/runtime/index.js';

const asJson = process.argv.slice(2).includes('--json');
const COLD_RUNS = 24;
const GVISOR_RUNS = 12;
const CALLS = 1000;
const IN_PROCESS_BATCH = 500;

function skip(reason: string): never {
  if (asJson) console.log(JSON.stringify({ skipped: reason }));
  else console.log(`runtime-docker bench skipped: ${reason}`);
  process.exit(0);
}

let docker: Dockerode;
let hasGvisor = false;
try {
  const { default: Docker } = await import('dockerode');
  docker = new Docker({ agent: new Agent({ keepAlive: false }) } as Dockerode.DockerOptions);
  await docker.ping();
  const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
  hasGvisor = info.Runtimes !== undefined && Object.hasOwn(info.Runtimes, 'runsc');
} catch (err) {
  skip(`no Docker engine answers (${err instanceof Error ? err.message : String(err)})`);
}
const image = await buildSandboxImage();

const gateway = () => createDirectGateway(createContractFixture());
const TIMED_LOOP = `const t = performance.now();\nfor (let i = 0; i < ${CALLS}; i++) await tools.runTool('test:add', { a: i, b: 1 });\nreturn (performance.now() - t) / ${CALLS};`;

async function snippet(backend: ContainerSandboxBackend, code: string): Promise<unknown> {
  const result = await backend.execute({ code, gateway: gateway() });
  if (result.value === undefined) throw new Error('snippet produced no value');
  return result.value;
}

let floorRun = 0;
const floorRemovals: Promise<unknown>[] = [];
/**
 * The raw engine path of one hardened container running `node -e 0`: create, attach, start, wait
 * for the exit. The removal is not timed (the backends also remove after the result).
 */
async function floor(): Promise<void> {
  floorRun += 1;
  const options = containerCreateOptions({
    name: `toolexec-bench-floor-${process.pid}-${floorRun}`,
    image: image.tag,
    owner: 'bench',
    kind: 'docker',
    limits: { ...DEFAULT_DOCKER_LIMITS },
  });
  options.Cmd = ['/usr/local/bin/node', '-e', '0'];
  options.OpenStdin = false;
  options.AttachStdin = false;
  const container = await docker.createContainer(options);
  try {
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    const ended = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
    });
    stream.resume();
    await container.start();
    await container.wait();
    await ended;
  } finally {
    floorRemovals.push(container.remove({ force: true }));
  }
}

const cold = createDockerBackend();
const pooled = createDockerBackend({ pool: { size: 1 } });
const gvisor = hasGvisor ? createGvisorBackend() : undefined;
await cold.warmUp();
await pooled.warmUp();
await gvisor?.warmUp();
const inProcess = gateway();

const insideRoundTrips: number[] = [];
const tasks: [string, () => Promise<void>, number, (() => Promise<void>)?][] = [
  ['floor: raw engine, node -e 0', floor, COLD_RUNS],
  ['docker cold: return 1', async () => void (await snippet(cold, 'return 1')), COLD_RUNS],
  ['docker pooled: return 1', async () => void (await snippet(pooled, 'return 1')), COLD_RUNS, () => pooled.warmUp()],
  [
    `docker pooled: ${CALLS} tool calls`,
    async () => void insideRoundTrips.push(Number(await snippet(pooled, TIMED_LOOP))),
    6,
    () => pooled.warmUp(),
  ],
  [
    `in process: direct gateway runTool ×${IN_PROCESS_BATCH}`,
    async () => {
      for (let i = 0; i < IN_PROCESS_BATCH; i += 1) await inProcess.runTool('test:add', { a: i, b: 1 });
    },
    12,
  ],
];
if (gvisor !== undefined) tasks.push(['gvisor cold: return 1', async () => void (await snippet(gvisor, 'return 1')), GVISOR_RUNS]);

// Short rounds with every task back to back, so a load spike hits the floor and the figures alike.
const ROUNDS = 3;
const pools = new Map<string, number[]>(tasks.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, fn, iterations, beforeEach] of tasks) {
    const bench = new Bench({
      iterations: Math.max(1, Math.round(iterations / ROUNDS)),
      time: 0,
      warmup: round === 0,
      warmupIterations: 1,
      warmupTime: 0,
      retainSamples: true,
    });
    bench.add(name, fn, { async: true, ...(beforeEach === undefined ? {} : { beforeEach }) });
    for (const task of await bench.run()) {
      const samples = (task.result as { latency?: { samples?: readonly number[] } } | undefined)?.latency?.samples ?? [];
      pools.get(task.name)?.push(...samples);
    }
  }
}
await Promise.all([cold.close(), pooled.close(), gvisor?.close(), ...floorRemovals]);

function stats(name: string): { p50: number; p95: number; n: number } {
  const samples = [...(pools.get(name) ?? [])].sort((a, b) => a - b);
  const at = (q: number) =>
    samples.length === 0 ? Number.NaN : (samples[Math.min(samples.length - 1, Math.max(0, Math.ceil(samples.length * q) - 1))] as number);
  return { p50: at(0.5), p95: at(0.95), n: samples.length };
}
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor((sorted.length - 1) / 2)] as number);
};

const floorStats = stats('floor: raw engine, node -e 0');
const coldStats = stats('docker cold: return 1');
const pooledStats = stats('docker pooled: return 1');
const loopStats = stats(`docker pooled: ${CALLS} tool calls`);
const gvisorStats = gvisor === undefined ? undefined : stats('gvisor cold: return 1');
const direct = stats(`in process: direct gateway runTool ×${IN_PROCESS_BATCH}`);
const insideMs = median(insideRoundTrips);
const outsideMs = (loopStats.p50 - pooledStats.p50) / CALLS;
const directMs = direct.p50 / IN_PROCESS_BATCH;

const figures = {
  image: image.tag,
  perRunMs: {
    floorRawEngine: floorStats,
    dockerCold: coldStats,
    dockerPooled: pooledStats,
    ...(gvisorStats === undefined ? {} : { gvisorCold: gvisorStats }),
    coldOverFloor: coldStats.p50 / floorStats.p50,
  },
  toolCall: {
    roundTripInsideMs: insideMs,
    roundTripOutsideMs: outsideMs,
    directInProcessMs: directMs,
    ratioToDirect: insideMs / directMs,
  },
  targets: { dockerColdP50Ms: 300, dockerPooledP50Ms: 100, roundTripMs: 1 },
  met: { dockerCold: coldStats.p50 <= 300, dockerPooled: pooledStats.p50 <= 100, roundTrip: insideMs <= 1 },
};

if (asJson) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  const ms = (v: number) => v.toFixed(1);
  const row = (name: string, s: { p50: number; p95: number; n: number }, note = '') => ({
    case: name,
    'p50 ms': ms(s.p50),
    'p95 ms': ms(s.p95),
    n: s.n,
    note,
  });
  console.table([
    row('floor: raw engine, hardened node -e 0', floorStats, '1.00× floor'),
    row('docker cold: return 1', coldStats, `${(coldStats.p50 / floorStats.p50).toFixed(2)}× floor, target ≤ 300`),
    row('docker pooled: return 1', pooledStats, 'target ≤ 100'),
    ...(gvisorStats === undefined
      ? []
      : [row('gvisor cold: return 1', gvisorStats, `${(gvisorStats.p50 / floorStats.p50).toFixed(2)}× floor`)]),
  ]);
  console.table([
    {
      case: 'round trip over attached stdio (timed inside)',
      'per call µs': (insideMs * 1000).toFixed(1),
      note: `${(insideMs / directMs).toFixed(1)}× direct, target ≤ 1000`,
    },
    { case: `round trip ((${CALLS} calls − trivial) / ${CALLS}, outside)`, 'per call µs': (outsideMs * 1000).toFixed(1), note: '' },
    { case: 'direct gateway (in process)', 'per call µs': (directMs * 1000).toFixed(1), note: '1.0× direct' },
  ]);
  if (gvisor === undefined) console.log('gvisor row skipped: the engine has no "runsc" runtime');
}
