import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolexecError } from '../../../../src/model/index.js';
import {
  REMOTE_HEADERS,
  REMOTE_PROTOCOL,
  createRemoteRuntimeHandler,
  type RemoteRuntimeHandlerOptions,
} from '../../../../src/runtime/backends/remote/index.js';
import { createRemoteBackend } from '../../../../src/runtime/index.js';
import { activeResources, expectNoLeakedResources, waitUntil } from '../../../mcp/helpers.js';
import { expectCode, failure, gateway, request } from '../sandbox-client/helpers.js';
import { answering, SECRET, listen, readBody, signedExecute, type TestServer } from './helpers.js';

const open: (() => Promise<void>)[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(open.splice(0).map((close) => close()));
});

/**
 * A real runtime server whose responses go through `tamper` first (it sees every write the
 * handler makes and may cut the connection), so a run can lose its connection mid-message.
 */
async function tamperedServer(
  options: Omit<RemoteRuntimeHandlerOptions, 'secret'>,
  tamper: (res: ServerResponse, text: string, write: (text: string) => void) => boolean,
): Promise<TestServer> {
  const handler = createRemoteRuntimeHandler({ ...options, secret: SECRET });
  const listening = await listen((req: IncomingMessage, res: ServerResponse) => {
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (tamper(res, String(chunk), (text) => write(text))) return false;
      return write(chunk, ...rest);
    }) as typeof res.write;
    handler(req, res);
  });
  const server = { ...listening, handler, close: async () => (await handler.close(), await listening.close()) };
  open.push(() => server.close());
  return server;
}

describe('remote backend: a connection lost in the middle of a message', () => {
  for (const how of ['ends', 'is reset'] as const) {
    it(`is RUNTIME_UNAVAILABLE (retryable), not PROTOCOL, when the server's socket ${how} halfway through the result line`, async () => {
      const server = await tamperedServer({ backend: answering('r'.repeat(256 * 1024)) }, (res, text, write) => {
        if (!text.includes('\\"type\\":\\"result\\"')) return false;
        write(text.slice(0, text.length / 2));
        if (how === 'ends') res.socket?.end();
        else setImmediate(() => res.socket?.destroy());
        return true;
      });
      const error = await failure(createRemoteBackend({ url: server.url, secret: SECRET }).execute(request('return 1')));
      expectCode(error, 'RUNTIME_UNAVAILABLE');
      expect(error.message).toContain('in the middle of a message');
      expect(error.details).toMatchObject({ endpoint: server.url, reason: 'connection_lost' });
      expect(error.details?.result?.backend.kind).toBe('remote');
      // the cause says what was cut: the stream connection's lost line (and, on a reset, the socket's error under it)
      expect(ToolexecError.isInstance(error.cause)).toBe(true);
      expect((error.cause as ToolexecError).code).toBe('CONNECTION_CLOSED');
      expect((error.cause as ToolexecError).details?.bytes).toBeGreaterThan(100 * 1024);
    });
  }

  it('keeps the socket error as the cause when the connection is cut between two messages', async () => {
    const server = await tamperedServer({ backend: answering(1) }, (res, text) => {
      if (!text.includes('\\"type\\":\\"result\\"')) return false;
      res.socket?.end();
      return true;
    });
    const error = await failure(createRemoteBackend({ url: server.url, secret: SECRET }).execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toContain('closed the connection mid-run');
    expect(error.details).toMatchObject({ endpoint: server.url, reason: 'ECONNRESET' });
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
  });

  it('stays PROTOCOL for a complete line (with its newline) that is not a message', async () => {
    const fake = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { [REMOTE_HEADERS.protocol]: REMOTE_PROTOCOL });
      res.end('{"type":"sig","seq":1,"mac":\n');
    });
    open.push(() => fake.close());
    const error = await failure(createRemoteBackend({ url: fake.url, secret: SECRET }).execute({ code: 'return 1', gateway: gateway() }));
    expectCode(error, 'PROTOCOL');
    expect(error.message).toContain('not a JSON message');
  });
});

describe('remote runtime handler: a signed client that stops reading its response', () => {
  it('has its exchange dropped after writeStallTimeoutMs, freeing its run slot, with nothing left behind', async () => {
    const handler = createRemoteRuntimeHandler({
      backend: answering('x'.repeat(6 * 1024 * 1024), 'second'),
      secret: SECRET,
      maxConcurrentRuns: 1,
      writeStallTimeoutMs: 300,
    });
    const listening = await listen(handler);
    open.push(async () => (await handler.close(), await listening.close()));
    const baseline = activeResources();

    const { line, headers } = signedExecute('return 1');
    const socket = connect(listening.port, '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const head = [
      'POST / HTTP/1.1',
      'host: 127.0.0.1',
      'transfer-encoding: chunked',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n${Buffer.byteLength(`${line}\n`).toString(16)}\r\n${line}\n\r\n`);
    // reads nothing from now on: the 6 MiB result sticks on the socket
    socket.pause();
    expect(await waitUntil(() => handler.stats.runs === 1, 3000)).toBe(true);
    expect(handler.activeRuns).toBe(1);

    // within the stall bound (not node's 300 s requestTimeout), without close(): the slot is free again
    const started = performance.now();
    expect(await waitUntil(() => handler.activeRuns === 0, 5000)).toBe(true);
    expect(performance.now() - started).toBeLessThan(3000);
    // the server dropped the connection: the client sees it once it reads again
    socket.resume();
    await closed;

    // a second client gets the slot
    const client = createRemoteBackend({ url: listening.url, secret: SECRET, headers: { connection: 'close' } });
    const second = await client.execute(request('return 2'));
    expect(second.value).toBe('second');
    expect(await waitUntil(() => handler.activeRuns === 0, 2000)).toBe(true);

    // without close(): no timer, socket or request of either exchange is left
    await expectNoLeakedResources(baseline);
  });

  it('keeps a client that pauses for less than writeStallTimeoutMs, then reads on', async () => {
    const handler = createRemoteRuntimeHandler({
      backend: answering('y'.repeat(6 * 1024 * 1024)),
      secret: SECRET,
      writeStallTimeoutMs: 3000,
    });
    const listening = await listen(handler);
    open.push(async () => (await handler.close(), await listening.close()));
    const { line, headers } = signedExecute('return 1');
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(listening.url, { method: 'POST', headers: { ...headers, connection: 'close' } }, (res) => {
        res.pause();
        setTimeout(() => void readBody(res).then(resolve, reject), 500);
      });
      req.on('error', reject);
      req.end(`${line}\n`);
    });
    const envelope = JSON.parse(body.trim()) as { type: string; body: string };
    expect(envelope.type).toBe('sig');
    expect((JSON.parse(envelope.body) as { type: string; result: { value: string } }).result.value).toHaveLength(6 * 1024 * 1024);
    expect(await waitUntil(() => handler.activeRuns === 0, 2000)).toBe(true);
  });

  it('refuses a bad writeStallTimeoutMs (CONFIGURATION)', () => {
    expect(() => createRemoteRuntimeHandler({ backend: answering(1), secret: SECRET, writeStallTimeoutMs: 0 })).toThrow(
      /writeStallTimeoutMs/,
    );
    expect(() => createRemoteRuntimeHandler({ backend: answering(1), secret: SECRET, writeStallTimeoutMs: -5 })).toThrow(
      /writeStallTimeoutMs/,
    );
  });
});
