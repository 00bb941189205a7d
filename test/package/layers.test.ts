import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');

/** Which layers each layer may import (API.md, "Imports go down this table, never up"). */
const ALLOWED: Record<string, readonly string[]> = {
  model: [],
  discovery: ['model'],
  backend: ['model'],
  run: ['model', 'discovery', 'backend'],
  mcp: ['model', 'backend', 'run'],
  runtime: ['model', 'discovery', 'backend', 'run'],
  code: ['model', 'discovery', 'backend', 'run', 'runtime'],
  exec: ['model', 'discovery', 'backend', 'run', 'mcp', 'runtime', 'code'],
  agent: ['model', 'discovery', 'backend', 'run', 'mcp', 'runtime', 'code', 'exec'],
  cli: ['model', 'discovery', 'backend', 'run', 'mcp', 'runtime', 'code', 'exec', 'agent'],
  testing: ['model', 'discovery', 'backend', 'run', 'mcp', 'runtime', 'code', 'exec'],
  '(root)': ['model', 'discovery', 'backend', 'run', 'mcp', 'runtime', 'code', 'exec'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry) ? [path] : [];
  });
}

function layerOf(file: string): string {
  const rel = relative(SRC, file).split(sep);
  return rel.length === 1 ? '(root)' : (rel[0] ?? '(root)');
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    if (spec !== undefined) found.push(spec);
  }
  return found;
}

describe('layering (API.md)', () => {
  const files = sourceFiles(SRC);

  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('imports go down the layer table, never up, and only through a layer index', () => {
    const problems: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = join(file, '..', spec);
        const to = layerOf(target);
        if (to === from) continue;
        const rel = relative(SRC, file);
        if (!(ALLOWED[from] ?? []).includes(to)) {
          problems.push(`${rel}: layer "${from}" may not import "${to}" (${spec})`);
        } else if (!/\/(index|internal)\.js$/.test(spec)) {
          problems.push(`${rel}: cross-layer import must go through ${to}/index.js or ${to}/internal.js (${spec})`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('has no import cycles between files, type-only imports included', () => {
    const known = new Set(files);
    const edges = new Map<string, string[]>();
    for (const file of files) {
      const targets = importsOf(file)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => join(file, '..', spec.replace(/\.js$/, '.ts')))
        .filter((target) => known.has(target));
      edges.set(file, targets);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      path.push(file);
      for (const next of edges.get(file) ?? []) {
        if (state.get(next) === 'open') {
          cycles.push([...path.slice(path.indexOf(next)), next].map((f) => relative(SRC, f)).join(' → '));
        } else if (!state.has(next)) visit(next);
      }
      path.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('keeps heavy or environment-specific modules out of the lower layers', () => {
    const problems: string[] = [];
    for (const file of files) {
      const layer = layerOf(file);
      if (!['model', 'discovery', 'run', 'backend'].includes(layer)) continue;
      for (const spec of importsOf(file)) {
        if (/^(node:)?(child_process|worker_threads|net|http|https|fs)$/.test(spec) || spec === 'dockerode') {
          problems.push(`${relative(SRC, file)} imports ${spec}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('never imports dockerode statically (it is an optional peer dependency)', () => {
    const problems = files.filter(
      (file) =>
        /^\s*import\s[^(]*from\s*['"]dockerode['"]/m.test(readFileSync(file, 'utf8')) &&
        !/import type/.test(readFileSync(file, 'utf8').match(/^\s*import[^;]*['"]dockerode['"]/m)?.[0] ?? ''),
    );
    expect(problems.map((f) => relative(SRC, f))).toEqual([]);
  });
});
