/**
 * The `wasm` backend: QuickJS compiled to WebAssembly on pooled worker threads (JavaScript and
 * TypeScript snippets), and raw WASI modules under `node:wasi`.
 *
 * @module toolexec/runtime/wasm
 */
export { WasmBackend, createWasmBackend } from './backend.js';
export {
  DEFAULT_WASM_MAX_MEMORY_BYTES,
  DEFAULT_WASM_MAX_STACK_BYTES,
  DEFAULT_WASM_MEMORY_BYTES,
  DEFAULT_WASM_QUEUE_TIMEOUT_MS,
  type WasmBackendOptions,
} from './options.js';
export type { WorkerPoolStats as WasmPoolStats } from './pool.js';
export { WASM_MAGIC, capModuleMemory, wasiModuleBytes, type CappedModule, type DeclaredMemory } from './wasi-module.js';
