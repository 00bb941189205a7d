import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolexecError } from '../../../../src/model/index.js';
import { REMOTE_HEADERS, REMOTE_PROTOCOL, createRemoteRuntimeHandler } from '../../../../src/runtime/backends/remote/index.js';
import {
  createRemoteBackend,
  createRuntime,
  createUnsafeHostBackend,
  createWasmBackend,
  type ExecuteRequest,
  type ExecuteResult,
  type RuntimeBackend,
} from '../../../../src/runtime/index.js';
import { expectCode, failure, gateway, request } from '../sandbox-client/helpers.js';
import { SECRET, listen, readBody, runtimeServer, signedExecute, type TestServer } from './helpers.js';

const open: TestServer[] = [];
async function serve(options: Parameters<typeof runtimeServer>[0]): Promise<TestServer> {
  const server = await runtimeServer(options);
  open.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** A backend that records what the server handed it, then runs it on `inner`. */
function recordingBackend(inner: RuntimeBackend): RuntimeBackend & { requests: ExecuteRequest[] } {
  const requests: ExecuteRequest[] = [];
  return {
    kind: inner.kind,
    readiness: inner.readiness,
    requests,
    execute(req) {
      requests.push(req);
      return inner.execute(req);
    },
  };
}

/** Sends one raw signed exchange (execute line, then end) and returns the response. */
function rawExchange(
  url: string,
  line: string,
  headers: Record<string, string>,
  method = 'POST',
): Promise<{ res: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { 'content-type': 'application/x-ndjson', ...headers } }, (res) => {
      readBody(res).then((body) => resolve({ res, body }), reject);
    });
    req.on('error', reject);
    req.end(method === 'POST' ? `${line}\n` : undefined);
  });
}

const host = createUnsafeHostBackend({ optIn: true });
afterAll(() => host.close());

describe('remote backend over 127.0.0.1', () => {
  it('runs the snippet on the server while its tool calls reach the caller’s gateway', async () => {
    const seen = recordingBackend(host);
    const server = await serve({ backend: seen });
    const backend = createRemoteBackend({ url: server.url, secret: SECRET });
    const result = await backend.execute(
      request(
        [
          "const found = await tools.searchTools('add', 3);",
          "const sum = await tools.runTool('test:add', { a: 2, b: 40 });",
          "const chain = await tools.runChain([{ toolId: 'test:add', args: { a: 1, b: 1 } }, { toolId: 'test:double', usePrevious: true }]);",
          "console.log('on the server');",
          'return { first: found[0].id, sum: sum.structured, chain: chain.result.structured };',
        ].join('\n'),
        { timeoutMs: 5000, limits: { maxToolCalls: 10 }, metadata: { traceId: 't-1', unsafeOptIn: true } },
      ),
    );
    expect(result.value).toEqual({ first: 'test:add', sum: 42, chain: 4 });
    expect(result.stdout).toBe('on the server\n');
    expect(result.toolCalls.map((call) => call.toolId)).toEqual(['test:add', 'test:add', 'test:double']);
    expect(result.backend.kind).toBe('remote');
    expect(result.backend.details).toMatchObject({ endpoint: server.url, remote: { kind: 'unsafe_host', readiness: 'prod' } });
    expect(result.limitsEnforced).toMatchObject({ timeout: true, toolCalls: true, chainSteps: true });
    // what the server received: the request, a proxy gateway (not the caller's), no unsafe opt-in
    const received = seen.requests[0] as ExecuteRequest;
    expect(received).toMatchObject({ timeoutMs: 5000, limits: { maxToolCalls: 10 }, metadata: { traceId: 't-1' } });
    expect(received.metadata).not.toHaveProperty('unsafeOptIn');
    expect(received.signal).toBeInstanceOf(AbortSignal);
    expect(server.handler?.stats).toMatchObject({ requests: 1, runs: 1, denied: 0 });
  });

  it('works with the wasm backend behind the handler', async () => {
    const wasm = createWasmBackend({ poolSize: 1 });
    try {
      const server = await serve({ backend: wasm });
      const backend = createRemoteBackend({ url: server.url, secret: SECRET });
      const result = await backend.execute(
        request("const r = await tools.runTool('test:add', { a: 1, b: 2 });\nreturn r.structured * 10;"),
      );
      expect(result.value).toBe(30);
      expect(result.backend.details).toMatchObject({ remote: { kind: 'wasm' } });
      expect(result.limitsEnforced.memory).toBe(true);
    } finally {
      await wasm.close();
    }
  });

  it('routes by profile through a runtime on the server', async () => {
    const server = await serve({ runtime: createRuntime({ backends: { standard: host } }) });
    const backend = createRemoteBackend({ url: server.url, secret: SECRET });
    await expect(backend.execute(request('return 5', { profile: 'standard' }))).resolves.toMatchObject({ value: 5 });
    const error = await failure(backend.execute(request('return 5', { profile: 'hardened' })));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toContain('no backend for profile "hardened"');
  });

  it('enforces maxToolCalls on the caller’s side and keeps the original gateway error as cause', async () => {
    const server = await serve({ backend: host });
    const backend = createRemoteBackend({ url: server.url, secret: SECRET });
    const error = await failure(
      backend.execute(
        request("for (let i = 0; i < 3; i++) await tools.runTool('test:add', { a: i, b: 1 });", { limits: { maxToolCalls: 2 } }),
      ),
    );
    expectCode(error, 'LIMIT_EXCEEDED');
    expect(error.details?.result?.toolCalls).toHaveLength(2);
    expect(ToolexecError.isInstance(error.cause)).toBe(true);
    expect((error.cause as ToolexecError).code).toBe('LIMIT_EXCEEDED');
  });

  it('is denied with a wrong secret (BACKEND_DENIED, bad_signature)', async () => {
    const server = await serve({ backend: host });
    const backend = createRemoteBackend({ url: server.url, secret: 'another-secret-of-enough-length' });
    const error = await failure(backend.execute(request('return 1')));
    expectCode(error, 'BACKEND_DENIED');
    expect(error.details).toMatchObject({ reason: 'bad_signature', status: 401 });
    expect(error.details?.result?.backend.kind).toBe('remote');
    expect(server.handler?.stats).toMatchObject({ denied: 1, runs: 0 });
  });

  it('is denied with a stale timestamp (BACKEND_DENIED, stale_timestamp), on either side of the window', async () => {
    const server = await serve({ backend: host, replayWindowMs: 60_000 });
    const past = createRemoteBackend({ url: server.url, secret: SECRET, _internal: { now: () => Date.now() - 10 * 60_000 } });
    const error = await failure(past.execute(request('return 1')));
    expectCode(error, 'BACKEND_DENIED');
    expect(error.details?.reason).toBe('stale_timestamp');
    const future = createRemoteBackend({ url: server.url, secret: SECRET, _internal: { now: () => Date.now() + 2 * 60_000 } });
    expect((await failure(future.execute(request('return 1')))).details?.reason).toBe('stale_timestamp');
    const skewed = createRemoteBackend({ url: server.url, secret: SECRET, _internal: { now: () => Date.now() - 30_000 } });
    await expect(skewed.execute(request('return 1'))).resolves.toMatchObject({ value: 1 });
  });

  it('refuses an exact replay of a signed request (BACKEND_DENIED, replayed)', async () => {
    const server = await serve({ backend: host });
    const { line, headers } = signedExecute('return 6 * 7', { nonce: 'nonce-replay-0001' });
    const first = await rawExchange(server.url, line, headers);
    expect(first.res.statusCode).toBe(200);
    expect(first.res.headers[REMOTE_HEADERS.protocol]).toBe(REMOTE_PROTOCOL);
    const envelope = JSON.parse(first.body.trim()) as { type: string; seq: number; body: string };
    expect(envelope).toMatchObject({ type: 'sig', seq: 1 });
    expect(JSON.parse(envelope.body)).toMatchObject({ type: 'result', result: { value: 42 } });
    const second = await rawExchange(server.url, line, headers);
    expect(second.res.statusCode).toBe(401);
    expect(JSON.parse(second.body)).toEqual({
      error: {
        code: 'BACKEND_DENIED',
        message: 'backend denied by policy: the request was already used (replay)',
        details: { reason: 'replayed' },
      },
    });
    // a tampered body under the old signature is a bad signature, not a replay
    const tampered = await rawExchange(server.url, line.replace('6 * 7', '6 * 8'), {
      ...headers,
      [REMOTE_HEADERS.nonce]: 'nonce-replay-0002',
    });
    expect(tampered.res.statusCode).toBe(401);
    expect(JSON.parse(tampered.body).error.details.reason).toBe('bad_signature');
  });

  it('refuses unsigned, non-POST and wrong-protocol requests', async () => {
    const server = await serve({ backend: host });
    const unsigned = await rawExchange(server.url, '{}', { [REMOTE_HEADERS.protocol]: REMOTE_PROTOCOL });
    expect(unsigned.res.statusCode).toBe(401);
    expect(JSON.parse(unsigned.body).error).toMatchObject({ code: 'BACKEND_DENIED', details: { reason: 'missing_signature' } });
    const get = await rawExchange(server.url, '', {}, 'GET');
    expect(get.res.statusCode).toBe(405);
    expect(get.res.headers.allow).toBe('POST');
    const wrong = await rawExchange(server.url, '{}', { [REMOTE_HEADERS.protocol]: 'other/9' });
    expect(wrong.res.statusCode).toBe(400);
    expect(JSON.parse(wrong.body).error.code).toBe('PROTOCOL');
  });

  it('refuses an oversized execute message (RESOURCE_LIMIT, limit body) on the server and on the client', async () => {
    const server = await serve({ backend: host, maxBodyBytes: 64 * 1024 });
    const big = `return ${JSON.stringify('x'.repeat(200 * 1024))}.length;`;
    const error = await failure(createRemoteBackend({ url: server.url, secret: SECRET }).execute(request(big)));
    expectCode(error, 'RESOURCE_LIMIT');
    expect(error.details).toMatchObject({ limit: 'body', maxBodyBytes: 64 * 1024, status: 413 });
    const local = await failure(createRemoteBackend({ url: server.url, secret: SECRET, maxMessageBytes: 1024 }).execute(request(big)));
    expectCode(local, 'RESOURCE_LIMIT');
    expect(local.details).toMatchObject({ limit: 'body', maxMessageBytes: 1024 });
    expect(server.handler?.stats.runs).toBe(0);
  });

  it('reports a server that is down as RUNTIME_UNAVAILABLE with the reason', async () => {
    const gone = await listen(() => undefined);
    await gone.close();
    const error = await failure(createRemoteBackend({ url: gone.url, secret: SECRET }).execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.details).toMatchObject({ reason: 'ECONNREFUSED', endpoint: gone.url });
    expect(error.message).toContain('is unreachable');
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('gives up on a server that never answers (connectTimeoutMs)', async () => {
    const sockets = new Set<Socket>();
    const silent = createTcpServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/`;
      const error = await failure(createRemoteBackend({ url, secret: SECRET, connectTimeoutMs: 150 }).execute(request('return 1')));
      expectCode(error, 'RUNTIME_UNAVAILABLE');
      expect(error.details?.reason).toBe('connect_timeout');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('aborts mid-run: the caller gets ABORTED at once and the server aborts the run', async () => {
    const server = await serve({ backend: host });
    const backend = createRemoteBackend({ url: server.url, secret: SECRET });
    const controller = new AbortController();
    // Abort once the snippet's tool call has been answered (a guest process may take a while to
    // start on a loaded machine), so the partial result must hold that call.
    const inner = gateway();
    let answered!: () => void;
    const toolCallAnswered = new Promise<void>((resolve) => (answered = resolve));
    const watching = new Proxy(inner, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'runTool') return value.bind(target);
        return async (...args: unknown[]) => {
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            answered();
          }
        };
      },
    });
    const started = performance.now();
    const pending = failure(
      backend.execute(
        request("await tools.runTool('test:add', { a: 1, b: 1 });\nawait new Promise((resolve) => setTimeout(resolve, 20000));", {
          signal: controller.signal,
          gateway: watching,
        }),
      ),
    );
    await toolCallAnswered;
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(new Error('caller gave up'));
    const error = await pending;
    expectCode(error, 'ABORTED');
    expect((error.cause as Error).message).toBe('caller gave up');
    expect(error.details?.result?.toolCalls).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(3000);
    const deadline = Date.now() + 3000;
    while ((server.handler?.activeRuns ?? 0) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.handler?.activeRuns).toBe(0);
  });

  it('times out on its own deadline when the server stalls (TIMEOUT)', async () => {
    const stalled: RuntimeBackend = {
      kind: 'wasm',
      readiness: 'beta',
      execute: (req) =>
        new Promise<ExecuteResult>((_r, reject) => req.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    };
    const server = await serve({ backend: stalled });
    const backend = createRemoteBackend({ url: server.url, secret: SECRET, timeoutOverheadMs: 0 });
    const error = await failure(backend.execute(request('return 1', { timeoutMs: 200 })));
    expectCode(error, 'TIMEOUT');
    expect(error.message).toContain('within 200ms');
  });

  it('accepts several keys by key id and refuses unknown ones', async () => {
    const server = await serve({ backend: host, secrets: { old: 'old-secret-0123456789abcdef', new: 'new-secret-0123456789abcdef' } });
    await expect(
      createRemoteBackend({ url: server.url, secret: 'new-secret-0123456789abcdef', keyId: 'new' }).execute(request('return 1')),
    ).resolves.toMatchObject({ value: 1 });
    const unknown = await failure(
      createRemoteBackend({ url: server.url, secret: 'new-secret-0123456789abcdef', keyId: 'other' }).execute(request('return 1')),
    );
    expect(unknown.details?.reason).toBe('unknown_key');
    const swapped = await failure(
      createRemoteBackend({ url: server.url, secret: 'new-secret-0123456789abcdef', keyId: 'old' }).execute(request('return 1')),
    );
    expect(swapped.details?.reason).toBe('bad_signature');
  });

  it('limits concurrent runs (RUNTIME_UNAVAILABLE, busy)', async () => {
    const server = await serve({ backend: host, maxConcurrentRuns: 1 });
    const backend = createRemoteBackend({ url: server.url, secret: SECRET });
    const slow = backend.execute(request('await new Promise((resolve) => setTimeout(resolve, 500)); return 1;'));
    while (server.handler?.activeRuns === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const busy = await failure(backend.execute(request('return 2')));
    expectCode(busy, 'RUNTIME_UNAVAILABLE');
    expect(busy.details).toMatchObject({ reason: 'busy', status: 503 });
    await expect(slow).resolves.toMatchObject({ value: 1 });
  });

  it("leaves host opt-in to the server's operator unless allowUnsafeOptIn", async () => {
    const guarded = createUnsafeHostBackend();
    const strict = await serve({ backend: guarded });
    const denied = await failure(
      createRemoteBackend({ url: strict.url, secret: SECRET }).execute(request('return 1', { metadata: { unsafeOptIn: true } })),
    );
    expectCode(denied, 'BACKEND_DENIED');
    expect(denied.message).toContain('explicit opt-in');
    const lenient = await serve({ backend: guarded, allowUnsafeOptIn: true });
    await expect(
      createRemoteBackend({ url: lenient.url, secret: SECRET }).execute(request('return 1', { metadata: { unsafeOptIn: true } })),
    ).resolves.toMatchObject({ value: 1 });
  });

  it('signs the path as mounted (express-style originalUrl)', async () => {
    const handler = createRemoteRuntimeHandler({ backend: host, secret: SECRET });
    const mounted = await listen((req, res) => {
      // what express does for app.use('/runtime', handler)
      Object.assign(req, { originalUrl: req.url, url: '/' });
      handler(req, res);
    }, '/runtime?tenant=a');
    open.push({ ...mounted, close: async () => (await handler.close(), await mounted.close()) });
    await expect(createRemoteBackend({ url: mounted.url, secret: SECRET }).execute(request('return 3'))).resolves.toMatchObject({
      value: 3,
    });
  });

  it('close() on the handler stops running snippets (RUNTIME_UNAVAILABLE) and refuses new requests', async () => {
    const server = await serve({ backend: host });
    const backend = createRemoteBackend({ url: server.url, secret: SECRET });
    const pending = failure(backend.execute(request('await new Promise((resolve) => setTimeout(resolve, 20000));')));
    while (server.handler?.activeRuns === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await server.handler?.close();
    const error = await pending;
    // the caller did not give up: the server went away (503, retry later), as when any backend closes mid-run
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toContain('the remote runtime is shutting down');
    const refused = await failure(backend.execute(request('return 1')));
    expectCode(refused, 'RUNTIME_UNAVAILABLE');
    expect(refused.details?.reason).toBe('closing');
  });

  it('close() on the backend tears down its exchanges', async () => {
    const server = await serve({ backend: host });
    const backend = createRemoteBackend({ url: server.url, secret: SECRET });
    const pending = failure(backend.execute(request('await new Promise((resolve) => setTimeout(resolve, 20000));')));
    while (server.handler?.activeRuns === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await backend.close();
    expectCode(await pending, 'ABORTED');
  });

  it('fails clearly when unconfigured, after the request checks', async () => {
    const backend = createRemoteBackend();
    expect(backend.endpoint).toBe('');
    const error = await failure(backend.execute(request('return 1')));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: remote client not configured (url and secret)');
    expect(error.details?.result?.backend.kind).toBe('remote');
    expectCode(await failure(backend.execute(request(''))), 'MISSING_CODE');
  });

  it('rejects bad configuration (CONFIGURATION)', () => {
    expect(() => createRemoteBackend({ url: 'http://x' })).toThrow(/secret is required with url/);
    expect(() => createRemoteBackend({ secret: SECRET })).toThrow(/url is required with secret/);
    expect(() => createRemoteBackend({ url: 'ftp://x', secret: SECRET })).toThrow(/http: or https:/);
    expect(() => createRemoteBackend({ url: 'not a url', secret: SECRET })).toThrow(/absolute http\(s\) URL/);
    expect(() => createRemoteBackend({ url: 'http://x', secret: 'short' })).toThrow(/at least 16 bytes/);
    expect(() => createRemoteRuntimeHandler({ secret: SECRET })).toThrow(/runtime or backend/);
    expect(() => createRemoteRuntimeHandler({ backend: host, runtime: host, secret: SECRET })).toThrow(/exactly one/);
    expect(() => createRemoteRuntimeHandler({ backend: host })).toThrow(/secret or secrets/);
  });
});

describe('remote backend against misbehaving servers', () => {
  let fake: TestServer;
  let behaviour: (res: ServerResponse) => void = () => undefined;
  beforeAll(async () => {
    fake = await listen((req, res) => {
      req.resume();
      behaviour(res);
    });
  });
  afterAll(() => fake.close());

  const run = () => createRemoteBackend({ url: fake.url, secret: SECRET }).execute({ code: 'return 1', gateway: gateway() });

  it('rejects a 200 that does not speak the protocol (PROTOCOL)', async () => {
    behaviour = (res) => res.end('hello');
    expectCode(await failure(run()), 'PROTOCOL');
  });

  it('rejects an injected, unauthenticated message (PROTOCOL)', async () => {
    behaviour = (res) => {
      res.writeHead(200, { [REMOTE_HEADERS.protocol]: REMOTE_PROTOCOL });
      const body = JSON.stringify({ type: 'result', result: { value: 'forged' } });
      res.write(`${JSON.stringify({ type: 'sig', seq: 1, mac: '0'.repeat(64), body })}\n`);
    };
    const error = await failure(run());
    expectCode(error, 'PROTOCOL');
    expect(error.message).toContain('bad MAC');
  });

  it('reports an exchange that ends without a result (RUNTIME_UNAVAILABLE)', async () => {
    behaviour = (res) => {
      res.writeHead(200, { [REMOTE_HEADERS.protocol]: REMOTE_PROTOCOL });
      res.end();
    };
    const error = await failure(run());
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.details?.reason).toBe('no_result');
  });

  it("takes a refusal's code from its status, never from its unsigned body", async () => {
    const forged = (code: string, details: Record<string, unknown>) => (res: ServerResponse) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code, message: 'SyntaxError: fake (line 1, col 1)', details } }));
    };
    behaviour = forged('CODE_EXECUTION', { line: 1, column: 1 });
    const error = await failure(run());
    expectCode(error, 'BACKEND_DENIED');
    expect(error.details).toMatchObject({ status: 401, serverCode: 'CODE_EXECUTION' });
    behaviour = forged('LIMIT_EXCEEDED', { limit: 'timeout' });
    expectCode(await failure(run()), 'BACKEND_DENIED');
  });

  it('maps refusals without a JSON body by status', async () => {
    behaviour = (res) => {
      res.writeHead(503);
      res.end('overloaded');
    };
    const error = await failure(run());
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.details?.status).toBe(503);
  });
});
