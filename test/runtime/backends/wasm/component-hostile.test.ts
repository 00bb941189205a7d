import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWasmBackend, type WasmBackend } from '../../../../src/runtime/backends/wasm/index.js';
import { ComponentRunner } from '../../../../src/runtime/backends/wasm/component/index.js';
import { resolveWasmOptions } from '../../../../src/runtime/backends/wasm/options.js';
import { createDirectGateway, type ExecuteRequest, type ExecuteResult, type ToolGateway } from '../../../../src/runtime/index.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';
import {
  bigResultBody,
  callToolBody,
  constantBody,
  jsComponent,
  memoryBombBody,
  runawayBody,
  trapBody,
  watComponent,
} from './component-guests.js';

type Failure = Error & { code?: string; details?: Record<string, unknown> & { result?: ExecuteResult } };

async function failure(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected the run to fail');
}

const gateway = (): ToolGateway => createDirectGateway(createContractFixture());
const MiB = 1024 * 1024;

describe('wasm backend: hostile WebAssembly components', () => {
  let backend: WasmBackend;
  let ok: Uint8Array;
  const run = (component: Uint8Array, extra: Partial<ExecuteRequest> = {}) =>
    backend.execute({ code: '', gateway: gateway(), ...extra, metadata: { wasm_component: component, ...extra.metadata } });
  /** The host is alive and the next run gets a working instance. */
  const expectHealthy = async () => expect((await run(ok)).value).toEqual({ fine: true });

  beforeAll(async () => {
    backend = createWasmBackend({ poolSize: 1 });
    ok = await watComponent(constantBody(0, '{"fine":true}'));
  });
  afterAll(async () => {
    await backend.close();
  });

  it('env: a JS guest sees no process, require, fetch or environment', async () => {
    process.env.TOOLEXEC_COMPONENT_SECRET = 'do-not-leak';
    const component = await jsComponent(`
      export function run() {
        const g = globalThis;
        return JSON.stringify({
          process: typeof g.process, require: typeof g.require, fetch: typeof g.fetch, Deno: typeof g.Deno,
          std: typeof g.std, os: typeof g.os, WebAssembly: typeof g.WebAssembly,
          keys: Object.getOwnPropertyNames(g).filter((k) => /env|secret/i.test(k)),
        });
      }`);
    const result = await run(component);
    expect(result.value).toEqual({
      process: 'undefined',
      require: 'undefined',
      fetch: 'undefined',
      Deno: 'undefined',
      std: 'undefined',
      os: 'undefined',
      WebAssembly: 'undefined',
      keys: [],
    });
    expect(JSON.stringify(result)).not.toContain('do-not-leak');
    delete process.env.TOOLEXEC_COMPONENT_SECRET;
  }, 60_000);

  it('files, env, clocks, sockets: a component that imports WASI is refused before it runs', async () => {
    const component = await jsComponent('export function run() { return "x"; }', { stubWasi: false });
    const error = await failure(run(component));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/imports wasi:/);
    expect(error.message).toMatch(/denied/);
  }, 60_000);

  it('network: a listener on 127.0.0.1 receives nothing from a guest that tries', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const component = await jsComponent(`
        export function run(input) {
          const { port } = JSON.parse(input);
          const tried = [];
          for (const name of ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource']) {
            try { const f = globalThis[name]; if (typeof f === 'function') { f('http://127.0.0.1:' + port); tried.push(name + ':called'); } else tried.push(name + ':absent'); }
            catch (e) { tried.push(name + ':' + String(e)); }
          }
          return JSON.stringify(tried);
        }`);
      const result = await run(component, { metadata: { input: { port } } });
      expect(result.value).toEqual(['fetch:absent', 'XMLHttpRequest:absent', 'WebSocket:absent', 'EventSource:absent']);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 60_000);

  it('memory bomb: linear memory stops at limits.memoryBytes → RESOURCE_LIMIT memory, host alive', async () => {
    const before = process.memoryUsage().rss;
    const error = await failure(run(await watComponent(memoryBombBody), { limits: { memoryBytes: 16 * MiB } }));
    expect(error.code).toBe('RESOURCE_LIMIT');
    expect(error.details?.limit).toBe('memory');
    expect(error.details?.memoryBytesUsed).toBeGreaterThan(14 * MiB);
    expect(error.details?.memoryBytesUsed).toBeLessThanOrEqual(16 * MiB);
    expect(process.memoryUsage().rss - before).toBeLessThan(512 * MiB);
    await expectHealthy();
  });

  it('memory bomb in a JS guest: QuickJS inside the component runs out at the cap and reports it as err', async () => {
    const component = await jsComponent(`
      export function run() { const keep = []; for (;;) keep.push(new Array(1 << 16).fill(keep.length)); }`);
    const error = await failure(run(component, { limits: { memoryBytes: 32 * MiB }, timeoutMs: 20_000 }));
    // QuickJS notices its allocator's refusal and throws; componentize-qjs returns that as err(message)
    expect(error.code).toBe('CODE_EXECUTION');
    expect(error.message).toMatch(/out of memory/);
    expect(error.details?.memoryBytesUsed).toBeLessThanOrEqual(32 * MiB);
    expect(error.details?.memoryBytesUsed).toBeGreaterThan(24 * MiB);
    await expectHealthy();
  }, 60_000);

  it('runaway loop: ended at its deadline by terminating the worker; a fresh worker serves the next run', async () => {
    const component = await watComponent(runawayBody);
    const started = performance.now();
    const error = await failure(run(component, { timeoutMs: 300 }));
    const elapsed = performance.now() - started;
    expect(error.code).toBe('TIMEOUT');
    expect(error.details?.killed).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(5_000);
    await expectHealthy();
  });

  it('trap: CODE_EXECUTION, and the next run gets a new instance', async () => {
    const error = await failure(run(await watComponent(trapBody)));
    expect(error.code).toBe('CODE_EXECUTION');
    expect(error.message).toMatch(/wasm trap: .*unreachable/);
    expect(error.details?.limit).toBeUndefined();
    await expectHealthy();
  });

  it('oversized output: a result over the cap → RESOURCE_LIMIT output', async () => {
    const big = await failure(run(await watComponent(bigResultBody(2 * MiB))));
    expect(big.code).toBe('RESOURCE_LIMIT');
    expect(big.details?.limit).toBe('output');
    const small = await failure(run(await watComponent(bigResultBody(2000)), { limits: { maxOutputBytes: 1000 } }));
    expect(small.code).toBe('RESOURCE_LIMIT');
    expect(small.details?.limit).toBe('output');
    await expectHealthy();
  });

  it('tool calls past the budget → LIMIT_EXCEEDED, with the calls made so far traced', async () => {
    const error = await failure(
      run(await watComponent(callToolBody('test:echo', 10)), { limits: { maxToolCalls: 3 }, metadata: { input: {} } }),
    );
    expect(error.code).toBe('LIMIT_EXCEEDED');
    const calls = error.details?.result?.toolCalls ?? [];
    expect(calls.filter((c) => c.error === undefined)).toHaveLength(3);
  });

  it('a guest blocked on a slow tool call is ended at its deadline', async () => {
    const error = await failure(
      run(await watComponent(callToolBody('test:slow')), { timeoutMs: 300, metadata: { input: { ms: 10_000 } } }),
    );
    expect(error.code).toBe('TIMEOUT');
    await expectHealthy();
  });

  it('the wall clock covers the transpile of a component seen for the first time', async () => {
    const component = await jsComponent('export function run() { return "late"; }');
    const started = performance.now();
    const error = await failure(run(component, { timeoutMs: 20 }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.details?.phase).toBe('transpile');
    expect(performance.now() - started).toBeLessThan(2_000);
    // the transpile went on and was cached: the next run needs none
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const next = await run(component);
    expect(next.value).toBe('late');
  }, 60_000);

  it('an aborted run ends with ABORTED', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await failure(run(await watComponent(runawayBody), { signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
    await expectHealthy();
  });

  it('leaves no worker after close', async () => {
    const runner = new ComponentRunner(resolveWasmOptions({ poolSize: 2 }));
    await Promise.all([1, 2].map(() => runner.execute({ code: '', gateway: gateway(), metadata: { wasm_component: ok } })));
    expect(runner.stats.workers).toBeGreaterThan(0);
    await runner.close();
    expect(runner.stats).toMatchObject({ workers: 0, busy: 0, idle: 0, starting: 0 });
  });
});
