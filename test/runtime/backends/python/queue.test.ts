/**
 * The queue budget of a Python run (`queueTimeoutMs`) and its signal bound the whole wait before
 * the snippet starts, a cold pool's start-up included (docs/limits.md, "queue"): the first use's
 * preparation and a child's start, as well as the wait for a busy child. `close()` resolves once
 * every child is gone, those still starting included (docs/guests.md).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createDirectGateway } from '../../../../src/runtime/index.js';
import { createPythonBackend } from '../../../../src/runtime/backends/python/index.js';
import { descendantsOf } from '../../../../src/runtime/backends/python/child.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';

const gateway = () => createDirectGateway(createContractFixture());

async function failureOf(promise: Promise<unknown>): Promise<{ code?: string; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (err) {
    return err as { code?: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a failure');
}

/** The processes under `root` whose command line names bubblewrap or the Python child. */
function sandboxProcessesUnder(root: number): number[] {
  return descendantsOf(root).filter((pid) => /bwrap|python-child/.test(commandLine(pid)));
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** True while `pid` runs (a zombie has finished). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

describe('the Python queue budget covers a cold start', { timeout: 120_000 }, () => {
  it('fails a run on a cold pool with the queue timeout; the next run starts it', async () => {
    const backend = createPythonBackend({ poolSize: 1 });
    onTestFinished(() => backend.close());
    const started = performance.now();
    const queued = await failureOf(backend.execute({ language: 'python', code: '1', gateway: gateway(), queueTimeoutMs: 200 }));
    expect(queued).toMatchObject({ code: 'TIMEOUT', details: { phase: 'queue', queueTimeoutMs: 200 } });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((await backend.execute({ language: 'python', code: '2', gateway: gateway() })).value).toBe(2);
    // a run at another cap starts a child of its own, within its budget too
    const otherCap = await failureOf(
      backend.execute({ language: 'python', code: '3', gateway: gateway(), queueTimeoutMs: 50, limits: { memoryBytes: 100 << 20 } }),
    );
    expect(otherCap).toMatchObject({ code: 'TIMEOUT', details: { phase: 'queue', queueTimeoutMs: 50 } });
    expect((await backend.execute({ language: 'python', code: '4', gateway: gateway() })).value).toBe(4);
    await backend.close();
  });

  it('keeps a child that was still starting when its run gave up', async () => {
    const backend = createPythonBackend({ poolSize: 2 });
    onTestFinished(() => backend.close());
    // prepared, with one slot in use (the child at another cap is replaced by one at the default cap)
    const first = await backend.execute({ language: 'python', code: '1', gateway: gateway(), limits: { memoryBytes: 100 << 20 } });
    expect(first.value).toBe(1);
    const queued = await failureOf(backend.execute({ language: 'python', code: '2', gateway: gateway(), queueTimeoutMs: 50 }));
    expect(queued).toMatchObject({ code: 'TIMEOUT', details: { phase: 'queue' } });
    // both children at the default cap come up and stay
    const until = performance.now() + 30_000;
    while (backend.stats.idle < 2 && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(backend.stats).toMatchObject({ children: 2, idle: 2, started: 3 });
    const runs = await Promise.all([3, 4].map((n) => backend.execute({ language: 'python', code: String(n), gateway: gateway() })));
    expect(runs.map((run) => run.value)).toEqual([3, 4]);
    expect(backend.stats.started).toBe(3);
    await backend.close();
  });

  it("stops waiting for a cold pool when the caller's signal aborts", async () => {
    const backend = createPythonBackend({ poolSize: 1 });
    onTestFinished(() => backend.close());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    const aborted = await failureOf(backend.execute({ language: 'python', code: '1', gateway: gateway(), signal: controller.signal }));
    expect(aborted.code).toBe('ABORTED');
    expect(performance.now() - started).toBeLessThan(1_500);
    expect((await backend.execute({ language: 'python', code: '5', gateway: gateway() })).value).toBe(5);
    await backend.close();
  });

  it('close() resolves once every child is gone, a replacement still starting included', async () => {
    const backend = createPythonBackend({ poolSize: 1 });
    onTestFinished(() => backend.close());
    await backend.warm();
    // stopped by its deadline, the child is killed and a replacement starts
    const stopped = await failureOf(
      backend.execute({ language: 'python', code: 'while True:\n    pass', gateway: gateway(), timeoutMs: 300 }),
    );
    expect(stopped.code).toBe('TIMEOUT');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const starting = sandboxProcessesUnder(process.pid);
    expect(starting.length).toBeGreaterThan(0);
    await backend.close();
    expect(starting.filter(running)).toEqual([]);
  });
});
