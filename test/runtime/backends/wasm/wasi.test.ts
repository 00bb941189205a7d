import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capModuleMemory, createWasmBackend, wasiModuleBytes, type WasmBackend } from '../../../../src/runtime/backends/wasm/index.js';
import { wasmApi } from '../../../../src/runtime/backends/wasm/webassembly.js';
import type { ExecuteRequest, ExecuteResult, ToolGateway } from '../../../../src/runtime/index.js';
import { exitModule, floodModule, foreignImportModule, growModule, helloModule, loopModule, raiseModule } from './wasi-modules.js';

type Failure = Error & { code?: string; details?: Record<string, unknown> & { result?: ExecuteResult } };

async function failure(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected the run to fail');
}

/** The raw WASI path never calls the gateway. */
const unreachableGateway = new Proxy({} as ToolGateway, {
  get: () => () => Promise.reject(new Error('the gateway must not be called on the WASI path')),
});

describe('wasm backend: raw WASI modules', () => {
  let backend: WasmBackend;
  const run = (module: unknown, extra: Partial<ExecuteRequest> = {}) =>
    backend.execute({
      code: '(ignored on the WASI path)',
      gateway: unreachableGateway,
      ...extra,
      metadata: { wasm_module: module, ...extra.metadata },
    });

  beforeAll(() => {
    backend = createWasmBackend({ poolSize: 1 });
  });
  afterAll(async () => {
    await backend.close();
  });

  it('runs a hand-assembled fd_write module, capturing stdout and stderr (readiness beta)', async () => {
    const result = await run(helloModule());
    expect(result.value).toEqual({ exitCode: 0 });
    expect(result.stdout).toBe('hello\n');
    expect(result.stderr).toBe('oops\n');
    expect(result.backend).toMatchObject({ kind: 'wasm', readiness: 'beta', details: { engine: 'node:wasi', wasi: 'preview1' } });
    expect(result.limitsEnforced).toMatchObject({ timeout: true, memory: true, cpu: false, pids: false, disk: false });
    expect(result.toolCalls).toEqual([]);
    expect(backend.readiness).toBe('prod');
  });

  it('accepts base64 (padded or not) in wasm_module and wasm_module_b64; wasm_module wins', async () => {
    const b64 = Buffer.from(helloModule()).toString('base64');
    expect((await run(b64)).stdout).toBe('hello\n');
    expect((await run(b64.replace(/=+$/, ''))).stdout).toBe('hello\n');
    const viaB64 = await backend.execute({ code: 'x', gateway: unreachableGateway, metadata: { wasm_module_b64: b64 } });
    expect(viaB64.stdout).toBe('hello\n');
    const both = await backend.execute({
      code: 'x',
      gateway: unreachableGateway,
      metadata: { wasm_module: exitModule(0), wasm_module_b64: b64 },
    });
    expect(both.stdout).toBe('');
    expect((await run(Buffer.from(helloModule()))).stdout).toBe('hello\n');
  });

  it('still requires code (MISSING_CODE), as every backend does', async () => {
    const error = await failure(backend.execute({ code: '', gateway: unreachableGateway, metadata: { wasm_module: helloModule() } }));
    expect(error.code).toBe('MISSING_CODE');
  });

  it('rejects modules that are not WebAssembly (INVALID_ARGUMENT)', async () => {
    const bad: [string, unknown][] = [
      ['no magic', Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8)],
      ['bad base64', '!!not base64!!'],
      ['a number', 42],
      ['an object', { bytes: [0] }],
      ['too short', Uint8Array.of(0, 0x61, 0x73)],
    ];
    for (const [label, module] of bad) {
      const error = await failure(run(module));
      expect(error.code, label).toBe('INVALID_ARGUMENT');
      expect(error.details?.result).toBeDefined();
    }
    const truncated = await failure(run(Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 99)));
    expect(truncated.code).toBe('INVALID_ARGUMENT');
    expect(truncated.message).toContain('does not compile');
  });

  it('rejects modules that import anything but WASI functions (INVALID_ARGUMENT)', async () => {
    const error = await failure(run(foreignImportModule()));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('env.escape');
  });

  it('stops an endless module at the timeout by terminating its worker (TIMEOUT)', async () => {
    const replaced = backend.stats.replaced;
    const started = performance.now();
    const error = await failure(run(loopModule(), { timeoutMs: 200 }));
    expect(error.code).toBe('TIMEOUT');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(backend.stats.replaced).toBe(replaced + 1);
    expect((await run(helloModule())).stdout).toBe('hello\n');
  });

  it('aborts a running module (ABORTED)', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 100);
    const error = await failure(run(loopModule(), { signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
  });

  it('caps output (RESOURCE_LIMIT)', async () => {
    const error = await failure(run(floodModule(), { limits: { maxOutputBytes: 10_000 } }));
    expect(error.code).toBe('RESOURCE_LIMIT');
    expect(error.details?.limit).toBe('output');
    expect(error.details?.result?.stdout).toHaveLength(10_000);
  });

  it('reports a non-zero exit code as CODE_EXECUTION', async () => {
    const error = await failure(run(exitModule(3)));
    expect(error.code).toBe('CODE_EXECUTION');
    expect(error.details?.exitCode).toBe(3);
    expect((await run(exitModule(0))).value).toEqual({ exitCode: 0 });
  });

  it('caps linear memory at limits.memoryBytes by rewriting the declared maximum', async () => {
    const denied = await run(growModule(100), { limits: { memoryBytes: 1024 * 1024 } });
    expect(denied.stdout).toBe('denied\n');
    expect(denied.backend.details).toMatchObject({ memoryBytes: 1024 * 1024, maxMemoryBytes: 1024 * 1024 });
    const grown = await run(growModule(10), { limits: { memoryBytes: 1024 * 1024 } });
    expect(grown.stdout).toBe('grown\n');
    expect(grown.backend.details?.memoryBytesUsed).toBe(11 * 65536);
    const tooBig = await failure(run(growModule(1, { min: 100 }), { limits: { memoryBytes: 1024 * 1024 } }));
    expect(tooBig.code).toBe('RESOURCE_LIMIT');
    expect(tooBig.details?.limit).toBe('memory');
  });

  it('keeps a smaller declared maximum', async () => {
    const result = await run(growModule(5, { min: 1, max: 2 }), { limits: { memoryBytes: 1024 * 1024 } });
    expect(result.stdout).toBe('denied\n');
    expect(result.backend.details?.maxMemoryBytes).toBe(2 * 65536);
  });

  it('never lets a module signal the host process (proc_raise is refused)', async () => {
    let delivered = false;
    const onSignal = () => {
      delivered = true;
    };
    process.on('SIGUSR2', onSignal);
    try {
      const result = await run(raiseModule(12)); // WASI SIGUSR2
      expect(result.stdout).toBe('refused\n');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(delivered).toBe(false);
    } finally {
      process.off('SIGUSR2', onSignal);
    }
  });
});

describe('WASI module helpers', () => {
  it('finds no module when the metadata carries none', () => {
    expect(wasiModuleBytes(undefined, 1000)).toBeUndefined();
    expect(wasiModuleBytes({ other: 1 }, 1000)).toBeUndefined();
    expect(wasiModuleBytes({ wasm_module: null }, 1000)).toBeUndefined();
  });

  it('refuses modules over the size limit', () => {
    expect(() => wasiModuleBytes({ wasm_module: helloModule() }, 10)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('rewrites only the memory section, leaving a module that still compiles', async () => {
    const original = growModule(1);
    const capped = capModuleMemory(original, 3 * 65536);
    expect(capped.memories).toEqual([{ minPages: 1, maxPages: 3, imported: false, capped: true }]);
    expect(capped.enforced).toBe(true);
    expect(capped.bytes.length).toBe(original.length + 1);
    const module = await wasmApi.compile(capped.bytes);
    expect(wasmApi.Module.exports(module).map((e) => e.name)).toEqual(['memory', '_start']);
    const garbage = Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 200);
    expect(capModuleMemory(garbage, 65536).bytes).toBe(garbage);
  });
});
