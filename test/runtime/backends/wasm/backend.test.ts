import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolexecError } from '../../../../src/model/index.js';
import { createWasmBackend, type WasmBackend } from '../../../../src/runtime/backends/wasm/index.js';
import { createDirectGateway, type ExecuteRequest, type ExecuteResult, type ToolGateway } from '../../../../src/runtime/index.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';

type Failure = Error & { code?: string; details?: Record<string, unknown> & { result?: ExecuteResult } };

async function failure(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected the run to fail');
}

function threads(): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

async function until(check: () => boolean, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

const gateway = (): ToolGateway => createDirectGateway(createContractFixture());

/** A gateway whose runTool waits until its signal aborts; `state` records that it did. */
function hangingGateway(): { gateway: ToolGateway; state: { started: boolean; aborted: boolean } } {
  const inner = gateway();
  const state = { aborted: false, started: false };
  const hanging: ToolGateway = {
    searchTools: (query, limit) => inner.searchTools(query, limit),
    listNamespaces: () => inner.listNamespaces(),
    describeTool: (id, level) => inner.describeTool(id, level),
    listToolExamples: (id, max) => inner.listToolExamples(id, max),
    runChain: (steps) => inner.runChain(steps),
    runTool: (_id, _args, options) => {
      state.started = true;
      return new Promise<never>((_resolve, reject) => {
        options?.signal?.addEventListener('abort', () => {
          state.aborted = true;
          reject(new Error('aborted'));
        });
      });
    },
  };
  return { gateway: hanging, state };
}

describe('wasm backend', () => {
  let backend: WasmBackend;
  const run = (code: string, extra: Partial<ExecuteRequest> = {}) => backend.execute({ code, gateway: gateway(), ...extra });

  beforeAll(() => {
    backend = createWasmBackend({ poolSize: 2 });
  });
  afterAll(async () => {
    await backend.close();
  });

  describe('isolation between runs', () => {
    it('gives every run a fresh VM: globals, prototypes and tools changes do not leak', async () => {
      const solo = createWasmBackend({ poolSize: 1 });
      try {
        const first = await solo.execute({
          code: "globalThis.leak = 'first'; Object.prototype.polluted = 1; Array.prototype.extra = 2; console.log = null; JSON.parse = null; return 1;",
          gateway: gateway(),
        });
        expect(first.value).toBe(1);
        const second = await solo.execute({
          code: "console.log('clean');\nreturn [typeof globalThis.leak, ({}).polluted, [].extra, JSON.parse('[1]')[0]];",
          gateway: gateway(),
        });
        expect(second.value).toEqual(['undefined', null, null, 1]);
        expect(second.stdout).toBe('clean\n');
        expect(solo.stats.started).toBe(1);
      } finally {
        await solo.close();
      }
    });

    it('keeps timers from outliving their run', async () => {
      const solo = createWasmBackend({ poolSize: 1 });
      try {
        await solo.execute({
          code: "setInterval(() => console.log('ghost'), 1);\nsetTimeout(() => console.log('ghost'), 5);\nreturn 1;",
          gateway: gateway(),
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
        const next = await solo.execute({ code: "await new Promise((r) => setTimeout(r, 30));\nconsole.log('next');", gateway: gateway() });
        expect(next.stdout).toBe('next\n');
      } finally {
        await solo.close();
      }
    });
  });

  describe('the guest surface', () => {
    it("does not show the prelude's source: its functions print as native ones", async () => {
      const result = await run('return [String(tools.runTool), String(console.log), String(setTimeout)]');
      expect(result.value).toEqual([
        'function runTool() {\n    [native code]\n}',
        'function out() {\n    [native code]\n}',
        'function setTimeout() {\n    [native code]\n}',
      ]);
    });

    it('has no host capabilities', async () => {
      const result = await run(
        "return ['process', 'require', 'module', 'WebAssembly', 'fetch', 'XMLHttpRequest', 'Buffer', 'std', 'os', 'Deno', 'Worker', 'SharedArrayBuffer'].map((n) => n + ':' + typeof globalThis[n]);",
      );
      expect(result.value).toEqual([
        'process:undefined',
        'require:undefined',
        'module:undefined',
        'WebAssembly:undefined',
        'fetch:undefined',
        'XMLHttpRequest:undefined',
        'Buffer:undefined',
        'std:undefined',
        'os:undefined',
        'Deno:undefined',
        'Worker:undefined',
        // a SharedArrayBuffer inside a VM shares nothing with anyone
        'SharedArrayBuffer:function',
      ]);
    });

    it('cannot import modules', async () => {
      const error = await failure(run("const fs = await import('node:fs');\nreturn fs;"));
      expect(error.code).toBe('CODE_EXECUTION');
      expect(error.message).toContain('cannot import "node:fs"');
      expect(error.message).not.toContain('wasm-worker');
      const required = await failure(run("const fs = require('fs');"));
      expect(required.code).toBe('CODE_EXECUTION');
      expect(required.details).toMatchObject({ line: 1, name: 'ReferenceError' });
    });

    it('has run-scoped timers', async () => {
      const result = await run(
        [
          'const order = [];',
          "const t = setTimeout(() => order.push('cancelled'), 5); clearTimeout(t);",
          'let n = 0; await new Promise((resolve) => { const i = setInterval(() => { n += 1; if (n === 3) { clearInterval(i); resolve(); } }, 2); });',
          "await new Promise((resolve) => setTimeout(resolve, 10, 'arg'));",
          "order.push('ticks:' + n);",
          'return order;',
        ].join('\n'),
      );
      expect(result.value).toEqual(['ticks:3']);
    });

    it('fails the run on an exception in a timer callback', async () => {
      const error = await failure(run("setTimeout(() => { throw new Error('late'); }, 1);\nawait new Promise((r) => setTimeout(r, 50));"));
      expect(error.code).toBe('CODE_EXECUTION');
      expect(error.message).toContain('late');
      expect(error.details?.line).toBe(1);
    });

    it('fails the run on an unhandled rejection of a floating tool call', async () => {
      // The snippet waits long enough for the rejection to arrive on a loaded machine; the run
      // fails as soon as it does, so the wait costs nothing when the test passes.
      const error = await failure(
        run("tools.runTool('test:missing', {});\nawait new Promise((r) => setTimeout(r, 5000));\nreturn 'finished';"),
      );
      expect(error.code).toBe('TOOL_NOT_FOUND');
      expect(error.details?.line).toBe(1);
    });

    it('does not fail the run for a rejection the snippet handles later in the same turn', async () => {
      const result = await run("const p = tools.runTool('test:missing', {});\nconst code = await p.catch((e) => e.code);\nreturn code;");
      expect(result.value).toBe('TOOL_NOT_FOUND');
    });

    it('prints the values JSON cannot say (NaN, Map, Set, Error, bigint) readably, even after the snippet replaces JSON and Map', async () => {
      const result = await run(
        [
          "console.log(NaN, { x: Infinity }, new Map([['a', 1]]), new Set([2]), new Error('bad'), 5n);",
          'JSON.stringify = () => "tampered"; Map.prototype.forEach = () => { throw new Error("tampered"); };',
          "console.log({ y: -0 }, new Map([['b', 2]]));",
        ].join('\n'),
      );
      expect(result.stdout).toBe('NaN {"x":Infinity} Map(1) {"a" => 1} Set(1) {2} Error: bad 5n\n{"y":-0} Map(1) {"b" => 2}\n');
    });

    it('describes the engine', async () => {
      const result = await run('return 1');
      expect(result.backend.details).toMatchObject({
        engine: 'quickjs-wasi',
        maxStackBytes: 512 * 1024,
        maxOutputBytes: 1024 * 1024,
        timeoutMs: 30_000,
      });
      expect(typeof result.backend.details?.engineVersion).toBe('string');
    });

    it('points a failed tool call at the line that made it', async () => {
      const error = await failure(run("const a = 1;\nconst b = await tools.runTool('test:add', { a: 'x', b: 1 });"));
      expect(error.code).toBe('VALIDATION');
      expect(error.cause).toBeInstanceOf(ToolexecError);
      expect(error.details?.line).toBe(2);
      expect(error.details?.column).toBeGreaterThan(1);
    });

    it("gives a failed call's error the snippet's frames only, from the call site down", async () => {
      const result = await run(
        "const f = async () => {\n  try { await tools.runTool('test:add', { a: 'x' }); } catch (e) { return e.stack; }\n};\nreturn await f();",
      );
      const frames = String(result.value).trim().split('\n');
      // the engine's file name and lines: the snippet is wrapped in one line of function header
      expect(frames[0]).toMatch(/^at f \(toolexec-snippet\.js:3:\d+\)$/);
      expect(frames.every((frame) => frame.includes('toolexec-snippet.js'))).toBe(true);
    });

    it('reports error locations of TypeScript snippets on the user lines', async () => {
      const error = await failure(run('interface A { x: number }\nconst a: A = { x: 1 };\n\nnull.boom;', { language: 'typescript' }));
      expect(error.code).toBe('CODE_EXECUTION');
      expect(error.details).toMatchObject({ line: 4, name: 'TypeError' });
      expect(String(error.details?.stack)).toContain('snippet:4:');
      expect(String(error.details?.stack)).not.toContain('toolexec-prelude');
    });

    it('keeps intrinsics the bridge relies on even when the snippet replaces them', async () => {
      let received: unknown;
      const inner = gateway();
      const spy = Object.assign(Object.create(inner) as ToolGateway, {
        runTool: (id: string, args?: Record<string, unknown>) => {
          received = args;
          return inner.runTool(id, args);
        },
      });
      const result = await backend.execute({
        code: [
          'JSON.stringify = () => \'{"id":"test:add","args":{"a":100,"b":100}}\';',
          'JSON.parse = () => ({ structured: -1 });',
          'Map.prototype.get = () => undefined; Map.prototype.set = () => undefined;',
          'Reflect.apply = () => undefined; Promise.prototype.then = Promise.prototype.then;',
          "const r = await tools.runTool('test:add', { a: 2, b: 3 });",
          'return r.structured;',
        ].join('\n'),
        gateway: spy,
      });
      expect(received).toEqual({ a: 2, b: 3 });
      expect(result.value).toBe(5);
    });

    it('rejects a result that is not JSON-serializable', async () => {
      const error = await failure(run('const a = {}; a.self = a; return a;'));
      expect(error.code).toBe('CODE_EXECUTION');
      expect(error.message).toContain('not JSON-serializable');
    });

    it('caps the size of the result', async () => {
      const small = createWasmBackend({ poolSize: 1, maxResultBytes: 1000 });
      try {
        const error = await failure(small.execute({ code: "return 'x'.repeat(2000);", gateway: gateway() }));
        expect(error.code).toBe('RESOURCE_LIMIT');
        expect(error.details?.limit).toBe('result');
        expect(error.message).toBe('resource limit exceeded: result (the result is larger than 1000 bytes)');
      } finally {
        await small.close();
      }
    });

    it('rejects oversized tool-call messages inside the snippet (PROTOCOL)', async () => {
      const small = createWasmBackend({ poolSize: 1, maxMessageBytes: 1000 });
      try {
        const result = await small.execute({
          code: "try { await tools.runTool('test:echo', { blob: 'x'.repeat(5000) }); } catch (e) { return e.code; }",
          gateway: gateway(),
        });
        expect(result.value).toBe('PROTOCOL');
        expect(result.toolCalls).toEqual([]);
      } finally {
        await small.close();
      }
    });

    it('refuses a tool reply over maxMessageBytes with PROTOCOL: catchable, and uncaught the run fails with it', async () => {
      const small = createWasmBackend({ poolSize: 1, maxMessageBytes: 4000 });
      const inner = gateway();
      // `test:big` answers `n` characters (its request stays small)
      const big: ToolGateway = {
        searchTools: (query, limit) => inner.searchTools(query, limit),
        listNamespaces: () => inner.listNamespaces(),
        describeTool: (id, level) => inner.describeTool(id, level),
        listToolExamples: (id, max) => inner.listToolExamples(id, max),
        runChain: (steps, options) => inner.runChain(steps, options),
        runTool: async (id, args, options) => {
          if (id !== 'test:big') return inner.runTool(id, args, options);
          const result = await inner.runTool('test:echo', {}, options);
          return { ...result, structured: 'x'.repeat((args as { n: number }).n) };
        },
      };
      try {
        const caught = await small.execute({
          code: "const ok = (await tools.runTool('test:big', { n: 10 })).structured.length; try { await tools.runTool('test:big', { n: 5000 }); return 'no error' } catch (e) { return [ok, e.code, e.message] }",
          gateway: big,
        });
        expect(caught.value).toEqual([10, 'PROTOCOL', expect.stringMatching(/message of \d+ bytes exceeds the 4000-byte limit/)]);
        const error = await small.execute({ code: "await tools.runTool('test:big', { n: 5000 }); return 1", gateway: big }).then(
          () => undefined,
          (err: unknown) => err as { code?: string },
        );
        expect(error?.code).toBe('PROTOCOL');
      } finally {
        await small.close();
      }
    });
  });

  describe('limits', () => {
    it('enforces the memory limit, reports it truthfully, and keeps the host small', async () => {
      const code = 'const keep = [];\nfor (let i = 0; i < 4; i++) keep.push(new Array(1 << 20).fill(i + 0.5));\nreturn keep.length;';
      const roomy = await run(code, { limits: { memoryBytes: 256 * 1024 * 1024 } });
      expect(roomy.value).toBe(4);
      expect(roomy.limitsEnforced.memory).toBe(true);
      expect(roomy.backend.details?.memoryBytes).toBe(256 * 1024 * 1024);
      const rss = process.memoryUsage.rss();
      const error = await failure(run(code, { limits: { memoryBytes: 16 * 1024 * 1024 } }));
      expect(error.code).toBe('RESOURCE_LIMIT');
      expect(error.details).toMatchObject({ limit: 'memory', memoryBytes: 16 * 1024 * 1024 });
      expect(process.memoryUsage.rss() - rss).toBeLessThan(256 * 1024 * 1024);
      const byDefault = await run('return 1');
      expect(byDefault.limitsEnforced).toEqual({
        timeout: true,
        toolCalls: true,
        chainSteps: true,
        memory: true,
        cpu: false,
        pids: false,
        disk: false,
      });
      expect(byDefault.backend.details?.memoryBytes).toBe(64 * 1024 * 1024);
    });

    it('turns deep recursion into RESOURCE_LIMIT (stack) with the line', async () => {
      const error = await failure(run('function down(n) { return down(n + 1) + 1; }\nreturn down(0);'));
      expect(error.code).toBe('RESOURCE_LIMIT');
      expect(error.details).toMatchObject({ limit: 'stack', line: 1 });
      const caught = await run(
        'function down(n) { return down(n + 1) + 1; }\ntry { down(0); } catch (e) { return e instanceof RangeError; }',
      );
      expect(caught.value).toBe(true);
    });

    it('keeps what was printed before a timeout, and the host event loop free during it', async () => {
      let maxLag = 0;
      let expected = performance.now() + 10;
      const probe = setInterval(() => {
        maxLag = Math.max(maxLag, performance.now() - expected);
        expected = performance.now() + 10;
      }, 10);
      const error = await failure(run("console.log('before');\nwhile (true) {}", { timeoutMs: 400 }));
      clearInterval(probe);
      expect(error.code).toBe('TIMEOUT');
      expect(error.details?.result?.stdout).toBe('before\n');
      expect(maxLag).toBeLessThan(300);
    });

    it('says what a timed-out snippet was waiting on', async () => {
      const stuck = await failure(run('await new Promise(() => {});', { timeoutMs: 150 }));
      expect(stuck.code).toBe('TIMEOUT');
      expect(stuck.details).toMatchObject({ waiting: { toolCalls: 0, timers: 0 }, hint: expect.stringContaining('nothing could settle') });
      const sleeping = await failure(run('await new Promise((r) => setTimeout(r, 60000));', { timeoutMs: 150 }));
      expect(sleeping.details).toMatchObject({ waiting: { toolCalls: 0, timers: 1 } });
      expect(sleeping.details?.hint).toBeUndefined();
      const busy = await failure(run('while (true) {}', { timeoutMs: 150 }));
      expect(busy.details?.waiting).toBeUndefined();
    });

    it('times out while the snippet waits on a tool call, aborting the call', async () => {
      const hanging = hangingGateway();
      const started = performance.now();
      const error = await failure(
        backend.execute({
          code: "console.log('calling');\nawait tools.runTool('test:add', { a: 1, b: 2 });",
          gateway: hanging.gateway,
          timeoutMs: 300,
        }),
      );
      expect(error.code).toBe('TIMEOUT');
      expect(performance.now() - started).toBeLessThan(2000);
      expect(error.details?.result?.stdout).toBe('calling\n');
      expect(hanging.state.started).toBe(true);
      expect(await until(() => hanging.state.aborted)).toBe(true);
    });

    it('aborts mid tool call (ABORTED, cause = the reason)', async () => {
      const hanging = hangingGateway();
      const controller = new AbortController();
      const reason = new Error('user stop');
      const pending = backend.execute({
        code: "await tools.runTool('test:add', { a: 1, b: 2 });",
        gateway: hanging.gateway,
        signal: controller.signal,
      });
      await until(() => hanging.state.started);
      const started = performance.now();
      controller.abort(reason);
      const error = await failure(pending);
      expect(error.code).toBe('ABORTED');
      expect(error.cause).toBe(reason);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(await until(() => hanging.state.aborted)).toBe(true);
    });

    it('stops output at the cap at once, without buffering the rest', async () => {
      const started = performance.now();
      const error = await failure(
        run("const chunk = 'y'.repeat(1 << 20);\nfor (;;) { console.log(chunk); console.error(chunk); }", {
          limits: { maxOutputBytes: 3000 },
        }),
      );
      expect(error.code).toBe('RESOURCE_LIMIT');
      expect(error.details?.limit).toBe('output');
      const partial = error.details?.result as ExecuteResult;
      expect(Buffer.byteLength(partial.stdout) + Buffer.byteLength(partial.stderr)).toBe(3000);
      expect(performance.now() - started).toBeLessThan(3000);
    });

    it('counts multi-byte output in bytes and never splits a character', async () => {
      const error = await failure(run("for (;;) console.log('é€😀');", { limits: { maxOutputBytes: 100 } }));
      expect(error.code).toBe('RESOURCE_LIMIT');
      const stdout = (error.details?.result as ExecuteResult).stdout;
      expect(Buffer.byteLength(stdout)).toBeLessThanOrEqual(100);
      expect(stdout).not.toContain('\uFFFD');
    });
  });

  describe('the pool', () => {
    it('runs concurrent snippets on at most poolSize workers', async () => {
      const pool = createWasmBackend({ poolSize: 2 });
      try {
        let peak = 0;
        const watch = setInterval(() => {
          peak = Math.max(peak, pool.stats.busy);
        }, 1);
        const results = await Promise.all(
          [1, 2, 3, 4, 5, 6].map((n) =>
            pool.execute({ code: `await new Promise((r) => setTimeout(r, 30));\nreturn ${n};`, gateway: gateway() }),
          ),
        );
        clearInterval(watch);
        expect(results.map((r) => r.value)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(peak).toBeLessThanOrEqual(2);
        // workers start on demand: a loaded machine may have served all six on the first one; a
        // worker goes back to the pool when it reports itself idle, just after its run's outcome
        await until(() => pool.stats.busy === 0);
        expect(pool.stats).toMatchObject({ busy: 0, queued: 0, replaced: 0 });
        expect(pool.stats.started).toBeLessThanOrEqual(2);
      } finally {
        await pool.close();
      }
    });

    it('replaces a worker it had to kill (a long builtin starving the interrupt handler)', async () => {
      const pool = createWasmBackend({ poolSize: 1, killGraceMs: 50 });
      try {
        await pool.execute({ code: 'return 1', gateway: gateway() });
        const started = performance.now();
        const error = await failure(
          pool.execute({
            code: "const big = new Array(3e6).fill('abcdefgh');\nfor (;;) JSON.stringify(big);",
            gateway: gateway(),
            timeoutMs: 200,
            limits: { memoryBytes: 256 * 1024 * 1024 },
          }),
        );
        expect(error.code).toBe('TIMEOUT');
        expect(performance.now() - started).toBeLessThan(3000);
        expect(pool.stats.replaced).toBe(1);
        const after = await pool.execute({ code: "return 'fresh worker'", gateway: gateway() });
        expect(after.value).toBe('fresh worker');
        expect(pool.stats).toMatchObject({ workers: 1, started: 2 });
      } finally {
        await pool.close();
      }
    });

    it('queues runs beyond the pool without counting the wait against their timeout', async () => {
      const pool = createWasmBackend({ poolSize: 1 });
      try {
        const busy = pool.execute({ code: 'await new Promise((r) => setTimeout(r, 400));\nreturn 1;', gateway: gateway() });
        await until(() => pool.stats.busy === 1);
        let startedAt = 0;
        const queuedAt = performance.now();
        const queued = await pool.execute({
          code: 'return 2',
          gateway: gateway(),
          timeoutMs: 100,
          onStart: () => (startedAt = performance.now()),
        });
        expect(queued.value).toBe(2);
        // it waited for the busy worker, then started: the wait was not part of its 100 ms
        expect(startedAt - queuedAt).toBeGreaterThan(150);
        expect((await busy).value).toBe(1);
        expect(pool.stats.queued).toBe(0);
      } finally {
        await pool.close();
      }
    });

    it('bounds the wait for a worker with queueTimeoutMs (TIMEOUT, phase queue, one message)', async () => {
      const pool = createWasmBackend({ poolSize: 1, queueTimeoutMs: 150 });
      try {
        // a cold pool's worker start-up is queue time too: this one may wait for it
        const busy = pool.execute({
          code: 'await new Promise((r) => setTimeout(r, 600));\nreturn 1;',
          gateway: gateway(),
          queueTimeoutMs: 15_000,
        });
        await until(() => pool.stats.busy === 1);
        let started = false;
        const errors = await Promise.all([
          failure(pool.execute({ code: 'return 2', gateway: gateway(), onStart: () => (started = true) })),
          failure(pool.execute({ code: 'return 3', gateway: gateway(), queueTimeoutMs: 100 })),
        ]);
        expect(started).toBe(false);
        expect(errors.map((e) => e.code)).toEqual(['TIMEOUT', 'TIMEOUT']);
        expect(errors[0]?.details).toMatchObject({ phase: 'queue', queueTimeoutMs: 150, poolSize: 1 });
        expect(errors[1]?.details).toMatchObject({ phase: 'queue', queueTimeoutMs: 100 });
        expect(errors[0]?.message).toBe(
          'queue timeout: no sandbox worker became free within 150 ms (all 1 busy); the snippet never started',
        );
        expect((await busy).value).toBe(1);
        expect(pool.stats.queued).toBe(0);
      } finally {
        await pool.close();
      }
    });

    it('refuses a source over maxSourceBytes at once (LIMIT_EXCEEDED), counted in UTF-8 bytes', async () => {
      const pool = createWasmBackend({ poolSize: 1, maxSourceBytes: 100 });
      try {
        for (const code of [`return '${'x'.repeat(200)}'`, `return '${'€'.repeat(40)}'`]) {
          const error = await failure(pool.execute({ code, gateway: gateway() }));
          expect(error.code).toBe('LIMIT_EXCEEDED');
          expect(error.message).toBe('limit exceeded: the snippet source is larger than 100 bytes');
          expect(error.details).toMatchObject({ limit: 'sourceBytes', maxSourceBytes: 100 });
        }
        expect(pool.stats.started).toBe(0);
        expect((await pool.execute({ code: `return '${'€'.repeat(20)}'.length`, gateway: gateway(), queueTimeoutMs: 15_000 })).value).toBe(
          20,
        );
      } finally {
        await pool.close();
      }
    });

    it('refuses a request above a ceiling before it queues (INVALID_LIMITS), never clamps it', async () => {
      const pool = createWasmBackend({ poolSize: 1, maxTimeoutMs: 60_000, maxMemoryBytes: 128 * 1024 * 1024 });
      try {
        const cases: [Partial<ExecuteRequest>, string][] = [
          [{ timeoutMs: 60_001 }, 'timeoutMs'],
          [{ queueTimeoutMs: 120_000 }, 'queueTimeoutMs'],
          [{ limits: { memoryBytes: 256 * 1024 * 1024 } }, 'memoryBytes'],
        ];
        for (const [extra, field] of cases) {
          const error = await failure(pool.execute({ code: 'return 1', gateway: gateway(), ...extra }));
          expect(error.code, field).toBe('INVALID_LIMITS');
          expect(error.details, field).toMatchObject({ field });
          expect(error.message, field).toMatch(new RegExp(`^invalid limits: ${field} \\d+ is above the ceiling of \\d+$`));
        }
        expect(pool.stats.started).toBe(0);
        expect((await pool.execute({ code: 'return 1', gateway: gateway(), timeoutMs: 60_000 })).value).toBe(1);
      } finally {
        await pool.close();
      }
    });

    it('close() terminates every worker, leaves nothing behind, and refuses later runs', async () => {
      const baseThreads = threads();
      const baseHandles = process.getActiveResourcesInfo().length;
      const pool = createWasmBackend({ poolSize: 2 });
      await Promise.all([1, 2, 3].map(() => pool.execute({ code: 'return 1', gateway: gateway() })));
      expect(threads()).toBeGreaterThan(baseThreads);
      await pool.close();
      await pool.close();
      expect(pool.stats).toMatchObject({ workers: 0, busy: 0, starting: 0 });
      expect(await until(() => threads() <= baseThreads)).toBe(true);
      expect(process.getActiveResourcesInfo().length).toBeLessThanOrEqual(baseHandles);
      const error = await failure(pool.execute({ code: 'return 1', gateway: gateway() }));
      expect(error.code).toBe('RUNTIME_UNAVAILABLE');
    });

    it('leaves no timer, port or listener behind after a run', async () => {
      await run('return 1');
      const count = () => {
        const counts: Record<string, number> = {};
        for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
        return counts;
      };
      const before = count();
      const controller = new AbortController();
      await run("console.log('x');\nawait tools.runTool('test:add', { a: 1, b: 2 });\nreturn 1;", {
        signal: controller.signal,
        timeoutMs: 5000,
      });
      await failure(run('while (true) {}', { timeoutMs: 100 }));
      await failure(run('await new Promise(() => {})', { timeoutMs: 100 }));
      const after = count();
      for (const [type, n] of Object.entries(after)) expect(n, type).toBeLessThanOrEqual(before[type] ?? 0);
    });

    it('never keeps the process alive with idle workers', () => {
      const entry = fileURLToPath(new URL('../../../../src/runtime/backends/wasm/index.ts', import.meta.url));
      const script = [
        `const { createWasmBackend } = await import(${JSON.stringify(entry)});`,
        'const backend = createWasmBackend({ poolSize: 2 });',
        "const r = await backend.execute({ code: 'return 40 + 2', gateway: {} });",
        'console.log(JSON.stringify(r.value));',
      ].join('\n');
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        timeout: 20_000,
        env: { PATH: process.env.PATH ?? '' },
      });
      expect(child.error).toBeUndefined();
      expect(child.stdout.trim()).toBe('42');
      expect(child.status).toBe(0);
    });
  });

  describe('options', () => {
    it('rejects out-of-range options (CONFIGURATION)', () => {
      expect(() => createWasmBackend({ poolSize: 0 })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
      expect(() => createWasmBackend({ maxStackBytes: 10 * 1024 * 1024 })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
      for (const replySpinMs of [-1, 11, Number.NaN, Infinity, '1' as unknown as number]) {
        expect(() => createWasmBackend({ replySpinMs }), String(replySpinMs)).toThrow(
          expect.objectContaining({ code: 'CONFIGURATION', details: { field: 'replySpinMs', option: 'replySpinMs', value: replySpinMs } }),
        );
      }
    });

    it('answers tool calls from concurrent runs with the reply spin on and off', async () => {
      const loop =
        "let sum = 0;\nfor (let i = 0; i < 50; i++) sum += (await tools.runTool('test:add', { a: i, b: 1 })).structured;\nreturn sum;";
      for (const replySpinMs of [0, 0.2, 10]) {
        const pool = createWasmBackend({ poolSize: 3, replySpinMs });
        try {
          const results = await Promise.all([1, 2, 3, 4].map(() => pool.execute({ code: loop, gateway: gateway() })));
          expect(results.map((r) => r.value)).toEqual([1275, 1275, 1275, 1275]);
          expect(results.every((r) => r.toolCalls?.length === 50)).toBe(true);
        } finally {
          await pool.close();
        }
      }
    });
  });
});
