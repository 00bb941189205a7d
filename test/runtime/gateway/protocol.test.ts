import { PassThrough } from 'node:stream';
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ToolexecError } from '../../../src/model/index.js';
import { ChainError, ToolError } from '../../../src/run/index.js';
import { createContractFixture } from '../../../src/testing/gateway-contract.js';
import { listenerWarningsDuring } from '../../listener-warnings.js';
import {
  createDirectGateway,
  createMessagePortConnection,
  createStreamConnection,
  deserializeError,
  serializeError,
  serveGateway,
  type GatewayConnection,
  type IncomingItem,
  type ToolGateway,
} from '../../../src/runtime/index.js';
import { toJsonSafe } from '../../../src/runtime/internal.js';
import { signalWatchingGateway, streamPair } from '../helpers.js';

/** Reads every item until `count` items arrived (or the stream ended). */
async function take(connection: GatewayConnection, count: number): Promise<IncomingItem[]> {
  const items: IncomingItem[] = [];
  if (count === 0) return items;
  for await (const item of connection.incoming) {
    items.push(item);
    if (items.length >= count) break;
  }
  return items;
}

function rawPair(options: { maxMessageBytes?: number } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  return { input, output, connection: createStreamConnection(input, output, options) };
}

describe('NDJSON stream connection', () => {
  it('decodes messages split across chunks, CRLF endings and multi-byte characters', async () => {
    const { input, connection } = rawPair();
    const line = Buffer.from('{"type":"stdout","data":"héllo → wörld 🎉"}\r\n');
    for (let i = 0; i < line.length; i += 3) input.write(line.subarray(i, i + 3));
    input.write('\n   \n{"type":"x","id":"7"}');
    input.end();
    const items = await take(connection, 3);
    expect(items).toMatchObject([
      { kind: 'message', message: { type: 'stdout', data: 'héllo → wörld 🎉' } },
      // blank lines are raw text too: counted (by bytes), never dropped unseen
      { kind: 'malformed', text: '\n   \n', bytes: 5 },
      { kind: 'message', message: { type: 'x', id: '7' } },
    ]);
  });

  it('reports malformed lines without stopping', async () => {
    const { input, connection } = rawPair();
    input.write('not json\n[1,2]\n{"id":"3"}\n{"type":"t","id":4}\n{"type":"ok"}\n');
    const items = await take(connection, 4);
    expect(items.map((item) => item.kind)).toEqual(['malformed', 'malformed', 'malformed', 'message']);
    for (const item of items.slice(0, 3)) {
      if (item.kind === 'malformed') expect(item.error.code).toBe('PROTOCOL');
    }
    // lines that name no request are one run of raw text; a line that names one is its own item
    expect(items[0]).toMatchObject({ text: 'not json\n[1,2]\n', bytes: 15 });
    expect(items[1]).toMatchObject({ id: '3' });
    expect(items[2]).toMatchObject({ text: '{"type":"t","id":4}\n' });
    await connection.close();
  });

  it('hands many short raw lines over as one item per read, counted by bytes', async () => {
    const { input, connection } = rawPair();
    input.write('g\n'.repeat(32768));
    input.write('no newline at all '.repeat(1000));
    input.write('{"type":"ok"}\n');
    const items = await take(connection, 3);
    expect(items.map((item) => item.kind)).toEqual(['malformed', 'malformed', 'message']);
    expect(items[0]).toMatchObject({ bytes: 65536 });
    expect(items[1]).toMatchObject({ bytes: 18000 });
    await connection.close();
  });

  it('splits raw text glued in front of a message', async () => {
    const { input, connection } = rawPair();
    input.write('partial output{"type":"result","value":1}\n');
    const items = await take(connection, 2);
    expect(items[0]).toMatchObject({ kind: 'malformed', text: 'partial output' });
    expect(items[1]).toEqual({ kind: 'message', message: { type: 'result', value: 1 } });
    await connection.close();
  });

  it('discards an oversized line as it streams, recovering its id, then goes on', async () => {
    const { input, connection } = rawPair({ maxMessageBytes: 1024 });
    input.write('{"type":"run_tool","id":"42","payload":{"args":"');
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 160; i += 1) input.write(chunk); // 10 MiB, never buffered whole
    input.write('"}}\n{"type":"ok"}\n');
    const items = await take(connection, 2);
    expect(items[0]).toMatchObject({ kind: 'malformed', id: '42' });
    if (items[0]?.kind === 'malformed') {
      expect(items[0].error.code).toBe('PROTOCOL');
      expect(items[0].bytes).toBeGreaterThan(10 * 1024 * 1024);
      expect(items[0].text.length).toBeLessThanOrEqual(4096);
    }
    expect(items[1]).toEqual({ kind: 'message', message: { type: 'ok' } });
    await connection.close();
  });

  it('decodes a final line without a newline when the input ends', async () => {
    const { input, connection } = rawPair();
    input.end('{"type":"last"}');
    expect(await take(connection, 5)).toEqual([{ kind: 'message', message: { type: 'last' } }]);
    expect(connection.closed).toBe(true);
  });

  it('refuses to send what cannot be encoded or is too large (PROTOCOL)', async () => {
    const { connection, output } = rawPair({ maxMessageBytes: 100 });
    await expect(connection.send({ type: 'x', payload: 10n })).rejects.toMatchObject({ code: 'PROTOCOL' });
    await expect(connection.send({ type: 'x', payload: 'y'.repeat(200) })).rejects.toMatchObject({ code: 'PROTOCOL' });
    await connection.send({ type: 'fine', id: '1' });
    expect(String(output.read())).toBe('{"type":"fine","id":"1"}\n');
    await connection.close();
    await connection.close();
    await expect(connection.send({ type: 'late' })).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
  });

  it('reports a broken output as CONNECTION_CLOSED, never as an uncaught error', async () => {
    const { connection, output } = rawPair();
    output.destroy(new Error('EPIPE'));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(connection.send({ type: 'x' })).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    await connection.close();
  });

  it('waits for drain under backpressure', async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 16 });
    const connection = createStreamConnection(input, output);
    const sending = connection.send({ type: 'big', payload: 'z'.repeat(1000) });
    let sent = false;
    void sending.then(() => {
      sent = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toBe(false);
    output.resume();
    await sending;
    await connection.close();
  });
});

describe('MessagePort connection', () => {
  it('passes messages, reports non-messages and refuses uncloneable values', async () => {
    const { port1, port2 } = new MessageChannel();
    const a = createMessagePortConnection(port1);
    const b = createMessagePortConnection(port2);
    await a.send({ type: 'hello', id: '1', payload: { n: 1 } });
    port1.postMessage('just a string');
    port1.postMessage({ type: 3, id: '9' });
    const items = await take(b, 3);
    expect(items[0]).toEqual({ kind: 'message', message: { type: 'hello', id: '1', payload: { n: 1 } } });
    expect(items[1]).toMatchObject({ kind: 'malformed' });
    expect(items[2]).toMatchObject({ kind: 'malformed', id: '9' });
    await expect(a.send({ type: 'fn', payload: () => 1 })).rejects.toMatchObject({ code: 'PROTOCOL' });
    await a.close();
    expect(await take(b, 1)).toEqual([]);
    await b.close();
  });
});

describe('serveGateway', () => {
  function serve(gateway: ToolGateway = createDirectGateway(createContractFixture()), hooks: Parameters<typeof serveGateway>[2] = {}) {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const server = serveGateway(gateway, createStreamConnection(toServer, toClient), hooks);
    const client = createStreamConnection(toClient, toServer);
    return { server, client, raw: toServer };
  }

  it('answers a message that is no request with PROTOCOL, a request field of the wrong kind with INVALID_ARGUMENT, and ignores one without an id', async () => {
    const { server, client, raw } = serve();
    raw.write('{"type":"search_tools","id":"1","payload":{"query":"a","limit":"ten"}}\n');
    raw.write('{"type":"search_tools","payload":{"query":"a","limit":1}}\n');
    raw.write('garbage\n');
    raw.write('{"type":"launch_missiles","id":"2"}\n');
    raw.write('{"type":"run_chain","id":"3","payload":{"steps":[{"nope":1}]}}\n');
    raw.write('{"type":"run_tool","id":"4","payload":{"id":"test:add","args":[1]}}\n');
    raw.write('{"type":"list_namespaces","id":"5"}\n');
    const replies = await take(client, 5);
    const byId = new Map(replies.map((item) => (item.kind === 'message' ? [item.message.id, item.message] : ['?', undefined])));
    // a message that is no request: PROTOCOL; a request field of the wrong kind: what the caller
    // passed, INVALID_ARGUMENT naming the field and the snippet's method
    expect(byId.get('2')).toMatchObject({ type: 'error', payload: { code: 'PROTOCOL' } });
    expect(byId.get('1')).toMatchObject({
      type: 'error',
      payload: { code: 'INVALID_ARGUMENT', error: 'runtime: limit of tools.searchTools must be a finite number, got "ten"' },
    });
    expect(byId.get('3')).toMatchObject({
      payload: { code: 'INVALID_ARGUMENT', error: 'runtime: steps[0] of tools.runChain must be an object with a string "toolId"' },
    });
    expect(byId.get('4')).toMatchObject({
      payload: { code: 'INVALID_ARGUMENT', error: 'runtime: args of tools.runTool must be an object, got an array' },
    });
    expect(byId.get('5')).toEqual({ type: 'response', id: '5', payload: { namespaces: ['test'] } });
    expect(server.stats).toMatchObject({ ignored: 2, protocolErrors: 3 });
    await client.close();
    await server.done;
  });

  it('answers an oversized request with a PROTOCOL error when its id can be read', async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const server = serveGateway(
      createDirectGateway(createContractFixture()),
      createStreamConnection(toServer, toClient, { maxMessageBytes: 256 }),
    );
    const client = createStreamConnection(toClient, toServer);
    toServer.write(`{"type":"run_tool","id":"big","payload":{"id":"test:echo","args":{"s":"${'x'.repeat(5000)}"}}}\n`);
    const [reply] = await take(client, 1);
    expect(reply).toMatchObject({ kind: 'message', message: { type: 'error', id: 'big', payload: { code: 'PROTOCOL' } } });
    await client.close();
    await server.done;
  });

  it('sends a tool definition again only when the client does not hold the current revision', async () => {
    const fixture = createContractFixture();
    const { server, client } = serve(createDirectGateway(fixture));
    const replies = client.incoming[Symbol.asyncIterator]();
    const call = async (id: string, payload: Record<string, unknown>) => {
      await client.send({ type: 'run_tool', id, payload });
      const { value } = await replies.next();
      return value?.kind === 'message' ? value.message : undefined;
    };
    // a client that does not keep definitions gets the whole result, as before
    const plain = await call('1', { id: 'test:add', args: { a: 1, b: 2 } });
    expect(plain).toEqual({
      type: 'response',
      id: '1',
      payload: expect.objectContaining({ tool: expect.objectContaining({ name: 'add' }) }),
    });
    expect(plain).not.toHaveProperty('toolRev');
    // one that holds none gets the definition and its revision
    const first = await call('2', { id: 'test:add', toolRev: 0, args: { a: 1, b: 2 } });
    const revision = first?.toolRev;
    expect(typeof revision).toBe('number');
    expect(first?.payload).toMatchObject({ tool: { name: 'add' }, backend: { kind: 'local' }, structured: 3 });
    // holding it, the client gets the result without it, the fields kept in place as null
    const again = await call('3', { id: 'test:add', toolRev: revision, args: { a: 2, b: 2 } });
    expect(again).toEqual({ type: 'response', id: '3', toolRev: revision, payload: { tool: null, backend: null, structured: 4 } });
    expect(Object.keys(again?.payload as object)).toEqual(Object.keys(first?.payload as object));
    // a stale revision, or another tool, brings the definition
    const stale = await call('4', { id: 'test:add', toolRev: (revision as number) + 1000, args: { a: 1, b: 1 } });
    expect(stale).toMatchObject({ toolRev: revision, payload: { tool: { name: 'add' }, structured: 2 } });
    const other = await call('5', { id: 'test:double', toolRev: revision, args: { value: 2 } });
    expect(other?.toolRev).not.toBe(revision);
    expect(other?.payload).toMatchObject({ tool: { name: 'double' }, structured: 4 });
    // the tool registered again is a new definition: a new revision, sent in full
    fixture.index.unregisterBackend('test:add', 'local', 'add');
    fixture.index.registerTool(
      { name: 'add', namespace: 'test', description: 'Add, again', inputSchema: { type: 'object', properties: { a: { type: 'number' } } } },
      { kind: 'local', local: { name: 'add' } },
    );
    const changed = await call('6', { id: 'test:add', toolRev: revision, args: { a: 1, b: 1 } });
    expect(changed?.toolRev).not.toBe(revision);
    expect(changed?.payload).toMatchObject({ tool: { description: 'Add, again' }, structured: 2 });
    await client.close();
    await server.done;
    // revisions are numbered per server: a guest learns nothing about other runs from them
    const fresh = serve(createDirectGateway(fixture));
    await fresh.client.send({ type: 'run_tool', id: '1', payload: { id: 'test:add', toolRev: 0, args: { a: 1, b: 1 } } });
    const [reply] = await take(fresh.client, 1);
    expect(reply).toMatchObject({ kind: 'message', message: { id: '1', toolRev: 1 } });
    await fresh.client.close();
    await fresh.server.done;
  });

  it('serves requests concurrently and sends full error payloads', async () => {
    const { server, client } = serve();
    await client.send({ type: 'run_tool', id: 'slow', payload: { id: 'test:slow', args: { ms: 200 } } });
    await client.send({ type: 'run_tool', id: 'fast', payload: { id: 'test:add', args: { a: 1, b: 2 } } });
    await client.send({ type: 'run_tool', id: 'bad', payload: { id: 'test:add', args: { a: 'x' } } });
    const replies = await take(client, 3);
    const order = replies.map((item) => (item.kind === 'message' ? item.message.id : '?'));
    expect(order.indexOf('fast')).toBeLessThan(order.indexOf('slow'));
    const bad = replies.find((item) => item.kind === 'message' && item.message.id === 'bad');
    expect(bad).toMatchObject({
      message: {
        type: 'error',
        payload: { code: 'VALIDATION', name: 'ToolError', toolId: 'test:add', op: 'validate_input', backend: { kind: 'local' } },
      },
    });
    await client.close();
    await server.done;
  });

  it('aborts a call on cancel, and every in-flight call on close', async () => {
    const { seen, watching } = signalWatchingGateway();
    const { server, client } = serve(watching);
    await client.send({ type: 'run_tool', id: 'a', payload: { id: 'test:slow', args: { ms: 10_000 } } });
    await client.send({ type: 'run_tool', id: 'b', payload: { id: 'test:slow', args: { ms: 10_000 } } });
    await new Promise((resolve) => setTimeout(resolve, 30));
    await client.send({ type: 'cancel', id: 'a' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[1]?.aborted).toBe(false);
    const started = performance.now();
    await server.close();
    expect(seen[1]?.aborted).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
    await client.close();
  });

  it('with cancellableRequests false: one signal for every call, cancel ignored, close aborts it', async () => {
    const { seen, watching } = signalWatchingGateway();
    const warnings = await listenerWarningsDuring(async () => {
      const { server, client } = serve(watching, { cancellableRequests: false });
      // more concurrent listeners on the shared signal than EventTarget's default warning threshold
      for (let i = 0; i < 20; i++) {
        await client.send({ type: 'run_tool', id: `s${i}`, payload: { id: 'test:slow', args: { ms: 10_000 } } });
      }
      await client.send({ type: 'run_tool', id: 'fast', payload: { id: 'test:add', args: { a: 1, b: 2 } } });
      const [fast] = await take(client, 1);
      expect(fast).toMatchObject({ kind: 'message', message: { type: 'response', id: 'fast', payload: { structured: 3 } } });
      await client.send({ type: 'cancel', id: 's0' });
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(seen).toHaveLength(21);
      expect(new Set(seen).size).toBe(1);
      expect(seen[0]?.aborted).toBe(false);
      const started = performance.now();
      await server.close();
      expect(seen[0]?.aborted).toBe(true);
      expect(performance.now() - started).toBeLessThan(1000);
      await client.close();
    });
    expect(warnings).toEqual([]);
  });

  it('survives throwing gateways and hooks, and sanitizes results', async () => {
    const throwing = {
      searchTools: () => {
        throw new Error('sync throw');
      },
      listNamespaces: async () => ['ok'],
      describeTool: async () => ({ summary: 's', extra: 10n, self: undefined }) as never,
      listToolExamples: async () => [],
      runTool: async () => Promise.reject(new TypeError('plain error')),
      runChain: async () => ({ result: undefined as never, steps: [] }),
    } as unknown as ToolGateway;
    const { server, client } = serve(throwing, {
      onMessage: () => {
        throw new Error('hook throws');
      },
    });
    await client.send({ type: 'note' });
    await client.send({ type: 'search_tools', id: '1', payload: { query: '', limit: 1 } });
    await client.send({ type: 'describe_tool', id: '2', payload: { id: 'x', level: 'summary' } });
    await client.send({ type: 'run_tool', id: '3', payload: { id: 'x' } });
    const replies = await take(client, 3);
    const byId = Object.fromEntries(replies.map((item) => (item.kind === 'message' ? [item.message.id, item.message] : ['?', null])));
    expect(byId['1']).toMatchObject({ type: 'error', payload: { error: 'sync throw', code: 'EXECUTION' } });
    expect(byId['2']).toEqual({ type: 'response', id: '2', payload: { summary: 's', extra: '10' } });
    expect(byId['3']).toMatchObject({ type: 'error', payload: { error: 'plain error', code: 'EXECUTION', name: 'TypeError' } });
    await client.close();
    await server.done;
  });

  it('stops when its signal aborts', async () => {
    const controller = new AbortController();
    const { server } = serve(undefined, { signal: controller.signal });
    controller.abort();
    await server.done;
  });
});

describe('wire errors', () => {
  it('round-trips ToolError and ChainError fields, details and causes', () => {
    const inner = new ToolError({
      code: 'EXECUTION',
      op: 'execute',
      toolId: 'ns:t',
      backend: { kind: 'local', local: { name: 't' } },
      reason: 'boom',
      cause: new Error('root'),
    });
    const chain = new ChainError(inner, [{ toolId: 'ns:a' }, { toolId: 'ns:t', error: inner }], 1);
    const wire = serializeError(chain);
    const json = JSON.parse(JSON.stringify(wire));
    const rebuilt = deserializeError(json) as ToolexecError & {
      toolId?: string;
      op?: string;
      backend?: unknown;
      steps?: { error?: ToolexecError }[];
    };
    expect(rebuilt).toBeInstanceOf(ToolexecError);
    expect(rebuilt).toMatchObject({
      code: 'EXECUTION',
      name: 'ChainError',
      message: chain.message,
      toolId: 'ns:t',
      op: 'execute',
      backend: { kind: 'local' },
    });
    expect(rebuilt.steps?.[1]?.error).toBeInstanceOf(ToolexecError);
    expect(rebuilt.steps?.[1]?.error?.code).toBe('EXECUTION');
    expect((rebuilt.cause as ToolexecError).message).toBe(inner.message);
    expect(((rebuilt.cause as ToolexecError).cause as Error).message).toBe('root');
  });

  it('makes any value JSON-safe', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(toJsonSafe(cyclic)).toEqual({ a: 1, self: '[Circular]' });
    expect(
      toJsonSafe({
        n: 1n,
        f: () => 1,
        u: undefined,
        d: new Date(0),
        m: new Map([['k', 1]]),
        s: new Set([1]),
        inf: Infinity,
        arr: [undefined],
      }),
    ).toEqual({
      n: '1',
      d: '1970-01-01T00:00:00.000Z',
      m: { k: 1 },
      s: [1],
      inf: null,
      arr: [null],
    });
    expect(toJsonSafe(new ToolexecError('TIMEOUT', 't'))).toMatchObject({ error: 't', code: 'TIMEOUT' });
    const shared = { x: 1 };
    expect(toJsonSafe({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });
});

describe('stream pair', () => {
  it('closes the peer when one side closes', async () => {
    const { client, server } = streamPair();
    await client.close();
    expect(await take(server, 1)).toEqual([]);
  });
});
