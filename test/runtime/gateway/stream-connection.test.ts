import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createStreamConnection, type GatewayConnection, type IncomingItem } from '../../../src/runtime/index.js';

/** Every item until the connection's input ends. */
async function drain(connection: GatewayConnection): Promise<IncomingItem[]> {
  const items: IncomingItem[] = [];
  for await (const item of connection.incoming) items.push(item);
  return items;
}

function rawPair() {
  const input = new PassThrough();
  const output = new PassThrough();
  return { input, connection: createStreamConnection(input, output) };
}

describe('NDJSON stream connection: the last line of the input', () => {
  it('is a message when it is complete without its newline', async () => {
    const { input, connection } = rawPair();
    input.end('{"type":"a"}\n{"type":"last","id":"9"}');
    expect(await drain(connection)).toEqual([
      { kind: 'message', message: { type: 'a' } },
      { kind: 'message', message: { type: 'last', id: '9' } },
    ]);
  });

  it('is a truncated item (CONNECTION_CLOSED, not PROTOCOL) when the input ends in the middle of it', async () => {
    const { input, connection } = rawPair();
    input.end('{"type":"a"}\n{"type":"run_tool","id":"4","payload":{"args":"cut he');
    const items = await drain(connection);
    expect(items).toHaveLength(2);
    const [, cut] = items;
    expect(cut).toMatchObject({ kind: 'malformed', truncated: true, id: '4', bytes: 53 });
    if (cut?.kind !== 'malformed') throw new Error('expected a malformed item');
    expect(cut.text).toBe('{"type":"run_tool","id":"4","payload":{"args":"cut he');
    expect(cut.error.code).toBe('CONNECTION_CLOSED');
    expect(cut.error.message).toBe('runtime: gateway connection ended in the middle of a message (53 bytes without a newline)');
    expect(cut.error.details).toEqual({ bytes: 53 });
  });

  it("keeps the input's own error as the cause of a line it cut short", async () => {
    const { input, connection } = rawPair();
    input.write('{"type":"sig","seq":1,"body":"');
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    setImmediate(() => input.destroy(reset));
    const [cut] = await drain(connection);
    expect(cut).toMatchObject({ kind: 'malformed', truncated: true });
    if (cut?.kind !== 'malformed') throw new Error('expected a malformed item');
    expect(cut.error.code).toBe('CONNECTION_CLOSED');
    expect(cut.error.cause).toBe(reset);
  });

  it('stays PROTOCOL, never truncated, for complete lines that are not messages, with or without their newline', async () => {
    const { input, connection } = rawPair();
    input.end('{"type":"x","id":"1",\n{"id":"2"}');
    const items = await drain(connection);
    expect(items.map((item) => (item.kind === 'malformed' ? [item.error.code, item.id, item.truncated] : item.kind))).toEqual([
      ['PROTOCOL', '1', undefined],
      ['PROTOCOL', '2', undefined],
    ]);
  });
});
