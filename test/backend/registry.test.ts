import { describe, expect, it } from 'vitest';
import { BackendRegistry, createBackendRegistry, type Backend } from '../../src/backend/index.js';
import { ToolexecError } from '../../src/model/index.js';
import { TestBackend } from './helpers.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return ToolexecError.isInstance(err) ? err.code : 'not a ToolexecError';
  }
  return undefined;
}

describe('BackendRegistry (cases 131–138)', () => {
  it('case 131: a second registration of a name fails with BACKEND_EXISTS', () => {
    const registry = createBackendRegistry();
    expect(registry).toBeInstanceOf(BackendRegistry);
    registry.register(new TestBackend('a'));
    expect(codeOf(() => registry.register(new TestBackend('a')))).toBe('BACKEND_EXISTS');
    expect(() => registry.register(new TestBackend('a'))).toThrow('backend already registered: a');
  });

  it('case 132: a missing backend, an empty name or a name with ":" → INVALID_ARGUMENT', () => {
    const registry = createBackendRegistry();
    expect(codeOf(() => registry.register(null as unknown as Backend))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => registry.register(new TestBackend('')))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => registry.register(new TestBackend('a:b')))).toBe('INVALID_ARGUMENT');
    expect(registry.names()).toEqual([]);
  });

  it('case 133: list gives all (sorted by name), listEnabled only the enabled', () => {
    const registry = createBackendRegistry();
    registry.register(new TestBackend('c'));
    registry.register(new TestBackend('a', 'test', [], false));
    registry.register(new TestBackend('b'));
    expect(registry.list().map((b) => b.name)).toEqual(['a', 'b', 'c']);
    expect(registry.listEnabled().map((b) => b.name)).toEqual(['b', 'c']);
  });

  it('case 134: listByKind matches kind exactly', () => {
    const registry = createBackendRegistry();
    registry.register(new TestBackend('x', 'local'));
    registry.register(new TestBackend('y', 'local'));
    registry.register(new TestBackend('z', 'mcp'));
    expect(registry.listByKind('local').map((b) => b.name)).toEqual(['x', 'y']);
    expect(registry.listByKind('Local')).toEqual([]);
  });

  it('case 135: names are sorted', () => {
    const registry = createBackendRegistry();
    for (const name of ['zz', 'aa', 'mm']) registry.register(new TestBackend(name));
    expect(registry.names()).toEqual(['aa', 'mm', 'zz']);
  });

  it('case 136: unregister removes at once and stops the backend (a failing stop is ignored)', async () => {
    const registry = createBackendRegistry();
    const backend = new TestBackend('a');
    backend.stopError = new Error('stop failed');
    registry.register(backend);
    const pending = registry.unregister('a');
    expect(registry.get('a')).toBeUndefined();
    expect(await pending).toBe(true);
    expect(backend.stopped).toBe(1);
    expect(await registry.unregister('a')).toBe(false);
    registry.register(new TestBackend('a'));
    expect(registry.names()).toEqual(['a']);
  });

  it('case 137: startAll starts enabled backends in order and rejects with the first failure', async () => {
    const registry = createBackendRegistry();
    const a = new TestBackend('a');
    const b = new TestBackend('b');
    const c = new TestBackend('c');
    const off = new TestBackend('0ff', 'test', [], false);
    b.startError = new Error('b cannot start');
    for (const backend of [c, b, a, off]) registry.register(backend);
    const err = await registry.startAll().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ToolexecError.isInstance(err)).toBe(true);
    expect((err as ToolexecError).code).toBe('EXECUTION');
    expect((err as ToolexecError).cause).toBe(b.startError);
    expect((err as ToolexecError).details).toEqual({ backend: 'b', op: 'start' });
    expect([off.started, a.started, b.started, c.started]).toEqual([0, 1, 1, 0]);
  });

  it('case 137: stopAll stops every backend (unlike Go) and rejects with the first failure', async () => {
    const registry = createBackendRegistry();
    const a = new TestBackend('a');
    const b = new TestBackend('b', 'test', [], false);
    const c = new TestBackend('c');
    a.stopError = new ToolexecError('CONNECTION_CLOSED', 'already gone');
    c.stopError = new Error('c failed too');
    for (const backend of [a, b, c]) registry.register(backend);
    const err = await registry.stopAll().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBe(a.stopError);
    expect([a.stopped, b.stopped, c.stopped]).toEqual([1, 1, 1]);
    await registry.startAll();
    await expect(createBackendRegistry().stopAll()).resolves.toBeUndefined();
  });

  it('backends without start/stop hooks are fine', async () => {
    const registry = createBackendRegistry();
    const minimal: Backend = { kind: 'x', name: 'm', enabled: true, listTools: async () => [], execute: async () => 1 };
    registry.register(minimal);
    await registry.startAll();
    await registry.stopAll();
    expect(await registry.unregister('m')).toBe(true);
  });

  it('case 138 (not ported): Go factories are stored but never used, so there is no registerFactory', () => {
    expect('registerFactory' in createBackendRegistry()).toBe(false);
  });
});
