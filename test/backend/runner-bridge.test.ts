import { describe, expect, it } from 'vitest';
import { createBackendRegistry, createLocalBackend, registerBackendTools, type BackendCallOptions } from '../../src/backend/index.js';
import { createToolIndex } from '../../src/discovery/index.js';
import { ToolexecError, errorStatus, mcpBackend, providerBackend } from '../../src/model/index.js';
import { createRunner, type ToolError } from '../../src/run/index.js';
import { TestBackend, tool } from './helpers.js';

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (err) {
    if (ToolexecError.isInstance(err)) return err as ToolError;
    throw err;
  }
  throw new Error('expected a rejection');
}

function setup() {
  const registry = createBackendRegistry();
  const tools = createLocalBackend('tools');
  tools.registerHandler('echo', {
    description: 'Echoes a message',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    outputSchema: { type: 'object', properties: { echoed: { type: 'string' } }, required: ['echoed'] },
    handler: (args) => ({ echoed: args.message }),
  });
  tools.registerHandler('wait', {
    handler: (_args, ctx) =>
      new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true })),
  });
  tools.registerHandler('broken', {
    handler: () => ({ echoed: 42 }),
    outputSchema: { type: 'object', properties: { echoed: { type: 'string' } } },
  });
  registry.register(tools);
  const remote = new TestBackend('remote', 'http', [tool('lookup', { namespace: 'geo' })]);
  registry.register(remote);
  registry.register(new TestBackend('off', 'http', [tool('hidden')], false));
  return { registry, tools, remote };
}

describe('backend → index + runner, end to end', () => {
  it("dispatches through the registry given as the runner's backends option", async () => {
    const { registry } = setup();
    const index = createToolIndex();
    await registerBackendTools(index, registry);
    const runner = createRunner({ index, backends: registry });
    const result = await runner.run('tools:echo', { message: 'hello' });
    expect(result.structured).toEqual({ echoed: 'hello' });
    expect(result.backend).toEqual({ kind: 'local', local: { name: 'tools:echo' } });
    expect((await failure(runner.run('tools:echo', { message: 3 }))).code).toBe('VALIDATION');
    expect((await failure(runner.run('tools:broken', {}))).code).toBe('OUTPUT_VALIDATION');
  });

  it("hands a registry backend the call's signal, deadline and idempotency key; a local handler sees them on its context", async () => {
    const { registry, remote, tools } = setup();
    const seen: Array<{ deadline: number | undefined; idempotencyKey: string | undefined }> = [];
    tools.registerHandler('context', {
      handler: (_args, ctx) => seen.push({ deadline: ctx.deadline, idempotencyKey: ctx.idempotencyKey }),
    });
    const index = createToolIndex();
    await registerBackendTools(index, registry);
    const runner = createRunner({ index, backends: registry });
    const before = Date.now();
    await runner.run('geo:lookup', {}, { idempotencyKey: 'idem-1', timeoutMs: 5_000 });
    const options = remote.calls[0]?.options as BackendCallOptions;
    expect(options.signal).toBeInstanceOf(AbortSignal);
    expect(options.idempotencyKey).toBe('idem-1');
    expect(options.deadline).toBeGreaterThanOrEqual(before + 4_900);
    expect(options.deadline).toBeLessThanOrEqual(Date.now() + 5_100);
    // Without them, a backend is told neither.
    await runner.run('geo:lookup', {});
    expect(remote.calls[1]?.options).toEqual({ signal: expect.any(AbortSignal) as AbortSignal });
    // The same through a local backend's handler, and on a stream.
    await runner.run('tools:context', {}, { idempotencyKey: 'idem-2', deadline: before + 60_000 });
    for await (const _event of runner.runStream('tools:context', {}, { idempotencyKey: 'idem-3' })) void _event;
    expect(seen[0]?.idempotencyKey).toBe('idem-2');
    expect(Math.abs((seen[0]?.deadline ?? 0) - (before + 60_000))).toBeLessThan(1_000);
    expect(seen[1]).toEqual({ deadline: undefined, idempotencyKey: 'idem-3' });
  });

  it('looks a name up in the local option first, then in the backends registry', async () => {
    const { registry } = setup();
    const index = createToolIndex();
    await registerBackendTools(index, registry);
    const runner = createRunner({ index, backends: registry, local: { 'tools:echo': () => ({ echoed: 'local' }) } });
    expect((await runner.run('tools:echo', { message: 'hello' })).structured).toEqual({ echoed: 'local' });
    expect((await runner.run('geo:lookup', {})).backend).toEqual({ kind: 'local', local: { name: 'remote:lookup' } });
  });

  it('runs provider and MCP tool backends on the registry backend their provider or server names', async () => {
    const registry = createBackendRegistry();
    const api = new TestBackend('weather-api', 'http');
    registry.register(api);
    const server = new (class extends TestBackend {
      override async execute(toolName: string, args: Record<string, unknown>, options?: BackendCallOptions): Promise<unknown> {
        await super.execute(toolName, args, options);
        return { content: [{ type: 'text', text: '{"sum":3}' }] };
      }
    })('calc', 'mcp');
    registry.register(server);
    const index = createToolIndex();
    index.registerTool(tool('forecast', { namespace: 'wx' }), providerBackend('weather-api', 'forecast_v2'));
    index.registerTool(tool('add', { namespace: 'calc' }), mcpBackend('calc'));
    const runner = createRunner({ index, backends: registry });

    const forecast = await runner.run('wx:forecast', { city: 'Oslo' }, { timeoutMs: 5_000 });
    expect(forecast.structured).toEqual({ backend: 'weather-api', tool: 'forecast_v2', args: { city: 'Oslo' } });
    expect(api.calls[0]?.options?.signal).toBeInstanceOf(AbortSignal);

    const sum = await runner.run('calc:add', { a: 1, b: 2 });
    expect(sum.structured).toEqual({ sum: 3 });
    expect(sum.mcpResult).toEqual({ content: [{ type: 'text', text: '{"sum":3}' }] });
    expect(server.calls[0]).toMatchObject({ toolName: 'add', args: { a: 1, b: 2 } });

    server.enabled = false;
    const disabled = await failure(runner.run('calc:add', {}));
    expect(disabled.code).toBe('BACKEND_DISABLED');
    expect(disabled.details).toMatchObject({ backend: 'calc' });

    // A server the registry does not hold goes to the MCP executor (none here).
    index.registerTool(tool('other', { namespace: 'ext' }), mcpBackend('elsewhere'));
    expect((await failure(runner.run('ext:other', {}))).message).toContain('MCP executor not configured');
  });

  it('refuses a backends option that is not a registry (CONFIGURATION)', () => {
    expect(() => createRunner({ backends: {} as never })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }));
  });

  it('registers enabled backends’ tools and runs them by backend:tool with validation', async () => {
    const { registry } = setup();
    const index = createToolIndex();
    expect(await registerBackendTools(index, registry)).toBe(4);
    const runner = createRunner({ index, local: registry.localRegistry() });

    const result = await runner.run('tools:echo', { message: 'hello' });
    expect(result.structured).toEqual({ echoed: 'hello' });
    expect(result.backend).toEqual({ kind: 'local', local: { name: 'tools:echo' } });
    expect(result.tool.description).toBe('Echoes a message');

    const invalid = await failure(runner.run('tools:echo', { message: 3 }));
    expect(invalid.code).toBe('VALIDATION');
    expect(invalid.details?.violations).toEqual([expect.objectContaining({ field: '/message', code: 'InvalidType' })]);

    expect((await failure(runner.run('tools:broken', {}))).code).toBe('OUTPUT_VALIDATION');
    expect((await failure(runner.run('off:hidden', {}))).code).toBe('TOOL_NOT_FOUND');
  });

  it('a tool with its own namespace keeps it; the binding still names its backend', async () => {
    const { registry, remote } = setup();
    const index = createToolIndex();
    await registerBackendTools(index, registry);
    const runner = createRunner({ index, local: registry.localRegistry() });
    const result = await runner.run('geo:lookup', { q: 'x' });
    expect(result.backend).toEqual({ kind: 'local', local: { name: 'remote:lookup' } });
    expect(result.structured).toEqual({ backend: 'remote', tool: 'lookup', args: { q: 'x' } });
    expect(remote.calls[0]?.options?.signal).toBeInstanceOf(AbortSignal);
  });

  it('the runner signal reaches the backend handler; abort and timeout work through the bridge', async () => {
    const { registry } = setup();
    const index = createToolIndex();
    await registerBackendTools(index, registry);
    const runner = createRunner({ index, local: registry.localRegistry() });
    const err = await failure(runner.run('tools:wait', {}, { timeoutMs: 20 }));
    expect(err.code).toBe('TIMEOUT');
  });

  it('a disabled or removed backend fails the call at run time', async () => {
    const { registry, tools } = setup();
    const index = createToolIndex();
    await registerBackendTools(index, registry);
    const runner = createRunner({ index, local: registry.localRegistry() });
    tools.setEnabled(false);
    const disabled = await failure(runner.run('tools:echo', { message: 'x' }));
    expect(disabled.code).toBe('BACKEND_DISABLED');
    expect(errorStatus(disabled)).toBe(503);
    tools.setEnabled(true);
    await registry.unregister('tools');
    const gone = await failure(runner.run('tools:echo', { message: 'x' }));
    expect(gone.code).toBe('BACKEND_NOT_FOUND');
    expect(gone.op).toBe('execute');
    expect(gone.details).toMatchObject({ backend: 'tools' });
    expect(errorStatus(gone)).toBe(404);
  });

  it('localRegistry().get gives undefined for malformed names; a name of an unknown backend fails with BACKEND_NOT_FOUND when called', async () => {
    const { registry } = setup();
    const lookup = registry.localRegistry();
    expect(lookup.get('no-colon')).toBeUndefined();
    expect(lookup.get('a:b:c:d')).toBeUndefined();
    const unknown = lookup.get('nobody:echo');
    expect(typeof unknown).toBe('function');
    const err = await failure((unknown as NonNullable<typeof unknown>)({}, { signal: new AbortController().signal }));
    expect(err.code).toBe('BACKEND_NOT_FOUND');
    expect(err.details).toEqual({ backend: 'nobody' });
    expect(typeof lookup.get('tools:echo')).toBe('function');
  });

  it('a failing listing registers nothing', async () => {
    const { registry, remote } = setup();
    remote.listError = new Error('down');
    const index = createToolIndex();
    await expect(registerBackendTools(index, registry)).rejects.toMatchObject({ code: 'EXECUTION' });
    expect(index.listNamespaces()).toEqual([]);
    await expect(registerBackendTools({} as never, registry)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
