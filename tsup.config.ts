import { copyFile, mkdir } from 'node:fs/promises';
import { defineConfig, type Options } from 'tsup';

/**
 * One entry per layer (see API.md), plus one per runtime backend (`toolexec/runtime/<name>`); every file lands flat in
 * dist/ so the guest bundles resolve the same way from any chunk.
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
  'runtime-python': 'src/runtime/backends/python/index.ts',
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
  agent: 'src/agent/index.ts',
  testing: 'src/testing/index.ts',
};

/** Where the guest bundles land (see src/runtime/guest/assets.ts). */
const ASSETS_DIR = 'dist/assets';

/**
 * The guest bundles: self-contained files that run inside sandboxes, one entry each, no chunks.
 * Only `quickjs-wasi` (a dependency, next to the package at run time) stays external.
 */
const guest: Options = {
  outDir: ASSETS_DIR,
  bundle: true,
  splitting: false,
  sourcemap: false,
  dts: false,
  shims: false,
  removeNodeProtocol: false,
  // the three names never change: each build overwrites its file (the main build keeps the folder)
  clean: false,
  silent: true,
};

export default defineConfig([
  {
    entry: entries,
    format: ['esm', 'cjs'],
    target: 'node20',
    platform: 'node',
    dts: true,
    sourcemap: true,
    // the guest bundles below are written into dist/assets, and the command into dist/cli.js, at the same time
    clean: ['!assets/**', '!cli.js'],
    splitting: true,
    shims: true,
    treeshake: true,
    outDir: 'dist',
  },
  {
    // the `toolexec` command (package.json `bin`): one executable ES module beside the chunks, so the
    // guest bundles resolve from it as from any chunk; dependencies stay external
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    outDir: 'dist',
    bundle: true,
    splitting: false,
    sourcemap: false,
    dts: false,
    clean: false,
    silent: true,
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...guest,
    // the node guest: one CommonJS file, node builtins only (the sandbox image has no node_modules)
    entry: { 'node-guest': 'src/runtime/guest/node/main.ts' },
    format: ['cjs'],
    platform: 'node',
    target: 'node20',
    outExtension: () => ({ js: '.cjs' }),
    // the Python prelude is not compiled: it is copied as it is (see src/runtime/guest/python/source.ts)
    onSuccess: async () => {
      await mkdir(ASSETS_DIR, { recursive: true });
      await copyFile('src/runtime/guest/python/prelude.py', `${ASSETS_DIR}/python-prelude.py`);
    },
  },
  {
    ...guest,
    // the wasm worker: an ES module (top-level await) started by the pool from the ESM and CJS builds alike
    entry: { 'wasm-worker': 'src/runtime/guest/wasm/main.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    outExtension: () => ({ js: '.mjs' }),
  },
  {
    ...guest,
    // the component worker: runs jco-transpiled WebAssembly components (no imports beyond node builtins)
    entry: { 'component-worker': 'src/runtime/guest/component/main.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    outExtension: () => ({ js: '.mjs' }),
  },
  {
    ...guest,
    // the Pyodide child: an ES module (top-level await) that imports Pyodide from the directory the host names
    entry: { 'python-child': 'src/runtime/guest/python/main.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    outExtension: () => ({ js: '.mjs' }),
  },
  {
    ...guest,
    // the QuickJS prelude: a script whose value is `installPrelude`, evaluated inside each VM
    entry: { 'wasm-prelude': 'src/runtime/guest/prelude/main.ts' },
    format: ['iife'],
    platform: 'neutral',
    target: 'es2022',
    globalName: 'toolexecPrelude',
    outExtension: () => ({ js: '.js' }),
    banner: { js: '(function () {' },
    footer: { js: 'return toolexecPrelude.installPrelude;\n})()' },
  },
]);
