import { ReadBuffer, deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonRpcLineReader, isPlainResultResponse, parseJsonRpcLine } from '../../src/mcp/jsonrpc-lines.js';
import { InvalidServerResponse } from '../../src/mcp/invalid-response.js';

/** Lines the reader and the SDK's `deserializeMessage` must judge alike. */
const CORPUS: Array<[string, string]> = [
  ['a plain result', '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}'],
  ['a string id', '{"jsonrpc":"2.0","id":"a-1","result":{}}'],
  ['keys in another order', '{"result":{"x":1},"id":7,"jsonrpc":"2.0"}'],
  ['a result with _meta', '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":3}}}'],
  ['a result with a bad _meta', '{"jsonrpc":"2.0","id":1,"result":{"_meta":5}}'],
  ['a result with an own __proto__', '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":true},"a":1}}'],
  ['an own __proto__ at the top', '{"jsonrpc":"2.0","id":1,"result":{},"__proto__":{"x":1}}'],
  ['a result that is an array', '{"jsonrpc":"2.0","id":1,"result":[1,2]}'],
  ['a result that is null', '{"jsonrpc":"2.0","id":1,"result":null}'],
  ['a result that is a string', '{"jsonrpc":"2.0","id":1,"result":"ok"}'],
  ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"result":{}}'],
  ['an id past the safe integers', '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}'],
  ['an id in exponent form', '{"jsonrpc":"2.0","id":1e21,"result":{}}'],
  ['an id written 1.0', '{"jsonrpc":"2.0","id":1.0,"result":{}}'],
  ['a negative id', '{"jsonrpc":"2.0","id":-5,"result":{}}'],
  ['an id of -0', '{"jsonrpc":"2.0","id":-0,"result":{}}'],
  ['a null id', '{"jsonrpc":"2.0","id":null,"result":{}}'],
  ['a boolean id', '{"jsonrpc":"2.0","id":true,"result":{}}'],
  ['no id', '{"jsonrpc":"2.0","result":{}}'],
  ['the wrong version', '{"jsonrpc":"1.0","id":1,"result":{}}'],
  ['no version', '{"id":1,"result":{}}'],
  ['an extra key', '{"jsonrpc":"2.0","id":1,"result":{},"extra":1}'],
  ['both result and error', '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}'],
  ['an error response', '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}'],
  ['an error without a message', '{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}'],
  ['a request', '{"jsonrpc":"2.0","id":4,"method":"roots/list","params":{}}'],
  ['a notification', '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}'],
  ['a notification without params', '{"jsonrpc":"2.0","method":"notifications/initialized"}'],
  ['an array (a batch)', '[{"jsonrpc":"2.0","id":1,"result":{}}]'],
  ['a number', '42'],
  ['null', 'null'],
  ['not JSON', 'Server listening on stdio'],
  ['empty', ''],
];

function sdkVerdict(line: string): { ok: true; message: unknown } | { ok: false } {
  try {
    return { ok: true, message: deserializeMessage(line) };
  } catch {
    return { ok: false };
  }
}

function ownVerdict(line: string): { ok: true; message: unknown } | { ok: false } {
  try {
    return { ok: true, message: parseJsonRpcLine(line) };
  } catch {
    return { ok: false };
  }
}

/** Every message of `chunks` read through a reader, with the bad lines' errors in order. */
function readAll(chunks: Buffer[], reader = new JsonRpcLineReader()): { messages: JSONRPCMessage[]; bad: Error[]; overflow: Error[] } {
  const messages: JSONRPCMessage[] = [];
  const bad: Error[] = [];
  const overflow: Error[] = [];
  for (const chunk of chunks) {
    const error = reader.push(
      chunk,
      (message) => messages.push(message),
      (error) => bad.push(error),
    );
    if (error !== undefined) overflow.push(error);
  }
  return { messages, bad, overflow };
}

describe('parseJsonRpcLine', () => {
  it.each(CORPUS)('judges %s as the SDK does', (_name, line) => {
    const own = ownVerdict(line);
    const sdk = sdkVerdict(line);
    expect(own.ok).toBe(sdk.ok);
    if (own.ok && sdk.ok) {
      expect(own.message).toStrictEqual(sdk.message);
      expect(Object.getPrototypeOf(own.message)).toBe(Object.getPrototypeOf(sdk.message));
    }
  });

  it('takes the direct path only for plain result responses', () => {
    expect(isPlainResultResponse({ jsonrpc: '2.0', id: 1, result: { content: [] } })).toBe(true);
    expect(isPlainResultResponse({ jsonrpc: '2.0', id: 'x', result: {} })).toBe(true);
    expect(isPlainResultResponse({ jsonrpc: '2.0', id: 1, result: { _meta: {} } })).toBe(false);
    expect(isPlainResultResponse({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBe(false);
    expect(isPlainResultResponse({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } })).toBe(false);
    expect(isPlainResultResponse(JSON.parse('{"jsonrpc":"2.0","id":1,"result":{"__proto__":{}}}'))).toBe(false);
  });

  it('agrees with the SDK on generated messages', () => {
    const id = fc.oneof(
      fc.integer(),
      fc.maxSafeInteger(),
      fc.constantFrom(2 ** 53, -(2 ** 60), 1e21),
      fc.string(),
      fc.double(),
      fc.constant(null),
      fc.boolean(),
    );
    const members = {
      jsonrpc: fc.constantFrom('2.0', '1.0', 2),
      id,
      result: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()),
      error: fc.record({ code: fc.integer(), message: fc.string() }),
      method: fc.string(),
      params: fc.dictionary(fc.string(), fc.jsonValue()),
    };
    // any mix of members, and (half the time) the result responses the direct check is about
    const message = fc.oneof(fc.record(members, { requiredKeys: [] }), fc.record({ jsonrpc: members.jsonrpc, id, result: members.result }));
    fc.assert(
      fc.property(message, (value) => {
        const line = JSON.stringify(value);
        const own = ownVerdict(line);
        const sdk = sdkVerdict(line);
        expect(own.ok).toBe(sdk.ok);
        if (own.ok && sdk.ok) expect(own.message).toStrictEqual(sdk.message);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('JsonRpcLineReader', () => {
  const response = (id: number): string => JSON.stringify({ jsonrpc: '2.0', id, result: { n: id, text: 'héllo ✓' } });

  it('reads what the SDK ReadBuffer reads, however the stream is cut', () => {
    const stream = Buffer.from(
      `${response(1)}\n${response(2)}\r\n{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n${response(3)}\n`,
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }), (cuts) => {
        const sorted = [...cuts].sort((a, b) => a - b);
        const chunks = [0, ...sorted].map((from, i) => stream.subarray(from, sorted[i] ?? stream.length));
        const sdk = new ReadBuffer();
        const expected: unknown[] = [];
        for (const chunk of chunks) {
          sdk.append(chunk);
          for (let message = sdk.readMessage(); message !== null; message = sdk.readMessage()) expected.push(message);
        }
        const { messages, bad, overflow } = readAll(chunks);
        expect(bad).toEqual([]);
        expect(overflow).toEqual([]);
        expect(messages).toStrictEqual(expected);
        expect(messages).toHaveLength(4);
      }),
      { numRuns: 300 },
    );
  });

  it('reports a line that is not JSON-RPC and goes on with the next', () => {
    const { messages, bad } = readAll([Buffer.from(`debug: starting\n${response(1)}\n{"jsonrpc":"2.0","method":5}\n${response(3)}\n`)]);
    expect(messages.map((message) => (message as { id: number }).id)).toEqual([1, 3]);
    expect(bad).toHaveLength(2);
    expect(bad[0]).toBeInstanceOf(SyntaxError);
  });

  it('hands on a malformed answer to a request as an error response for its ID, so that the request fails at once', () => {
    const lines = [
      '{"jsonrpc":"2.0","id":2}',
      '{"jsonrpc":"2.0","id":3,"result":null}',
      '{"jsonrpc":"2.0","id":"a","error":{"code":"x","message":"m"}}',
    ];
    const { messages, bad } = readAll([Buffer.from(`${lines.join('\n')}\n`)]);
    expect(bad).toEqual([]);
    expect(messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 2,
        error: expect.objectContaining({ code: -32603, message: 'invalid response: it has neither a result nor an error' }),
      },
      { jsonrpc: '2.0', id: 3, error: expect.objectContaining({ message: 'invalid response: its result is null, not an object' }) },
      { jsonrpc: '2.0', id: 'a', error: expect.objectContaining({ message: 'invalid response: its error code is "x", not an integer' }) },
    ]);
    expect((messages[0] as { error: { data: unknown } }).error.data).toBeInstanceOf(InvalidServerResponse);
  });

  it('keeps a partial line until its end arrives', () => {
    const reader = new JsonRpcLineReader();
    const line = Buffer.from(`${response(9)}\n`);
    expect(readAll([line.subarray(0, 10)], reader).messages).toEqual([]);
    expect(readAll([line.subarray(10)], reader).messages).toHaveLength(1);
  });

  it('reads a message of megabytes arriving in pipe-sized chunks', () => {
    const text = 'x'.repeat(3 * 1024 * 1024);
    const line = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } })}\n${response(2)}\n`,
    );
    const chunks: Buffer[] = [];
    for (let at = 0; at < line.length; at += 65536) chunks.push(line.subarray(at, at + 65536));
    const { messages, bad, overflow } = readAll(chunks);
    expect(bad).toEqual([]);
    expect(overflow).toEqual([]);
    expect(messages.map((message) => (message as { id: number }).id)).toEqual([1, 2]);
    expect((messages[0] as unknown as { result: { content: Array<{ text: string }> } }).result.content[0]?.text).toHaveLength(text.length);
  });

  it('refuses a line longer than its bound, in one chunk or across several', () => {
    const reader = new JsonRpcLineReader(64);
    expect(readAll([Buffer.from(`${'a'.repeat(80)}\n`)], reader).overflow).toHaveLength(1);
    expect(readAll([Buffer.alloc(40, 0x61), Buffer.from(`${'a'.repeat(40)}\n`)], reader).overflow).toHaveLength(1);
    expect(readAll([Buffer.from(`${response(1)}\n`)], reader).messages).toHaveLength(1);
  });

  it('refuses an unread rest over its bound, and reads on after it', () => {
    const reader = new JsonRpcLineReader(64);
    const first = readAll([Buffer.alloc(40, 0x61), Buffer.alloc(40, 0x61)], reader);
    expect(first.overflow.map((error) => error.message)).toEqual(['a message from the server is over the 64-byte limit']);
    const oneChunk = readAll([Buffer.alloc(100, 0x61)], reader);
    expect(oneChunk.overflow).toHaveLength(1);
    expect(readAll([Buffer.from(`${response(1)}\n`)], reader).messages).toHaveLength(1);
  });

  it('clear() drops a partial line', () => {
    const reader = new JsonRpcLineReader();
    readAll([Buffer.from('{"jsonrpc":"2.0",')], reader);
    reader.clear();
    const { messages, bad } = readAll([Buffer.from(`${response(1)}\n`)], reader);
    expect(bad).toEqual([]);
    expect(messages).toHaveLength(1);
  });
});
