import { describe, expect, it } from 'vitest';
import { createCodeExecutor, type CodeEngine, type CodeEngineParams } from '../../src/code/index.js';
import { fixture, rejection } from './helpers.js';

/** An engine (a user-injected interface) that reports its start after `queuedMs`, then runs until stopped. */
function queuedEngine(queuedMs: number, reportsStart: boolean): CodeEngine & { startedAt: number; stoppedAt: number } {
  const engine = {
    reportsStart,
    startedAt: 0,
    stoppedAt: 0,
    execute(params: CodeEngineParams): Promise<never> {
      const called = performance.now();
      const queued = setTimeout(() => {
        engine.startedAt = performance.now() - called;
        params.onStart?.();
      }, queuedMs);
      return new Promise((_resolve, reject) => {
        params.signal.addEventListener('abort', () => {
          clearTimeout(queued);
          engine.stoppedAt = performance.now() - called;
          reject(params.signal.reason as Error);
        });
      });
    },
  };
  return engine;
}

function executor(engine: CodeEngine) {
  const f = fixture();
  return createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, engine });
}

describe('the code executor’s clock', () => {
  it('counts the timeout from the start the engine reports, not from the call', async () => {
    const engine = queuedEngine(300, true);
    const error = await rejection(executor(engine).executeCode({ code: 'x', timeoutMs: 200 }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toBe('limit exceeded: timeout after 200 ms');
    expect(engine.startedAt).toBeGreaterThanOrEqual(290);
    // stopped 200 ms after its start, not 200 ms after the call
    expect(engine.stoppedAt - engine.startedAt).toBeGreaterThanOrEqual(190);
    expect(engine.stoppedAt).toBeGreaterThanOrEqual(480);
  });

  it('holds an absolute deadline where it is, however long the snippet waits for a sandbox', async () => {
    const engine = queuedEngine(300, true);
    const error = await rejection(executor(engine).executeCode({ code: 'x', deadline: Date.now() + 200 }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toMatch(/^limit exceeded: timeout after (1[89]\d|2\d\d) ms$/);
    // stopped at the deadline, while it was still queued, not 200 ms after its start
    expect(engine.startedAt).toBe(0);
    expect(engine.stoppedAt).toBeGreaterThanOrEqual(180);
    expect(engine.stoppedAt).toBeLessThan(290);
  });

  it('counts from the call for an engine that does not report its start', async () => {
    const engine = queuedEngine(300, false);
    const error = await rejection(executor(engine).executeCode({ code: 'x', timeoutMs: 100 }));
    expect(error.message).toBe('limit exceeded: timeout after 100 ms');
    expect(engine.stoppedAt).toBeLessThan(280);
  });

  it('stops an engine that claims to report its start but never does at queueTimeoutMs + timeoutMs', async () => {
    const engine = queuedEngine(60_000, true);
    const error = await rejection(executor(engine).executeCode({ code: 'x', timeoutMs: 100, queueTimeoutMs: 150 }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(engine.stoppedAt).toBeGreaterThanOrEqual(240);
    expect(engine.stoppedAt).toBeLessThan(2000);
  });

  it('stops at once when the caller aborts while the snippet is queued (ABORTED)', async () => {
    const engine = queuedEngine(60_000, true);
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 50);
    const error = await rejection(executor(engine).executeCode({ code: 'x', signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);
    expect(engine.stoppedAt).toBeLessThan(1000);
  });
});
