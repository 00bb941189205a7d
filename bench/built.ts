/**
 * The built package (`dist/`), loaded as users load it, for the benches of the paths users call.
 *
 * Run from source under tsx, every closure a call makes also pays esbuild's `keepNames` wrapper
 * (`__name(fn, "name")`, a property definition), which the build does not emit: an awaiting
 * `exec.runTool` measured ~1.27 µs from source and ~0.92 µs from `dist/`. The types come from the
 * source, so type-checking and linting do not need a build; `npm run bench` builds first.
 */
import { existsSync } from 'node:fs';

/** Imports `dist/<entry>.js`, typed as the source module `T`; fails with a clear message before a build. */
export async function importBuilt<T>(entry: string): Promise<T> {
  const url = new URL(`../dist/${entry}.js`, import.meta.url);
  if (!existsSync(url)) throw new Error(`bench: ${url.pathname} is missing; run \`npm run build\` first`);
  return (await import(url.href)) as T;
}
