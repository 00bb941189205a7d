import { createHmac } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  REMOTE_HEADERS,
  REMOTE_PROTOCOL,
  canonicalRemoteRequest,
  createSignedConnection,
  deriveSessionKey,
  executeMessage,
  messageMac,
  parseExecuteMessage,
  remoteRequestHeaders,
  signRemoteRequest,
  verifyRemoteSignature,
  type SignedConnection,
} from '../../../../src/runtime/backends/remote/index.js';
import { createStreamConnection, type WireMessage } from '../../../../src/runtime/index.js';
import { ReplayCache } from '../../../../src/runtime/backends/remote/replay-cache.js';
import { gateway } from '../sandbox-client/helpers.js';

const SECRET = 'unit-test-secret-0123456789';
const fields = {
  method: 'post',
  path: '/run?x=1',
  timestampMs: 1_700_000_000_000,
  nonce: 'abcdef0123456789',
  keyId: 'k1',
  body: '{"type":"execute"}',
};

describe('request signing', () => {
  it('signs protocol, method, path, timestamp, nonce, key id and the body digest', () => {
    expect(canonicalRemoteRequest(fields).split('\n').slice(0, 6)).toEqual([
      REMOTE_PROTOCOL,
      'POST',
      '/run?x=1',
      '1700000000000',
      'abcdef0123456789',
      'k1',
    ]);
    expect(canonicalRemoteRequest(fields).split('\n')[6]).toMatch(/^[0-9a-f]{64}$/);
    const expected = createHmac('sha256', SECRET).update(canonicalRemoteRequest(fields)).digest('hex');
    expect(signRemoteRequest(SECRET, fields)).toBe(expected);
    expect(verifyRemoteSignature(SECRET, fields, expected)).toBe(true);
  });

  it('fails verification when anything signed changes, or the signature is malformed', () => {
    const signature = signRemoteRequest(SECRET, fields);
    for (const change of [
      { body: '{"type":"execute "}' },
      { path: '/run' },
      { timestampMs: fields.timestampMs + 1 },
      { nonce: 'abcdef0123456788' },
      { keyId: 'k2' },
      { method: 'PUT' },
    ]) {
      expect(verifyRemoteSignature(SECRET, { ...fields, ...change }, signature)).toBe(false);
    }
    expect(verifyRemoteSignature('another-secret-0123456789', fields, signature)).toBe(false);
    expect(verifyRemoteSignature(SECRET, fields, signature.slice(0, 63))).toBe(false);
    expect(verifyRemoteSignature(SECRET, fields, signature.toUpperCase())).toBe(false);
    expect(verifyRemoteSignature(SECRET, fields, undefined)).toBe(false);
    expect(verifyRemoteSignature(SECRET, { ...fields, body: Buffer.from(fields.body) }, signature)).toBe(true);
  });

  it('builds the protocol headers', () => {
    const headers = remoteRequestHeaders(SECRET, fields);
    expect(headers).toEqual({
      [REMOTE_HEADERS.protocol]: REMOTE_PROTOCOL,
      [REMOTE_HEADERS.timestamp]: '1700000000000',
      [REMOTE_HEADERS.nonce]: 'abcdef0123456789',
      [REMOTE_HEADERS.keyId]: 'k1',
      [REMOTE_HEADERS.signature]: signRemoteRequest(SECRET, fields),
    });
  });

  it('derives a per-exchange session key only the secret holders can compute', () => {
    const signature = signRemoteRequest(SECRET, fields);
    const key = deriveSessionKey(SECRET, signature);
    expect(key).toHaveLength(32);
    expect(deriveSessionKey(SECRET, signature).equals(key)).toBe(true);
    expect(deriveSessionKey('another-secret-0123456789', signature).equals(key)).toBe(false);
    expect(messageMac(key, 'c2s', 1, 'x')).not.toBe(messageMac(key, 's2c', 1, 'x'));
    expect(messageMac(key, 'c2s', 1, 'x')).not.toBe(messageMac(key, 'c2s', 2, 'x'));
  });
});

describe('execute messages', () => {
  it('carries the request without gateway or signal, metadata made JSON-safe', () => {
    const message = executeMessage({
      code: 'return 1',
      language: 'ts',
      timeoutMs: 10,
      limits: { maxToolCalls: 2 },
      profile: 'hardened',
      metadata: { a: 1n, f: () => 1 },
      gateway: gateway(),
      signal: new AbortController().signal,
    });
    expect(message).toEqual({
      type: 'execute',
      request: { code: 'return 1', language: 'ts', timeoutMs: 10, limits: { maxToolCalls: 2 }, profile: 'hardened', metadata: { a: '1' } },
    });
    expect(parseExecuteMessage(JSON.parse(JSON.stringify(message)))).toEqual(message.request);
  });

  it('rejects malformed execute messages (PROTOCOL)', () => {
    expect(() => parseExecuteMessage({ type: 'run' })).toThrow(/first message must be/);
    expect(() => parseExecuteMessage({ type: 'execute', request: { code: 1 } })).toThrow(/"code" must be a string/);
    expect(() => parseExecuteMessage({ type: 'execute', request: { code: '', limits: [] } })).toThrow(/"limits" must be an object/);
    expect(() => parseExecuteMessage({ type: 'execute', request: { code: '', timeoutMs: '5' } })).toThrow(/"timeoutMs" must be a number/);
  });
});

/** Two signed connections over in-memory streams, plus the raw wires to tamper with. */
function signedPair(maxMessageBytes = 1024) {
  const key = deriveSessionKey(SECRET, signRemoteRequest(SECRET, fields));
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const failures: string[] = [];
  const client = createSignedConnection(createStreamConnection(toClient, toServer), {
    key,
    sendLabel: 'c2s',
    receiveLabel: 's2c',
    maxMessageBytes,
  });
  const server = createSignedConnection(createStreamConnection(toServer, toClient), {
    key,
    sendLabel: 's2c',
    receiveLabel: 'c2s',
    maxMessageBytes,
    onFailure: (error) => failures.push(error.message),
  });
  return { key, client, server, toServer, failures };
}

async function collect(connection: SignedConnection): Promise<WireMessage[]> {
  const messages: WireMessage[] = [];
  for await (const item of connection.incoming) if (item.kind === 'message') messages.push(item.message);
  return messages;
}

describe('signed connection', () => {
  it('delivers authenticated messages in order', async () => {
    const { client, server } = signedPair();
    const received = collect(server);
    await client.send({ type: 'response', id: '1', payload: { ok: true } });
    await client.send({ type: 'error', id: '2', payload: { error: 'no' } });
    await client.close();
    expect(await received).toEqual([
      { type: 'response', id: '1', payload: { ok: true } },
      { type: 'error', id: '2', payload: { error: 'no' } },
    ]);
    expect(server.failure).toBeUndefined();
  });

  it('ends the channel on a bad MAC, a replayed or reordered message, or an unsigned one', async () => {
    for (const tamper of [
      (key: Buffer) => ({ type: 'sig', seq: 1, mac: messageMac(key, 'c2s', 1, '{"type":"x"}'), body: '{"type":"y"}' }),
      (key: Buffer) => ({ type: 'sig', seq: 2, mac: messageMac(key, 'c2s', 2, '{"type":"x"}'), body: '{"type":"x"}' }),
      (key: Buffer) => ({ type: 'sig', seq: 1, mac: messageMac(key, 's2c', 1, '{"type":"x"}'), body: '{"type":"x"}' }),
      () => ({ type: 'response', id: '1' }),
    ]) {
      const { key, server, toServer, failures } = signedPair();
      const received = collect(server);
      toServer.write(`${JSON.stringify(tamper(key))}\n`);
      expect(await received).toEqual([]);
      expect(server.failure?.code).toBe('PROTOCOL');
      expect(failures).toHaveLength(1);
    }
  });

  it('refuses to send a message over the limit (PROTOCOL)', async () => {
    const { client } = signedPair(64);
    await expect(client.send({ type: 'response', payload: 'x'.repeat(100) })).rejects.toMatchObject({ code: 'PROTOCOL' });
    await client.close();
  });
});

describe('replay cache', () => {
  it('remembers nonces for twice the window, and refuses new ones when full of live entries', () => {
    const cache = new ReplayCache(1000, 2);
    expect(cache.remember('a', 0)).toBe('fresh');
    expect(cache.remember('a', 500)).toBe('replayed');
    expect(cache.remember('b', 600)).toBe('fresh');
    expect(cache.remember('c', 700)).toBe('full');
    expect(cache.remember('a', 1999)).toBe('replayed');
    // through its expiry millisecond inclusive: a timestamp one window ahead is still accepted then
    expect(cache.remember('a', 2000)).toBe('replayed');
    expect(cache.remember('c', 2001)).toBe('fresh');
    expect(cache.size).toBe(2);
    expect(cache.remember('a', 2002)).toBe('full');
    expect(cache.remember('d', 2601)).toBe('fresh');
  });
});
