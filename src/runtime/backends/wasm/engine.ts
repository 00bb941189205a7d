/**
 * The QuickJS engine binary and the worker script: located once, compiled once per process.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { runtimeError } from '../../core/errors.js';
import { assetPath } from '../../guest/assets.js';
import { wasmApi, type CompiledWasmModule } from './webassembly.js';

/** The worker bundle (built from `src/runtime/guest/wasm/` into `dist/assets/`). */
export const WASM_WORKER_ASSET = 'wasm-worker.mjs';

/** The engine package the backend runs (pinned in package.json). */
export const QUICKJS_PACKAGE = 'quickjs-wasi';

let compiled: Promise<CompiledWasmModule> | undefined;

/** The absolute path of the worker script. */
export function wasmWorkerPath(): string {
  return assetPath(WASM_WORKER_ASSET);
}

/**
 * The compiled QuickJS module (`quickjs-wasi/quickjs.wasm`), compiled on first use and shared by
 * every worker of every backend in this process (a `WebAssembly.Module` crosses to workers without
 * recompiling). A failed load is retried on the next call.
 */
export function quickjsModule(): Promise<CompiledWasmModule> {
  compiled ??= (async () => {
    const require = createRequire(import.meta.url);
    let file: string;
    try {
      file = require.resolve(`${QUICKJS_PACKAGE}/quickjs.wasm`);
    } catch (err) {
      throw runtimeError(
        'RUNTIME_UNAVAILABLE',
        `runtime unavailable: the QuickJS engine (${QUICKJS_PACKAGE}/quickjs.wasm, a dependency of toolexec) cannot be found from ${fileURLToPath(import.meta.url)}: ` +
          `a bundled app keeps ${QUICKJS_PACKAGE} installed in node_modules beside it (docs/bundling.md)`,
        { cause: err, details: { backend: 'wasm', missing: QUICKJS_PACKAGE } },
      );
    }
    return wasmApi.compile(await readFile(file));
  })().catch((err: unknown) => {
    compiled = undefined;
    throw err;
  });
  return compiled;
}
