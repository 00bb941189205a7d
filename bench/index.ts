/**
 * Runs every benchmark script (`bench/*.bench.ts`) one after another, each in its own process so
 * that one topic's JIT state and heap do not skew the next. `npm run bench -- <filter>` runs the
 * scripts whose name contains the filter.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = import.meta.dirname;
const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const scripts = readdirSync(dir)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();

let failed = 0;
for (const script of scripts) {
  process.stdout.write(`\n### ${script}\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(dir, script)], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    process.stdout.write(`(${script} exited with ${result.status ?? result.signal})\n`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
