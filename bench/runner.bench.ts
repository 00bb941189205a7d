/**
 * Runner benchmark: the hot path (resolve → validate input → dispatch → validate output) and the
 * per-step cost of chains.
 *
 * Measured against the irreducible work in the same run:
 * (1) `runner.run` on a local echo handler with input and output validation, versus calling the
 *     same handler directly between two raw Ajv validations of the same schemas (compiled once),
 *     inside an async function (the runner's contract is a promise, so the baseline returns one);
 * (2) a 10-step chain versus 10 sequential `runner.run` calls of the same steps.
 * For information it also times the direct call with the model's SchemaValidator methods
 * (`validateInput`/`validateOutput`, which find the compiled schema on every call; the runner
 * instead keeps the checks `forTool` binds with its cached resolution) instead of raw Ajv, and the
 * direct call without any promise.
 *
 * Every path runs in blocks of 1,000 sequential awaited calls, timed as paired groups
 * (`bench/paired.ts`): every path once per group in a shuffled order, 400 groups, pinned to CPU 0
 * when `taskset` is there; a ratio is the median of the per-group ratios (with a bootstrap 95%
 * interval for the target's). (Seven rounds of tinybench's own timing, used before, read 1.38–1.56
 * for one and the same build.)
 *
 * Run: `npm run bench -- runner` (or `node --import tsx bench/runner.bench.ts [--json]`)
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type * as DiscoveryModule from '../src/discovery/index.js';
import type * as ModelModule from '../src/model/index.js';
import type { Tool } from '../src/model/index.js';
import type * as RunModule from '../src/run/index.js';
import type { ChainStep, LocalHandler } from '../src/run/index.js';
import { importBuilt } from './built.js';
import { inputSchema, outputSchema } from './hot-path.js';
import { bootstrapCi, median, pairedRatios, pinToCpu0, round, timeGroups } from './paired.js';

const asJson = process.argv.slice(2).includes('--json');
const pinned = pinToCpu0();
const BATCH = 1_000;
const CHAIN_LENGTH = 10;

const tool: Tool = { name: 'echo', namespace: 'bench', inputSchema, outputSchema };
const echo: LocalHandler = (args) => ({ echoed: args.message });

const { createToolIndex } = await importBuilt<typeof DiscoveryModule>('discovery');
const { createSchemaValidator, localBackend } = await importBuilt<typeof ModelModule>('model');
const { createRunner } = await importBuilt<typeof RunModule>('run');
const index = createToolIndex();
index.registerTool(tool, localBackend('echo'));
const runner = createRunner({ index, local: { echo } });

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

/** The same call through the model's SchemaValidator (what the runner uses) instead of raw Ajv. */
const schemaValidator = createSchemaValidator();
const resolvedTool = index.getTool('bench:echo').tool;
async function directModel(args: Record<string, unknown>): Promise<unknown> {
  schemaValidator.validateInput(resolvedTool, args);
  const out = echo(args, directCtx);
  schemaValidator.validateOutput(resolvedTool, out);
  return out;
}

function directSync(args: Record<string, unknown>): unknown {
  if (!validateIn(args)) throw new Error('invalid input');
  const out = echo(args, directCtx);
  if (!validateOut(out)) throw new Error('invalid output');
  return out;
}

const args = { message: 'hello' };
const chain: ChainStep[] = Array.from({ length: CHAIN_LENGTH }, (_, i) => ({
  toolId: 'bench:echo',
  args: { message: `step ${i}` },
}));

// Sanity: every path gives the same value before anything is timed.
const check = await runner.run('bench:echo', args);
if ((check.structured as { echoed?: unknown }).echoed !== 'hello') throw new Error('runner gave a wrong result');
if (((await direct(args)) as { echoed?: unknown }).echoed !== 'hello') throw new Error('baseline gave a wrong result');
const chained = await runner.runChain(chain);
if (chained.steps.length !== CHAIN_LENGTH) throw new Error('chain gave a wrong result');

let syncSink: unknown;
const BLOCKS = {
  direct: async () => {
    for (let i = 0; i < BATCH; i++) await direct(args);
  },
  // Not awaited per call: there is no promise to wait for (async only for the harness). The
  // results go to a sink, so the calls cannot be optimized away.
  directSync: async () => {
    for (let i = 0; i < BATCH; i++) syncSink = directSync(args);
  },
  directModel: async () => {
    for (let i = 0; i < BATCH; i++) await directModel(args);
  },
  run: async () => {
    for (let i = 0; i < BATCH; i++) await runner.run('bench:echo', args);
  },
  tenRuns: async () => {
    for (let b = 0; b < BATCH / CHAIN_LENGTH; b++) {
      for (const step of chain) await runner.run(step.toolId, step.args);
    }
  },
  chain: async () => {
    for (let b = 0; b < BATCH / CHAIN_LENGTH; b++) await runner.runChain(chain);
  },
};
type Task = keyof typeof BLOCKS;

// Every path once per group, in a shuffled order, 400 groups; ratios are medians of per-group ratios.
const GROUPS = 400;
const times = await timeGroups(BLOCKS, GROUPS, 40);
const pick = (key: Task): number => (median(times[key]) * 1e6) / BATCH;
const ratio = (a: Task, b: Task): number => median(pairedRatios(times[a], times[b]));
const ci = (a: Task, b: Task): [number, number] => bootstrapCi(pairedRatios(times[a], times[b]));

if ((syncSink as { echoed?: unknown } | undefined)?.echoed !== 'hello') throw new Error('the sync baseline gave a wrong result');
const directNs = pick('direct');
const directSyncNs = pick('directSync');
const directModelNs = pick('directModel');
const runNs = pick('run');
const tenRunsNs = pick('tenRuns');
const chainNs = pick('chain');
const runVsDirect = ratio('run', 'direct');
const chainVsRuns = ratio('chain', 'tenRuns');

const figures = {
  pinned,
  batch: BATCH,
  groups: GROUPS,
  nsPerCall: {
    direct: round(directNs),
    directSync: round(directSyncNs),
    directModelValidator: round(directModelNs),
    run: round(runNs),
    runStepInTenRuns: round(tenRunsNs),
    runStepInChain: round(chainNs),
  },
  runCallsPerSecond: Math.round(1e9 / runNs),
  runVsDirect: round(runVsDirect, 3),
  runVsDirectCi95: ci('run', 'direct'),
  runVsDirectSync: round(ratio('run', 'directSync')),
  runVsDirectModelValidator: round(ratio('run', 'directModel')),
  chainStepVsRun: round(chainVsRuns, 3),
  targets: {
    runVsDirect: '<= 2',
    runCallsPerSecond: '>= 300000',
    chainStepVsRun: '<= 1.2',
  },
  pass: {
    runVsDirect: runVsDirect <= 2,
    runCallsPerSecond: 1e9 / runNs >= 300_000,
    chainStepVsRun: chainVsRuns <= 1.2,
  },
};

if (asJson) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  console.log(
    `\nRunner hot path (ns per call; blocks of ${BATCH} sequential awaited calls, every path once per group in a shuffled order, ${GROUPS} groups${pinned ? ', pinned to CPU 0' : ''})`,
  );
  console.table({
    'direct handler + raw Ajv (async fn)': { 'ns/call': round(directNs), 'calls/s': Math.round(1e9 / directNs) },
    'direct handler + raw Ajv (sync)': { 'ns/call': round(directSyncNs), 'calls/s': Math.round(1e9 / directSyncNs) },
    'direct handler + model validator (async fn)': { 'ns/call': round(directModelNs), 'calls/s': Math.round(1e9 / directModelNs) },
    'runner.run (validate in + out)': { 'ns/call': round(runNs), 'calls/s': Math.round(1e9 / runNs) },
    [`step of ${CHAIN_LENGTH} × runner.run`]: { 'ns/call': round(tenRunsNs), 'calls/s': Math.round(1e9 / tenRunsNs) },
    [`step of runChain (${CHAIN_LENGTH} steps)`]: { 'ns/call': round(chainNs), 'calls/s': Math.round(1e9 / chainNs) },
  });
  console.table({
    'run / direct (async)': {
      ratio: figures.runVsDirect,
      target: '<= 2',
      pass: figures.pass.runVsDirect,
      '95% CI': figures.runVsDirectCi95.join('–'),
    },
    'run / direct (sync)': { ratio: figures.runVsDirectSync, target: '(info)', pass: '' },
    'run / direct with model validator': { ratio: figures.runVsDirectModelValidator, target: '(info)', pass: '' },
    'run calls/s': { ratio: figures.runCallsPerSecond, target: '>= 300000', pass: figures.pass.runCallsPerSecond },
    'chain step / run': { ratio: figures.chainStepVsRun, target: '<= 1.2', pass: figures.pass.chainStepVsRun },
  });
}
