/**
 * What observability costs on the hot path: `runner.run` and `exec.runTool` of a local echo tool
 * (input and output validated) against the direct handler + raw Ajv baseline of
 * `bench/hot-path.ts`, in three states of the same process:
 *
 * 1. **off**: `@opentelemetry/api` loaded, no tracer or meter provider registered, no event
 *    listener — each call makes one check (`Telemetry.active`: a field read and one global read)
 *    and takes the plain path. Its ratios are the ones `npm run bench:check` bounds, and the
 *    check itself is timed alone and shown as a share of a call;
 * 2. **events**: an `onEvent` listener that drops the events (redacted arguments, one event
 *    object per start and end);
 * 3. **tracing on**: a tracer provider (`@opentelemetry/sdk-trace`, recording every span, no
 *    exporter) and the async-hooks context manager: one `execute_tool` span per call.
 *
 * Every state is timed as paired groups (`bench/paired.ts`) against its own baseline; the cost per
 * call of a state is its ns per call minus the off state's.
 *
 * Run: `npm run bench -- tracing` (or `node --import tsx bench/tracing.bench.ts [--json]`)
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { createExec, type DefaultExec } from '../src/exec/index.js';
import type { LocalHandler } from '../src/run/index.js';
import { telemetryOf } from '../src/run/internal.js';
import { inputSchema, measureHotPaths, outputSchema } from './hot-path.js';
import { bootstrapCi, median, pairedRatios, pinToCpu0, round, timeGroups } from './paired.js';

const asJson = process.argv.slice(2).includes('--json');
const pinned = pinToCpu0();
const GROUPS = 80;
const CALLS = 1_000;

const echo: LocalHandler = (args) => ({ echoed: args.message });
const tool = { name: 'echo', namespace: 'bench', inputSchema, outputSchema };
const ajv = new Ajv2020({ strict: false, allErrors: false });
const validateIn = ajv.compile(inputSchema);
const validateOut = ajv.compile(outputSchema);
const directCtx = { signal: new AbortController().signal, toolId: 'bench:echo' };
async function direct(args: Record<string, unknown>): Promise<unknown> {
  if (!validateIn(args)) throw new Error('invalid input');
  const out = echo(args, directCtx);
  if (!validateOut(out)) throw new Error('invalid output');
  return out;
}
const args = { message: 'hello' };

interface StateFigures {
  nsPerCall: { direct: number; runnerRun: number; execRunTool: number };
  runnerRun: { ratio: number; ci95: [number, number] };
  execRunTool: { ratio: number; ci95: [number, number] };
}

/** Times the baseline, runner.run and exec.runTool of `exec` in paired groups. */
async function measure(exec: DefaultExec): Promise<StateFigures> {
  const runner = exec.runner;
  const blocks = {
    direct: async () => {
      for (let i = 0; i < CALLS; i++) await direct(args);
    },
    runnerRun: async () => {
      for (let i = 0; i < CALLS; i++) await runner.run('bench:echo', args);
    },
    execRunTool: async () => {
      for (let i = 0; i < CALLS; i++) await exec.runTool('bench:echo', args);
    },
  };
  const times = await timeGroups(blocks, GROUPS, GROUPS / 10);
  const ns = (key: keyof typeof blocks): number => round((median(times[key]) * 1e6) / CALLS);
  const ratio = (key: keyof typeof blocks): { ratio: number; ci95: [number, number] } => {
    const ratios = pairedRatios(times[key], times.direct);
    return { ratio: round(median(ratios), 3), ci95: bootstrapCi(ratios) };
  };
  return {
    nsPerCall: { direct: ns('direct'), runnerRun: ns('runnerRun'), execRunTool: ns('execRunTool') },
    runnerRun: ratio('runnerRun'),
    execRunTool: ratio('execRunTool'),
  };
}

/** ns per `Telemetry.active` check (what a call asks when nobody listens), net of the loop's own cost. */
function checkCost(exec: DefaultExec): number {
  const telemetry = telemetryOf(exec.runner);
  const n = 20_000_000;
  let hits = 0;
  for (let i = 0; i < n / 10; i++) if (telemetry.active) hits++;
  let start = performance.now();
  for (let i = 0; i < n; i++) if (telemetry.active) hits++;
  const checked = performance.now() - start;
  start = performance.now();
  for (let i = 0; i < n; i++) if (i === -1) hits++;
  const empty = performance.now() - start;
  if (hits !== 0) throw new Error('telemetry is on: nothing may be registered in the off state');
  return round((Math.max(0, checked - empty) * 1e6) / n, 2);
}

// 1. off — the same figures bench:check gates, and the check alone.
const hotPaths = await measureHotPaths(GROUPS, CALLS);
const plain = createExec({ tools: [{ tool, handler: echo }] });
const off = await measure(plain);
const checkNs = checkCost(plain);

// 2. events: a listener that drops them.
let dropped = 0;
const listening = createExec({ tools: [{ tool, handler: echo }], onEvent: () => void dropped++ });
const events = await measure(listening);
await listening.close();

// 3. tracing on: every call recorded as a span (no exporter: the cost of making spans).
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const provider = new TracerProvider();
trace.setGlobalTracerProvider(provider);
const tracing = await measure(plain);
await plain.close();
await provider.shutdown();
trace.disable();
context.disable();

const costNs = (state: StateFigures, key: 'runnerRun' | 'execRunTool'): number =>
  round(state.nsPerCall[key] - state.nsPerCall.direct - (off.nsPerCall[key] - off.nsPerCall.direct));
const figures = {
  pinned,
  groups: GROUPS,
  callsPerBlock: CALLS,
  off: {
    hotPaths: { runnerRun: hotPaths.runnerRun, execRunTool: hotPaths.execRunTool, nsPerCall: hotPaths.nsPerCall },
    ...off,
    checkNs,
    checkShareOfRunnerRun: round(checkNs / off.nsPerCall.runnerRun, 3),
  },
  events: { ...events, costPerCallNs: { runnerRun: costNs(events, 'runnerRun'), execRunTool: costNs(events, 'execRunTool') } },
  tracingOn: { ...tracing, costPerCallNs: { runnerRun: costNs(tracing, 'runnerRun'), execRunTool: costNs(tracing, 'execRunTool') } },
};

if (asJson) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  const show = (r: { ratio: number; ci95: [number, number] }): string => `${r.ratio}× (95% CI ${r.ci95[0]}–${r.ci95[1]})`;
  console.log(`Observability on the hot path (${GROUPS} paired groups of ${CALLS} calls${pinned ? ', pinned to CPU 0' : ''})`);
  console.log(
    `  off (no provider, no listener): runner.run ${show(off.runnerRun)}, exec.runTool ${show(off.execRunTool)} over the baseline`,
  );
  console.log(
    `    (bench/hot-path.ts in the same run: runner.run ${show(hotPaths.runnerRun)}, exec.runTool ${show(hotPaths.execRunTool)})`,
  );
  console.log(
    `    the one check: ${checkNs} ns, ${round(100 * figures.off.checkShareOfRunnerRun, 1)}% of a runner.run (${off.nsPerCall.runnerRun} ns)`,
  );
  console.log(
    `  events (a listener): runner.run ${show(events.runnerRun)}, +${figures.events.costPerCallNs.runnerRun} ns a call; exec.runTool +${figures.events.costPerCallNs.execRunTool} ns`,
  );
  console.log(
    `  tracing on (a span per call): runner.run ${show(tracing.runnerRun)}, +${figures.tracingOn.costPerCallNs.runnerRun} ns a call; exec.runTool +${figures.tracingOn.costPerCallNs.execRunTool} ns`,
  );
}
