/**
 * Locates the plain-JS files that run inside sandboxes. They live in `src/runtime/assets/` and
 * are copied to `dist/assets/` at build; this module sits one level above that folder in both
 * layouts, so one relative URL works for both.
 */
import { fileURLToPath } from 'node:url';

/** The absolute path of the asset `name` (e.g. `node-guest.cjs`). */
export function assetPath(name: string): string {
  return fileURLToPath(new URL(`./assets/${name}`, import.meta.url));
}
