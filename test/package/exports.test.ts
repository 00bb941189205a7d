import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
};
const subpaths = Object.keys(pkg.exports).filter((key) => key !== './package.json');
/** `toolexec/testing` is ESM only: its suites import vitest, which refuses `require`. */
const ESM_ONLY = new Set(['./testing']);
const dualSubpaths = subpaths.filter((subpath) => !ESM_ONLY.has(subpath));

function specifier(subpath: string): string {
  return subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`;
}

/** Runs a snippet in a fresh node process from the package root (package self-reference). */
function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
}

describe('package exports (built dist)', () => {
  it('dist has been built (npm test builds it first)', () => {
    expect(existsSync(join(ROOT, 'dist', 'index.js'))).toBe(true);
  });

  it('has one subpath per layer of API.md, and one per runtime backend', () => {
    const runtimeBackends = [
      'wasm',
      'host',
      'docker',
      'python',
      'remote',
      'containerd',
      'kata',
      'firecracker',
      'kubernetes',
      'proxmox',
      'temporal',
    ];
    expect(subpaths.sort()).toEqual(
      [
        '.',
        './agent',
        './backend',
        './code',
        './discovery',
        './exec',
        './mcp',
        './model',
        './run',
        './runtime',
        './testing',
        ...runtimeBackends.map((name) => `./runtime/${name}`),
      ].sort(),
    );
  });

  for (const subpath of subpaths) {
    const spec = specifier(subpath);
    it(`${spec} resolves and loads with import`, () => {
      const out = node([
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(spec)}); console.log(Object.keys(m).length)`,
      ]);
      expect(Number(out.trim())).toBeGreaterThan(0);
    });
    if (ESM_ONLY.has(subpath)) continue;
    it(`${spec} resolves and loads with require`, () => {
      const out = node(['-e', `const m = require(${JSON.stringify(spec)}); console.log(Object.keys(m).length)`]);
      expect(Number(out.trim())).toBeGreaterThan(0);
    });
  }

  it('toolexec/testing declares no require condition (ESM only, like vitest)', () => {
    expect(pkg.exports['./testing']).toEqual({ import: expect.anything() });
  });

  it('exposes the same names from import and require', () => {
    for (const subpath of dualSubpaths) {
      const spec = specifier(subpath);
      const esm = node([
        '--input-type=module',
        '-e',
        `console.log(JSON.stringify(Object.keys(await import(${JSON.stringify(spec)})).filter(k => k !== 'default').sort()))`,
      ]);
      const cjs = node(['-e', `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(spec)})).sort()))`]);
      expect(JSON.parse(cjs), spec).toEqual(JSON.parse(esm));
    }
  });
});
