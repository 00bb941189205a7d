/**
 * Where Pyodide itself differs from a 64-bit CPython or from the JavaScript guests, on the real
 * Pyodide backend: a top-level `nan` / `inf` is a value (null, as a JavaScript snippet's NaN), a
 * fatal interpreter crash is the run's failure and never the snippet's output, and a size past
 * 32-bit WebAssembly's address space is the memory limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasErrorCode } from '../../../../src/model/index.js';
import { createExec } from '../../../../src/exec/index.js';
import { createDirectGateway, createRuntime, type ExecuteRequest, type ExecuteResult } from '../../../../src/runtime/index.js';
import { createPythonBackend, type PythonBackend } from '../../../../src/runtime/backends/python/index.js';
import { createWasmBackend } from '../../../../src/runtime/backends/wasm/index.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';

type Failure = Error & { code?: string; details?: Record<string, unknown> };

const MiB = 1024 * 1024;

async function rejection(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected the run to fail, but it succeeded');
}

/** The details of a failure without its partial result. */
function detailsOf(error: Failure): Record<string, unknown> {
  const { result: _result, ...rest } = error.details ?? {};
  return rest;
}

describe('the Pyodide interpreter at its edges', { timeout: 60_000 }, () => {
  let backend: PythonBackend;
  beforeAll(async () => {
    backend = createPythonBackend({ poolSize: 1 });
    await backend.warm();
  }, 120_000);
  afterAll(async () => {
    await backend?.close();
  });

  const request = (code: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
    language: 'python',
    code,
    gateway: createDirectGateway(createContractFixture()),
    timeoutMs: 20_000,
    ...extra,
  });
  const run = (code: string, extra: Partial<ExecuteRequest> = {}) => backend.execute(request(code, extra));
  const valueOf = (result: ExecuteResult) => (Object.hasOwn(result, 'value') ? { value: result.value } : 'no value');

  it('gives nan and inf as null, a value, as a JavaScript snippet gives NaN; None is no value', async () => {
    const wasm = createWasmBackend({ poolSize: 1 });
    try {
      const pairs: [string, string][] = [
        ["float('nan')", 'return NaN'],
        ["float('inf')", 'return Infinity'],
        ["-float('inf')", 'return -Infinity'],
        ["[float('nan'), {'a': float('inf'), 'b': (float('-inf'),)}]", 'return [NaN, { a: Infinity, b: [-Infinity] }]'],
        ['None', 'return undefined'],
        ['x = 1', 'const x = 1'],
      ];
      for (const [python, javascript] of pairs) {
        const js = await wasm.execute({ code: javascript, gateway: createDirectGateway(createContractFixture()) });
        expect(valueOf(await run(python)), python).toEqual(valueOf(js));
      }
      expect(valueOf(await run("float('nan')"))).toEqual({ value: null });
      expect(valueOf(await run('None'))).toBe('no value');
    } finally {
      await wasm.close();
    }
  });

  it('keeps a fatal crash out of stdout: a wasm trap is a CODE_EXECUTION crash with the snippet frames of the dump', async () => {
    const error = await rejection(run("print('before')\nimport ctypes\nctypes.string_at(0xFFFFFFF0, 100)"));
    expect(error.code, error.message).toBe('CODE_EXECUTION');
    expect(hasErrorCode(error, 'CODE_EXECUTION')).toBe(true);
    expect(error.message).toBe('RuntimeError: the Python interpreter crashed: wasm trap: memory access out of bounds');
    const result = error.details?.result as ExecuteResult;
    expect(result.stdout).toBe('before\n');
    expect(result.stderr).toBe('');
    const stack = error.details?.stack as string;
    expect(stack).toContain('File "<snippet>", line 3 in <module>');
    expect(stack.length).toBeLessThanOrEqual(4096);
    expect(stack).not.toContain('prelude.py');
    // the crashed child is replaced
    expect((await run('6 * 7')).value).toBe(42);
  });

  it('keeps the dump of a fatal stack overflow out of stdout (RESOURCE_LIMIT stack)', async () => {
    const code = "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1)\nprint('before')\nf(0)";
    const error = await rejection(run(code));
    expect(error.code, error.message).toBe('RESOURCE_LIMIT');
    expect(error.message).toBe('resource limit exceeded: stack (Maximum call stack size exceeded)');
    expect((error.details?.result as ExecuteResult).stdout).toBe('before\n');
    expect((await run('1 + 1')).value).toBe(2);
  });

  it('reports a 2 GiB allocation as the memory limit, as any other allocation past the cap', async () => {
    const limits = { memoryBytes: 256 * MiB };
    const past = await rejection(run('bytearray(2 * 1024**3)', { limits }));
    const ordinary = await rejection(run('bytearray(1024**3)', { limits }));
    expect(ordinary.code).toBe('RESOURCE_LIMIT');
    expect(past.code, past.message).toBe('RESOURCE_LIMIT');
    expect(past.message).toBe(`resource limit exceeded: memory (the snippet needed more than ${256 * MiB} bytes: out of memory)`);
    expect(past.message).toBe(ordinary.message);
    expect(detailsOf(past)).toEqual(detailsOf(ordinary));
    expect(detailsOf(past)).toMatchObject({ limit: 'memory', memoryBytes: 256 * MiB, line: 1 });
    // an OverflowError of another kind stays the snippet's own error
    const math = await rejection(run('import math\nmath.exp(1000)'));
    expect(math.code).toBe('CODE_EXECUTION');
    expect(math.message).toMatch(/^OverflowError: math range error/);
  });

  it('is LIMIT_EXCEEDED with the memory limit in code mode', async () => {
    const runtime = createRuntime({ python: { poolSize: 1 } });
    const exec = createExec({ runtime });
    try {
      const error = await rejection(exec.executeCode({ language: 'python', code: 'bytearray(2 * 1024**3)', timeoutMs: 20_000 }));
      expect(error.code, error.message).toBe('LIMIT_EXCEEDED');
      expect(hasErrorCode(error, 'RESOURCE_LIMIT')).toBe(true);
      expect(error.message).toMatch(
        /^limit exceeded: resource limit exceeded: memory \(the snippet needed more than \d+ bytes: out of memory\)$/,
      );
      expect(error.details).toMatchObject({ limit: 'memory' });
    } finally {
      await exec.close();
      await runtime.close();
    }
  });
});
