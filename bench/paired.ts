/**
 * Paired timing for benches whose paths differ by a few per cent: every path is timed in short
 * blocks, all paths back to back in a shuffled order, many times over, and a path's figure is the
 * median over those groups of its block time over a baseline's block time in the same group. The
 * pairing cancels the VM's drifts (its speed swings by a third within the hour); the median and a
 * bootstrap interval show what is left.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Bench } from 'tinybench';

const PINNED_ENV = 'TOOLEXEC_BENCH_PINNED';

/**
 * Pins this bench to CPU 0 by running the script again under `taskset -c 0` (the parent waits and
 * exits with the child's status, so code after this call runs only in the pinned process).
 * Returns true when pinned, false when `taskset` is missing (the bench then runs unpinned).
 */
export function pinToCpu0(): boolean {
  if (process.env[PINNED_ENV] !== undefined) return true;
  const taskset = findExecutable('taskset');
  if (taskset === undefined) return false;
  const run = spawnSync(taskset, ['-c', '0', process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [PINNED_ENV]: '0' },
  });
  process.exit(run.status ?? 1);
}

/** The absolute path of `name` on PATH, if it is there. */
export function findExecutable(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * Times `groups` groups of blocks (ms per block): `beforeGroup` prepares each, then the group runs
 * every block once (one tinybench task run each), in a shuffled order, so each block pays for its
 * neighbours' garbage as often as any other; `warmup` groups run first and are not kept. (A full
 * GC before each group was tried: it slowed every path by a third and widened the intervals, as
 * the heap then regrows during the blocks.)
 */
export async function timeGroups<K extends string>(
  blocks: Record<K, () => Promise<void>>,
  groups: number,
  warmup: number,
  beforeGroup: (group: number) => void = () => undefined,
): Promise<Record<K, number[]>> {
  const names = Object.keys(blocks) as K[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let g = -Math.round(warmup); g < groups; g++) {
    beforeGroup(g);
    const bench = new Bench({ iterations: 1, time: 0, warmup: false });
    for (const name of shuffled(names)) bench.add(name, blocks[name]);
    await bench.run();
    if (g < 0) continue;
    for (const name of names) {
      const result = bench.getTask(name)?.result;
      if (result === undefined || !('latency' in result)) throw new Error(`no result for ${name}`);
      times[name].push(result.latency.mean);
    }
  }
  return times;
}

/** Per-group ratios of `times` over `baseline` (same group, same index). */
export function pairedRatios(times: readonly number[], baseline: readonly number[]): number[] {
  return times.map((t, i) => t / (baseline[i] ?? NaN));
}

/** A bootstrap 95% interval of the median of `values` (1,000 resamples). */
export function bootstrapCi(values: readonly number[], digits = 3): [number, number] {
  const medians: number[] = [];
  for (let b = 0; b < 1_000; b++) medians.push(median(Array.from(values, () => values[Math.floor(Math.random() * values.length)] ?? NaN)));
  medians.sort((a, b) => a - b);
  return [round(medians[25] ?? NaN, digits), round(medians[974] ?? NaN, digits)];
}

export function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
