/**
 * Turns a component into what a worker can instantiate: jco transpiles it (once per content hash)
 * into a JavaScript `instantiate` function and its core modules, which are then compiled with their
 * memories capped (once per hash and cap).
 */
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import type { ToolexecError } from '../../../../model/index.js';
import { LruCache, missingPeerMessage, optionalPeer } from '../../../../model/internal.js';
import { runtimeError } from '../../../core/errors.js';
import { capModuleMemory, WASM_PAGE_BYTES } from '../wasi-module.js';
import { wasmApi, type CompiledWasmModule } from '../webassembly.js';
import { COMPONENT_METADATA_KEY } from './request.js';

/** The optional peer dependency that transpiles components. */
export const JCO_PACKAGE = '@bytecodealliance/jco';

/** The WIT interface a guest may import (the only import the sandbox provides). */
export const HOST_INTERFACE = 'toolexec:sandbox/host';

/** The name the transpiled files get (`guest.js`, `guest.core.wasm`, ...). */
const NAME = 'guest';

/** What jco's `transpile` returns. */
interface TranspileOutput {
  files: Record<string, Uint8Array>;
  imports: string[];
  exports: [string, 'function' | 'instance'][];
}

type TranspileFn = (component: Uint8Array, options: Record<string, unknown>) => Promise<TranspileOutput>;

/** A transpiled component, shared by every run of the same bytes. */
export interface TranspiledComponent {
  /** sha256 of the component's bytes (hex). */
  hash: string;
  /** The source of jco's `instantiate` function (sync instantiation, no imports of its own). */
  js: string;
  /** Each core module's bytes, by the file name the `instantiate` function asks for. */
  coreModules: Map<string, Uint8Array>;
}

/** A component ready for a run under one memory cap. */
export interface PreparedComponent {
  /** sha256 of the component's bytes (hex). */
  hash: string;
  /** See {@link TranspiledComponent.js}. */
  js: string;
  /** Each core module compiled with its memories capped. */
  modules: Record<string, CompiledWasmModule>;
  /** The per-memory cap, in bytes (whole pages). */
  memoryBytes: number;
  /** True when every core module that has a memory got the cap written into it. */
  memoryCapped: boolean;
  /** Milliseconds spent transpiling for this run (0 when the transpiled form was cached). */
  transpileMs: number;
}

/** An importer of jco as `specifier`, shared until it fails; a missing package is `RUNTIME_UNAVAILABLE`. */
function jcoImporter(specifier: string): () => Promise<{ transpile?: unknown }> {
  return optionalPeer(
    specifier,
    (mod) => mod as { transpile?: unknown },
    (err) =>
      runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${missingPeerMessage('WebAssembly components', specifier)}`, {
        cause: err,
        details: { backend: 'wasm', package: specifier },
      }),
  );
}

const importJco = jcoImporter(JCO_PACKAGE);

/**
 * Loads jco's `transpile` (the optional peer dependency), once; a failed load is retried next time.
 *
 * @param specifier - the package to import (tests pass a missing one).
 * @throws `RUNTIME_UNAVAILABLE` naming the package when it is not installed.
 */
export async function loadJco(specifier: string = JCO_PACKAGE): Promise<TranspileFn> {
  const api = await (specifier === JCO_PACKAGE ? importJco : jcoImporter(specifier))();
  if (typeof api.transpile !== 'function') {
    throw runtimeError('RUNTIME_UNAVAILABLE', `runtime unavailable: ${specifier} has no transpile function (jco 1.x expected)`, {
      details: { backend: 'wasm', package: specifier },
    });
  }
  return api.transpile as TranspileFn;
}

let extendedConst = false;

/**
 * Node 20 compiles the extended-const proposal (used by componentize-qjs output) only behind
 * `--experimental-wasm-extended-const`. A worker's `execArgv` rejects V8 flags, and V8 flags are
 * process-wide anyway, so the flag is set once for the process before the first compile; later
 * Node versions have the feature on by default.
 */
export function enableWasmFeatures(): void {
  if (extendedConst) return;
  extendedConst = true;
  if (Number(process.versions.node.split('.')[0]) <= 20) setFlagsFromString('--experimental-wasm-extended-const');
}

function invalid(message: string, details: Record<string, unknown> = {}, cause?: unknown): ToolexecError {
  return runtimeError('INVALID_ARGUMENT', `invalid WebAssembly component: ${message}`, {
    details: { field: `metadata.${COMPONENT_METADATA_KEY}`, ...details },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** sha256 of `bytes`, hex. */
export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Rewrites `export function instantiate` / `export const _util` so the module's body runs as a function body. */
function instantiateSource(module: string): string {
  let found = false;
  const body = module
    .replace(/^"use components";\s*$/m, '')
    .replace(/^export function instantiate\(/m, () => {
      found = true;
      return 'function instantiate(';
    })
    .replace(/^export const /gm, 'const ');
  if (!found || /^\s*(import|export)\s/m.test(body)) {
    throw runtimeError('RUNTIME_UNAVAILABLE', 'runtime unavailable: jco produced output of an unexpected shape (a newer major version?)', {
      details: { backend: 'wasm', package: JCO_PACKAGE },
    });
  }
  return `'use strict';\n${body}\nreturn instantiate;`;
}

/** Checks the component's world and keeps what a worker needs. */
function toTranspiled(hash: string, output: TranspileOutput): TranspiledComponent {
  for (const name of output.imports) {
    if (name !== HOST_INTERFACE) {
      throw invalid(`it imports ${name}; a component gets only ${HOST_INTERFACE} (WASI and every other import are denied)`, {
        import: name,
      });
    }
  }
  if (!output.exports.some(([name, kind]) => name === 'run' && kind === 'function')) {
    throw invalid('it does not export `run: func(input-json: string) -> result<string, string>` (world toolexec:sandbox/guest)');
  }
  const js = output.files[`${NAME}.js`];
  if (js === undefined) throw invalid('jco produced no JavaScript for it');
  const coreModules = new Map<string, Uint8Array>();
  for (const [file, bytes] of Object.entries(output.files)) if (file.endsWith('.wasm')) coreModules.set(file, bytes);
  return { hash, js: instantiateSource(new TextDecoder().decode(js)), coreModules };
}

/**
 * Transpiled and compiled components, cached by content hash (and memory cap): the first run of a
 * component pays for jco (100 ms to 1 s), later runs of the same bytes only instantiate.
 */
export class ComponentCache {
  readonly #transpiled: LruCache<string, Promise<TranspiledComponent>>;
  readonly #compiled: LruCache<string, Promise<PreparedComponent>>;
  readonly #jcoSpecifier: string;

  /** `maxEntries`: components kept (each cap of each component counts once more for compiled forms). */
  constructor(maxEntries: number, jcoSpecifier: string = JCO_PACKAGE) {
    this.#transpiled = new LruCache(maxEntries);
    this.#compiled = new LruCache(maxEntries * 2);
    this.#jcoSpecifier = jcoSpecifier;
  }

  /** Entries held (transpiled forms). */
  get size(): number {
    return this.#transpiled.size;
  }

  /**
   * The component ready to instantiate with every linear memory capped at `memoryBytes`.
   *
   * @throws `RUNTIME_UNAVAILABLE` without jco; `INVALID_ARGUMENT` when jco rejects the bytes, the
   * component imports anything but {@link HOST_INTERFACE}, has no `run` export, or a core module
   * does not compile; `RESOURCE_LIMIT` (`memory`) when a memory starts above the cap.
   */
  async prepare(bytes: Uint8Array, memoryBytes: number): Promise<PreparedComponent> {
    const hash = contentHash(bytes);
    const capPages = Math.max(1, Math.floor(memoryBytes / WASM_PAGE_BYTES));
    const key = `${hash}:${capPages}`;
    const cached = this.#compiled.get(key);
    // a cached form cost this run nothing to transpile
    if (cached !== undefined) return { ...(await cached), transpileMs: 0 };
    const compiled = this.#compile(hash, bytes, capPages);
    this.#compiled.set(key, compiled);
    compiled.catch(() => this.#compiled.delete(key));
    return compiled;
  }

  async #compile(hash: string, bytes: Uint8Array, capPages: number): Promise<PreparedComponent> {
    const started = performance.now();
    let transpiledNow = false;
    let transpiled = this.#transpiled.get(hash);
    if (transpiled === undefined) {
      transpiledNow = true;
      transpiled = this.#transpile(hash, bytes);
      this.#transpiled.set(hash, transpiled);
      transpiled.catch(() => this.#transpiled.delete(hash));
    }
    const component = await transpiled;
    const transpileMs = transpiledNow ? performance.now() - started : 0;
    enableWasmFeatures();
    const modules: Record<string, CompiledWasmModule> = {};
    let memoryCapped = true;
    await Promise.all(
      [...component.coreModules].map(async ([file, core]) => {
        const capped = capModuleMemory(core, capPages * WASM_PAGE_BYTES);
        if (capped.memories.some((m) => !m.imported) && !capped.enforced) memoryCapped = false;
        try {
          modules[file] = await wasmApi.compile(capped.bytes);
        } catch (err) {
          throw invalid(
            `its core module ${file} does not compile: ${err instanceof Error ? err.message : String(err)}`,
            { module: file },
            err,
          );
        }
      }),
    );
    return { hash, js: component.js, modules, memoryBytes: capPages * WASM_PAGE_BYTES, memoryCapped, transpileMs };
  }

  async #transpile(hash: string, bytes: Uint8Array): Promise<TranspiledComponent> {
    const transpile = await loadJco(this.#jcoSpecifier);
    let output: TranspileOutput;
    try {
      // jco may keep a reference to the buffer: hand it a copy
      output = await transpile(new Uint8Array(bytes), {
        name: NAME,
        instantiation: 'sync',
        noTypescript: true,
        base64Cutoff: 0,
        quiet: true,
      });
    } catch (err) {
      throw invalid(`jco cannot transpile it: ${err instanceof Error ? err.message : String(err)}`, {}, err);
    }
    return toTranspiled(hash, output);
  }
}
