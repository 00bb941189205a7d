import { rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PoolWorker } from '../../../../src/runtime/backends/wasm/pool-worker.js';
import { defaultSpinSlots, ReplySpinSlots } from '../../../../src/runtime/backends/wasm/reply-spin.js';

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

const dir = mkdtempSync(join(tmpdir(), 'toolexec-spin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reply spin slots', () => {
  it('allows one spinner fewer than the cores, at most poolSize, none on one core', () => {
    const cores = availableParallelism();
    expect(defaultSpinSlots(64)).toBe(Math.max(0, cores - 1));
    expect(defaultSpinSlots(1)).toBe(Math.min(1, Math.max(0, cores - 1)));
    expect(defaultSpinSlots(1)).toBeGreaterThanOrEqual(0);
  });

  it('release frees only the slots held by that thread', () => {
    const slots = new ReplySpinSlots(3);
    const cells = new Int32Array(slots.buffer);
    cells[0] = 7;
    cells[2] = 9;
    slots.release(7);
    expect([...cells]).toEqual([0, 0, 9]);
    expect(slots.held).toBe(1);
    slots.release(1234);
    expect(slots.held).toBe(1);
  });

  it('gives back the slot of a worker terminated while it spins', async () => {
    const slots = new ReplySpinSlots(1);
    const script = join(dir, 'spinner.mjs');
    // claims the slot the way the wasm worker does, then spins until it is terminated
    writeFileSync(
      script,
      [
        "import { parentPort, threadId, workerData } from 'node:worker_threads';",
        'const cells = new Int32Array(workerData.slots);',
        "parentPort.on('message', () => { if (Atomics.compareExchange(cells, 0, 0, threadId) === 0) for (;;); });",
        "parentPort.postMessage({ type: 'ready', versions: {} });",
      ].join('\n'),
    );
    const gone: number[] = [];
    const worker = await PoolWorker.start(
      {
        script,
        workerData: { slots: slots.buffer },
        heapBytes: 32 * 1024 * 1024,
        startupTimeoutMs: 10_000,
        onGone: (threadId) => {
          gone.push(threadId);
          slots.release(threadId);
        },
      },
      new SharedArrayBuffer(4),
    );
    worker.post({ type: 'spin' });
    expect(await until(() => slots.held === 1)).toBe(true);
    await worker.terminate();
    expect(await until(() => slots.held === 0)).toBe(true);
    expect(gone).toHaveLength(1);
    expect(gone[0]).toBeGreaterThan(0);
  });
});
