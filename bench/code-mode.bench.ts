/**
 * Code mode as a user meets it: `createExec()` defaults, `exec.executeCode({ code })`, a fresh
 * tools environment (gateway) per run, the default runtime's WASM sandbox (its worker pool sized to
 * the cores). Measured in the same run against the irreducible work, raw QuickJS:
 *
 * (1) raw QuickJS: `6*7` evaluated in a warm VM, and a fresh VM made and evaluated (what a run's
 *     isolation costs at least, paid off the critical path by the workers' spare VMs);
 * (2) a snippet on the user's path: `exec.executeCode({ code: 'return 6*7' })`, p50 / p95, one at a
 *     time — and the same through `createRuntime()` with a fresh direct gateway per run;
 * (3) a tool call from inside, on the user's path: the round trip, (a snippet making 210 sequential
 *     `await tools.runTool(...)` calls − one making 10, run back to back) / 200, the median over the
 *     pairs, which leaves out what a run pays once when it makes any call; and that once-per-run cost, (the 10-call snippet − a snippet making
 *     none) − 10 round trips (the first call's cold paths, a run that ends after an await);
 *     beside it the irreducible work of such a call, and the round trip's ratio to it: raw QuickJS
 *     making the call in a warm VM (the request stringified out through a host function, the reply
 *     text handed back in, parsed, a promise resolved; the same texts the wire carries) plus a raw
 *     round trip of those texts between this thread and a worker over a `MessagePort`; and the
 *     round trip for a tool whose definition is ~2 KB (a real tool's schema), which crosses once per run;
 * (4) throughput: trivial snippets per second with 1, 10 and 100 in flight;
 * (5) queue wait: with 100 in flight on the runtime, the time from the call to the snippet's start
 *     (`onStart`), p50 / p95 — what a deadline counted from the call would have lost.
 *
 * Several rounds, medians reported (the machine may be busy; one round does not decide).
 * Targets: snippet p50 ≤ 2 ms, tool call ≤ 0.05 ms, ≥ 500 snippets/s at 100 in flight (2 cores).
 *
 * The facade and the runtime come from the built package (`dist/`), as users load them; `npm run
 * bench` builds first.
 *
 * Run: `node --import tsx bench/code-mode.bench.ts [--json]` (or `npm run bench -- code-mode`)
 */
import { availableParallelism } from 'node:os';
import { MessageChannel, Worker } from 'node:worker_threads';
import { QuickJS } from 'quickjs-wasi';
import type * as ExecModule from '../src/exec/index.js';
import type { LocalToolDefinition } from '../src/exec/index.js';
import type * as RuntimeModule from '../src/runtime/index.js';
import { quickjsModule } from '../src/runtime/backends/wasm/engine.js';
import { importBuilt } from './built.js';
import { median, round } from './paired.js';

// the paths users call, from the built package (see bench/built.ts)
const { createExec } = await importBuilt<typeof ExecModule>('exec');
const { createDirectGateway, createRuntime } = await importBuilt<typeof RuntimeModule>('runtime');

const asJson = process.argv.slice(2).includes('--json');
const ROUNDS = 5;
const SAMPLES = 300;
const FEW_CALLS = 10;
const MANY_CALLS = 210;
const THROUGHPUT_SNIPPETS = 1000;
const RAW_CALLS = 3000;
const SLOPE_SAMPLES = 60;

// a tool with a schema the size real tools have (~2 KB of definition): its definition crosses once per run
const wideProperties = Object.fromEntries(
  Array.from({ length: 12 }, (_, i) => [
    `field_${i}`,
    {
      type: i % 2 === 0 ? 'integer' : 'string',
      description: `The ${i}th field of the request, used to narrow the search to matching items.`,
      ...(i % 3 === 0 ? { enum: ['open', 'closed', 'all'] } : {}),
    },
  ]),
);
const tools: LocalToolDefinition[] = [
  {
    tool: { name: 'add', namespace: 'test', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
    handler: (args) => (args.a as number) + (args.b as number),
  },
  {
    tool: {
      name: 'search',
      namespace: 'test',
      description: 'Search issues and pull requests across repositories, by state, label and text.',
      inputSchema: { type: 'object', properties: wideProperties },
    },
    handler: () => 1,
  },
];
// the user's facade: every default but the tool-call budget, which the loop below exceeds
const exec = createExec({ tools, maxToolCalls: 0 });
const runtime = createRuntime();
// the runtime path's fresh gateway per run answers from the same index, docs and runner
const fixture = { index: exec.index, docs: exec.docs, runner: exec.runner };

const TRIVIAL = 'return 6*7';
const loop = (n: number): string =>
  `let s = 0;\nfor (let i = 0; i < ${n}; i++) s += (await tools.runTool('test:add', { a: i, b: 1 })).structured;\nreturn s;`;
const FEW = loop(FEW_CALLS);
const MANY = loop(MANY_CALLS);
const wideLoop = (n: number): string =>
  `let s = 0;\nfor (let i = 0; i < ${n}; i++) s += (await tools.runTool('test:search', { field_2: i })).structured;\nreturn s;`;
const WIDE_FEW = wideLoop(FEW_CALLS);
const WIDE_MANY = wideLoop(MANY_CALLS);
const NO_CALLS = loop(0);

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

async function timed(n: number, run: () => unknown): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}

/**
 * The cost of one more call: the many-call and the few-call snippet run back to back, `samples`
 * times; the median over the pairs of their difference per extra call (pairs cancel the drift).
 */
async function slope(many: string, few: string, samples: number): Promise<{ perCallMs: number; fews: number[] }> {
  const perCall: number[] = [];
  const fews: number[] = [];
  for (let i = 0; i < samples; i++) {
    const [manyMs] = await timed(1, () => exec.executeCode({ code: many }));
    const [fewMs] = await timed(1, () => exec.executeCode({ code: few }));
    perCall.push(((manyMs as number) - (fewMs as number)) / (MANY_CALLS - FEW_CALLS));
    fews.push(fewMs as number);
  }
  return { perCallMs: percentile(perCall, 50), fews };
}

async function throughput(inFlight: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < THROUGHPUT_SNIPPETS) {
        next += 1;
        const { value } = await exec.executeCode({ code: TRIVIAL });
        if (value !== 42) throw new Error('wrong result');
      }
    }),
  );
  return THROUGHPUT_SNIPPETS / ((performance.now() - started) / 1000);
}

async function queueWait(inFlight: number): Promise<number[]> {
  const waits: number[] = [];
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      const called = performance.now();
      let startedAt = called;
      await runtime.execute({ code: TRIVIAL, gateway: createDirectGateway(fixture), onStart: () => (startedAt = performance.now()) });
      waits.push(startedAt - called);
    }),
  );
  return waits;
}

const module = await quickjsModule();
const warm = await QuickJS.create({ wasm: module });
const rawEval = (): void => warm.evalCode('6*7').dispose();
const rawFresh = async (): Promise<void> => {
  const vm = await QuickJS.create({ wasm: module });
  vm.evalCode('6*7').dispose();
  vm.dispose();
};

// The irreducible work of one tool call from inside, with the texts the wire carries for it once
// the run holds the tool's definition (the reply leaves it out: `tool` and `backend` are null).
const REQUEST_TEXT = JSON.stringify({ type: 'run_tool', id: '12', payload: { id: 'test:add', toolRev: 1, args: { a: 1, b: 1 } } });
const REPLY_TEXT = JSON.stringify({
  type: 'response',
  id: '12',
  toolRev: 1,
  payload: { ...(await exec.runner.run('test:add', { a: 1, b: 1 })), tool: null, backend: null },
});

/** Raw QuickJS making `calls` calls out and back in a warm VM: ms per call. */
async function rawGuestCall(calls: number): Promise<number> {
  const count = rawCall.vm.newNumber(calls);
  const main = rawCall.vm.callFunction(rawCall.loop, rawCall.vm.undefined, count);
  count.dispose();
  const started = performance.now();
  for (;;) {
    rawCall.vm.executePendingJobs();
    if (main.promiseState !== 0) break;
    const reply = rawCall.vm.newString(REPLY_TEXT);
    rawCall.vm.callFunction(rawCall.deliver, rawCall.vm.undefined, reply).dispose();
    reply.dispose();
  }
  const ms = (performance.now() - started) / calls;
  if (rawCall.sent !== calls) throw new Error('raw call: wrong number of requests');
  rawCall.sent = 0;
  main.dispose();
  return ms;
}

/** A raw round trip of the request and reply texts between this thread and a worker: ms per trip. */
function rawThreadRoundTrip(trips: number): Promise<number> {
  return new Promise((resolve) => {
    let left = trips;
    const started = performance.now();
    pingPong.port.on('message', function onReply() {
      left -= 1;
      if (left > 0) {
        pingPong.port.postMessage(REQUEST_TEXT);
        return;
      }
      pingPong.port.off('message', onReply);
      resolve((performance.now() - started) / trips);
    });
    pingPong.port.postMessage(REQUEST_TEXT);
  });
}

const rawCall = await (async () => {
  const vm = await QuickJS.create({ wasm: await quickjsModule() });
  const state = { vm, sent: 0, deliver: vm.undefined, loop: vm.undefined };
  const send = vm.newFunction('send', (text) => {
    if (typeof text.toString() === 'string') state.sent += 1;
    return vm.undefined;
  });
  const setup = vm.evalCode(`(send) => {
    let resolveNext;
    globalThis.call = (args) => new Promise((resolve) => {
      resolveNext = resolve;
      send(JSON.stringify({ type: 'run_tool', id: '12', payload: { id: 'test:add', toolRev: 1, args } }));
    });
    return (text) => resolveNext(JSON.parse(text));
  }`);
  state.deliver = vm.callFunction(setup, vm.undefined, send);
  state.loop = vm.evalCode(
    `async (n) => { let s = 0; for (let i = 0; i < n; i++) s += (await call({ a: i, b: 1 })).payload.structured; return s; }`,
  );
  setup.dispose();
  send.dispose();
  return state;
})();

const pingPong = (() => {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(
    `require('node:worker_threads').parentPort.once('message', (port) => port.on('message', () => port.postMessage(${JSON.stringify(REPLY_TEXT)})));`,
    { eval: true },
  );
  worker.postMessage(port2, [port2]);
  return { port: port1, worker };
})();

// sanity and warm-up: every worker up, the JITs warm
for (let i = 0; i < 100; i++) {
  if ((await exec.executeCode({ code: TRIVIAL })).value !== 42) throw new Error('wrong trivial result');
  if ((await runtime.execute({ code: TRIVIAL, gateway: createDirectGateway(fixture) })).value !== 42)
    throw new Error('wrong runtime result');
}
if ((await exec.executeCode({ code: MANY })).value !== (MANY_CALLS * (MANY_CALLS - 1)) / 2 + MANY_CALLS)
  throw new Error('wrong loop result');
if ((await exec.executeCode({ code: WIDE_MANY })).value !== MANY_CALLS) throw new Error('wrong wide-tool loop result');
await throughput(100);
await queueWait(100);
await rawGuestCall(2000);
await rawThreadRoundTrip(2000);

interface Round {
  rawEvalMs: number;
  rawFreshMs: number;
  snippetP50: number;
  snippetP95: number;
  runtimeP50: number;
  toolCallMs: number;
  wideToolCallMs: number;
  rawGuestCallMs: number;
  rawThreadMs: number;
  firstCallMs: number;
  perSecond1: number;
  perSecond10: number;
  perSecond100: number;
  queueP50: number;
  queueP95: number;
}

const rounds: Round[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const rawEvals = await timed(SAMPLES, rawEval);
  const rawFreshes = await timed(SAMPLES / 3, rawFresh);
  const snippets = await timed(SAMPLES, () => exec.executeCode({ code: TRIVIAL }));
  const runtimes = await timed(SAMPLES, () => runtime.execute({ code: TRIVIAL, gateway: createDirectGateway(fixture) }));
  const { perCallMs: roundTripMs, fews } = await slope(MANY, FEW, SLOPE_SAMPLES);
  const empties = await timed(SLOPE_SAMPLES, () => exec.executeCode({ code: NO_CALLS }));
  const wide = await slope(WIDE_MANY, WIDE_FEW, SLOPE_SAMPLES);
  const rawGuestCallMs = await rawGuestCall(RAW_CALLS);
  const rawThreadMs = await rawThreadRoundTrip(RAW_CALLS);
  const waits = await queueWait(100);
  rounds.push({
    rawEvalMs: percentile(rawEvals, 50),
    rawFreshMs: percentile(rawFreshes, 50),
    snippetP50: percentile(snippets, 50),
    snippetP95: percentile(snippets, 95),
    runtimeP50: percentile(runtimes, 50),
    toolCallMs: roundTripMs,
    wideToolCallMs: wide.perCallMs,
    rawGuestCallMs,
    rawThreadMs,
    firstCallMs: percentile(fews, 50) - percentile(empties, 50) - FEW_CALLS * roundTripMs,
    perSecond1: await throughput(1),
    perSecond10: await throughput(10),
    perSecond100: await throughput(100),
    queueP50: percentile(waits, 50),
    queueP95: percentile(waits, 95),
  });
}
warm.dispose();
rawCall.deliver.dispose();
rawCall.loop.dispose();
rawCall.vm.dispose();
pingPong.port.close();
await pingPong.worker.terminate();
await exec.close();
await runtime.close();

const pick = (key: keyof Round): number => median(rounds.map((r) => r[key]));
const figures = {
  rounds: ROUNDS,
  cores: availableParallelism(),
  rawQuickJsMs: { evalInWarmVm: round(pick('rawEvalMs'), 4), freshVmAndEval: round(pick('rawFreshMs'), 3) },
  snippetMs: {
    p50: round(pick('snippetP50'), 3),
    p95: round(pick('snippetP95'), 3),
    runtimeFreshGatewayP50: round(pick('runtimeP50'), 3),
    overFreshVm: round(pick('snippetP50') / pick('rawFreshMs'), 2),
  },
  toolCallMs: round(pick('toolCallMs'), 4),
  wideToolCallMs: round(pick('wideToolCallMs'), 4),
  toolCallFloorMs: {
    rawQuickJsCall: round(pick('rawGuestCallMs'), 4),
    rawThreadRoundTrip: round(pick('rawThreadMs'), 4),
    overFloor: round(pick('toolCallMs') / (pick('rawGuestCallMs') + pick('rawThreadMs')), 2),
  },
  firstCallOnceMs: round(pick('firstCallMs'), 3),
  snippetsPerSecond: { 1: Math.round(pick('perSecond1')), 10: Math.round(pick('perSecond10')), 100: Math.round(pick('perSecond100')) },
  queueWaitMsAt100: { p50: round(pick('queueP50'), 2), p95: round(pick('queueP95'), 2) },
  targets: { snippetMsP50: '<= 2', toolCallMs: '<= 0.05', snippetsPerSecondAt100: '>= 500' },
  pass: {
    snippetMsP50: pick('snippetP50') <= 2,
    toolCallMs: pick('toolCallMs') <= 0.05,
    snippetsPerSecondAt100: pick('perSecond100') >= 500,
  },
};

if (asJson) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  console.log(`\nCode mode on the user's path (createExec defaults, ${figures.cores} cores; medians of ${ROUNDS} rounds)`);
  console.table({
    'raw QuickJS: 6*7 in a warm VM (ms)': { p50: figures.rawQuickJsMs.evalInWarmVm, p95: '', target: '', pass: '' },
    'raw QuickJS: fresh VM + 6*7 (ms)': { p50: figures.rawQuickJsMs.freshVmAndEval, p95: '', target: '', pass: '' },
    'exec.executeCode `return 6*7` (ms)': {
      p50: figures.snippetMs.p50,
      p95: figures.snippetMs.p95,
      target: '≤ 2',
      pass: figures.pass.snippetMsP50,
    },
    'createRuntime(), fresh gateway (ms)': { p50: figures.snippetMs.runtimeFreshGatewayP50, p95: '', target: '', pass: '' },
    'tool call from inside, round trip (ms)': { p50: figures.toolCallMs, p95: '', target: '≤ 0.05', pass: figures.pass.toolCallMs },
    '  floor: raw QuickJS call out and back (ms)': { p50: figures.toolCallFloorMs.rawQuickJsCall, p95: '', target: '', pass: '' },
    '  floor: raw thread round trip (ms)': { p50: figures.toolCallFloorMs.rawThreadRoundTrip, p95: '', target: '', pass: '' },
    '  tool call ÷ floor': { p50: figures.toolCallFloorMs.overFloor, p95: '', target: '', pass: '' },
    'tool call, a tool with a 2 KB definition (ms)': { p50: figures.wideToolCallMs, p95: '', target: '', pass: '' },
    'once per run that makes a call (ms)': { p50: figures.firstCallOnceMs, p95: '', target: '', pass: '' },
  });
  console.table({
    'snippets/s, 1 in flight': { value: figures.snippetsPerSecond[1], target: '' },
    'snippets/s, 10 in flight': { value: figures.snippetsPerSecond[10], target: '' },
    'snippets/s, 100 in flight': { value: figures.snippetsPerSecond[100], target: '≥ 500' },
    'queue wait at 100 in flight, p50 (ms)': { value: figures.queueWaitMsAt100.p50, target: '' },
    'queue wait at 100 in flight, p95 (ms)': { value: figures.queueWaitMsAt100.p95, target: '' },
  });
}
