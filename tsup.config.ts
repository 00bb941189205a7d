import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

/** One entry per layer (see API.md); every file lands flat in dist/ so assets resolve the same way from any chunk. */
export const entries = {
  index: 'src/index.ts',
  model: 'src/model/index.ts',
  discovery: 'src/discovery/index.ts',
  backend: 'src/backend/index.ts',
  run: 'src/run/index.ts',
  mcp: 'src/mcp/index.ts',
  runtime: 'src/runtime/index.ts',
  code: 'src/code/index.ts',
  exec: 'src/exec/index.ts',
  testing: 'src/testing/index.ts',
};

export default defineConfig({
  entry: entries,
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  shims: true,
  treeshake: true,
  outDir: 'dist',
  async onSuccess() {
    // Plain-JS files that run inside sandboxes (worker threads, child processes, containers).
    cpSync('src/runtime/assets', 'dist/assets', { recursive: true });
  },
});
