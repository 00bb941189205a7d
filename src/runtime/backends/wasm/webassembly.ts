/**
 * The few parts of the WebAssembly JavaScript API the backend uses, typed here because the
 * project's TypeScript libs (ES2023 + node) do not declare the `WebAssembly` global.
 */

/** A compiled `WebAssembly.Module` (opaque here; it crosses to workers by structured clone). */
export interface CompiledWasmModule {
  readonly [Symbol.toStringTag]: string;
}

/** One entry of `WebAssembly.Module.imports()`. */
export interface WasmImportDescriptor {
  module: string;
  name: string;
  kind: string;
}

/** One entry of `WebAssembly.Module.exports()`. */
export interface WasmExportDescriptor {
  name: string;
  kind: string;
}

interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<CompiledWasmModule>;
  Module: {
    imports(module: CompiledWasmModule): WasmImportDescriptor[];
    exports(module: CompiledWasmModule): WasmExportDescriptor[];
  };
}

/** The global `WebAssembly` object. */
export const wasmApi: WebAssemblyApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
