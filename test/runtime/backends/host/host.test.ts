import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeBackendContract } from '../../../../src/testing/runtime-contract.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';
import { createDirectGateway, createUnsafeHostBackend, type ExecuteRequest, type ExecuteResult } from '../../../../src/runtime/index.js';
import type { UnsafeHostBackend } from '../../../../src/runtime/backends/host/index.js';

runtimeBackendContract('unsafe_host', () => createUnsafeHostBackend(), {
  expectedKind: 'unsafe_host',
  expectedReadiness: 'prod',
  metadata: { unsafeOptIn: true },
  requiresOptIn: true,
  enforcesMemory: false,
});

type Failure = Error & { code?: string; details?: Record<string, unknown> & { result?: ExecuteResult } };

async function failure(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected a failure');
}

/** True while `pid` is a live (non-zombie) process. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms = 2000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !isAlive(pid);
}

/** Direct children of this process (from /proc). */
function childPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const SPAWN_GRANDCHILD = [
  "const { spawn } = await import('node:child_process');",
  "const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
  'console.log(String(child.pid));',
].join('\n');

describe('unsafe_host backend', () => {
  let workRoot: string;
  let backend: UnsafeHostBackend;
  const activeBefore: Record<string, number> = {};
  const SECRET = 'TOOLEXEC_UNSAFE_TEST_SECRET';

  const request = (code: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
    code,
    gateway: createDirectGateway(createContractFixture()),
    metadata: { unsafeOptIn: true },
    ...extra,
  });

  beforeAll(() => {
    workRoot = mkdtempSync(join(tmpdir(), 'toolexec-unsafe-test-'));
    backend = createUnsafeHostBackend({ tempDir: workRoot });
    process.env[SECRET] = 'do-not-leak';
    for (const name of process.getActiveResourcesInfo()) activeBefore[name] = (activeBefore[name] ?? 0) + 1;
  });

  afterAll(async () => {
    await backend.close();
    delete process.env[SECRET];
    rmSync(workRoot, { recursive: true, force: true });
  });

  it('accepts every request when the backend itself is opted in', async () => {
    const optedIn = createUnsafeHostBackend({ optIn: true, tempDir: workRoot });
    const result = await optedIn.execute({ code: 'return 7', gateway: createDirectGateway(createContractFixture()) });
    expect(result.value).toBe(7);
    expect(result.backend).toMatchObject({ kind: 'unsafe_host', readiness: 'prod', details: { mode: 'subprocess' } });
  });

  it('refuses a result over the cap while serializing it (RESOURCE_LIMIT result), one message', async () => {
    const small = createUnsafeHostBackend({ optIn: true, tempDir: workRoot, maxMessageBytes: 64 * 1024 });
    const messages = new Set<string>();
    for (const code of ["return 'x'.repeat(50 * 1024 * 1024);", "return Array.from({ length: 100 }, () => 'y'.repeat(1000));"]) {
      const error = await failure(small.execute({ code, gateway: createDirectGateway(createContractFixture()) }));
      expect(error.code, code).toBe('RESOURCE_LIMIT');
      expect(error.details?.limit, code).toBe('result');
      messages.add(error.message);
    }
    expect([...messages]).toEqual([`resource limit exceeded: result (the result is larger than ${64 * 1024 - 1024} bytes)`]);
  });

  it('denies a request whose opt-in is not the boolean true', async () => {
    for (const metadata of [undefined, {}, { unsafeOptIn: 'true' }, { unsafeOptIn: 1 }, { unsafeOptIn: false }]) {
      const error = await failure(
        backend.execute({ ...request('return 1'), ...(metadata === undefined ? { metadata: undefined } : { metadata }) }),
      );
      expect(error.code).toBe('BACKEND_DENIED');
      expect(error.details?.result?.backend.kind).toBe('unsafe_host');
    }
  });

  it('starts the child with an empty environment (no host secrets)', async () => {
    expect(process.env[SECRET]).toBe('do-not-leak');
    const result = await backend.execute(request(`return { secret: process.env.${SECRET} ?? null, keys: Object.keys(process.env) }`));
    expect(result.value).toEqual({ secret: null, keys: [] });
    const custom = createUnsafeHostBackend({ optIn: true, env: { ONLY_THIS: 'yes' }, tempDir: workRoot });
    const withEnv = await custom.execute(request('return process.env'));
    expect(withEnv.value).toEqual({ ONLY_THIS: 'yes' });
  });

  it('runs in a fresh temporary directory that is removed afterwards', async () => {
    const first = await backend.execute(
      request("const fs = await import('node:fs');\nfs.writeFileSync('scratch.txt', 'x');\nreturn process.cwd();"),
    );
    const second = await backend.execute(request('return process.cwd()'));
    const dir = first.value as string;
    expect(dir.startsWith(join(workRoot, 'toolexec-unsafe-'))).toBe(true);
    expect(second.value).not.toBe(dir);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(workRoot)).toEqual([]);
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const started = performance.now();
    const error = await failure(backend.execute(request(`${SPAWN_GRANDCHILD}\nwhile (true) {}`, { timeoutMs: 500 })));
    expect(error.code).toBe('TIMEOUT');
    expect(performance.now() - started).toBeLessThan(3000);
    const pid = Number(error.details?.result?.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    expect(await waitGone(pid)).toBe(true);
  });

  it('kills processes the snippet left behind after a normal run', async () => {
    const result = await backend.execute(request(`${SPAWN_GRANDCHILD}\nreturn 'left one running';`));
    expect(result.value).toBe('left one running');
    expect(await waitGone(Number(result.stdout.trim()))).toBe(true);
  });

  it.each([
    ['a result', 'return 1;', {}, undefined],
    ['a thrown error', "throw new Error('x');", {}, 'CODE_EXECUTION'],
    ['process.exit', 'process.exit(2);', {}, 'CODE_EXECUTION'],
    ['a timeout', 'while (true) {}', { timeoutMs: 400 }, 'TIMEOUT'],
    ['the output cap', "while (true) console.log('o'.repeat(500));", { limits: { maxOutputBytes: 8192 } }, 'RESOURCE_LIMIT'],
    ['an uncaught tool error', "await tools.runTool('test:fail', {});", {}, 'EXECUTION'],
  ] as const)('leaves no grandchild behind after %s', async (_label, tail, extra, code) => {
    const outcome = await backend.execute(request(`${SPAWN_GRANDCHILD}\n${tail}`, extra as Partial<ExecuteRequest>)).then(
      (result) => ({ result, code: undefined as string | undefined }),
      (err: Failure) => ({ result: err.details?.result as ExecuteResult, code: err.code }),
    );
    expect(outcome.code).toBe(code);
    const pid = Number(outcome.result.stdout.split('\n')[0]);
    expect(pid).toBeGreaterThan(0);
    expect(await waitGone(pid)).toBe(true);
  });

  it('kills the process group on abort', async () => {
    const controller = new AbortController();
    const pending = backend.execute(request(`${SPAWN_GRANDCHILD}\nawait new Promise(() => {});`, { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('user cancelled')), 400);
    const error = await failure(pending);
    expect(error.code).toBe('ABORTED');
    expect((error.cause as Error).message).toBe('user cancelled');
    expect(await waitGone(Number(error.details?.result?.stdout.trim()))).toBe(true);
  });

  it('kills a snippet that floods stdout (output cap)', async () => {
    const started = performance.now();
    const error = await failure(
      backend.execute(request("while (true) console.log('y'.repeat(1000));", { limits: { maxOutputBytes: 64 * 1024 } })),
    );
    expect(error.code).toBe('RESOURCE_LIMIT');
    expect(error.details?.limit).toBe('output');
    expect(performance.now() - started).toBeLessThan(5000);
    const result = error.details?.result as ExecuteResult;
    expect(Buffer.byteLength(result.stdout) + Buffer.byteLength(result.stderr)).toBeLessThanOrEqual(64 * 1024);
  });

  it('counts raw writes to fd 1 and 2 as output, against the same cap', async () => {
    const ok = await backend.execute(
      request("const fs = await import('node:fs');\nfs.writeSync(1, 'raw text\\n');\nfs.writeSync(2, 'raw err\\n');\nreturn 1;"),
    );
    expect(ok.stdout).toBe('raw text\n');
    expect(ok.value).toBe(1);
    const error = await failure(
      backend.execute(
        request("const fs = await import('node:fs');\nwhile (true) fs.writeSync(1, 'z'.repeat(1000) + '\\n');", {
          limits: { maxOutputBytes: 32 * 1024 },
        }),
      ),
    );
    expect(error.code).toBe('RESOURCE_LIMIT');
  });

  it('still answers tool calls after the snippet replaced the intrinsics the guest uses', async () => {
    const code = [
      'JSON.parse = () => ({ hijacked: true });',
      'JSON.stringify = () => "{}";',
      'Map.prototype.get = () => undefined;',
      'Array.prototype.map = () => ["hijacked"];',
      'Reflect.apply = () => "hijacked";',
      'String.prototype.slice = () => "";',
      'Error = function () { return { hijacked: true }; };',
      "const r = await tools.runTool('test:add', { a: 1, b: 2 });",
      'return r.structured;',
    ].join('\n');
    const result = await backend.execute(request(code));
    expect(result.value).toBe(3);
  });

  it('lets a snippet pipe into process.stdout (a Worker inherits it)', async () => {
    const result = await backend.execute(
      request(
        [
          "const { Worker } = await import('node:worker_threads');",
          'const worker = new Worker("require(\'node:worker_threads\').parentPort.postMessage(6 * 7)", { eval: true });',
          "const value = await new Promise((resolve) => worker.on('message', resolve));",
          'await worker.terminate();',
          "process.stdout.write('raw write\\n');",
          'return value;',
        ].join('\n'),
      ),
    );
    expect(result.value).toBe(42);
    expect(result.stdout).toBe('raw write\n');
  });

  it('caps the V8 heap with limits.memoryBytes', async () => {
    const flags = await backend.execute(request('return process.execArgv', { limits: { memoryBytes: 64 * 1024 * 1024 } }));
    expect(flags.value).toContain('--max-old-space-size=64');
    // A V8 heap cap is not a memory cap (Buffers escape it): reported in details, not as enforced.
    expect(flags.limitsEnforced.memory).toBe(false);
    expect(flags.backend.details?.heapLimitBytes).toBe(64 * 1024 * 1024);
    const error = await failure(
      backend.execute(
        request('const hog = [];\nwhile (true) hog.push(new Array(100000).fill({ a: 1 }));', {
          limits: { memoryBytes: 32 * 1024 * 1024 },
          timeoutMs: 20_000,
        }),
      ),
    );
    expect(error.code).toBe('RESOURCE_LIMIT');
    expect(error.details?.limit).toBe('memory');
    expect(error.details?.result?.limitsEnforced.memory).toBe(false);
  });

  it('reports a process that exits without a result', async () => {
    const error = await failure(backend.execute(request("console.log('bye');\nprocess.exit(3);")));
    expect(error.code).toBe('CODE_EXECUTION');
    expect(error.details?.exitCode).toBe(3);
    expect(error.details?.result?.stdout).toBe('bye\n');
  });

  it('fails with the code of a floating tool call that rejects', async () => {
    const error = await failure(
      backend.execute(request("tools.runTool('test:missing', {});\nawait new Promise((resolve) => setTimeout(resolve, 2000));\nreturn 1;")),
    );
    expect(error.code).toBe('TOOL_NOT_FOUND');
    expect((error.cause as { code?: string }).code).toBe('TOOL_NOT_FOUND');
    expect(error.details?.line).toBe(1);
  });

  it('points at the line of an uncaught tool error', async () => {
    const error = await failure(backend.execute(request("const a = 1;\n\nawait tools.runTool('test:add', { a: 'x' });")));
    expect(error.code).toBe('VALIDATION');
    expect(error.details?.line).toBe(3);
  });

  it('reports errors thrown from callbacks and unserializable results', async () => {
    const thrown = await failure(
      backend.execute(
        request("setTimeout(() => { throw new TypeError('late'); }, 10);\nawait new Promise((resolve) => setTimeout(resolve, 1000));"),
      ),
    );
    expect(thrown.code).toBe('CODE_EXECUTION');
    expect(thrown.message).toContain('late');
    const bigint = await failure(backend.execute(request('return 10n;')));
    expect(bigint.code).toBe('CODE_EXECUTION');
    expect(bigint.message).toContain('JSON');
  });

  it('maps stack exhaustion to RESOURCE_LIMIT (stack)', async () => {
    const error = await failure(backend.execute(request('const f = (n) => f(n + 1) + 1;\nreturn f(0);')));
    expect(error.code).toBe('RESOURCE_LIMIT');
    expect(error.details?.limit).toBe('stack');
  });

  it('reports a missing node binary as RUNTIME_UNAVAILABLE', async () => {
    const broken = createUnsafeHostBackend({ optIn: true, nodePath: join(workRoot, 'no-such-node'), tempDir: workRoot });
    const error = await failure(broken.execute(request('return 1')));
    expect(error.code).toBe('RUNTIME_UNAVAILABLE');
  });

  it('close() stops running snippets: they fail with RUNTIME_UNAVAILABLE, not as their own fault', async () => {
    const own = createUnsafeHostBackend({ optIn: true, tempDir: workRoot });
    const pending = failure(own.execute(request('await new Promise(() => {});', { timeoutMs: 20_000 })));
    const busy = failure(own.execute(request('while (true) {}', { timeoutMs: 20_000 })));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    await own.close();
    for (const error of await Promise.all([pending, busy])) {
      expect(error.code, error.message).toBe('RUNTIME_UNAVAILABLE');
      expect(error.message).toBe('runtime unavailable: the unsafe_host backend was closed during the run');
      expect(error.details?.result?.backend.kind).toBe('unsafe_host');
    }
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('leaves no child processes, pipes or timers behind', async () => {
    const counts = (): Record<string, number> => {
      const after: Record<string, number> = {};
      for (const name of process.getActiveResourcesInfo()) after[name] = (after[name] ?? 0) + 1;
      return after;
    };
    const kinds = ['ChildProcess', 'PipeWrap', 'ProcessWrap', 'Timeout'];
    const settled = (after: Record<string, number>): boolean => kinds.every((name) => (after[name] ?? 0) <= (activeBefore[name] ?? 0));
    // what the last runs left winding down (a killed process's exit, its grace timer) may take a
    // moment on a loaded machine; anything leaked (a 20 s deadline, a child) is still there after 3 s
    const started = performance.now();
    let after = counts();
    while ((!settled(after) || childPids().length > 0) && performance.now() - started < 3000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = counts();
    }
    expect(childPids()).toEqual([]);
    for (const name of kinds) expect(after[name] ?? 0, name).toBeLessThanOrEqual(activeBefore[name] ?? 0);
  });
});
