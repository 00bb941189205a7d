import { getEventListeners } from 'node:events';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolexecError } from '../../src/model/index.js';
import { type McpExecutorOptions, type SdkMcpExecutor, createMcpExecutor } from '../../src/mcp/index.js';
import type { StreamEvent } from '../../src/run/index.js';
import { MAX_QUEUED_PROGRESS } from '../../src/run/progress.js';
import { createFixtureServer } from '../fixtures/mcp/fixture-server.mjs';
import { listenerWarningsDuring } from '../listener-warnings.js';
import { activeResources, expectNoLeakedResources, inMemoryFixture, rejection, textOf, waitUntil } from './helpers.js';

let baseline: Map<string, number>;
const executors: SdkMcpExecutor[] = [];

function executor(options: McpExecutorOptions): SdkMcpExecutor {
  const ex = createMcpExecutor(options);
  executors.push(ex);
  return ex;
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

beforeAll(() => {
  baseline = activeResources();
});

afterEach(async () => {
  await Promise.all(executors.splice(0).map((ex) => ex.close()));
});

afterAll(async () => {
  await Promise.all(executors.splice(0).map((ex) => ex.close()));
});

describe('custom (in-memory) transport', () => {
  it('connects once on first use, shared by concurrent first calls', async () => {
    const fx = inMemoryFixture();
    const ex = executor({ servers: { mem: fx.config } });
    expect(fx.connections()).toBe(0);
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => ex.callTool('mem', { name: 'echo', arguments: { text: String(i) } })),
    );
    expect(results.map(textOf)).toEqual(Array.from({ length: 1000 }, (_, i) => String(i)));
    expect(fx.connections()).toBe(1);
    expect(fx.state.calls).toBe(1000);
  });

  it('keeps one listener on a signal shared by concurrent calls (connecting, then in flight), none after', async () => {
    const warnings = await listenerWarningsDuring(async () => {
      const fx = inMemoryFixture();
      const ex = executor({ servers: { mem: fx.config } });
      const shared = new AbortController().signal;
      // The first 50 wait for the connection together, on the same signal.
      const first = Array.from({ length: 50 }, (_, i) =>
        ex.callTool('mem', { name: 'echo', arguments: { text: String(i) } }, { signal: shared }),
      );
      expect(getEventListeners(shared, 'abort')).toHaveLength(1);
      expect((await Promise.all(first)).map(textOf)).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
      expect(getEventListeners(shared, 'abort')).toHaveLength(0);
      // Then 50 in flight at once, aborted together.
      const controller = new AbortController();
      const slow = Array.from({ length: 50 }, () =>
        rejection(ex.callTool('mem', { name: 'slow', arguments: { ms: 5_000 } }, { signal: controller.signal })),
      );
      await waitUntil(() => fx.state.calls >= 100);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      controller.abort(new Error('enough'));
      for (const error of await Promise.all(slow)) expect(error.code).toBe('ABORTED');
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });
    expect(warnings).toEqual([]);
  });

  it('does not cache a failed connect: the next call retries', async () => {
    let attempts = 0;
    const ex = executor({
      servers: {
        flaky: {
          transport: 'custom',
          createTransport: async () => {
            attempts++;
            if (attempts === 1) throw new Error('network down');
            const [client, server] = InMemoryTransport.createLinkedPair();
            await createFixtureServer().server.connect(server);
            return client;
          },
        },
      },
    });
    const error = await rejection(ex.callTool('flaky', { name: 'echo', arguments: { text: 'x' } }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('"flaky"');
    expect(error.message).toContain('network down');
    expect((error.cause as Error).message).toBe('network down');
    expect(textOf(await ex.callTool('flaky', { name: 'echo', arguments: { text: 'y' } }))).toBe('y');
    expect(attempts).toBe(2);
  });

  it('reconnects after the transport closes under it', async () => {
    const fx = inMemoryFixture();
    let last: InMemoryTransport | undefined;
    const ex = executor({
      servers: {
        mem: {
          transport: 'custom',
          createTransport: async () => {
            last = (await fx.config.createTransport()) as InMemoryTransport;
            return last;
          },
        },
      },
    });
    await ex.callTool('mem', { name: 'echo', arguments: { text: 'a' } });
    const pending = ex.callTool('mem', { name: 'hang' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await last?.close();
    const error = await rejection(pending);
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('MCP server "mem" closed the connection');
    expect(textOf(await ex.callTool('mem', { name: 'echo', arguments: { text: 'b' } }))).toBe('b');
    expect(fx.connections()).toBe(2);
  });

  it('rejects an unknown server with CONFIGURATION naming the known ones', async () => {
    const ex = executor({ servers: { alpha: inMemoryFixture().config, beta: inMemoryFixture().config } });
    const error = await rejection(ex.callTool('gamma', { name: 'echo' }));
    expect(error.code).toBe('CONFIGURATION');
    expect(error.message).toContain('"gamma"');
    expect(error.message).toContain('"alpha", "beta"');
    expect((await rejection(ex.importTools({ registerToolsFromMcp: () => undefined }, ['gamma']))).code).toBe('CONFIGURATION');
  });

  it('validates configs and options up front', () => {
    const bad: unknown[] = [
      undefined,
      {},
      { servers: { x: { command: '' } } },
      { servers: { x: { transport: 'http', url: 'not a url' } } },
      { servers: { x: { transport: 'http', url: 'ftp://example.com' } } },
      { servers: { x: { transport: 'custom' } } },
      { servers: { x: { transport: 'carrier-pigeon' } } },
      { servers: { x: { command: 'node', args: [1] } } },
      { servers: {}, requestTimeoutMs: 0 },
      { servers: {}, requestTimeoutMs: Number.NaN },
      { servers: {}, killGraceMs: -1 },
    ];
    for (const options of bad) {
      let error: unknown;
      try {
        createMcpExecutor(options as McpExecutorOptions);
      } catch (e) {
        error = e;
      }
      expect(ToolexecError.isInstance(error), JSON.stringify(options)).toBe(true);
      expect((error as ToolexecError).code).toBe('CONFIGURATION');
    }
  });

  it('rejects a bad per-call timeout with INVALID_ARGUMENT', async () => {
    const ex = executor({ servers: { mem: inMemoryFixture().config } });
    expect((await rejection(ex.callTool('mem', { name: 'echo' }, { timeoutMs: -5 }))).code).toBe('INVALID_ARGUMENT');
    // Infinity means no limit.
    expect(textOf(await ex.callTool('mem', { name: 'echo', arguments: { text: 'ok' } }, { timeoutMs: Infinity }))).toBe('ok');
  });

  it('reports bad arguments as a rejected promise, never a synchronous throw', async () => {
    const ex = executor({ servers: { mem: inMemoryFixture().config } });
    const calls = [
      () => ex.callTool('nope', { name: 'echo' }),
      () => ex.callTool('mem', null as never),
      // null options are no options (as the runner reads them); a string is refused
      () => ex.callTool('mem', { name: 'echo' }, 'fast' as never),
      () => ex.callTool('mem', { name: 'echo' }, { timeoutMs: 'soon' as never }),
    ];
    for (const call of calls) {
      let pending: Promise<unknown> | undefined;
      expect(() => {
        pending = call();
      }).not.toThrow();
      await expect(pending).rejects.toBeInstanceOf(Error);
    }
  });

  it('caps a call that keeps reporting progress with maxTotalTimeoutMs', async () => {
    const fx = inMemoryFixture();
    const ex = executor({ servers: { mem: fx.config }, maxTotalTimeoutMs: 200 });
    const progress: number[] = [];
    const started = Date.now();
    const error = await rejection(
      ex.callTool(
        'mem',
        { name: 'progress', arguments: { steps: 40, delayMs: 30 } },
        { timeoutMs: 150, onProgress: (p) => progress.push(p.progress) },
      ),
    );
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('total limit of 200 ms');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(progress.length).toBeGreaterThan(2);
    // The server was told to stop.
    expect(await waitUntil(() => fx.state.cancelled === 1)).toBe(true);
  });

  it('maps an abort by a timeout signal to TIMEOUT', async () => {
    const ex = executor({ servers: { mem: inMemoryFixture().config } });
    const error = await rejection(ex.callTool('mem', { name: 'hang' }, { signal: AbortSignal.timeout(50) }));
    expect(error.code).toBe('TIMEOUT');
    expect((error.cause as DOMException).name).toBe('TimeoutError');
  });

  it('reports a JSON-RPC error from the server as EXECUTION with its message', async () => {
    const ex = executor({ servers: { mem: inMemoryFixture().config } });
    const error = await rejection(ex.callTool('mem', { name: 'throw' }));
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('tools/call "throw" on MCP server "mem" failed');
    expect(error.message).toContain('kaboom from the handler');
    expect(error.details).toMatchObject({ serverName: 'mem', tool: 'throw', mcpCode: -32603 });
    // The connection is fine afterwards.
    expect(textOf(await ex.callTool('mem', { name: 'echo', arguments: { text: 'ok' } }))).toBe('ok');
  });

  it('maps an already-aborted signal to ABORTED without calling the server', async () => {
    const fx = inMemoryFixture();
    const ex = executor({ servers: { mem: fx.config } });
    const error = await rejection(ex.callTool('mem', { name: 'echo', arguments: { text: 'x' } }, { signal: AbortSignal.abort('stop') }));
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe('stop');
    expect(fx.state.calls).toBe(0);
  });

  it('returns isError results as they are (the runner decides)', async () => {
    const ex = executor({ servers: { mem: inMemoryFixture().config } });
    const result = await ex.callTool('mem', { name: 'fail', arguments: { reason: 'disk full' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('something broke: disk full');
  });

  it('tells the caller when the server changes its tool list', async () => {
    const changed: string[] = [];
    const fx = inMemoryFixture();
    const ex = executor({ servers: { mem: fx.config }, onToolsListChanged: (name) => changed.push(name) });
    const before = await ex.listTools('mem');
    await ex.callTool('mem', { name: 'add_tool', arguments: { name: 'fresh' } });
    expect(await waitUntil(() => changed.length === 1)).toBe(true);
    expect(changed).toEqual(['mem']);
    const after = await ex.listTools('mem');
    expect(after.length).toBe(before.length + 1);
    expect(textOf(await ex.callTool('mem', { name: 'fresh' }))).toBe('hello from fresh');
  });
});

describe('callToolStream', () => {
  it('yields progress events, then done with the normalized result', async () => {
    const ex = executor({ servers: { mem: inMemoryFixture().config } });
    const events = await collect(ex.callToolStream('mem', { name: 'progress', arguments: { steps: 3, delayMs: 5 } }));
    expect(events).toEqual([
      { kind: 'progress', data: { progress: 1, total: 3, message: 'step 1' } },
      { kind: 'progress', data: { progress: 2, total: 3, message: 'step 2' } },
      { kind: 'progress', data: { progress: 3, total: 3, message: 'step 3' } },
      { kind: 'done', data: 'done 3' },
    ]);
    const structured = await collect(ex.callToolStream('mem', { name: 'structured', arguments: { a: 1, b: 2 } }));
    expect(structured).toEqual([{ kind: 'done', data: { sum: 3 } }]);
  });

  it('keeps at most MAX_QUEUED_PROGRESS unread reports, the newest, for a consumer that reads slowly; done still arrives', async () => {
    const ex = executor({ servers: { mem: inMemoryFixture().config } });
    const steps = 3000;
    let arrived = 0;
    const stream = ex.callToolStream(
      'mem',
      { name: 'progress', arguments: { steps, delayMs: 0 } },
      { onProgress: () => void arrived++, timeoutMs: 20_000 },
    );
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toEqual({ kind: 'progress', data: { progress: 1, total: steps, message: 'step 1' } });
    // The consumer reads nothing more until every notification has arrived.
    expect(await waitUntil(() => arrived === steps, 15_000)).toBe(true);
    const rest: StreamEvent[] = [];
    for (let step = await iterator.next(); step.done !== true; step = await iterator.next()) rest.push(step.value);
    const progress = rest.filter((event) => event.kind === 'progress').map((event) => (event.data as { progress: number }).progress);
    expect(progress.length).toBeLessThanOrEqual(MAX_QUEUED_PROGRESS);
    expect(progress.at(-1)).toBe(steps);
    expect(progress).toEqual(Array.from({ length: progress.length }, (_, i) => steps - progress.length + 1 + i));
    expect(rest.at(-1)).toEqual({ kind: 'done', data: `done ${steps}` });
  });

  it('yields an EXECUTION error event for isError results', async () => {
    const ex = executor({ servers: { mem: inMemoryFixture().config } });
    const events = await collect(ex.callToolStream('mem', { name: 'fail', arguments: { reason: 'bad input' } }));
    expect(events).toHaveLength(1);
    expect(events[0]?.kind).toBe('error');
    expect(events[0]?.error?.code).toBe('EXECUTION');
    expect(events[0]?.error?.message).toContain('something broke: bad input');
  });

  it('rejects the iteration on timeout and abort', async () => {
    const ex = executor({ servers: { mem: inMemoryFixture().config } });
    const timeout = await rejection(collect(ex.callToolStream('mem', { name: 'hang' }, { timeoutMs: 100 })));
    expect(timeout.code).toBe('TIMEOUT');
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 50);
    const aborted = await rejection(
      collect(ex.callToolStream('mem', { name: 'slow', arguments: { ms: 5000 } }, { signal: controller.signal })),
    );
    expect(aborted.code).toBe('ABORTED');
    expect(aborted.cause).toBe(reason);
  });

  it('cancels the request on the server when the consumer breaks out', async () => {
    const fx = inMemoryFixture();
    const ex = executor({ servers: { mem: fx.config } });
    let seen = 0;
    for await (const event of ex.callToolStream('mem', { name: 'progress', arguments: { steps: 50, delayMs: 20 } })) {
      expect(event.kind).toBe('progress');
      seen++;
      if (seen === 2) break;
    }
    // The server's handler saw the cancellation and stopped sending progress.
    expect(await waitUntil(() => fx.state.cancelled === 1)).toBe(true);
    expect(fx.state.calls).toBe(1);
  });

  it('leaves no socket or timer behind', async () => {
    await Promise.all(executors.splice(0).map((ex) => ex.close()));
    await expectNoLeakedResources(baseline);
  });
});
