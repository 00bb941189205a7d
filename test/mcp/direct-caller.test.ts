// A demanding caller of the MCP executor itself (not through the facade or a runner), against a real
// SDK-built server over stdio: hostile or wrong inputs are INVALID_ARGUMENT before anything is sent,
// a malformed answer is PROTOCOL at once (not a wait for the timeout), a throwing or rejecting
// progress listener changes nothing, a stream carries the caller's key and deadline, and close()
// or an abort at any phase settles everything with a library error and leaves nothing behind.
import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMcpExecutor, type McpExecutorOptions, type SdkMcpExecutor } from '../../src/mcp/index.js';
import { ToolexecError } from '../../src/model/index.js';
import type { StreamEvent } from '../../src/run/index.js';
import { rejection } from '../exec/helpers.js';
import { activeResources, expectNoLeakedResources, hostileFixture, isProcessAlive, jsonText, textOf, waitUntil } from './helpers.js';

interface Stats {
  pid: number;
  calls: number;
  cancelled: number;
}

let baseline: Map<string, number>;
beforeAll(() => {
  baseline = activeResources();
});
afterAll(async () => {
  await expectNoLeakedResources(baseline);
});

const closers: SdkMcpExecutor[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((ex) => ex.close()));
});

function executor(env: Record<string, string> = {}, options: Partial<McpExecutorOptions> = {}): SdkMcpExecutor {
  const ex = createMcpExecutor({ servers: { h: hostileFixture(env) }, ...options });
  closers.push(ex);
  return ex;
}

const stats = async (ex: SdkMcpExecutor): Promise<Stats> => jsonText<Stats>(await ex.callTool('h', { name: 'stats' }));

async function drain(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const throwing = (what: string): object =>
  Object.defineProperty({}, what, {
    enumerable: true,
    get() {
      throw new Error(`${what} getter`);
    },
  });

describe('inputs a direct caller gets wrong', () => {
  it('are INVALID_ARGUMENT naming what is wrong, and nothing reaches the server', async () => {
    const ex = executor();
    const before = await stats(ex);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => ex.callTool('h', { name: 'answer', arguments: 'x' as never }), /arguments of tools\/call "answer" must be an object, got "x"/],
      [() => ex.callTool('h', { name: 'answer', arguments: [1] as never }), /must be an object, got an array/],
      [() => ex.callTool('h', { name: 42 } as never), /params.name must be a non-empty string, got 42/],
      [() => ex.callTool('h', { name: '' }), /params.name must be a non-empty string/],
      [() => ex.callTool('h', throwing('name') as never), /params.name could not be read/],
      [() => ex.callTool('h', { name: 'answer', arguments: throwing('token') as never }), /cannot be sent as JSON: token getter/],
      [() => ex.callTool('h', { name: 'answer', arguments: { n: 10n } }), /cannot be sent as JSON: .*BigInt/],
      [() => ex.callTool('h', { name: 'answer', arguments: cycle }), /cannot be sent as JSON: Converting circular/],
      [() => ex.callTool('h', { name: 'stats' }, 'fast' as never), /options must be an object, got "fast"/],
      [() => ex.callTool('h', { name: 'stats' }, { signal: {} as never }), /option signal must be an AbortSignal/],
      [() => ex.callTool('h', { name: 'stats' }, throwing('signal')), /option signal could not be read/],
      [() => ex.callTool('h', { name: 'stats' }, { onProgress: 'x' as never }), /option onProgress must be a function/],
      [() => ex.callTool('h', { name: 'stats' }, { idempotencyKey: 5 as never }), /idempotencyKey must be a string of 1 to 256/],
      [() => ex.callTool('h', { name: 'stats' }, { idempotencyKey: 'k'.repeat(5_000_000) }), /got a string of 5000000 characters/],
      [() => ex.callTool({} as never, { name: 'stats' }), /serverName must be a string, got an object/],
      [() => ex.listTools('h', 'x' as never), /options must be an object/],
      [() => ex.listTools('h', throwing('timeoutMs')), /option timeoutMs could not be read/],
      [() => ex.listTools('h', { signal: 'x' as never }), /option signal must be an AbortSignal/],
      [() => ex.importTools(null as never), /index must have a registerToolsFromMcp method/],
      [() => ex.importTools({ registerToolsFromMcp: () => undefined }, 'h' as never), /serverNames must be an array/],
      [() => drain(ex.callToolStream('h', { name: 'stats' }, throwing('timeoutMs'))), /option timeoutMs could not be read/],
    ];
    for (const [call, message] of cases) {
      const err = await rejection(call());
      expect(err.code, String(message)).toBe('INVALID_ARGUMENT');
      expect(err.message).toMatch(message);
    }
    // the connection is the same one, and no call reached the server
    const after = await stats(ex);
    expect(after.pid).toBe(before.pid);
    expect(after.calls).toBe(before.calls + 1);
  });

  it('quote a huge server name by its start and length, never whole', async () => {
    const ex = executor();
    const err = await rejection(ex.callTool('y'.repeat(5_000_000), { name: 'stats' }));
    expect(err.code).toBe('CONFIGURATION');
    expect(err.message.length).toBeLessThan(400);
    expect(err.message).toContain('(5000000 characters)');
  });
});

describe('progress listeners a direct caller passes', () => {
  it('one that throws or rejects changes nothing: the call succeeds, nothing is unhandled, a warning says so', async () => {
    const ex = executor();
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const thrown = await ex.callTool('h', { name: 'progress' }, { onProgress: () => { throw new Error('listener bug'); } }); // prettier-ignore
      expect(textOf(thrown)).toBe('done');
      const rejected = await ex.callTool(
        'h',
        { name: 'progress' },
        // an `async` listener: what it returns is ignored by the type, not at run time
        { onProgress: (() => Promise.reject(new Error('async listener bug'))) as unknown as () => void },
      );
      expect(textOf(rejected)).toBe('done');
      await waitUntil(() => warnings.length >= 4, 1000);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).toEqual(Array(4).fill('ToolexecListenerWarning'));
    // the listener's failure is not taken for the connection's: a later crash does not quote it
    const crash = await rejection(ex.callTool('h', { name: 'exit' }));
    expect(crash.message).not.toContain('listener bug');
  });
});

describe('answers a server sends malformed', () => {
  const malformed: [string, Record<string, unknown>, string][] = [
    ['a null result', { result: null }, 'its result is null, not an object'],
    ['a string result', { result: 'ok' }, 'its result is "ok", not an object'],
    ['neither result nor error', {}, 'it has neither a result nor an error'],
    ['an error without a numeric code', { error: { code: 'E_BAD', message: 'bad' } }, 'its error code is "E_BAD", not an integer'],
  ];
  for (const [what, message, problem] of malformed) {
    it(`${what}: PROTOCOL at once naming the problem, not a wait for the timeout; the connection stays`, async () => {
      const ex = executor({}, { requestTimeoutMs: 20_000 });
      const before = await stats(ex);
      const started = Date.now();
      const err = await rejection(ex.callTool('h', { name: 'raw_answer', arguments: { message } }));
      expect(Date.now() - started).toBeLessThan(5000);
      expect(err.code).toBe('PROTOCOL');
      expect(err.message).toBe(`mcp: MCP server "h" sent an invalid response to tools/call "raw_answer": ${problem}`);
      expect((await stats(ex)).pid).toBe(before.pid);
    });
  }

  it('a content block of an unknown type, isError without content, a huge structuredContent: PROTOCOL, kept, kept', async () => {
    const ex = executor();
    const unknown = await rejection(
      ex.callTool('h', { name: 'raw_answer', arguments: { message: { result: { content: [{ type: 'video' }] } } } }),
    );
    expect(unknown.code).toBe('PROTOCOL');
    expect(await ex.callTool('h', { name: 'raw_answer', arguments: { message: { result: { isError: true } } } })).toEqual({
      content: [],
      isError: true,
    });
    const big = await ex.callTool('h', { name: 'big', arguments: { bytes: 3_000_000 } });
    expect((big.structuredContent as { text: string }).text).toHaveLength(3_000_000);
  });
});

describe('a stream on the executor', () => {
  it("carries the caller's idempotency key to the server, and its deadline", async () => {
    const ex = executor();
    const events = await drain(ex.callToolStream('h', { name: 'meta' }, { idempotencyKey: 'order-17', deadline: Date.now() + 10_000 }));
    const done = events.find((event) => event.kind === 'done');
    expect(done?.data).toMatchObject({ 'toolexec/idempotencyKey': 'order-17' });
    const late = await rejection(drain(ex.callToolStream('h', { name: 'stats' }, { deadline: Date.now() - 1 })));
    expect(late.code).toBe('TIMEOUT');
    expect(late.message).toContain('its deadline had passed');
  });
});

describe('close() and aborts while calls are in flight', () => {
  it('close(): a call, a stream and a listing in flight reject with CONNECTION_CLOSED; the process is gone', async () => {
    const ex = executor({ HOSTILE_LIST_HANG: '1' });
    const { pid } = await stats(ex);
    const call = ex.callTool('h', { name: 'hang' });
    const stream = drain(ex.callToolStream('h', { name: 'hang' }));
    const listing = ex.listTools('h');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await ex.close();
    for (const pending of [call, stream, listing]) expect((await rejection(pending)).code).toBe('CONNECTION_CLOSED');
    expect(await waitUntil(() => !isProcessAlive(pid), 3000)).toBe(true);
    expect((await rejection(drain(ex.callToolStream('h', { name: 'stats' })))).code).toBe('CONNECTION_CLOSED');
  });

  it('an abort before, while connecting, in flight, and during a listing: ABORTED with the reason, no listener left', async () => {
    const ex = executor({ HOSTILE_LIST_HANG: '1' });
    const phases: [string, (signal: AbortSignal) => Promise<unknown>, number][] = [
      ['before', (signal) => ex.callTool('h', { name: 'stats' }, { signal }), -1],
      ['connecting', (signal) => ex.callTool('h', { name: 'stats' }, { signal }), 5],
      ['in flight', (signal) => ex.callTool('h', { name: 'hang' }, { signal }), 150],
      ['listing', (signal) => ex.listTools('h', { signal }), 150],
      ['streaming', (signal) => drain(ex.callToolStream('h', { name: 'hang' }, { signal })), 150],
    ];
    for (const [phase, start, afterMs] of phases) {
      if (phase === 'in flight') await stats(ex);
      const controller = new AbortController();
      const reason = new Error(`stop ${phase}`);
      if (afterMs < 0) controller.abort(reason);
      else setTimeout(() => controller.abort(reason), afterMs);
      const err = await rejection(start(controller.signal));
      expect(err.code, phase).toBe('ABORTED');
      expect(err.cause, phase).toBe(reason);
      expect(getEventListeners(controller.signal, 'abort'), phase).toEqual([]);
      expect(ToolexecError.isInstance(err)).toBe(true);
    }
  });
});
