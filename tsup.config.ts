import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

/**
 * One entry per layer (see API.md), plus one per runtime backend (`toolexec/runtime/<name>`); every file lands flat in
 * dist/ so assets resolve the same way from any chunk.
 */
export const entries = {
  index: 'src/index.ts',
  model: 'src/model/index.ts',
  discovery: 'src/discovery/index.ts',
  backend: 'src/backend/index.ts',
  run: 'src/run/index.ts',
  mcp: 'src/mcp/index.ts',
  runtime: 'src/runtime/index.ts',
  'runtime-wasm': 'src/runtime/backends/wasm/index.ts',
  'runtime-host': 'src/runtime/backends/host/index.ts',
  'runtime-docker': 'src/runtime/backends/docker/index.ts',
  'runtime-remote': 'src/runtime/backends/remote/index.ts',
  'runtime-containerd': 'src/runtime/backends/containerd/index.ts',
  'runtime-kata': 'src/runtime/backends/kata/index.ts',
  'runtime-firecracker': 'src/runtime/backends/firecracker/index.ts',
  'runtime-kubernetes': 'src/runtime/backends/kubernetes/index.ts',
  'runtime-proxmox': 'src/runtime/backends/proxmox/index.ts',
  'runtime-temporal': 'src/runtime/backends/temporal/index.ts',
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
