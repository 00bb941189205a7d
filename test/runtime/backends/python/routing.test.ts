/**
 * The runtime routes Python requests: to the profile's backend when it runs Python, else to the
 * runtime's own Pyodide backend for `standard` and `hardened`, else `RUNTIME_UNAVAILABLE`; `warm`
 * starts the Python pool; without a working bubblewrap Python is refused, never run unsandboxed.
 */
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  createDirectGateway,
  createRuntime,
  type ExecuteRequest,
  type ExecuteResult,
  type RuntimeBackend,
} from '../../../../src/runtime/index.js';
import { createPythonBackend } from '../../../../src/runtime/backends/python/index.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';

const gateway = () => createDirectGateway(createContractFixture());

async function codeOf(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error('expected a failure');
}

describe('runtime routing of Python requests', { timeout: 120_000 }, () => {
  const runtime = createRuntime({ python: { poolSize: 1 } });
  afterAll(async () => {
    await runtime.close();
  });

  it('runs python and py on the runtime Pyodide backend (standard, hardened), JavaScript on wasm', async () => {
    await runtime.warm({ languages: ['python'] });
    const py = await runtime.execute({
      language: 'python',
      code: "tools.run_tool('test:add', {'a': 1, 'b': 2})['structured']",
      gateway: gateway(),
    });
    expect(py.value).toBe(3);
    expect(py.backend.details).toMatchObject({ engine: 'pyodide', profile: 'standard' });
    expect(py.toolCalls).toHaveLength(1);
    const hardened = await runtime.execute({ language: 'PY', code: '2 ** 10', gateway: gateway(), profile: 'hardened' });
    expect(hardened.value).toBe(1024);
    const js = await runtime.execute({ code: 'return 1', gateway: gateway() });
    expect(js.backend.details).toMatchObject({ engine: 'quickjs-wasi' });
  });

  it('refuses Python for a profile without a Python backend, naming the profile and the language', async () => {
    const error = await codeOf(runtime.execute({ language: 'python', code: '1', gateway: gateway(), profile: 'dev' }));
    expect(error.code).toBe('RUNTIME_UNAVAILABLE');
    expect(error.message).toContain('"python"');
    expect(error.message).toContain('"dev"');
    const none = createRuntime({ python: false });
    onTestFinished(() => none.close());
    const refused = await codeOf(none.execute({ language: 'python', code: '1', gateway: gateway() }));
    expect(refused.code).toBe('RUNTIME_UNAVAILABLE');
    await none.close();
  });

  it("sends Python to a profile's own backend when it lists python in languages", async () => {
    const seen: ExecuteRequest[] = [];
    // a backend the caller injects (the Docker backend with a Python image, say)
    const own: RuntimeBackend = {
      kind: 'docker',
      readiness: 'beta',
      languages: ['javascript', 'python'],
      execute: async (request): Promise<ExecuteResult> => {
        seen.push(request);
        return {
          value: 'from own',
          stdout: '',
          stderr: '',
          toolCalls: [],
          durationMs: 1,
          backend: { kind: 'docker', readiness: 'beta' },
          limitsEnforced: { timeout: true, toolCalls: true, chainSteps: true, memory: false, cpu: false, pids: false, disk: false },
        };
      },
    };
    const custom = createRuntime({ backends: { hardened: own } });
    onTestFinished(() => custom.close());
    expect((await custom.execute({ language: 'python', code: '1', gateway: gateway(), profile: 'hardened' })).value).toBe('from own');
    expect(seen[0]).toMatchObject({ language: 'python', profile: 'hardened' });
    await custom.close();
  });

  it('refuses Python where bubblewrap is missing, naming it (no run without a network boundary)', async () => {
    const backend = createPythonBackend({ bubblewrapPath: '/nonexistent/bwrap' });
    onTestFinished(() => backend.close());
    const error = await codeOf(backend.execute({ language: 'python', code: '1', gateway: gateway() }));
    expect(error.code).toBe('RUNTIME_UNAVAILABLE');
    expect(error.message).toContain('bubblewrap');
    await expect(backend.warm()).rejects.toMatchObject({ code: 'RUNTIME_UNAVAILABLE' });
    await backend.close();
  });

  it('queues runs when every child is busy, bounded by queueTimeoutMs (TIMEOUT, phase queue)', async () => {
    const backend = createPythonBackend({ poolSize: 1 });
    onTestFinished(() => backend.close());
    await backend.warm();
    const busy = backend
      .execute({ language: 'python', code: 'while True:\n    pass', gateway: gateway(), timeoutMs: 1_500 })
      .catch((e: unknown) => e);
    const queued = await codeOf(backend.execute({ language: 'python', code: '1', gateway: gateway(), queueTimeoutMs: 200 }));
    expect(queued).toMatchObject({ code: 'TIMEOUT', details: { phase: 'queue' } });
    // a run that waits long enough gets the child once the runaway is stopped (its clock starts then)
    let startedAt = 0;
    const waited = await backend.execute({
      language: 'python',
      code: '2',
      gateway: gateway(),
      onStart: () => (startedAt = performance.now()),
    });
    expect(waited.value).toBe(2);
    expect(startedAt).toBeGreaterThan(0);
    expect(await busy).toMatchObject({ code: 'TIMEOUT' });
    await backend.close();
  });

  it('gives every run a child of its own with maxRunsPerChild: 1', async () => {
    const backend = createPythonBackend({ poolSize: 1, maxRunsPerChild: 1 });
    onTestFinished(() => backend.close());
    await backend.warm();
    const first = backend.childPids;
    // a hostile run rewrites an object the interpreter keeps: the next run must not see it
    await backend.execute({ language: 'python', code: "import json\njson.JSONEncoder.item_separator = '!'", gateway: gateway() });
    expect(backend.childPids.some((pid) => first.includes(pid))).toBe(false);
    const next = await backend.execute({ language: 'python', code: 'import json\njson.JSONEncoder.item_separator', gateway: gateway() });
    expect(next.value).toBe(', ');
    await backend.close();
  });

  it('refuses bad options at creation (CONFIGURATION)', () => {
    expect(() => createPythonBackend({ poolSize: 0 })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }) as Error);
    expect(() => createRuntime({ python: { defaultMemoryBytes: -1 } })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION' }) as Error,
    );
  });
});
