/**
 * A snippet stopped by the caller's signal fails the same way whenever the abort lands — before it
 * starts, while it waits for a sandbox, while it runs, during one of its tool calls (caught by the
 * snippet or not): ABORTED, `code execution aborted: <reason>`, the signal's reason as `cause`.
 * A timeout reason (`AbortSignal.timeout`) is TIMEOUT, `code execution timed out: <reason>`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeExecutor } from '../../src/code/index.js';
import type { ToolexecError } from '../../src/model/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { fixture, rejection } from './helpers.js';

const runtime = createRuntime({ wasm: { poolSize: 1 } });
const f = fixture();
const code = createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, runtime });
beforeAll(async () => {
  await code.executeCode({ code: 'return 0' }); // a warm worker: "running" means running
});
afterAll(async () => {
  await code.close();
  await runtime.close();
});

/** The rejection of `snippet` when its signal aborts with `reason` after `afterMs` (before the call when `afterMs` is 0). */
async function abortedAt(snippet: string, afterMs: number, reason?: unknown): Promise<ToolexecError> {
  const controller = new AbortController();
  const abort = (): void => (reason === undefined ? controller.abort() : controller.abort(reason));
  if (afterMs === 0) abort();
  else setTimeout(abort, afterMs);
  return rejection(code.executeCode({ code: snippet, signal: controller.signal }));
}

const sleeper = 'await tools.runTool("demo:wait", { ms: 20000 }); return 1';
const catcher = 'try { await tools.runTool("demo:wait", { ms: 20000 }); } catch (e) { return "caught"; } return 1';

describe("the caller's abort, whenever it lands", () => {
  it('before the start, while queued, while running, during a tool call: one message, the reason as cause', async () => {
    const reason = new Error('user cancelled');
    const errors: Record<string, ToolexecError> = {};
    errors.beforeStart = await abortedAt('return 1', 0, reason);
    errors.running = await abortedAt('while (true) {}', 300, reason);
    errors.toolCall = await abortedAt(sleeper, 300, reason);
    errors.caughtToolCall = await abortedAt(catcher, 300, reason);
    // the only worker is busy: the next snippet waits in the queue when its abort lands
    const hog = code.executeCode({ code: 'while (true) {}', timeoutMs: 1500 }).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 100));
    errors.queued = await abortedAt('return 1', 200, reason);
    expect((await hog) as ToolexecError).toMatchObject({ code: 'LIMIT_EXCEEDED' });

    for (const [when, error] of Object.entries(errors)) {
      expect({ when, code: error.code, message: error.message }).toEqual({
        when,
        code: 'ABORTED',
        message: 'code execution aborted: user cancelled',
      });
      expect(error.cause, when).toBe(reason);
      expect(error.details?.result, when).toBeDefined();
    }
  });

  it('an abort without a reason reads the same before and while running', async () => {
    const before = await abortedAt('return 1', 0);
    const running = await abortedAt('while (true) {}', 300);
    for (const error of [before, running]) {
      expect(error).toMatchObject({ code: 'ABORTED', message: 'code execution aborted: This operation was aborted' });
      expect((error.cause as Error).name).toBe('AbortError');
    }
  });

  it('a timeout reason is TIMEOUT with one message, before the start and during a tool call', async () => {
    const reason = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    for (const error of [await abortedAt('return 1', 0, reason), await abortedAt(sleeper, 300, reason)]) {
      expect(error).toMatchObject({ code: 'TIMEOUT', message: 'code execution timed out: The operation was aborted due to timeout' });
      expect(error.cause).toBe(reason);
    }
  });
});
