/**
 * WebAssembly component benchmark (the wasm backend's `metadata.wasm_component` path):
 * (1) transpile: the first jco call in the process (jco's own wasm loads), a new component with jco
 *     warm, and a component whose transpiled form is cached (sha256 hit);
 * (2) a cold run: a new backend (its component worker starts) running a component it has not seen;
 * (3) a warm run: a cached component on a warm worker, fresh instance per run — p50 / p95;
 * (4) a tool call from inside: a guest making 100 sequential `call-tool`s vs one, per call;
 * (5) the same warm run and tool call with a JavaScript guest built by componentize-qjs (1.6 MB,
 *     QuickJS inside the component: the realistic size of a non-trivial guest).
 * Guests are built at start (test/runtime/backends/wasm/component-guests.ts).
 *
 * Targets: a cached run ≤ 20 ms (p50), a tool call from inside ≤ 3 ms (p50).
 *
 * Run: `node --import tsx bench/runtime-component.bench.ts [--json]`
 */
import { ComponentCache } from '../src/runtime/backends/wasm/component/index.js';
import { createWasmBackend } from '../src/runtime/backends/wasm/index.js';
import { createDirectGateway, type ExecuteRequest } from '../src/runtime/index.js';
import { createContractFixture } from '../src/testing/gateway-contract.js';
import { callToolBody, constantBody, jsComponent, watComponent } from '../test/runtime/backends/wasm/component-guests.js';
import { median } from './paired.js';

const asJson = process.argv.slice(2).includes('--json');
const CALLS = 100;
const RUNS = 60;
const MEMORY = 64 * 1024 * 1024;

const gateway = createDirectGateway(createContractFixture());
const request = (component: Uint8Array, input?: unknown): ExecuteRequest => ({
  code: '',
  gateway,
  metadata: { wasm_component: component, ...(input === undefined ? {} : { input }) },
});

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

// (1) transpile
const first = await watComponent(constantBody(0, '"first"'));
const transpileFirstMs = await timed(() => new ComponentCache(4).prepare(first, MEMORY));
const fresh: number[] = [];
for (let i = 0; i < 10; i++) {
  const component = await watComponent(constantBody(0, `"fresh ${i}"`));
  fresh.push(await timed(() => new ComponentCache(4).prepare(component, MEMORY)));
}
const cache = new ComponentCache(4);
await cache.prepare(first, MEMORY);
const cached: number[] = [];
for (let i = 0; i < 200; i++) cached.push(await timed(() => cache.prepare(first, MEMORY)));

// (2) cold runs: a new backend each time, a component it has not transpiled
const cold: number[] = [];
for (let i = 0; i < 5; i++) {
  const component = await watComponent(constantBody(0, `{"cold":${i}}`));
  const backend = createWasmBackend({ poolSize: 1 });
  cold.push(await timed(() => backend.execute(request(component))));
  await backend.close();
}

// (3) warm runs and (4) tool calls
const backend = createWasmBackend({ poolSize: 1 });
const constant = await watComponent(constantBody(0, '{"ok":true}'));
const one = await watComponent(callToolBody('test:echo', 1));
const hundred = await watComponent(callToolBody('test:echo', CALLS));
for (let i = 0; i < 20; i++) {
  await backend.execute(request(constant));
  const loop = await backend.execute(request(hundred, { i }));
  if (loop.toolCalls.length !== CALLS) throw new Error(`expected ${CALLS} tool calls, got ${loop.toolCalls.length}`);
  await backend.execute(request(one, { i }));
}
const qjsSource = (calls: number) => `
  import { callTool } from 'toolexec:sandbox/host@0.1.0';
  export function run(input) {
    let last = null;
    for (let i = 0; i < ${calls}; i++) last = JSON.parse(callTool('test:echo', input)).structured;
    return JSON.stringify(last);
  }`;
const qjsOne = await jsComponent(qjsSource(1));
const qjsHundred = await jsComponent(qjsSource(CALLS));
const qjsTranspileMs = await timed(() => backend.execute(request(qjsOne, { i: 0 })));
await backend.execute(request(qjsHundred, { i: 0 }));
for (let i = 0; i < 10; i++) {
  await backend.execute(request(qjsOne, { i }));
  await backend.execute(request(qjsHundred, { i }));
}
const warm: number[] = [];
const withOne: number[] = [];
const withHundred: number[] = [];
const qjsWarm: number[] = [];
const qjsWithHundred: number[] = [];
for (let i = 0; i < RUNS; i++) {
  warm.push(await timed(() => backend.execute(request(constant))));
  withOne.push(await timed(() => backend.execute(request(one, { i }))));
  withHundred.push(await timed(() => backend.execute(request(hundred, { i }))));
  qjsWarm.push(await timed(() => backend.execute(request(qjsOne, { i }))));
  qjsWithHundred.push(await timed(() => backend.execute(request(qjsHundred, { i }))));
}
await backend.close();

const r3 = (value: number): number => Math.round(value * 1000) / 1000;
const figures = {
  transpileFirstInProcessMs: r3(transpileFirstMs),
  transpileNewComponentMs: r3(median(fresh)),
  transpileCachedMs: r3(median(cached)),
  coldRunMs: r3(median(cold)),
  warmRunP50Ms: r3(percentile(warm, 50)),
  warmRunP95Ms: r3(percentile(warm, 95)),
  toolCallMs: r3((percentile(withHundred, 50) - percentile(withOne, 50)) / (CALLS - 1)),
  qjsFirstRunMs: r3(qjsTranspileMs),
  qjsWarmRunP50Ms: r3(percentile(qjsWarm, 50)),
  qjsWarmRunP95Ms: r3(percentile(qjsWarm, 95)),
  qjsToolCallMs: r3((percentile(qjsWithHundred, 50) - percentile(qjsWarm, 50)) / (CALLS - 1)),
};
const targets = { warmRunP50Ms: 20, toolCallMs: 3 };
const pass = {
  warmRun: figures.warmRunP50Ms <= targets.warmRunP50Ms && figures.qjsWarmRunP50Ms <= targets.warmRunP50Ms,
  toolCall: figures.toolCallMs <= targets.toolCallMs && figures.qjsToolCallMs <= targets.toolCallMs,
};

if (asJson) {
  console.log(JSON.stringify({ figures, targets, pass }, null, 2));
} else {
  console.log('WebAssembly components (jco, wasm backend, poolSize 1; medians)');
  console.table({
    'transpile, first jco call in the process': { ms: figures.transpileFirstInProcessMs, target: '' },
    'transpile, a new component (jco warm)': { ms: figures.transpileNewComponentMs, target: '' },
    'transpile, cached (sha256 hit)': { ms: figures.transpileCachedMs, target: '' },
    'cold run (new backend + worker, new component)': { ms: figures.coldRunMs, target: '' },
    'warm run, cached component, fresh instance (p50)': { ms: figures.warmRunP50Ms, target: `<= ${targets.warmRunP50Ms}` },
    'warm run (p95)': { ms: figures.warmRunP95Ms, target: '' },
    'tool call from inside (call-tool, per call)': { ms: figures.toolCallMs, target: `<= ${targets.toolCallMs}` },
    'JS guest (componentize-qjs): first run, transpile included': { ms: figures.qjsFirstRunMs, target: '' },
    'JS guest: warm run, fresh instance (p50)': { ms: figures.qjsWarmRunP50Ms, target: `<= ${targets.warmRunP50Ms}` },
    'JS guest: warm run (p95)': { ms: figures.qjsWarmRunP95Ms, target: '' },
    'JS guest: tool call from inside (per call)': { ms: figures.qjsToolCallMs, target: `<= ${targets.toolCallMs}` },
  });
}
if (!pass.warmRun || !pass.toolCall) process.exitCode = 1;
