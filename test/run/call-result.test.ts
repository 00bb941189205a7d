import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { ToolexecError } from '../../src/model/index.js';
import { callToolResultSchema, isPlainCallToolResult } from '../../src/run/internal.js';
import { type SdkMcpExecutor, createMcpExecutor } from '../../src/mcp/index.js';
import { ToolError, createRunner } from '../../src/run/index.js';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Results the two schemas must judge alike, chosen by hand (each kind of block, each way to be wrong). */
const CORPUS: Array<[string, unknown]> = [
  ['one text block', { content: [{ type: 'text', text: 'hi' }] }],
  ['no blocks', { content: [] }],
  [
    'several text blocks',
    {
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: '' },
      ],
    },
  ],
  ['structured', { content: [{ type: 'text', text: '{"sum":5}' }], structuredContent: { sum: 5 } }],
  ['structured, nested', { content: [], structuredContent: { rows: [{ a: 1 }, { a: null }], meta: { deep: { x: 'y' } } } }],
  ['structured, no content', { structuredContent: { sum: 5 } }],
  ['isError', { content: [{ type: 'text', text: 'boom' }], isError: true }],
  ['isError false', { content: [{ type: 'text', text: 'fine' }], isError: false }],
  ['unknown top-level key', { content: [{ type: 'text', text: 'x' }], extra: { kept: true } }],
  ['_meta', { content: [{ type: 'text', text: 'x' }], _meta: { trace: 'abc' } }],
  ['_meta with a progress token', { content: [], _meta: { progressToken: 7 } }],
  ['text block with an unknown key', { content: [{ type: 'text', text: 'x', extra: 1 }] }],
  ['text block with annotations', { content: [{ type: 'text', text: 'x', annotations: { audience: ['user'], priority: 0.5 } }] }],
  ['text block with bad annotations', { content: [{ type: 'text', text: 'x', annotations: { priority: 7 } }] }],
  ['text block with _meta', { content: [{ type: 'text', text: 'x', _meta: { a: 1 } }] }],
  ['image', { content: [{ type: 'image', data: PNG_1PX, mimeType: 'image/png' }] }],
  ['image with bad base64', { content: [{ type: 'image', data: '!!not base64!!', mimeType: 'image/png' }] }],
  ['audio', { content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] }],
  ['resource link', { content: [{ type: 'resource_link', uri: 'file:///a.txt', name: 'a' }] }],
  ['embedded text resource', { content: [{ type: 'resource', resource: { uri: 'mem://x', text: 'body' } }] }],
  ['embedded blob resource', { content: [{ type: 'resource', resource: { uri: 'mem://x', blob: 'AAAA' } }] }],
  [
    'text and image',
    {
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: PNG_1PX, mimeType: 'image/png' },
      ],
    },
  ],
  ['text that is not a string', { content: [{ type: 'text', text: 5 }] }],
  ['text without text', { content: [{ type: 'text' }] }],
  ['unknown block type', { content: [{ type: 'video', url: 'x' }] }],
  ['null block', { content: [null] }],
  ['string block', { content: ['hi'] }],
  ['content not an array', { content: { type: 'text', text: 'x' } }],
  ['content null', { content: null }],
  ['structured is an array', { content: [], structuredContent: [1, 2] }],
  ['structured is null', { content: [], structuredContent: null }],
  ['structured is a string', { content: [], structuredContent: 'x' }],
  ['isError a string', { content: [], isError: 'yes' }],
  ['isError null', { content: [], isError: null }],
  ['empty object', {}],
  ['own __proto__ key in structuredContent', JSON.parse('{"content":[],"structuredContent":{"__proto__":{"x":1},"a":2}}')],
  ['own __proto__ key at the top', JSON.parse('{"content":[],"__proto__":{"isError":"x"}}')],
  ['own __proto__ key on a text block', JSON.parse('{"content":[{"type":"text","text":"a","__proto__":{"b":1}}]}')],
  ['null', null],
  ['array', []],
  ['string', 'result'],
  ['number', 42],
];

/** Marks a key a generated result leaves out (absent, not `undefined`). */
const ABSENT = Symbol('absent');

/** `arbitrary` in `percent` of draws, else {@link ABSENT}. */
function sometimes<T>(percent: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | typeof ABSENT> {
  return fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(ABSENT) }, { weight: percent, arbitrary });
}

/** Results of every kind: plain ones, others the SDK accepts, and invalid ones. */
const generatedResult: fc.Arbitrary<unknown> = (() => {
  const block = fc.oneof(
    fc.constantFrom('', 'hi', '{"a":1}').map((text) => ({ type: 'text', text })),
    fc.constant({ type: 'text', text: 'x' }),
    fc.constantFrom(1, null, true).map((text) => ({ type: 'text', text })),
    fc
      .tuple(fc.constantFrom('annotations', '_meta', 'extra'), fc.constantFrom<unknown>({}, { priority: 2 }, { audience: ['user'] }, 'x'))
      .map(([key, value]) => ({ type: 'text', text: 'x', [key]: value })),
    fc.constantFrom(PNG_1PX, '%%', '').map((data) => ({ type: 'image', data, mimeType: 'image/png' })),
    fc.constantFrom<unknown>({ uri: 'u', text: 't' }, { uri: 'u' }, { text: 't' }).map((resource) => ({ type: 'resource', resource })),
    fc.constantFrom('video', 'TEXT', 'resource_link').map((type) => ({ type, uri: 'u', name: 'n' })),
    fc.constantFrom<unknown>(null, 'text', 3, []),
  );
  const result = fc
    .record({
      content: sometimes(
        90,
        fc.oneof(
          { weight: 9, arbitrary: fc.array(block, { maxLength: 3 }) },
          { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'x', {}, 1) },
        ),
      ),
      structuredContent: sometimes(40, fc.constantFrom<unknown>({ a: 1 }, {}, { nested: { list: [1, 'a', null] } }, [1], null, 'x', 0)),
      isError: sometimes(30, fc.constantFrom<unknown>(true, false, 'true', 1, null)),
      _meta: sometimes(15, fc.constantFrom<unknown>({}, { progressToken: 'p' }, { progressToken: {} }, 'm')),
      extra: sometimes(15, fc.tuple(fc.constantFrom('extra', 'note'), fc.constantFrom<unknown>(1, { a: 'b' }, null))),
    })
    .map(({ extra, ...keys }) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(keys)) if (value !== ABSENT) out[key] = value;
      if (extra !== ABSENT) out[extra[0]] = extra[1];
      return out;
    });
  return fc.oneof({ weight: 97, arbitrary: result }, { weight: 3, arbitrary: fc.constantFrom<unknown>(null, [], 'x', 7) });
})();

function expectSameVerdict(value: unknown): void {
  const ours = callToolResultSchema.safeParse(value);
  const sdk = CallToolResultSchema.safeParse(value);
  expect(ours.success).toBe(sdk.success);
  if (ours.success && sdk.success) expect(ours.data).toEqual(sdk.data);
}

describe('the tools/call result schema', () => {
  it.each(CORPUS)('judges a result like the SDK schema: %s', (_name, value) => {
    expectSameVerdict(value);
  });

  it('judges 5,000 generated results like the SDK schema', () => {
    let plain = 0;
    let rejected = 0;
    fc.assert(
      fc.property(generatedResult, (value) => {
        expectSameVerdict(value);
        if (isPlainCallToolResult(value)) plain++;
        if (!CallToolResultSchema.safeParse(value).success) rejected++;
      }),
      { numRuns: 5_000, seed: 20261121 },
    );
    // The generator reaches all three kinds: plain results, others the SDK accepts, and invalid ones.
    expect(plain).toBeGreaterThan(200);
    expect(rejected).toBeGreaterThan(1_000);
    expect(5_000 - plain - rejected).toBeGreaterThan(200);
  });

  it('returns a plain result as it arrived and rebuilds no other', () => {
    const plain = { content: [{ type: 'text', text: 'a' }], structuredContent: { a: 1 }, isError: false };
    const parsed = callToolResultSchema.safeParse(plain);
    expect(parsed.success && parsed.data).toBe(plain);
    const image = { content: [{ type: 'image', data: PNG_1PX, mimeType: 'image/png' }] };
    expect(isPlainCallToolResult(image)).toBe(false);
    const viaSdk = callToolResultSchema.safeParse(image);
    expect(viaSdk.success).toBe(true);
    expect(viaSdk.success && viaSdk.data).not.toBe(image);
    expect(viaSdk.success && viaSdk.data).toEqual(image);
    // No content at all: the SDK's default (an empty list) applies.
    const bare = callToolResultSchema.safeParse({ structuredContent: { a: 1 } });
    expect(bare.success && bare.data).toEqual({ content: [], structuredContent: { a: 1 } });
  });
});

/** An MCP peer that answers `initialize`, then every `tools/call` with the result scripted for the tool's name. */
async function scriptedServer(results: Record<string, unknown>): Promise<InMemoryTransport> {
  const [client, server] = InMemoryTransport.createLinkedPair();
  server.onmessage = (message: JSONRPCMessage) => {
    if (!('id' in message) || !('method' in message)) return;
    const params = (message.params ?? {}) as { name?: string; protocolVersion?: string };
    const result =
      message.method === 'initialize'
        ? { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '1.0.0' } }
        : message.method === 'tools/call'
          ? results[params.name ?? '']
          : {};
    void server.send({ jsonrpc: '2.0', id: message.id, result: result as Record<string, unknown> });
  };
  await server.start();
  return client;
}

describe('results from a server, through the executor and the runner', () => {
  const executors: SdkMcpExecutor[] = [];
  afterEach(async () => {
    await Promise.all(executors.splice(0).map((ex) => ex.close()));
  });

  const answers = {
    plain: { content: [{ type: 'text', text: 'hello' }], structuredContent: { greeting: 'hello' } },
    image: {
      content: [
        { type: 'image', data: PNG_1PX, mimeType: 'image/png' },
        { type: 'text', text: 'a dot' },
      ],
    },
    broken: { content: [{ type: 'text', text: 42 }] },
    badStructured: { content: [], structuredContent: ['not', 'an', 'object'] },
    // What JSON.parse makes of a server's `{"__proto__": …}`: an own key, a pollution risk for naive merges.
    polluting: JSON.parse('{"content":[],"structuredContent":{"__proto__":{"isAdmin":true},"ok":1}}') as Record<string, unknown>,
  };

  function scripted(): SdkMcpExecutor {
    const ex = createMcpExecutor({ servers: { odd: { transport: 'custom', createTransport: () => scriptedServer(answers) } } });
    executors.push(ex);
    return ex;
  }

  it('passes plain and non-plain results on as the server sent them', async () => {
    const ex = scripted();
    expect(await ex.callTool('odd', { name: 'plain' })).toEqual(answers.plain);
    expect(await ex.callTool('odd', { name: 'image' })).toEqual(answers.image);
  });

  it('drops an own "__proto__" key from structuredContent, as the SDK schema does', async () => {
    const result = await scripted().callTool('odd', { name: 'polluting' });
    const structured = result.structuredContent as Record<string, unknown>;
    expect(Object.hasOwn(structured, '__proto__')).toBe(false);
    expect(Object.getPrototypeOf(structured)).toBe(Object.prototype);
    expect(structured).toEqual({ ok: 1 });
    expect(({} as { isAdmin?: unknown }).isAdmin).toBeUndefined();
  });

  it('rejects an invalid result with PROTOCOL naming the server and the tool, the SDK error as cause', async () => {
    const ex = scripted();
    for (const name of ['broken', 'badStructured']) {
      const error = await ex.callTool('odd', { name }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(ToolexecError.isInstance(error)).toBe(true);
      const failure = error as ToolexecError;
      expect(failure.code).toBe('PROTOCOL');
      expect(failure.message).toContain('MCP server "odd" sent an invalid result');
      expect(failure.message).toContain(`"${name}"`);
      expect((failure.cause as Error).name).toBe('ZodError');
    }
    // The connection is still good.
    expect(await ex.callTool('odd', { name: 'plain' })).toEqual(answers.plain);
  });

  it('gives the runner the same endings with and without options (plain result, SDK-checked result, invalid result)', async () => {
    const ex = scripted();
    const index = createToolIndex();
    for (const name of Object.keys(answers)) {
      index.registerTool({ name, namespace: 'odd', inputSchema: { type: 'object' } }, { kind: 'mcp', mcp: { serverName: 'odd' } });
    }
    const runner = createRunner({ index, mcp: ex });
    for (const options of [undefined, { timeoutMs: 5_000 }]) {
      expect((await runner.run('odd:plain', {}, options)).structured).toEqual({ greeting: 'hello' });
      const image = await runner.run('odd:image', {}, options);
      expect(image.mcpResult).toEqual(answers.image);
      const failure = await runner.run('odd:broken', {}, options).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(ToolError.isToolError(failure)).toBe(true);
      expect((failure as ToolError).op).toBe('execute');
      expect(((failure as ToolError).cause as ToolexecError).code).toBe('PROTOCOL');
    }
  });
});
