import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');

function run(bin: string, args: string[]): { code: number; out: string } {
  try {
    const out = execFileSync(join(BIN, bin), args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, out };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('published shape', () => {
  it('publint finds nothing to fix in the packed package', () => {
    const result = run('publint', ['--strict', '--pack', 'npm']);
    expect(result.out).not.toMatch(/error|warning/i);
    expect(result.code, result.out).toBe(0);
  }, 120_000);

  it('@arethetypeswrong/cli is clean on the packed tarball (ESM and CJS entry points)', () => {
    const result = run('attw', ['--pack', '.', '--profile', 'node16', '--format', 'ascii', '--exclude-entrypoints', './testing']);
    expect(result.code, result.out).toBe(0);
  }, 120_000);

  it('@arethetypeswrong/cli is clean on the ESM-only testing entry point', () => {
    const result = run('attw', ['--pack', '.', '--profile', 'esm-only', '--format', 'ascii', '--entrypoints', './testing']);
    expect(result.code, result.out).toBe(0);
  }, 120_000);

  it('packs what the README points to, a LICENSE, the build, and nothing of the sources or tests', () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
    ) as [{ files: { path: string }[] }];
    const files = new Set(packed[0].files.map((file) => file.path));
    for (const required of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/index.js',
      'dist/index.cjs',
      'dist/index.d.ts',
      'dist/index.d.cts',
    ]) {
      expect(files, required).toContain(required);
    }
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\((?!https?:|#)([^)#\s]+)/g)].map((match) => normalize(match[1]!).replace(/\/$/, ''));
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) {
      expect(
        [...files].some((file) => file === link || file.startsWith(`${link}/`)),
        `README links to ${link}`,
      ).toBe(true);
    }
    expect([...files].filter((file) => /^(src|test|bench|scripts|docs\/api|node_modules)\//.test(file))).toEqual([]);
  }, 120_000);
});
