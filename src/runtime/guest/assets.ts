/**
 * Locates the guest bundles, the self-contained files that run inside sandboxes (`node-guest.cjs`,
 * `wasm-worker.mjs`, `wasm-prelude.js`). tsup builds them from `src/runtime/guest/` into
 * `dist/assets/`. Every built chunk sits flat in `dist/`, one level above that folder; run from
 * source (tests, benchmarks), this module finds the same bundles in the repository's
 * `dist/assets/`, so `npm run build` must have run.
 */
import { fileURLToPath } from 'node:url';

/** The folder of the bundles, relative to this module: `dist/assets/` from a chunk, `<repo>/dist/assets/` from source. */
const ASSETS_URL = /\.ts$/.test(import.meta.url) ? '../../../dist/assets/' : './assets/';

/** The absolute path of the guest bundle `name` (e.g. `node-guest.cjs`). */
export function assetPath(name: string): string {
  return fileURLToPath(new URL(`${ASSETS_URL}${name}`, import.meta.url));
}
