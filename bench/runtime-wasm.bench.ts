/**
 * WASM backend benchmark: per-snippet latency and the cost of a tool call from inside the sandbox.
 *
 * Measured in the same run against the irreducible work:
 * (1) a trivial snippet (`return 1`) end to end through `backend.execute` (fresh QuickJS VM per run,
 *     pooled worker) — p50 / p95 of single runs;
 * (2) a snippet making 100 sequential `await tools.runTool(...)` calls — p50 / p95;
 * (3) the same 100 `gateway.runTool(...)` calls made directly on the host, on the same gateway
 *     (a direct gateway over a real runner with schema validation).
 * The sandbox's cost per tool call is ((2) − (1)) / 100; its overhead is that minus (3) / 100.
 * (4) the TypeScript-stripping transform every snippet goes through (sucrase), alone, on (1) and
 *     (2)'s code: `return 1` with the transform is (1), without it (1) − (4).
 * Several rounds, medians reported (the machine may be busy; one round does not decide).
 *
 * Targets: ≤ 5 ms per snippet (p50), ≤ 0.1 ms per tool call (sandbox cost, p50).
 *
 * Run: `node --import tsx bench/runtime-wasm.bench.ts [--json]`
 */
import { Bench } from 'tinybench';
import { createWasmBackend } from '../src/runtime/backends/wasm/index.js';
import { createDirectGateway } from '../src/runtime/index.js';
import { prepareSnippet } from '../src/runtime/internal.js';
import { createContractFixture } from '../src/testing/gateway-contract.js';
import { median } from './paired.js';

const asJson = process.argv.slice(2).includes('--json');
const CALLS = 100;
const ROUNDS = 5;

const gateway = createDirectGateway(createContractFixture());
const backend = createWasmBackend({ poolSize: 1 });

const TRIVIAL = 'return 1;';
const TOOL_LOOP = `let sum = 0;\nfor (let i = 0; i < ${CALLS}; i++) sum += (await tools.runTool('test:add', { a: i, b: 1 })).structured;\nreturn sum;`;
const EXPECTED_SUM = (CALLS * (CALLS - 1)) / 2 + CALLS;

async function direct(): Promise<number> {
  let sum = 0;
  for (let i = 0; i < CALLS; i++) sum += (await gateway.runTool('test:add', { a: i, b: 1 })).structured as number;
  return sum;
}

// Sanity and warm-up (JIT of the host, wasm tier-up in the worker, the spare VM).
for (let i = 0; i < 30; i++) {
  if ((await backend.execute({ code: TRIVIAL, gateway })).value !== 1) throw new Error('wrong trivial result');
  if ((await backend.execute({ code: TOOL_LOOP, gateway })).value !== EXPECTED_SUM) throw new Error('wrong tool-loop result');
  if ((await direct()) !== EXPECTED_SUM) throw new Error('wrong direct result');
}

const TASKS = {
  trivial: 'snippet: return 1',
  toolLoop: `snippet: ${CALLS} tool calls`,
  direct: `host: ${CALLS} direct gateway calls`,
  stripTrivial: 'TypeScript stripping of `return 1`',
  stripToolLoop: 'TypeScript stripping of the tool loop',
} as const;

interface Round {
  trivialP50: number;
  trivialP95: number;
  toolLoopP50: number;
  toolLoopP95: number;
  directP50: number;
  stripTrivialP50: number;
  stripToolLoopP50: number;
}

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

async function round(): Promise<Round> {
  const bench = new Bench({ time: 600, warmupTime: 100, retainSamples: true });
  bench
    .add(TASKS.trivial, async () => {
      await backend.execute({ code: TRIVIAL, gateway });
    })
    .add(TASKS.toolLoop, async () => {
      await backend.execute({ code: TOOL_LOOP, gateway });
    })
    .add(TASKS.direct, async () => {
      await direct();
    })
    .add(TASKS.stripTrivial, () => {
      prepareSnippet({ code: TRIVIAL });
    })
    .add(TASKS.stripToolLoop, () => {
      prepareSnippet({ code: TOOL_LOOP });
    });
  await bench.run();
  const samples = (name: string): number[] => {
    const result = bench.getTask(name)?.result;
    if (result?.state !== 'completed') throw new Error(`${name}: ${result?.state ?? 'no result'}`);
    return [...(result.latency.samples ?? [])];
  };
  const trivial = samples(TASKS.trivial);
  const toolLoop = samples(TASKS.toolLoop);
  const directs = samples(TASKS.direct);
  return {
    trivialP50: percentile(trivial, 50),
    trivialP95: percentile(trivial, 95),
    toolLoopP50: percentile(toolLoop, 50),
    toolLoopP95: percentile(toolLoop, 95),
    directP50: percentile(directs, 50),
    stripTrivialP50: percentile(samples(TASKS.stripTrivial), 50),
    stripToolLoopP50: percentile(samples(TASKS.stripToolLoop), 50),
  };
}

const rounds: Round[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(await round());
await backend.close();

const pick = (key: keyof Round): number => median(rounds.map((r) => r[key]));
const r3 = (value: number): number => Math.round(value * 1000) / 1000;

const trivialP50 = pick('trivialP50');
const perCallMs = median(rounds.map((r) => (r.toolLoopP50 - r.trivialP50) / CALLS));
const directPerCallMs = pick('directP50') / CALLS;
const figures = {
  rounds: ROUNDS,
  calls: CALLS,
  snippetMs: { p50: r3(trivialP50), p95: r3(pick('trivialP95')) },
  toolLoopSnippetMs: { p50: r3(pick('toolLoopP50')), p95: r3(pick('toolLoopP95')) },
  toolCallMs: {
    sandbox: r3(perCallMs),
    direct: r3(directPerCallMs),
    overhead: r3(perCallMs - directPerCallMs),
    ratio: Math.round((perCallMs / directPerCallMs) * 10) / 10,
  },
  // every snippet goes through the TypeScript-stripping transform (sucrase); its share of a run
  transformMs: {
    trivial: Math.round(pick('stripTrivialP50') * 1e6) / 1e6,
    toolLoop: Math.round(pick('stripToolLoopP50') * 1e6) / 1e6,
    snippetWithoutTransformP50: r3(trivialP50 - pick('stripTrivialP50')),
    shareOfTrivialRun: Math.round((pick('stripTrivialP50') / trivialP50) * 10000) / 10000,
  },
  targets: { snippetMsP50: '<= 5', toolCallMs: '<= 0.1' },
  pass: { snippetMsP50: trivialP50 <= 5, toolCallMs: perCallMs <= 0.1 },
};

if (asJson) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  console.log(`\nWASM backend (QuickJS in a pooled worker; medians of ${ROUNDS} rounds)`);
  console.table({
    'snippet `return 1` (ms)': {
      p50: figures.snippetMs.p50,
      p95: figures.snippetMs.p95,
      target: '≤ 5 (p50)',
      pass: figures.pass.snippetMsP50,
    },
    [`snippet with ${CALLS} tool calls (ms)`]: {
      p50: figures.toolLoopSnippetMs.p50,
      p95: figures.toolLoopSnippetMs.p95,
      target: '',
      pass: '',
    },
  });
  console.table({
    'TypeScript stripping of `return 1` (ms)': { ms: figures.transformMs.trivial },
    'TypeScript stripping of the tool loop (ms)': { ms: figures.transformMs.toolLoop },
    'snippet `return 1` without the stripping (ms, p50)': { ms: figures.transformMs.snippetWithoutTransformP50 },
    'stripping share of a `return 1` run': { ms: figures.transformMs.shareOfTrivialRun },
  });
  console.table({
    'tool call from the sandbox (ms)': { 'ms/call': figures.toolCallMs.sandbox, target: '≤ 0.1', pass: figures.pass.toolCallMs },
    'same gateway, called directly (ms)': { 'ms/call': figures.toolCallMs.direct, target: '', pass: '' },
    'sandbox overhead per call (ms)': { 'ms/call': figures.toolCallMs.overhead, target: '', pass: '' },
    'sandbox / direct': { 'ms/call': figures.toolCallMs.ratio, target: '', pass: '' },
  });
}
