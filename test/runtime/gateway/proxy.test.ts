import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContractFixture, gatewayContract } from '../../../src/testing/gateway-contract.js';
import {
  createDirectGateway,
  createProxyGateway,
  createStreamConnection,
  createTracingGateway,
  ProxyGateway,
  serveGateway,
  type GatewayConnection,
  type WireMessage,
} from '../../../src/runtime/index.js';
import { portPair, proxied, signalWatchingGateway, streamPair, tcpPair } from '../helpers.js';

gatewayContract('proxy over NDJSON streams', (fixture) => proxied(createDirectGateway(fixture), streamPair()));
gatewayContract('proxy over TCP', async (fixture) => proxied(createDirectGateway(fixture), await tcpPair()));
gatewayContract('proxy over a MessagePort', (fixture) => proxied(createDirectGateway(fixture), portPair()));
gatewayContract('proxy over a MessagePort, as JSON text', (fixture) => proxied(createDirectGateway(fixture), portPair('json')));

/** A scripted server: answers each request with `reply(message)` (or nothing), records what it saw. */
function scripted(reply: (message: WireMessage) => WireMessage | WireMessage[] | undefined): {
  proxy: ProxyGateway;
  seen: WireMessage[];
  server: GatewayConnection;
  done: Promise<void>;
} {
  const { client, server } = streamPair();
  const seen: WireMessage[] = [];
  const done = (async () => {
    for await (const item of server.incoming) {
      if (item.kind !== 'message') continue;
      seen.push(item.message);
      const answer = reply(item.message);
      for (const message of answer === undefined ? [] : Array.isArray(answer) ? answer : [answer]) await server.send(message);
    }
  })();
  return { proxy: createProxyGateway({ connection: client }), seen, server, done };
}

const respond =
  (payload: unknown) =>
  (message: WireMessage): WireMessage => ({ type: 'response', id: message.id, payload });

async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected a failure');
}

describe('proxy gateway', () => {
  it('sends requests with ids from "1" and the documented payloads (245-247)', async () => {
    const { proxy, seen } = scripted((message) => {
      switch (message.type) {
        case 'search_tools':
          return respond({ results: [{ id: 'test:tool', name: 'tool', namespace: 'test', summary: 's', tags: ['a'] }] })(message);
        case 'list_namespaces':
          return respond({ namespaces: ['ns1', 'ns2'] })(message);
        case 'describe_tool':
          return respond({ summary: 'Summary', notes: 'Notes', schemaInfo: { required: ['x'] } })(message);
        case 'run_tool':
          return respond({ structured: 'result', tool: { name: 'tool' }, backend: { kind: 'mcp', mcp: { serverName: 's' } } })(message);
        case 'run_chain':
          return respond({
            result: { structured: 'chain_result' },
            steps: [
              { toolId: 'step1', result: { structured: 'step1_result' } },
              {
                toolId: 'step2',
                backend: { kind: 'local', local: { name: 'x' } },
                error: { error: 'boom', code: 'EXECUTION', name: 'ToolError' },
              },
            ],
          })(message);
        default:
          return undefined;
      }
    });
    const found = await proxy.searchTools('q', 3);
    expect(found).toEqual([{ id: 'test:tool', name: 'tool', namespace: 'test', summary: 's', tags: ['a'] }]);
    expect(await proxy.listNamespaces()).toEqual(['ns1', 'ns2']);
    expect(await proxy.describeTool('test:tool', 'schema')).toEqual({
      summary: 'Summary',
      notes: 'Notes',
      schemaInfo: { required: ['x'] },
    });
    const run = await proxy.runTool('test:tool', { a: 1 });
    expect(run).toMatchObject({ structured: 'result', backend: { kind: 'mcp' } });
    const chain = await proxy.runChain([{ toolId: 'step1' }, { toolId: 'step2', args: { x: 1 }, usePrevious: true }]);
    expect(chain.result?.structured).toBe('chain_result');
    expect(chain.steps).toHaveLength(2);
    expect(chain.steps[1]?.error).toMatchObject({ code: 'EXECUTION', message: 'boom', name: 'ToolError' });
    expect(chain.steps[1]?.backend?.kind).toBe('local');
    expect(seen.map((m) => [m.type, m.id])).toEqual([
      ['search_tools', '1'],
      ['list_namespaces', '2'],
      ['describe_tool', '3'],
      ['run_tool', '4'],
      ['run_chain', '5'],
    ]);
    expect(seen[0]?.payload).toEqual({ query: 'q', limit: 3 });
    expect(seen[1]).not.toHaveProperty('payload');
    expect(seen[2]?.payload).toEqual({ id: 'test:tool', level: 'schema' });
    expect(seen[3]?.payload).toEqual({ id: 'test:tool', toolRev: 0, args: { a: 1 } });
    expect(seen[4]?.payload).toEqual({ steps: [{ toolId: 'step1' }, { toolId: 'step2', args: { x: 1 }, usePrevious: true }] });
    await proxy.close();
  });

  it('keeps the tool definitions it received: one frozen definition per tool, taken back when the reply leaves it out', async () => {
    const add = { name: 'add', namespace: 'test', inputSchema: { type: 'object', required: ['a'] } };
    const local = { kind: 'local', local: { name: 'add' } };
    const reply = (toolRev: number, payload: unknown) => (message: WireMessage) => ({ type: 'response', id: message.id, toolRev, payload });
    const answers = [
      reply(7, { tool: add, backend: local, structured: 1 }),
      reply(7, { tool: null, backend: null, structured: 2 }),
      reply(8, { tool: { ...add, description: 'changed' }, backend: local, structured: 3 }),
    ];
    const { proxy, seen } = scripted((message) => answers.shift()?.(message));
    const first = await proxy.runTool('test:add', { a: 1 });
    const second = await proxy.runTool('test:add', { a: 2 });
    const third = await proxy.runTool('test:add', { a: 3 });
    expect(seen.map((message) => (message.payload as { toolRev?: unknown }).toolRev)).toEqual([0, 7, 7]);
    expect(second).toEqual({ tool: add, backend: local, structured: 2 });
    expect(second.tool).toBe(first.tool);
    expect(second.backend).toBe(first.backend);
    expect(Object.isFrozen(first.tool) && Object.isFrozen(first.tool.inputSchema) && Object.isFrozen(first.backend)).toBe(true);
    expect(third.tool).toMatchObject({ description: 'changed' });
    await proxy.close();
  });

  it('gets a tool definition once from a real server, and its results share it', async () => {
    const proxy = proxied(createDirectGateway(createContractFixture()), streamPair());
    const results = [await proxy.runTool('test:add', { a: 1, b: 2 }), await proxy.runTool('test:add', { a: 2, b: 2 })];
    expect(results.map((r) => r.structured)).toEqual([3, 4]);
    expect(results[1]?.tool).toBe(results[0]?.tool);
    expect(results[1]?.tool).toMatchObject({ name: 'add', inputSchema: { required: ['a', 'b'] } });
    expect(Object.isFrozen(results[1]?.tool)).toBe(true);
    await proxy.close();
  });

  it('resolves an empty chain without sending anything (248)', async () => {
    const { proxy, seen } = scripted(() => undefined);
    await expect(proxy.runChain([])).resolves.toMatchObject({ steps: [] });
    await proxy.close();
    expect(seen).toEqual([]);
  });

  it('rejects every method with CONNECTION_CLOSED after close, even an empty chain (249)', async () => {
    const { proxy, seen } = scripted(respond({}));
    await proxy.close();
    await proxy.close();
    const calls: Promise<unknown>[] = [
      proxy.searchTools('', 1),
      proxy.listNamespaces(),
      proxy.describeTool('a', 'summary'),
      proxy.listToolExamples('a', 1),
      proxy.runTool('a'),
      proxy.runChain([{ toolId: 'a' }]),
      proxy.runChain([]),
    ];
    for (const call of calls) expect((await failure(call)).code).toBe('CONNECTION_CLOSED');
    expect(seen).toEqual([]);
  });

  it('rebuilds error replies with their code, message and fields (250-251)', async () => {
    const { proxy } = scripted((message) => {
      const payloads: Record<string, unknown> = {
        describe_tool: { error: 'tool not found' },
        list_namespaces: {},
        search_tools: { error: 'nope', code: 'TOOL_NOT_FOUND', details: { id: 'x' }, name: 'ToolError', toolId: 'x', op: 'resolve' },
        run_tool: { error: 'weird', code: 'NOT_A_REAL_CODE' },
      };
      return { type: 'error', id: message.id as string, payload: payloads[message.type] };
    });
    const plain = await failure(proxy.describeTool('a', 'summary'));
    expect(plain.message).toBe('tool not found');
    expect(plain.code).toBe('EXECUTION');
    expect((await failure(proxy.listNamespaces())).message).toBe('unknown error');
    const typed = (await failure(proxy.searchTools('', 1))) as Error & { code?: string; details?: unknown; toolId?: string; op?: string };
    expect(typed).toMatchObject({
      code: 'TOOL_NOT_FOUND',
      message: 'nope',
      name: 'ToolError',
      details: { id: 'x' },
      toolId: 'x',
      op: 'resolve',
    });
    expect((await failure(proxy.runTool('a'))).code).toBe('EXECUTION');
    await proxy.close();
  });

  it('decodes examples; an empty payload gives none (252)', async () => {
    let calls = 0;
    const { proxy } = scripted((message) => {
      calls += 1;
      return respond(
        calls === 1
          ? {
              examples: [
                { id: 'e1', title: 'T', description: 'D', resultHint: 'R', args: { a: 1 } },
                { id: 'e2', title: 'T2' },
              ],
            }
          : {},
      )(message);
    });
    const examples = await proxy.listToolExamples('x', 5);
    expect(examples).toEqual([
      { id: 'e1', title: 'T', description: 'D', resultHint: 'R', args: { a: 1 } },
      { id: 'e2', title: 'T2' },
    ]);
    await expect(proxy.listToolExamples('x', 5)).resolves.toEqual([]);
    await proxy.close();
  });

  it('ignores replies for unknown ids (253)', async () => {
    const { proxy } = scripted((message) => [
      { type: 'response', id: '999', payload: { namespaces: ['wrong'] } },
      { type: 'response', payload: {} },
      respond({ namespaces: ['right'] })(message),
    ]);
    await expect(proxy.listNamespaces()).resolves.toEqual(['right']);
    expect(proxy.stats.unmatched).toBe(2);
    await proxy.close();
  });

  it('rejects an aborted request with ABORTED, tells the server, and ignores the late reply (256)', async () => {
    let hold: WireMessage | undefined;
    const { proxy, seen, server } = scripted((message) => {
      if (message.type === 'list_namespaces') hold = message;
      return undefined;
    });
    const controller = new AbortController();
    const pending = proxy.listNamespaces({ signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error('user stop'));
    const error = await failure(pending);
    expect(error.code).toBe('ABORTED');
    expect((error.cause as Error).message).toBe('user stop');
    expect(proxy.pendingCount).toBe(0);
    await server.send({ type: 'response', id: hold?.id, payload: { namespaces: [] } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(proxy.stats.unmatched).toBe(1);
    expect(seen.map((m) => m.type)).toEqual(['list_namespaces', 'cancel']);
    expect(seen[1]?.id).toBe(hold?.id);
    await proxy.close();
  });

  it('times requests out (TIMEOUT) and cancels them on the server', async () => {
    const { client, server } = streamPair();
    const proxy = createProxyGateway({ connection: client, requestTimeoutMs: 50 });
    const { seen: signals, watching } = signalWatchingGateway();
    const served = serveGateway(watching, server);
    const started = performance.now();
    const error = await failure(proxy.runTool('test:slow', { ms: 5000 }));
    expect(error.code).toBe('TIMEOUT');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(proxy.pendingCount).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(signals[0]?.aborted).toBe(true);
    await proxy.close();
    await served.close();
  });

  it('rejects pending requests with CONNECTION_CLOSED when closed or when the connection ends', async () => {
    const first = scripted(() => undefined);
    const pending = first.proxy.runTool('x');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await first.proxy.close();
    expect((await failure(pending)).code).toBe('CONNECTION_CLOSED');

    const second = scripted(() => undefined);
    const waiting = second.proxy.searchTools('q', 1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await second.server.close();
    expect((await failure(waiting)).code).toBe('CONNECTION_CLOSED');
    expect(second.proxy.closed).toBe(true);
    expect((await failure(second.proxy.listNamespaces())).code).toBe('CONNECTION_CLOSED');
    await second.proxy.close();
  });

  it('rejects a reply of an unexpected shape with PROTOCOL', async () => {
    const { proxy } = scripted((message) =>
      message.type === 'search_tools'
        ? respond({ results: 'not an array' })(message)
        : message.type === 'run_tool'
          ? respond('not an object')(message)
          : { type: 'surprise', id: message.id as string },
    );
    expect((await failure(proxy.searchTools('', 1))).code).toBe('PROTOCOL');
    expect((await failure(proxy.runTool('x'))).code).toBe('PROTOCOL');
    expect((await failure(proxy.listNamespaces())).code).toBe('PROTOCOL');
    await proxy.close();
  });

  it('fails the request whose reply line is malformed, by id (PROTOCOL)', async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const proxy = createProxyGateway({ connection: createStreamConnection(toClient, toServer) });
    const pending = proxy.listNamespaces();
    const other = proxy.searchTools('q', 1);
    toClient.write('{"type":"response","id":"1","payload":{"namespaces":[oops\n');
    const error = await failure(pending);
    expect(error.code).toBe('PROTOCOL');
    expect(proxy.stats.malformed).toBe(1);
    toClient.write('plain garbage without an id\n{"type":"response","id":"2","payload":{"results":[]}}\n');
    await expect(other).resolves.toEqual([]);
    expect(proxy.stats.malformed).toBe(2);
    await proxy.close();
  });

  it('is exported as a class', () => {
    const { client } = streamPair();
    const proxy = createProxyGateway({ connection: client });
    expect(proxy).toBeInstanceOf(ProxyGateway);
    return proxy.close();
  });

  it('carries full results, step errors and codes through a traced gateway end to end', async () => {
    const traced = createTracingGateway(createDirectGateway(createContractFixture()), { maxToolCalls: 3 });
    const proxy = proxied(traced, streamPair());
    await expect(proxy.runChain([{ toolId: 'test:add', args: { a: 1, b: 2 } }, { toolId: 'test:fail' }])).rejects.toMatchObject({
      code: 'EXECUTION',
      steps: [{ toolId: 'test:add' }, { toolId: 'test:fail', error: { code: 'EXECUTION' } }],
    });
    await proxy.runTool('test:add', { a: 1, b: 1 });
    await expect(proxy.runTool('test:add', { a: 1, b: 1 })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: 'limit exceeded: max 3 tool calls exceeded',
    });
    expect(traced.toolCalls.map((c) => [c.toolId, c.errorOp ?? 'ok'])).toEqual([
      ['test:add', 'ok'],
      ['test:fail', 'chain'],
      ['test:add', 'ok'],
    ]);
    await proxy.close();
  });
});
