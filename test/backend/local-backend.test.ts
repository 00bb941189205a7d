import { describe, expect, it } from 'vitest';
import { LocalBackend, createLocalBackend, type BackendToolDefinition } from '../../src/backend/index.js';
import { ToolexecError } from '../../src/model/index.js';

async function failure(promise: Promise<unknown>): Promise<ToolexecError> {
  try {
    await promise;
  } catch (err) {
    if (ToolexecError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('LocalBackend (cases 147–151)', () => {
  it('case 147: kind local, the given name, enabled', () => {
    const backend = createLocalBackend('x');
    expect(backend).toBeInstanceOf(LocalBackend);
    expect([backend.kind, backend.name, backend.enabled]).toEqual(['local', 'x', true]);
    expect(() => createLocalBackend('')).toThrow(ToolexecError);
  });

  it('case 148: a definition without a name is listed under its key', async () => {
    const backend = createLocalBackend('b');
    backend.registerHandler('greet', { handler: () => 'hi' });
    const [listed] = await backend.listTools();
    expect(listed?.name).toBe('greet');
  });

  it('lists every field with namespace = backend name, normalized tags, a default input schema; sorted by key', async () => {
    const backend = createLocalBackend('tools');
    backend.registerHandler('z', { handler: () => 1 });
    backend.registerHandler('a', {
      name: 'alpha',
      title: 'Alpha',
      description: 'first',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      tags: [' Read Only ', 'read only', 'X!'],
      handler: () => 1,
    });
    const tools = await backend.listTools();
    expect(tools).toEqual([
      {
        name: 'alpha',
        title: 'Alpha',
        description: 'first',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        outputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
        namespace: 'tools',
        tags: ['read-only', 'x'],
      },
      { name: 'z', inputSchema: { type: 'object' }, namespace: 'tools', tags: [] },
    ]);
  });

  it('case 149: a disabled backend → BACKEND_DISABLED, checked before the lookup', async () => {
    const backend = createLocalBackend('b');
    backend.setEnabled(false);
    expect(backend.enabled).toBe(false);
    expect((await failure(backend.execute('missing', {}))).code).toBe('BACKEND_DISABLED');
    backend.setEnabled(true);
    expect((await failure(backend.execute('missing', {}))).code).toBe('TOOL_NOT_FOUND');
  });

  it('case 150: no handler → TOOL_NOT_FOUND; an unknown tool → TOOL_NOT_FOUND', async () => {
    const backend = createLocalBackend('b');
    backend.registerHandler('nohandler', { handler: undefined } as unknown as BackendToolDefinition);
    expect((await failure(backend.execute('nohandler', {}))).code).toBe('TOOL_NOT_FOUND');
    const err = await failure(backend.execute('unknown', {}));
    expect(err.code).toBe('TOOL_NOT_FOUND');
    expect(err.message).toBe('backend: tool not found in backend: b:unknown');
  });

  it('case 151: unregisterHandler removes the tool', async () => {
    const backend = createLocalBackend('b');
    backend.registerHandler('t', { handler: () => 1 });
    expect(backend.unregisterHandler('t')).toBe(true);
    expect(backend.unregisterHandler('t')).toBe(false);
    expect(await backend.listTools()).toEqual([]);
  });

  it('executes by key, or by listed name when it differs from the key; replaces on re-register', async () => {
    const backend = createLocalBackend('b');
    backend.registerHandler('key', { name: 'shown', handler: (args) => ({ via: 'first', args }) });
    expect(await backend.execute('key', { a: 1 })).toEqual({ via: 'first', args: { a: 1 } });
    expect(await backend.execute('shown', {})).toEqual({ via: 'first', args: {} });
    backend.registerHandler('key', { handler: () => 'second' });
    expect(await backend.execute('key', {})).toBe('second');
  });

  it('passes the signal; a handler error is EXECUTION with it as cause; an aborted signal → ABORTED', async () => {
    const backend = createLocalBackend('b');
    let seen: AbortSignal | undefined;
    backend.registerHandler('sig', {
      handler: (_args, ctx) => {
        seen = ctx.signal;
        return 1;
      },
    });
    const controller = new AbortController();
    await backend.execute('sig', {}, { signal: controller.signal });
    expect(seen).toBe(controller.signal);
    await backend.execute('sig', {});
    expect(seen).toBeInstanceOf(AbortSignal);
    expect(seen?.aborted).toBe(false);
    const boom = new Error('boom');
    backend.registerHandler('bad', {
      handler: async () => {
        throw boom;
      },
    });
    const err = await failure(backend.execute('bad', {}));
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(boom);
    controller.abort();
    expect((await failure(backend.execute('sig', {}, { signal: controller.signal }))).code).toBe('ABORTED');
    expect((await failure(backend.execute('sig', {}, { signal: AbortSignal.abort(new DOMException('t', 'TimeoutError')) }))).code).toBe(
      'TIMEOUT',
    );
  });

  it('rejects an empty key or a non-object definition; start and stop resolve', async () => {
    const backend = createLocalBackend('b');
    expect(() => backend.registerHandler('', { handler: () => 1 })).toThrow(ToolexecError);
    expect(() => backend.registerHandler('k', null as unknown as BackendToolDefinition)).toThrow(ToolexecError);
    await expect(backend.start()).resolves.toBeUndefined();
    await expect(backend.stop()).resolves.toBeUndefined();
  });

  it('a bare handler is a tool named by its key; get and has find what execute finds', async () => {
    const backend = createLocalBackend('b');
    const handler = (_args: Record<string, unknown>, ctx: { toolId: string }) => ctx.toolId;
    backend.registerHandler('bare', handler);
    backend.registerHandler('key', { name: 'listed', handler: () => 'by name' });
    backend.registerHandler('empty', {} as BackendToolDefinition);
    expect(await backend.listTools()).toContainEqual({ name: 'bare', inputSchema: { type: 'object' }, namespace: 'b', tags: [] });
    expect(backend.get('bare')).toBe(handler);
    expect(await backend.execute('bare', {})).toBe('b:bare');
    expect(backend.get('listed')?.({}, { signal: new AbortController().signal, toolId: 'x' })).toBe('by name');
    expect([backend.has('bare'), backend.has('listed'), backend.has('missing')]).toEqual([true, false, false]);
    expect(backend.get('missing')).toBeUndefined();
    expect(backend.get('empty')).toBeUndefined();
    expect(() => backend.registerHandler('k', 42 as unknown as BackendToolDefinition)).toThrow(/handler function or a definition/);
  });

  it('while disabled, get hands out a handler that refuses with BACKEND_DISABLED', () => {
    const backend = createLocalBackend('b');
    backend.registerHandler('t', () => 1);
    backend.setEnabled(false);
    const refusing = backend.get('t');
    expect(() => refusing?.({}, { signal: new AbortController().signal, toolId: 'b:t' })).toThrow(
      expect.objectContaining({ code: 'BACKEND_DISABLED' }),
    );
    backend.setEnabled(true);
    expect(backend.get('t')?.({}, { signal: new AbortController().signal, toolId: 'b:t' })).toBe(1);
  });
});
