/**
 * Locates the guest bundles, the self-contained files that run inside sandboxes (`node-guest.cjs`,
 * `wasm-worker.mjs`, `wasm-prelude.js`). tsup builds them from `src/runtime/guest/` into
 * `dist/assets/`. Every built chunk sits flat in `dist/`, one level above that folder; run from
 * source (tests, benchmarks), this module finds the same bundles in the repository's
 * `dist/assets/`, so `npm run build` must have run. An app bundled by a bundler looks for them in
 * `assets/` beside its bundle.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runtimeError } from '../core/errors.js';

/** True when this module runs from source (tests, benchmarks), not from the built package. */
const FROM_SOURCE = /\.ts$/.test(import.meta.url);
/** The folder of the bundles, relative to this module: `dist/assets/` from a chunk, `<repo>/dist/assets/` from source. */
const ASSETS_URL = FROM_SOURCE ? '../../../dist/assets/' : './assets/';

/** The bundles found so far (each is looked for once). */
const found = new Set<string>();

/**
 * The absolute path of the guest bundle `name` (e.g. `node-guest.cjs`).
 *
 * @throws `RUNTIME_UNAVAILABLE` when the file is not there, saying where it was looked for and how
 * to put it there — before a sandbox is started with it, so a missing file is never taken for a
 * failure of the snippet.
 */
export function assetPath(name: string): string {
  const path = fileURLToPath(new URL(`${ASSETS_URL}${name}`, import.meta.url));
  if (found.has(path)) return path;
  if (!existsSync(path)) {
    const fix = FROM_SOURCE
      ? 'run `npm run build` first'
      : "it ships in toolexec's dist/assets/: an app bundled with a bundler keeps toolexec external " +
        '(esbuild --external:toolexec) or copies node_modules/toolexec/dist/assets/ beside its bundle (docs/bundling.md)';
    throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: the sandbox file ${name} is not at ${path}: ${fix}`, {
      details: { missing: name, path },
    });
  }
  found.add(path);
  return path;
}
