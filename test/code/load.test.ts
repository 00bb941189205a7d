import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeExecutor, type CodeResult, type DefaultCodeExecutor } from '../../src/code/index.js';
import { createRuntime, type DefaultRuntime } from '../../src/runtime/index.js';
import { hasErrorCode, type ToolexecError } from '../../src/model/index.js';
import { fixture } from './helpers.js';

type Settled = { ok: true; result: CodeResult; at: number } | { ok: false; error: ToolexecError; at: number };

/** Code mode under load, on the default runtime's WASM sandbox with two workers (a 2-core machine). */
describe('code mode under load', () => {
  let runtime: DefaultRuntime;
  let code: DefaultCodeExecutor;

  beforeAll(async () => {
    runtime = createRuntime({ wasm: { poolSize: 2 } });
    const f = fixture();
    code = createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, runtime });
    // both workers up, so the test times runs, not worker start-up
    await Promise.all([1, 2].map(() => code.executeCode({ code: 'return 1' })));
  });
  afterAll(async () => {
    await code.close();
    await runtime.close();
  });

  const settle = (params: Parameters<DefaultCodeExecutor['executeCode']>[0], started: number): Promise<Settled> =>
    code.executeCode(params).then(
      (result) => ({ ok: true, result, at: performance.now() - started }),
      (error: unknown) => ({ ok: false, error: error as ToolexecError, at: performance.now() - started }),
    );

  it('2 runaway snippets hold back 30 others by at most their own deadline, and time out with one message', async () => {
    const DEADLINE_MS = 3000;
    const started = performance.now();
    const runaways = [1, 2].map(() => settle({ code: 'while (true) {}', timeoutMs: DEADLINE_MS }, started));
    const normal = Array.from({ length: 30 }, (_, i) => settle({ code: `return ${i} * 2`, timeoutMs: DEADLINE_MS }, started));
    const results = await Promise.all(normal);
    expect(results.map((r) => (r.ok ? r.result.value : r.error.message))).toEqual(Array.from({ length: 30 }, (_, i) => i * 2));
    // queued behind the runaways: they start when those reach their deadline, then finish at once
    // (generous bound for a loaded machine: well within one more deadline)
    expect(Math.max(...results.map((r) => r.at))).toBeLessThan(2 * DEADLINE_MS);
    const stopped = await Promise.all(runaways);
    for (const r of stopped) {
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe('LIMIT_EXCEEDED');
      expect(r.error.message).toBe(`limit exceeded: timeout after ${DEADLINE_MS} ms`);
      expect(r.error.details).toMatchObject({ limit: 'timeout', timeoutMs: DEADLINE_MS });
      expect(hasErrorCode(r.error, 'TIMEOUT')).toBe(true);
      // ended at its own deadline, not later
      expect(r.at).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
      expect(r.at).toBeLessThan(DEADLINE_MS + 1500);
    }
  }, 20_000);

  it('runs a burst of 200 concurrent snippets, every one of them', async () => {
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => settle({ code: `return ${i} + 1` }, started)));
    const failed = results.filter((r) => !r.ok);
    expect(failed.map((r) => (r.ok ? '' : `${r.error.code}: ${r.error.message}`))).toEqual([]);
    expect(results.map((r) => (r.ok ? r.result.value : undefined))).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  }, 60_000);

  it('bounds the wait for a sandbox on its own (queueTimeoutMs → LIMIT_EXCEEDED, limit queue)', async () => {
    const started = performance.now();
    const blockers = [1, 2].map(() => settle({ code: 'await new Promise((r) => setTimeout(r, 1500)); return 1;' }, started));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const queued = await settle({ code: 'return 2', queueTimeoutMs: 200 }, started);
    expect(queued.ok).toBe(false);
    if (!queued.ok) {
      expect(queued.error.code).toBe('LIMIT_EXCEEDED');
      expect(queued.error.message).toBe('limit exceeded: queued 200 ms without a free sandbox; the snippet never started');
      expect(queued.error.details).toMatchObject({ limit: 'queue', phase: 'queue', queueTimeoutMs: 200 });
      expect(hasErrorCode(queued.error, 'TIMEOUT')).toBe(true);
    }
    for (const b of await Promise.all(blockers)) expect(b.ok).toBe(true);
  }, 20_000);

  it('gives the same timeout message run after run', async () => {
    const messages = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const r = await settle({ code: i % 2 === 0 ? 'while (true) {}' : 'await new Promise(() => {})', timeoutMs: 150 }, performance.now());
      messages.add(r.ok ? 'ok' : `${r.error.code}: ${r.error.message}`);
    }
    expect([...messages]).toEqual(['LIMIT_EXCEEDED: limit exceeded: timeout after 150 ms']);
  });
});
