/**
 * The two paths users call, timed against the irreducible work in the same run: `runner.run` and
 * `exec.runTool` (with its default 30 s deadline) on a local echo tool with input and output
 * validation, each over the same handler called directly between two raw Ajv validations of the
 * same schemas inside an async function (the baseline: what any validated promise-returning call
 * must do). Shared by `bench/runner.bench.ts`, `bench/exec.bench.ts` and `bench/check.ts`.
 *
 * The paths are imported from the built package (`dist/`), as users run them (see `bench/built.ts`).
 * Only a synchronous handler is timed here: a second, awaiting handler in the same process changes
 * the type feedback of every shared call site (the sync ratio moved from ~2.1 to ~2.7), so the
 * awaiting handler (the usual tool) is timed in its own process by `bench/exec.bench.ts`.
 *
 * Paths are timed as paired blocks (`bench/paired.ts`): blocks of sequential awaited calls, every
 * path once per group in a shuffled order; a ratio is the median over the groups of the path's
 * block time over the baseline's in the same group, with a bootstrap 95% interval.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type * as ExecModule from '../src/exec/index.js';
import type { Tool } from '../src/model/index.js';
import type { LocalHandler } from '../src/run/index.js';
import { importBuilt } from './built.js';
import { bootstrapCi, median, pairedRatios, round, timeGroups } from './paired.js';

/** The echo tool's input schema, shared by the benches that time it. */
export const inputSchema: Tool['inputSchema'] = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
};
/** The echo tool's output schema. */
export const outputSchema: NonNullable<Tool['outputSchema']> = {
  type: 'object',
  properties: { echoed: { type: 'string' } },
  required: ['echoed'],
};
const echo: LocalHandler = (args) => ({ echoed: args.message });

/** A ratio to the baseline: median of the per-group ratios and its bootstrap 95% interval. */
export interface HotPathRatio {
  ratio: number;
  ci95: [number, number];
}

/** What {@link measureHotPaths} reports. */
export interface HotPathFigures {
  groups: number;
  callsPerBlock: number;
  nsPerCall: { direct: number; directTimed: number; runnerRun: number; runnerRunDeadline: number; execRunTool: number };
  /** `runner.run` (no options) over the baseline: the target is <= 2. */
  runnerRun: HotPathRatio;
  /** `exec.runTool` (default 30 s deadline) over the baseline: the target is <= 2. */
  execRunTool: HotPathRatio;
  /** `runner.run` with `timeoutMs: 30000` over the baseline (information: what the deadline adds). */
  runnerRunDeadline: HotPathRatio;
  /**
   * `exec.runTool` over the baseline plus the two clock reads every `exec.runTool` must make for
   * its `durationMs` (information: what the facade costs beyond reading the clock).
   */
  execRunToolOverTimed: HotPathRatio;
}

/** Times the baseline, `runner.run` and `exec.runTool` in `groups` paired groups of `calls` calls each. */
export async function measureHotPaths(groups = 200, calls = 1_000): Promise<HotPathFigures> {
  const { createExec } = await importBuilt<typeof ExecModule>('exec');
  const exec = createExec({
    tools: [{ tool: { name: 'echo', namespace: 'bench', inputSchema, outputSchema }, handler: echo }],
  });
  const runner = exec.runner;
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  const validateIn = ajv.compile(inputSchema);
  const validateOut = ajv.compile(outputSchema);
  const directCtx = { signal: new AbortController().signal, toolId: 'bench:echo' };
  const direct = async (args: Record<string, unknown>): Promise<unknown> => {
    if (!validateIn(args)) throw new Error('invalid input');
    const out = echo(args, directCtx);
    if (!validateOut(out)) throw new Error('invalid output');
    return out;
  };
  const args = { message: 'hello' };
  // What `exec.runTool` must add to any call: two clock reads for `durationMs`.
  const clock = performance;
  let durationMs = 0;
  const directTimed = async (args: Record<string, unknown>): Promise<unknown> => {
    const startedMs = clock.now();
    const out = await direct(args);
    durationMs = clock.now() - startedMs;
    return out;
  };

  // Sanity: every path gives the same value before anything is timed.
  const deadline = { timeoutMs: 30_000 };
  const values = [
    (await direct(args)) as { echoed?: unknown },
    (await runner.run('bench:echo', args)).structured as { echoed?: unknown },
    (await exec.runTool('bench:echo', args)).value as { echoed?: unknown },
  ];
  if (values.some((value) => value.echoed !== 'hello')) throw new Error('a path gave a wrong result');

  const blocks = {
    direct: async () => {
      for (let i = 0; i < calls; i++) await direct(args);
    },
    directTimed: async () => {
      for (let i = 0; i < calls; i++) await directTimed(args);
    },
    runnerRun: async () => {
      for (let i = 0; i < calls; i++) await runner.run('bench:echo', args);
    },
    runnerRunDeadline: async () => {
      for (let i = 0; i < calls; i++) await runner.run('bench:echo', args, deadline);
    },
    execRunTool: async () => {
      for (let i = 0; i < calls; i++) await exec.runTool('bench:echo', args);
    },
  };
  const times = await timeGroups(blocks, groups, Math.max(10, groups / 10));
  await exec.close();
  const ns = (key: keyof typeof blocks): number => round((median(times[key]) * 1e6) / calls);
  if (!(durationMs > 0)) throw new Error('the clock reads measured nothing');
  const ratio = (key: keyof typeof blocks, baseline: keyof typeof blocks = 'direct'): HotPathRatio => {
    const ratios = pairedRatios(times[key], times[baseline]);
    return { ratio: round(median(ratios), 3), ci95: bootstrapCi(ratios) };
  };
  return {
    groups,
    callsPerBlock: calls,
    nsPerCall: {
      direct: ns('direct'),
      directTimed: ns('directTimed'),
      runnerRun: ns('runnerRun'),
      runnerRunDeadline: ns('runnerRunDeadline'),
      execRunTool: ns('execRunTool'),
    },
    runnerRun: ratio('runnerRun'),
    execRunTool: ratio('execRunTool'),
    runnerRunDeadline: ratio('runnerRunDeadline'),
    execRunToolOverTimed: ratio('execRunTool', 'directTimed'),
  };
}
