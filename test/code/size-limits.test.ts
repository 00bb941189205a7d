import { afterAll, describe, expect, it } from 'vitest';
import { createCodeExecutor } from '../../src/code/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { hasErrorCode, localBackend } from '../../src/model/index.js';
import { createRunner } from '../../src/run/index.js';
import { fixture, rejection } from './helpers.js';

/** The snippet's source and result sizes: LIMIT_EXCEEDED, one message per limit. */
describe('code mode: source and result size limits', () => {
  const runtime = createRuntime({ wasm: { poolSize: 1 } });
  const f = fixture();
  const code = createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, runtime });
  afterAll(async () => {
    await code.close();
    await runtime.close();
  });

  it('refuses a 50 MB source at once, with the same message for any source over the limit', async () => {
    const messages = new Set<string>();
    for (const source of [`return 1; // ${'x'.repeat(50 * 1024 * 1024)}`, `return '${'é'.repeat(600 * 1024)}';`]) {
      const started = performance.now();
      const error = await rejection(code.executeCode({ code: source }));
      expect(performance.now() - started).toBeLessThan(1000);
      expect(error.code).toBe('LIMIT_EXCEEDED');
      expect(error.details).toMatchObject({ limit: 'sourceBytes', maxSourceBytes: 1024 * 1024 });
      messages.add(error.message);
    }
    expect([...messages]).toEqual(['limit exceeded: the snippet source is larger than 1048576 bytes']);
    // just under the limit (multi-byte characters counted in bytes) still runs
    const fits = await code.executeCode({ code: `return '${'é'.repeat(400 * 1024)}'.length;` });
    expect(fits.value).toBe(400 * 1024);
  });

  it('answers a 50 MB return value with LIMIT_EXCEEDED (result), not out of memory, every time', async () => {
    const messages = new Set<string>();
    for (const snippet of [
      "return 'x'.repeat(50 * 1024 * 1024);",
      'return Array.from({ length: 300 }, (_, i) => String(i).repeat(50000));',
    ]) {
      const error = await rejection(code.executeCode({ code: snippet }));
      expect(error.code, snippet).toBe('LIMIT_EXCEEDED');
      expect(hasErrorCode(error, 'RESOURCE_LIMIT')).toBe(true);
      expect(error.details, snippet).toMatchObject({ limit: 'result' });
      messages.add(error.message);
    }
    expect([...messages]).toEqual(['limit exceeded: resource limit exceeded: result (the result is larger than 8388608 bytes)']);
    const ok = await code.executeCode({ code: "return 'y'.repeat(1024 * 1024);" });
    expect((ok.value as string).length).toBe(1024 * 1024);
  }, 30_000);
});

/**
 * A tool result larger than the sandbox's memory: the memory limit at once, never the deadline.
 * (The message cap is raised here so that the reply reaches the sandbox; at the default 8 MiB the
 * host refuses a 30 MB reply first, with `PROTOCOL`.)
 */
describe('code mode: a tool result too large for the sandbox', () => {
  const runtime = createRuntime({ wasm: { poolSize: 1, maxMessageBytes: 64 * 1024 * 1024 } });
  const f = fixture();
  f.index.registerTool(
    { name: 'big', namespace: 'demo', description: 'A string of n characters', inputSchema: { type: 'object' } },
    localBackend('big'),
  );
  const runner = createRunner({ index: f.index, local: { big: (args) => 'x'.repeat(args.n as number) } });
  const code = createCodeExecutor({ index: f.index, docs: f.docs, runner, runtime });
  afterAll(async () => {
    await code.close();
    await runtime.close();
  });

  it('fails with LIMIT_EXCEEDED (memory) promptly, even when the snippet catches the call', async () => {
    const memoryBytes = 16 * 1024 * 1024;
    for (const snippet of [
      'const r = await tools.runTool("demo:big", { n: 30e6 }); return r.structured.length;',
      'try { await tools.runTool("demo:big", { n: 30e6 }); return "fit"; } catch (e) { return "caught " + e; }',
    ]) {
      const started = performance.now();
      const error = await rejection(code.executeCode({ code: snippet, memoryBytes, timeoutMs: 20_000 }));
      expect(performance.now() - started, snippet).toBeLessThan(10_000);
      expect(error.code, snippet).toBe('LIMIT_EXCEEDED');
      expect(hasErrorCode(error, 'RESOURCE_LIMIT')).toBe(true);
      expect(error.details, snippet).toMatchObject({ limit: 'memory', memoryBytes });
    }
    // the worker is free again at once: a next snippet runs
    const next = await code.executeCode({ code: 'const r = await tools.runTool("demo:big", { n: 1000 }); return r.structured.length;' });
    expect(next.value).toBe(1000);
  }, 60_000);
});
