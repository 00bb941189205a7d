/**
 * The bench check CI runs: times `runner.run` and `exec.runTool` (default deadline) against the
 * direct handler + raw Ajv baseline (`bench/hot-path.ts`) and fails when a ratio exceeds a loose
 * bound (3×; the target is 2×), so that noise on a shared 2-core machine does not fail the build
 * while a lost fast path (a timer or a signal per call, a second promise hop per layer) still does.
 *
 * `exec.runTool` must time every call for its `durationMs` (two clock reads, which on a 2-core VM
 * cost more than the whole baseline call), so it is bounded against the baseline with those same
 * two reads; its ratio to the bare baseline is printed too.
 *
 * Run: `npm run bench:check` (or `node --import tsx bench/check.ts [--bound 3] [--json]`)
 */
import { measureHotPaths, type HotPathRatio } from './hot-path.js';
import { pinToCpu0 } from './paired.js';

const argv = process.argv.slice(2);
const boundAt = argv.indexOf('--bound');
const BOUND = boundAt >= 0 ? Number(argv[boundAt + 1]) : 3;
if (!Number.isFinite(BOUND) || BOUND <= 1) throw new Error('--bound must be a number above 1');
const pinned = pinToCpu0();

const figures = await measureHotPaths(150, 1_000);
const pass = { runnerRun: figures.runnerRun.ratio <= BOUND, execRunTool: figures.execRunToolOverTimed.ratio <= BOUND };
if (argv.includes('--json')) {
  console.log(JSON.stringify({ pinned, bound: BOUND, ...figures, pass }, null, 2));
} else {
  console.log(
    `Hot paths over the direct handler + raw Ajv baseline (${figures.groups} paired groups of ${figures.callsPerBlock} calls` +
      `${pinned ? ', pinned to CPU 0' : ''}; target <= 2, fails above ${BOUND})`,
  );
  const row = (ns: number, r: HotPathRatio | undefined, checked: boolean | '') => ({
    'ns/call': ns,
    ratio: r?.ratio ?? 1,
    '95% CI': r === undefined ? '' : `${r.ci95[0]}–${r.ci95[1]}`,
    pass: checked,
  });
  const ns = figures.nsPerCall;
  console.table({
    'direct handler + raw Ajv (async fn): the baseline': row(ns.direct, undefined, ''),
    'runner.run / baseline': row(ns.runnerRun, figures.runnerRun, pass.runnerRun),
    'runner.run, timeoutMs 30000 / baseline (info)': row(ns.runnerRunDeadline, figures.runnerRunDeadline, ''),
    'exec.runTool, default deadline / baseline (info)': row(ns.execRunTool, figures.execRunTool, ''),
    'baseline + two clock reads (durationMs)': row(ns.directTimed, undefined, ''),
    'exec.runTool / (baseline + two clock reads)': row(ns.execRunTool, figures.execRunToolOverTimed, pass.execRunTool),
  });
}
if (!pass.runnerRun || !pass.execRunTool) {
  console.error(`bench check failed: a hot path is above ${BOUND}× the baseline`);
  process.exitCode = 1;
}
