/**
 * The bench check CI runs: times `runner.run` and `exec.runTool` (default deadline) against the
 * direct handler + raw Ajv baseline (`bench/hot-path.ts`) and fails when either ratio exceeds a
 * loose bound. The target is 2×; the bound is 3× so that noise on a shared 2-core machine does not
 * fail the build, while a lost fast path (a timer or a signal per call, a second promise hop per
 * layer) still does.
 *
 * Run: `npm run bench:check` (or `node --import tsx bench/check.ts [--bound 3] [--json]`)
 */
import { measureHotPaths } from './hot-path.js';
import { pinToCpu0 } from './paired.js';

const argv = process.argv.slice(2);
const boundAt = argv.indexOf('--bound');
const BOUND = boundAt >= 0 ? Number(argv[boundAt + 1]) : 3;
if (!Number.isFinite(BOUND) || BOUND <= 1) throw new Error('--bound must be a number above 1');
const pinned = pinToCpu0();

const figures = await measureHotPaths(150, 1_000);
const pass = { runnerRun: figures.runnerRun.ratio <= BOUND, execRunTool: figures.execRunTool.ratio <= BOUND };
if (argv.includes('--json')) {
  console.log(JSON.stringify({ pinned, bound: BOUND, ...figures, pass }, null, 2));
} else {
  console.log(
    `Hot paths over the direct handler + raw Ajv baseline (${figures.groups} paired groups of ${figures.callsPerBlock} calls` +
      `${pinned ? ', pinned to CPU 0' : ''}; target <= 2, fails above ${BOUND})`,
  );
  console.table({
    'direct handler + raw Ajv (async fn)': { 'ns/call': figures.nsPerCall.direct, ratio: 1, '95% CI': '', pass: '' },
    'runner.run': {
      'ns/call': figures.nsPerCall.runnerRun,
      ratio: figures.runnerRun.ratio,
      '95% CI': `${figures.runnerRun.ci95[0]}–${figures.runnerRun.ci95[1]}`,
      pass: pass.runnerRun,
    },
    'exec.runTool (default 30 s deadline)': {
      'ns/call': figures.nsPerCall.execRunTool,
      ratio: figures.execRunTool.ratio,
      '95% CI': `${figures.execRunTool.ci95[0]}–${figures.execRunTool.ci95[1]}`,
      pass: pass.execRunTool,
    },
  });
}
if (!pass.runnerRun || !pass.execRunTool) {
  console.error(`bench check failed: a hot path is above ${BOUND}× the baseline`);
  process.exitCode = 1;
}
