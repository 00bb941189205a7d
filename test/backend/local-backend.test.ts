import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { LocalBackend, createLocalBackend, type BackendToolContext, type BackendToolDefinition } from '../../src/backend/index.js';
import { ToolexecError } from '../../src/model/index.js';
import { activeTimers, sleep, timedFailure } from './helpers.js';

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

describe('LocalBackend.execute stops on abort and deadline, whether the handler listens or not', () => {
  /** A backend whose `slow` handler ignores its signal and resolves after 500 ms; `never` never settles. */
  function slowBackend(): { backend: LocalBackend; contexts: BackendToolContext[] } {
    const backend = createLocalBackend('tools');
    const contexts: BackendToolContext[] = [];
    backend.registerHandler('slow', async (_args, ctx) => {
      contexts.push(ctx);
      await sleep(500);
      return 'late';
    });
    backend.registerHandler('never', (_args, ctx) => {
      contexts.push(ctx);
      return new Promise(() => {});
    });
    return { backend, contexts };
  }

  it("the caller's abort mid-handler rejects at once with ABORTED, the signal's reason as cause; no listener stays", async () => {
    const { backend } = slowBackend();
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    setTimeout(() => controller.abort(reason), 30);
    const { error, ms } = await timedFailure(backend.execute('slow', {}, { signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);
    expect(error.message).toBe('backend: tools:slow aborted: user cancelled');
    expect(error.details).toEqual({ backend: 'tools', tool: 'slow' });
    expect(ms).toBeLessThan(300);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("a deadline passing mid-handler rejects with TIMEOUT and aborts the handler's ctx.signal; no timer or listener stays", async () => {
    const { backend, contexts } = slowBackend();
    await sleep(50); // let earlier timers run out
    const timersBefore = activeTimers();
    const controller = new AbortController();
    const { error, ms } = await timedFailure(backend.execute('never', {}, { signal: controller.signal, deadline: Date.now() + 40 }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toMatch(/^backend: tools:never timed out: /);
    expect((error.cause as { name?: unknown }).name).toBe('TimeoutError');
    expect(ms).toBeLessThan(300);
    const ctx = contexts[0] as BackendToolContext;
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBe(error.cause);
    expect(ctx.deadline).toBeGreaterThan(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it('a deadline alone (no signal) stops the call too; a deadline already passed refuses before the handler runs', async () => {
    const { backend, contexts } = slowBackend();
    const { error, ms } = await timedFailure(backend.execute('slow', {}, { deadline: Date.now() + 30 }));
    expect(error.code).toBe('TIMEOUT');
    expect(ms).toBeLessThan(300);
    const before = contexts.length;
    expect((await timedFailure(backend.execute('slow', {}, { deadline: Date.now() - 1 }))).error.code).toBe('TIMEOUT');
    expect(contexts).toHaveLength(before);
  });

  it('a call that finishes in time leaves nothing behind and keeps the handler result; ctx.signal is the caller signal without a deadline', async () => {
    const backend = createLocalBackend('b');
    const seen: AbortSignal[] = [];
    backend.registerHandler('quick', async (_args, ctx) => {
      seen.push(ctx.signal);
      await sleep(5);
      return 'done';
    });
    backend.registerHandler('sync', () => 'now');
    await sleep(20);
    const timersBefore = activeTimers();
    const controller = new AbortController();
    expect(await backend.execute('quick', {}, { signal: controller.signal })).toBe('done');
    expect(seen[0]).toBe(controller.signal);
    expect(await backend.execute('quick', {}, { signal: controller.signal, deadline: Date.now() + 10_000 })).toBe('done');
    expect(seen[1]).not.toBe(controller.signal);
    expect(seen[1]?.aborted).toBe(false);
    expect(await backend.execute('sync', {}, { signal: controller.signal, deadline: Date.now() + 10_000 })).toBe('now');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it('a handler that gives up because it was told to stop is reported as stopped, not as EXECUTION', async () => {
    const backend = createLocalBackend('b');
    backend.registerHandler('listens', (_args, ctx) => {
      return new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => reject(new Error('handler saw the abort')), { once: true });
      });
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    expect((await timedFailure(backend.execute('listens', {}, { signal: controller.signal }))).error.code).toBe('ABORTED');
  });

  it('options that cannot be read are INVALID_ARGUMENT, never a raw error', async () => {
    const backend = createLocalBackend('b');
    backend.registerHandler('t', () => 1);
    expect((await timedFailure(backend.execute('t', {}, { signal: {} as AbortSignal }))).error.code).toBe('INVALID_ARGUMENT');
    expect((await timedFailure(backend.execute('t', {}, { deadline: Number.NaN }))).error.code).toBe('INVALID_ARGUMENT');
    const hostile = {
      get signal(): AbortSignal {
        throw new TypeError('no');
      },
    };
    const err = (await timedFailure(backend.execute('t', {}, hostile))).error;
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.cause).toBeInstanceOf(TypeError);
  });
});
