/**
 * The backends a runtime uses when the caller names none: WASM for `standard` and `hardened`
 * (one shared instance), the unsafe host backend for `dev`. Created lazily.
 */
import { createUnsafeHostBackend } from '../backends/host/index.js';
import type { WasmBackendOptions } from '../backends/wasm/option-types.js';
import type { PythonBackendOptions } from '../backends/python/option-types.js';
import type { RuntimeBackend, SecurityProfile } from './types.js';

/** Creates a backend on first use. */
export type BackendFactory = () => Promise<RuntimeBackend>;

/** Loaded on first use: a runtime that never runs `standard` snippets never loads the WASM engine. */
async function wasmBackend(options: WasmBackendOptions): Promise<RuntimeBackend> {
  const { createWasmBackend } = await import('../backends/wasm/index.js');
  return createWasmBackend(options);
}

/** Loaded on first use: only a runtime that runs Python loads the Python backend. */
async function pythonBackend(options: PythonBackendOptions): Promise<RuntimeBackend> {
  const { createPythonBackend } = await import('../backends/python/index.js');
  return createPythonBackend(options);
}

/** The factory of the runtime's Python backend (one instance per runtime, shared by `standard` and `hardened`). */
export function createDefaultPythonBackend(options: PythonBackendOptions = {}): BackendFactory {
  return () => pythonBackend(options);
}

/**
 * The default profile → backend factories (the `standard` and `hardened` entries share one WASM
 * backend, made with `wasm`).
 */
export function createDefaultBackends(wasmOptions: WasmBackendOptions = {}): Map<SecurityProfile, BackendFactory> {
  const wasm: BackendFactory = () => wasmBackend(wasmOptions);
  const unsafe: BackendFactory = async () => createUnsafeHostBackend();
  return new Map<SecurityProfile, BackendFactory>([
    ['standard', wasm],
    ['hardened', wasm],
    ['dev', unsafe],
  ]);
}
