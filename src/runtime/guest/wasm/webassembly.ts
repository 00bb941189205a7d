/**
 * The few parts of the WebAssembly JavaScript API the worker uses, typed here because the
 * project's TypeScript libs (ES2023 + node) do not declare the `WebAssembly` global.
 */

/** A compiled module (opaque: it arrives from the host by structured clone). */
export type WasmModule = object;

/** A `WebAssembly.Memory`. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

/** A `WebAssembly.Instance`. */
export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

interface WebAssemblyApi {
  Memory: abstract new (...args: never[]) => WasmMemory;
  RuntimeError: abstract new (...args: never[]) => Error;
  LinkError: abstract new (...args: never[]) => Error;
  instantiate(module: WasmModule, imports: Record<string, Record<string, unknown>>): Promise<WasmInstance>;
}

/** The global `WebAssembly` object. */
export const wasm: WebAssemblyApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
