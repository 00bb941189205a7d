/**
 * Python snippets on Pyodide (the python backend: pooled child processes under Node's permission
 * model inside bubblewrap), beside raw Pyodide `runPython` in this process (no sandbox):
 * (1) cold: a new backend's first run (bubblewrap probe, memory snapshot made, first child started),
 *     and a child started from the snapshot (a run at another memory cap gets a new child);
 * (2) a warm snippet (`1 + 1`) on a warm child — p50 / p95;
 * (3) a tool call from inside: 100 sequential `tools.run_tool` vs one, per call;
 * (4) runs per second with 10 snippets in flight (default pool size);
 * (5) raw Pyodide: `runPython('1 + 1')` in this process, p50.
 *
 * Targets: a warm snippet ≤ 5 ms (p50), a tool call from inside ≤ 3 ms.
 *
 * Run: `node --import tsx bench/python.bench.ts [--json]` (needs `npm run build` for the child bundle)
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { createPythonBackend } from '../src/runtime/backends/python/index.js';
import { createDirectGateway, type ExecuteRequest } from '../src/runtime/index.js';
import { createContractFixture } from '../src/testing/gateway-contract.js';
import { median } from './paired.js';

const asJson = process.argv.slice(2).includes('--json');
const RUNS = 60;
const CALLS = 100;
const CONCURRENT = 10;
const THROUGHPUT_MS = 3_000;

const gateway = createDirectGateway(createContractFixture());
const request = (code: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest => ({ language: 'python', code, gateway, ...extra });

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

// (1) cold
const backend = createPythonBackend();
const coldFirstRunMs = await timed(() => backend.execute(request('1 + 1')));
const childFromSnapshot: number[] = [];
for (let i = 0; i < 3; i++)
  childFromSnapshot.push(await timed(() => backend.execute(request('1 + 1', { limits: { memoryBytes: 384 * 1024 * 1024 } }))));

// (2) warm
await backend.warm();
for (let i = 0; i < 10; i++) await backend.execute(request('1 + 1'));
const warm: number[] = [];
for (let i = 0; i < RUNS; i++) warm.push(await timed(() => backend.execute(request('1 + 1'))));

// (3) tool calls from inside
const one = "tools.run_tool('test:add', {'a': 1, 'b': 2})['structured']";
const hundred = `for i in range(${CALLS}):\n    tools.run_tool('test:add', {'a': i, 'b': 2})`;
const withOne: number[] = [];
const withHundred: number[] = [];
for (let i = 0; i < 15; i++) {
  withOne.push(await timed(() => backend.execute(request(one, { limits: { maxToolCalls: CALLS } }))));
  withHundred.push(await timed(() => backend.execute(request(hundred, { limits: { maxToolCalls: CALLS } }))));
}

// (4) throughput with 10 in flight
let completed = 0;
const until = performance.now() + THROUGHPUT_MS;
const throughputStart = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENT }, async () => {
    while (performance.now() < until) {
      await backend.execute(request('sum(range(100))'));
      completed += 1;
    }
  }),
);
const runsPerSecond = completed / ((performance.now() - throughputStart) / 1000);
const poolSize = backend.stats.children;
await backend.close();

// (5) raw Pyodide in this process
const pyodideDir = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
const { loadPyodide } = (await import(`${pyodideDir}/pyodide.mjs`)) as {
  loadPyodide: (options: Record<string, unknown>) => Promise<{ runPython(code: string): unknown }>;
};
const rawLoadMs = performance.now();
const raw = await loadPyodide({ indexURL: `${pyodideDir}/` });
const rawColdMs = performance.now() - rawLoadMs;
for (let i = 0; i < 20; i++) raw.runPython('1 + 1');
const rawRuns: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const started = performance.now();
  raw.runPython('1 + 1');
  rawRuns.push(performance.now() - started);
}

const r3 = (value: number): number => Math.round(value * 1000) / 1000;
const figures = {
  coldFirstRunMs: r3(coldFirstRunMs),
  childFromSnapshotRunMs: r3(median(childFromSnapshot)),
  warmRunP50Ms: r3(percentile(warm, 50)),
  warmRunP95Ms: r3(percentile(warm, 95)),
  toolCallMs: r3((percentile(withHundred, 50) - percentile(withOne, 50)) / (CALLS - 1)),
  runsPerSecond10Concurrent: r3(runsPerSecond),
  poolSize,
  rawPyodideColdLoadMs: r3(rawColdMs),
  rawRunPythonP50Ms: r3(percentile(rawRuns, 50)),
};
const targets = { warmRunP50Ms: 5, toolCallMs: 3 };
const pass = { warmRun: figures.warmRunP50Ms <= targets.warmRunP50Ms, toolCall: figures.toolCallMs <= targets.toolCallMs };

if (asJson) {
  console.log(JSON.stringify({ figures, targets, pass }, null, 2));
} else {
  console.log(`Python on Pyodide (python backend, pool of ${poolSize} child processes; medians)`);
  console.table({
    'cold: new backend, first run (probe, snapshot, first child)': { ms: figures.coldFirstRunMs, target: '' },
    'a run on a new child started from the snapshot': { ms: figures.childFromSnapshotRunMs, target: '' },
    'warm snippet (p50)': { ms: figures.warmRunP50Ms, target: `<= ${targets.warmRunP50Ms}` },
    'warm snippet (p95)': { ms: figures.warmRunP95Ms, target: '' },
    'tool call from inside (per call)': { ms: figures.toolCallMs, target: `<= ${targets.toolCallMs}` },
    [`runs per second, ${CONCURRENT} in flight`]: { ms: figures.runsPerSecond10Concurrent, target: '(runs/s)' },
    'raw Pyodide in process: loadPyodide (cold)': { ms: figures.rawPyodideColdLoadMs, target: '' },
    'raw Pyodide in process: runPython (p50)': { ms: figures.rawRunPythonP50Ms, target: '' },
  });
}
if (!pass.warmRun || !pass.toolCall) process.exitCode = 1;
