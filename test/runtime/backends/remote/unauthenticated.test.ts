import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { REMOTE_HEADERS, REMOTE_PROTOCOL } from '../../../../src/runtime/backends/remote/index.js';
import { createRemoteBackend, createWasmBackend } from '../../../../src/runtime/index.js';
import { request } from '../sandbox-client/helpers.js';
import { SECRET, runtimeServer, type TestServer } from './helpers.js';

/** A connection that looks like a signed request (fresh timestamp, nonce, a made-up signature) and trickles its body. */
interface Trickler {
  socket: Socket;
  /** What the server answered, once it did (`HTTP/1.1 503 ...`), or `closed`. */
  answer: string | undefined;
  stop(): void;
}

function trickle(port: number, everyMs: number): Trickler {
  const socket = connect(port, '127.0.0.1');
  const state: Trickler = {
    socket,
    answer: undefined,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => (state.answer ??= text.split('\r\n')[0]));
  socket.on('close', () => (state.answer ??= 'closed'));
  socket.on('error', () => undefined);
  socket.write(
    [
      'POST / HTTP/1.1',
      'host: 127.0.0.1',
      'content-type: application/x-ndjson',
      'transfer-encoding: chunked',
      `${REMOTE_HEADERS.protocol}: ${REMOTE_PROTOCOL}`,
      `${REMOTE_HEADERS.timestamp}: ${Date.now()}`,
      `${REMOTE_HEADERS.nonce}: ${randomBytes(12).toString('hex')}`,
      `${REMOTE_HEADERS.signature}: ${'a'.repeat(64)}`,
      '',
      '',
    ].join('\r\n'),
  );
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write('1\r\n{\r\n');
  }, everyMs);
  return state;
}

const open: TestServer[] = [];
const tricklers: Trickler[] = [];
afterEach(async () => {
  for (const t of tricklers.splice(0)) t.stop();
  await Promise.all(open.splice(0).map((server) => server.close()));
});

describe('remote runtime: unauthenticated connections', () => {
  it('keeps serving a signed client while 50 unauthenticated connections trickle bytes', async () => {
    const wasm = createWasmBackend({ poolSize: 1 });
    try {
      const server = await runtimeServer({ backend: wasm, maxConcurrentRuns: 2, maxPendingAuth: 8, firstMessageTimeoutMs: 3000 });
      open.push(server);
      for (let i = 0; i < 50; i++) tricklers.push(trickle(server.port, 100));
      // every trickler has reached the handler (or been pushed out by a later one)
      const until = Date.now() + 5000;
      while (server.handler?.pendingAuth !== 8 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(server.handler?.pendingAuth).toBe(8);
      expect(server.handler?.activeRuns).toBe(0);

      const client = createRemoteBackend({ url: server.url, secret: SECRET });
      const values: unknown[] = [];
      for (let i = 0; i < 10; i++) {
        const result = await client.execute(request(`return ${i} * 2;`));
        values.push(result.value);
      }
      expect(values).toEqual(Array.from({ length: 10 }, (_, i) => i * 2));
      // the tricklers never held a run slot; those pushed out were told so
      expect(server.handler?.stats).toMatchObject({ runs: 10 });
      const answers = tricklers.map((t) => t.answer).filter((a) => a !== undefined);
      expect(answers.length).toBeGreaterThanOrEqual(42);
      for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 (503|408)|^closed$/);
    } finally {
      await wasm.close();
    }
  }, 30_000);

  it('drops a connection that never completes its execute message after firstMessageTimeoutMs (408)', async () => {
    const wasm = createWasmBackend({ poolSize: 1 });
    try {
      const server = await runtimeServer({ backend: wasm, firstMessageTimeoutMs: 300 });
      open.push(server);
      const t = trickle(server.port, 50);
      tricklers.push(t);
      const until = Date.now() + 3000;
      while (t.answer === undefined && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(t.answer).toMatch(/^HTTP\/1\.1 408/);
      expect(server.handler?.pendingAuth).toBe(0);
    } finally {
      await wasm.close();
    }
  });
});
