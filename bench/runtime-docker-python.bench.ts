/**
 * Python on the docker / gvisor backends: what a Python snippet costs in a container, and what a
 * tool call costs from inside it, next to the node guest's figures in the same run.
 *
 * - per-run latency (p50 / p95) of the snippet `1`: docker cold (a fresh container per run),
 *   docker pooled (the warm pool refilled between runs, not timed), gvisor cold and pooled; the
 *   node guest's `return 1` pooled on docker, measured alternately with the Python runs;
 * - the tool-call round trip: a snippet timing 500 sequential `tools.run_tool` calls from inside
 *   the container (time.perf_counter), versus the node guest's `tools.runTool` timed the same way.
 *
 * Needs a Docker engine (and `runsc` registered for the gvisor rows); without one it prints why and
 * exits 0. Run: `node --import tsx bench/runtime-docker-python.bench.ts [--json]`
 */
import { Agent } from 'node:http';
import Docker from 'dockerode';
import { createContractFixture } from '../src/testing/gateway-contract.js';
import { buildPythonSandboxImage, buildSandboxImage, type ContainerSandboxBackend } from '../src/runtime/backends/docker/index.js';
import { createDirectGateway, createDockerBackend, createGvisorBackend, type ExecuteRequest } from '../src/runtime/index.js';

const asJson = process.argv.slice(2).includes('--json');
const RUNS = 12;
const CALLS = 500;

let hasGvisor = false;
try {
  const docker = new Docker({ agent: new Agent({ keepAlive: false }) } as Docker.DockerOptions);
  await docker.ping();
  const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
  hasGvisor = info.Runtimes !== undefined && Object.hasOwn(info.Runtimes, 'runsc');
} catch (err) {
  const reason = `no Docker engine answers (${err instanceof Error ? err.message : String(err)})`;
  console.log(asJson ? JSON.stringify({ skipped: reason }) : `runtime-docker-python bench skipped: ${reason}`);
  process.exit(0);
}
const [nodeImage, pythonImage] = await Promise.all([buildSandboxImage(), buildPythonSandboxImage()]);

const request = (code: string, language: string): ExecuteRequest => ({
  code,
  language,
  gateway: createDirectGateway(createContractFixture()),
  timeoutMs: 60_000,
});

async function value(backend: ContainerSandboxBackend, code: string, language = 'python'): Promise<unknown> {
  const result = await backend.execute(request(code, language));
  if (result.value === undefined) throw new Error('snippet produced no value');
  return result.value;
}

const PY_LOOP = `import time\nt = time.perf_counter()\nfor i in range(${CALLS}):\n    tools.run_tool("test:add", {"a": i, "b": 1})\n(time.perf_counter() - t) * 1000 / ${CALLS}`;
const JS_LOOP = `const t = performance.now();\nfor (let i = 0; i < ${CALLS}; i++) await tools.runTool('test:add', { a: i, b: 1 });\nreturn (performance.now() - t) / ${CALLS};`;

const backends = {
  dockerCold: createDockerBackend(),
  dockerPooled: createDockerBackend({ pool: { size: 1 } }),
  ...(hasGvisor ? { gvisorCold: createGvisorBackend(), gvisorPooled: createGvisorBackend({ pool: { size: 1 } }) } : {}),
};
const samples = new Map<string, number[]>();
const record = (name: string, ms: number) => samples.set(name, [...(samples.get(name) ?? []), ms]);

async function timed(name: string, backend: ContainerSandboxBackend, code: string, language: string, pooled: boolean): Promise<void> {
  if (pooled) await backend.warmUp({ languages: [language] });
  const started = performance.now();
  await value(backend, code, language);
  record(name, performance.now() - started);
}

// one untimed run each (engine caches, the image's pages)
await value(backends.dockerCold, '1');
await backends.dockerPooled.warmUp({ languages: ['python', 'javascript'] });
for (let i = 0; i < RUNS; i += 1) {
  await timed('docker cold: python 1', backends.dockerCold, '1', 'python', false);
  await timed('docker pooled: python 1', backends.dockerPooled, '1', 'python', true);
  await timed('docker pooled: node return 1', backends.dockerPooled, 'return 1', 'javascript', true);
  if (backends.gvisorCold !== undefined && i % 2 === 0) await timed('gvisor cold: python 1', backends.gvisorCold, '1', 'python', false);
  if (backends.gvisorPooled !== undefined && i % 2 === 0)
    await timed('gvisor pooled: python 1', backends.gvisorPooled, '1', 'python', true);
}
const calls = { python: [] as number[], node: [] as number[] };
for (let i = 0; i < 3; i += 1) {
  await backends.dockerPooled.warmUp({ languages: ['python', 'javascript'] });
  calls.python.push(Number(await value(backends.dockerPooled, PY_LOOP)));
  calls.node.push(Number(await value(backends.dockerPooled, JS_LOOP, 'javascript')));
}
await Promise.all(Object.values(backends).map((backend) => backend.close()));

const quantile = (values: readonly number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))] as number);
};
const rows = [...samples].map(([name, values]) => ({
  case: name,
  'p50 ms': quantile(values, 0.5),
  'p95 ms': quantile(values, 0.95),
  n: values.length,
}));
const figures = {
  images: { node: nodeImage.tag, python: pythonImage.tag },
  perRunMs: rows,
  toolCallMs: { pythonInside: quantile(calls.python, 0.5), nodeInside: quantile(calls.node, 0.5) },
};
if (asJson) console.log(JSON.stringify(figures, null, 2));
else {
  const ms = (v: number) => v.toFixed(2);
  console.table(rows.map((row) => ({ ...row, 'p50 ms': ms(row['p50 ms']), 'p95 ms': ms(row['p95 ms']) })));
  console.table([
    { case: `python tools.run_tool, timed inside (${CALLS} calls)`, 'per call ms': ms(figures.toolCallMs.pythonInside) },
    { case: `node tools.runTool, timed inside (${CALLS} calls)`, 'per call ms': ms(figures.toolCallMs.nodeInside) },
  ]);
  if (!hasGvisor) console.log('gvisor rows skipped: the engine has no "runsc" runtime');
}
