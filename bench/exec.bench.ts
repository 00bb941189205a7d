/**
 * Exec facade benchmark: what the facade adds on the hot path, and what code mode costs per tool
 * call.
 *
 * Measured against the irreducible work in the same run:
 * (1) `exec.runTool` on a local tool with input and output validation versus `runner.run` of the
 *     facade's own runner on the same tool (the work the facade delegates). The facade applies a
 *     30 s deadline to every call by default, so the like-for-like baseline is `runner.run` with
 *     `timeoutMs: 30000`: that ratio is the facade's overhead (target <= 1.1). It is measured twice:
 *     on a synchronous handler (where the run layer's lazy deadline costs nothing, so the facade's
 *     own ~0.09 µs — two clock reads for `durationMs`, ~42 ns each on a 2-core VM — is the whole
 *     ratio: the runner applies the facade's ending where the call settles, with no extra promise)
 *     and on an async handler (the usual tool: any handler that awaits, where the deadline's timer
 *     and AbortController are really armed). For information it also compares a facade created
 *     with `defaultTimeoutMs: Infinity` with a bare `runner.run`, and `runner.run` with and without
 *     the deadline.
 * (2) Code mode on the default WASM sandbox: a snippet that makes 100 sequential tool calls versus
 *     100 sequential `exec.runTool` calls. A snippet that returns at once is timed too, so the
 *     sandbox's fixed cost per run and its cost per tool call can be told apart.
 *
 * Hot-path tasks run batches of sequential awaited calls so that the harness's per-iteration
 * timing does not dominate; the whole hot-path bench runs in 7 short interleaved rounds and reports
 * medians (ratios are medians of per-round ratios).
 *
 * Run: `node --import tsx bench/exec.bench.ts [--json]`
 */
import { Bench } from 'tinybench';
import { createExec, type LocalToolDefinition } from '../src/exec/index.js';
import type { Tool } from '../src/model/index.js';

const asJson = process.argv.slice(2).includes('--json');
const BATCH = 1_000;
const CODE_CALLS = 100;

const inputSchema: Tool['inputSchema'] = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
};
const outputSchema: NonNullable<Tool['outputSchema']> = {
  type: 'object',
  properties: { echoed: { type: 'string' } },
  required: ['echoed'],
};
const echo: LocalToolDefinition = {
  tool: { name: 'echo', namespace: 'bench', description: 'Echoes the message', inputSchema, outputSchema },
  handler: (args) => ({ echoed: args.message }),
};

const echoAsync: LocalToolDefinition = {
  tool: { name: 'echo_async', namespace: 'bench', description: 'Echoes the message after an await', inputSchema, outputSchema },
  handler: async (args) => {
    await Promise.resolve();
    return { echoed: args.message };
  },
};

const exec = createExec({ tools: [echo, echoAsync] });
const runner = exec.runner;
/** The same facade with the default deadline turned off. */
const unbounded = createExec({ tools: [echo, echoAsync], defaultTimeoutMs: Infinity });
const args = { message: 'hello' };
const deadline = { timeoutMs: 30_000 };

// Sanity: every path gives the same value before anything is timed.
const viaExec = await exec.runTool('bench:echo', args);
const viaRunner = await runner.run('bench:echo', args, deadline);
if ((viaExec.value as { echoed?: unknown }).echoed !== 'hello' || (viaRunner.structured as { echoed?: unknown }).echoed !== 'hello') {
  throw new Error('a path gave a wrong result');
}

const TASKS = {
  run: 'runner.run (no deadline)',
  runDeadline: 'runner.run (timeoutMs 30000)',
  exec: 'exec.runTool (default 30 s deadline)',
  execNoDeadline: 'exec.runTool (defaultTimeoutMs Infinity)',
  runAsync: 'runner.run, async handler (timeoutMs 30000)',
  execAsync: 'exec.runTool, async handler (default 30 s deadline)',
} as const;
type TaskKey = keyof typeof TASKS;

function makeBench(): Bench {
  const bench = new Bench({ time: 300, warmupTime: 100 });
  bench
    .add(TASKS.run, async () => {
      for (let i = 0; i < BATCH; i++) await unbounded.runner.run('bench:echo', args);
    })
    .add(TASKS.runDeadline, async () => {
      for (let i = 0; i < BATCH; i++) await runner.run('bench:echo', args, deadline);
    })
    .add(TASKS.exec, async () => {
      for (let i = 0; i < BATCH; i++) await exec.runTool('bench:echo', args);
    })
    .add(TASKS.execNoDeadline, async () => {
      for (let i = 0; i < BATCH; i++) await unbounded.runTool('bench:echo', args);
    })
    .add(TASKS.runAsync, async () => {
      for (let i = 0; i < BATCH; i++) await runner.run('bench:echo_async', args, deadline);
    })
    .add(TASKS.execAsync, async () => {
      for (let i = 0; i < BATCH; i++) await exec.runTool('bench:echo_async', args);
    });
  return bench;
}

function nsPerCall(bench: Bench): Record<TaskKey, number> {
  const out = {} as Record<TaskKey, number>;
  for (const [key, name] of Object.entries(TASKS) as Array<[TaskKey, string]>) {
    const result = bench.getTask(name)?.result;
    if (result?.state !== 'completed') throw new Error(`${name}: ${result?.state ?? 'no result'}`);
    out[key] = (result.latency.mean * 1e6) / BATCH;
  }
  return out;
}

const ROUNDS = 7;
const rounds: Array<Record<TaskKey, number>> = [];
for (let round = 0; round < ROUNDS; round++) {
  const bench = makeBench();
  await bench.run();
  rounds.push(nsPerCall(bench));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
const pick = (key: TaskKey): number => median(rounds.map((r) => r[key]));
const ratio = (a: TaskKey, b: TaskKey): number => median(rounds.map((r) => r[a] / r[b]));

// Code mode: the default WASM sandbox.
const loop = `for (let i = 0; i < ${CODE_CALLS}; i++) await tools.runTool('bench:echo', { message: 'hello' }); return ${CODE_CALLS};`;
const warm = await exec.executeCode({ code: loop });
if (warm.value !== CODE_CALLS || warm.toolCalls.length !== CODE_CALLS) throw new Error('the snippet gave a wrong result');
if (warm.backend?.kind !== 'wasm') throw new Error(`expected the wasm sandbox, got ${warm.backend?.kind ?? 'none'}`);

const CODE_TASKS = {
  snippetCalls: `snippet: ${CODE_CALLS} tools.runTool calls (wasm)`,
  snippetEmpty: 'snippet: return at once (wasm)',
  execCalls: `${CODE_CALLS} × exec.runTool`,
} as const;
type CodeKey = keyof typeof CODE_TASKS;
const codeBench = new Bench({ time: 2_000, warmupTime: 300 });
codeBench
  .add(CODE_TASKS.snippetCalls, async () => {
    await exec.executeCode({ code: loop });
  })
  .add(CODE_TASKS.snippetEmpty, async () => {
    await exec.executeCode({ code: 'return 0;' });
  })
  .add(CODE_TASKS.execCalls, async () => {
    for (let i = 0; i < CODE_CALLS; i++) await exec.runTool('bench:echo', args);
  });
await codeBench.run();
const msOf = (key: CodeKey): number => {
  const result = codeBench.getTask(CODE_TASKS[key])?.result;
  if (result?.state !== 'completed') throw new Error(`${CODE_TASKS[key]}: ${result?.state ?? 'no result'}`);
  return result.latency.p50 ?? result.latency.mean;
};
const snippetCallsMs = msOf('snippetCalls');
const snippetEmptyMs = msOf('snippetEmpty');
const execCallsMs = msOf('execCalls');
await exec.close();
await unbounded.close();

const runNs = pick('run');
const runDeadlineNs = pick('runDeadline');
const execNs = pick('exec');
const execNoDeadlineNs = pick('execNoDeadline');
const facadeVsRunner = ratio('exec', 'runDeadline');
const facadeVsRunnerAsync = ratio('execAsync', 'runAsync');
const perCallInSnippetUs = ((snippetCallsMs - snippetEmptyMs) / CODE_CALLS) * 1000;
const perCallExecUs = (execCallsMs / CODE_CALLS) * 1000;

const figures = {
  batch: BATCH,
  rounds: ROUNDS,
  nsPerCall: {
    runnerRun: round(runNs),
    runnerRunWithDeadline: round(runDeadlineNs),
    execRunTool: round(execNs),
    execRunToolNoDeadline: round(execNoDeadlineNs),
    runnerRunAsyncHandler: round(pick('runAsync')),
    execRunToolAsyncHandler: round(pick('execAsync')),
  },
  execRunToolCallsPerSecond: Math.round(1e9 / execNs),
  facadeVsRunner: round(facadeVsRunner),
  facadeVsRunnerAsyncHandler: round(facadeVsRunnerAsync),
  facadeVsRunnerNoDeadline: round(ratio('execNoDeadline', 'run')),
  deadlineCostVsBareRunner: round(ratio('runDeadline', 'run')),
  codeMode: {
    calls: CODE_CALLS,
    snippetWithCallsMs: round(snippetCallsMs),
    emptySnippetMs: round(snippetEmptyMs),
    execRunToolCallsMs: round(execCallsMs),
    perCallInSnippetUs: round(perCallInSnippetUs),
    perCallExecRunToolUs: round(perCallExecUs),
    sandboxOverheadPerCallUs: round(perCallInSnippetUs - perCallExecUs),
    snippetVsExecCalls: round(snippetCallsMs / execCallsMs),
  },
  targets: { facadeVsRunner: '<= 1.1', facadeVsRunnerAsyncHandler: '<= 1.1' },
  pass: { facadeVsRunner: facadeVsRunner <= 1.1, facadeVsRunnerAsyncHandler: facadeVsRunnerAsync <= 1.1 },
};

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

if (asJson) {
  console.log(JSON.stringify(figures, null, 2));
} else {
  console.log(`\nExec hot path (ns per call, median of ${ROUNDS} rounds, batches of ${BATCH} sequential awaited calls; local tool, validation in + out)`);
  console.table({
    'runner.run (no deadline)': { 'ns/call': round(runNs), 'calls/s': Math.round(1e9 / runNs) },
    'runner.run (timeoutMs 30000)': { 'ns/call': round(runDeadlineNs), 'calls/s': Math.round(1e9 / runDeadlineNs) },
    'exec.runTool (default 30 s deadline)': { 'ns/call': round(execNs), 'calls/s': Math.round(1e9 / execNs) },
    'exec.runTool (defaultTimeoutMs Infinity)': { 'ns/call': round(execNoDeadlineNs), 'calls/s': Math.round(1e9 / execNoDeadlineNs) },
    [TASKS.runAsync]: { 'ns/call': round(pick('runAsync')), 'calls/s': Math.round(1e9 / pick('runAsync')) },
    [TASKS.execAsync]: { 'ns/call': round(pick('execAsync')), 'calls/s': Math.round(1e9 / pick('execAsync')) },
  });
  console.table({
    'exec.runTool / runner.run, same deadline, sync handler': { ratio: figures.facadeVsRunner, target: '<= 1.1', pass: figures.pass.facadeVsRunner },
    'exec.runTool / runner.run, same deadline, async handler': {
      ratio: figures.facadeVsRunnerAsyncHandler,
      target: '<= 1.1',
      pass: figures.pass.facadeVsRunnerAsyncHandler,
    },
    'exec.runTool / runner.run, no deadline': { ratio: figures.facadeVsRunnerNoDeadline, target: '(info)', pass: '' },
    'runner.run with deadline / without': { ratio: figures.deadlineCostVsBareRunner, target: '(info)', pass: '' },
  });
  console.log(`\nCode mode on the default WASM sandbox (median ms per run; ${CODE_CALLS} sequential tool calls)`);
  console.table({
    [CODE_TASKS.snippetCalls]: { ms: round(snippetCallsMs) },
    [CODE_TASKS.snippetEmpty]: { ms: round(snippetEmptyMs) },
    [CODE_TASKS.execCalls]: { ms: round(execCallsMs) },
  });
  console.table({
    'per tool call inside a snippet (µs)': { value: figures.codeMode.perCallInSnippetUs },
    'per exec.runTool call (µs)': { value: figures.codeMode.perCallExecRunToolUs },
    'sandbox overhead per call (µs)': { value: figures.codeMode.sandboxOverheadPerCallUs },
    'snippet with calls / exec calls': { value: figures.codeMode.snippetVsExecCalls },
  });
}
