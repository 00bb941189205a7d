import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { REMOTE_HEADERS, REMOTE_PROTOCOL } from '../../../../src/runtime/backends/remote/index.js';
import { createRemoteBackend, type ExecuteResult } from '../../../../src/runtime/index.js';
import { expectCode, failure, request } from '../sandbox-client/helpers.js';
import { answering, SECRET, listen, runtimeServer, signedExecute, type TestServer } from './helpers.js';

const open: TestServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function track(server: Promise<TestServer>): Promise<TestServer> {
  const started = await server;
  open.push(started);
  return started;
}

/** Opens a raw connection and writes a chunked POST with `headers` and, when given, `body` as a first chunk. */
function rawPost(port: number, headers: Record<string, string>, body?: string): Socket {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined);
  const head = [
    'POST / HTTP/1.1',
    'host: 127.0.0.1',
    'transfer-encoding: chunked',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  if (body !== undefined) socket.write(`${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n`);
  return socket;
}

/** Resolves with how long `promise` took, or `Infinity` when it has not settled within `ms`. */
async function settleTime(promise: Promise<unknown>, ms: number): Promise<number> {
  const started = performance.now();
  const timer = new Promise<'hang'>((resolve) => setTimeout(() => resolve('hang'), ms).unref());
  const outcome = await Promise.race([promise.then(() => 'done' as const), timer]);
  return outcome === 'hang' ? Number.POSITIVE_INFINITY : performance.now() - started;
}

describe('remote runtime handler under attack', () => {
  it('refuses a replay at the exact far edge of the window (a request stamped now + window, replayed at now + 2 × window)', async () => {
    let now = 1_700_000_000_000;
    const windowMs = 1000;
    const server = await track(runtimeServer({ backend: answering(1), replayWindowMs: windowMs, _internal: { now: () => now } }));
    const { line, headers } = signedExecute('return 1', { timestampMs: now + windowMs, nonce: 'edge-nonce-0001' });
    const send = () =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(server.url, { method: 'POST', headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(`${line}\n`);
      });
    expect(await send()).toBe(200);
    now += 2 * windowMs - 1;
    expect(await send()).toBe(401);
    now += 1;
    // |now - timestamp| = window: the timestamp check still accepts it, so the nonce must still be remembered
    expect(await send()).toBe(401);
  });

  it('close() drops requests still being authenticated at once (503 closing), not after firstMessageTimeoutMs', async () => {
    const server = await track(runtimeServer({ backend: answering(1), firstMessageTimeoutMs: 5000 }));
    const socket = rawPost(
      server.port,
      {
        [REMOTE_HEADERS.protocol]: REMOTE_PROTOCOL,
        [REMOTE_HEADERS.timestamp]: String(Date.now()),
        [REMOTE_HEADERS.nonce]: randomBytes(12).toString('hex'),
        [REMOTE_HEADERS.signature]: 'a'.repeat(64),
      },
      '{',
    );
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => (answer += text));
    while (server.handler?.pendingAuth === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const ms = await settleTime(server.handler?.close() ?? Promise.resolve(), 4000);
    expect(ms).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
    expect(answer).toContain('"reason":"closing"');
  });

  it('close() does not wait forever on a signed client that stopped reading its response', async () => {
    const server = await track(runtimeServer({ backend: answering('x'.repeat(6 * 1024 * 1024)) }));
    const { line, headers } = signedExecute('return 1');
    const socket = rawPost(server.port, headers, `${line}\n`);
    socket.pause();
    while (server.handler?.stats.runs === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // the run is over, its 6 MiB result stuck on a socket nobody reads
    expect(server.handler?.activeRuns).toBe(1);
    const ms = await settleTime(server.handler?.close() ?? Promise.resolve(), 6000);
    expect(ms).toBeLessThan(3000);
    expect(server.handler?.activeRuns).toBe(0);
  });
});

describe('remote backend against a hostile refusal', () => {
  it("never takes a refusal body's details.result as the run's partial result", async () => {
    const fake = await track(
      listen((req, res) => {
        req.resume();
        res.writeHead(401, { 'content-type': 'application/json' });
        const result = { value: 'forged', stdout: 'pwned', toolCalls: [{ toolId: 'evil:tool', durationMs: 0 }] };
        res.end(JSON.stringify({ error: { code: 'BACKEND_DENIED', message: 'no', details: { reason: 'bad_signature', result } } }));
      }),
    );
    const error = await failure(createRemoteBackend({ url: fake.url, secret: SECRET }).execute(request('return 1')));
    expectCode(error, 'BACKEND_DENIED');
    expect(error.details?.reason).toBe('bad_signature');
    const result = error.details?.result as ExecuteResult;
    expect(result.value).toBeUndefined();
    expect(result.stdout).toBe('');
    expect(result.toolCalls).toEqual([]);
    expect(result.backend.kind).toBe('remote');
  });

  it('reads a refusal body for connectTimeoutMs at most: a trickling body gives the status code, not a TIMEOUT of the whole run', async () => {
    const fake = await track(
      listen((req, res) => {
        req.resume();
        res.writeHead(401, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 20);
        res.on('close', () => clearInterval(timer));
      }),
    );
    const backend = createRemoteBackend({ url: fake.url, secret: SECRET, connectTimeoutMs: 300 });
    const started = performance.now();
    const error = await failure(backend.execute(request('return 1', { timeoutMs: 5000 })));
    expectCode(error, 'BACKEND_DENIED');
    expect(error.details?.status).toBe(401);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
