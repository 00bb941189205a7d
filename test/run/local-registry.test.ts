import { describe, expect, it } from 'vitest';
import { ToolexecError } from '../../src/model/index.js';
import { LocalBackend } from '../../src/backend/index.js';
import { createLocalRegistry, createRunner, type LocalHandler } from '../../src/run/index.js';
import { indexWith, localBackend, tool } from './helpers.js';

describe('createLocalRegistry', () => {
  const h: LocalHandler = () => 1;

  it('case 127: get(missing) is undefined, get(existing) the handler', () => {
    const registry = createLocalRegistry({ a: h });
    expect(registry).toBeInstanceOf(LocalBackend);
    expect(registry.name).toBe('local');
    expect(registry.get('a')).toBe(h);
    expect(registry.get('b')).toBeUndefined();
    expect(registry.get('toString')).toBeUndefined();
  });

  it('registers, replaces and unregisters; the store lists what it holds, sorted', async () => {
    const registry = createLocalRegistry([
      ['z', h],
      ['a', h],
    ]);
    const other: LocalHandler = () => 2;
    registry.registerHandler('a', other);
    expect(registry.get('a')).toBe(other);
    expect((await registry.listTools()).map((listed) => listed.name)).toEqual(['a', 'z']);
    expect(registry.has('z')).toBe(true);
    expect(registry.unregisterHandler('z')).toBe(true);
    expect(registry.unregisterHandler('z')).toBe(false);
    expect(registry.has('z')).toBe(false);
  });

  it('rejects an empty name or a non-function handler with INVALID_ARGUMENT', () => {
    const registry = createLocalRegistry();
    expect(() => registry.registerHandler('', h)).toThrow(ToolexecError);
    for (const make of [
      () => registry.registerHandler('x', 'nope' as unknown as LocalHandler),
      () => createLocalRegistry({ x: 'nope' as unknown as LocalHandler }),
    ]) {
      try {
        make();
        expect.unreachable('a string is not a handler');
      } catch (err) {
        expect((err as ToolexecError).code).toBe('INVALID_ARGUMENT');
      }
    }
    expect(() => createLocalRegistry({ x: 'nope' as unknown as LocalHandler })).toThrow(/must be a function/);
  });

  it('one store for the runner and the backend: the same handler, the same context fields', async () => {
    const seen: string[] = [];
    const registry = createLocalRegistry({
      h: (_args, ctx) => {
        seen.push(`${ctx.toolId}:${ctx.signal.aborted}`);
        return 'ok';
      },
    });
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: registry });
    expect((await runner.run('t')).structured).toBe('ok');
    expect(await registry.execute('h', {})).toBe('ok');
    expect(seen).toEqual(['t:false', 'local:h:false']);
    registry.setEnabled(false);
    await expect(runner.run('t')).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'BACKEND_DISABLED' }) });
    registry.setEnabled(true);
    expect((await runner.run('t')).structured).toBe('ok');
  });

  it('a plain record is read live by the runner; a Map works as a registry', async () => {
    const handlers: Record<string, LocalHandler> = {};
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: handlers });
    await expect(runner.run('t')).rejects.toThrow(/not found/);
    handlers.h = () => 'added later';
    expect((await runner.run('t')).structured).toBe('added later');
    const map = new Map<string, LocalHandler>([['h', () => 'from map']]);
    const mapRunner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: map });
    expect((await mapRunner.run('t')).structured).toBe('from map');
  });

  it('a plain record: a handler replaced, removed or shadowed after calls is seen by the next call', async () => {
    const first: LocalHandler = () => 'first';
    const handlers: Record<string, LocalHandler> = { h: first };
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: handlers });
    for (let i = 0; i < 3; i++) expect((await runner.run('t')).structured).toBe('first');
    handlers.h = () => 'second';
    expect((await runner.run('t')).structured).toBe('second');
    delete handlers.h;
    await expect(runner.run('t')).rejects.toThrow(/local handler "h" not found/);
    // The same function again, but only on the prototype: not an own property, so not a handler.
    Object.setPrototypeOf(handlers, { h: first });
    await expect(runner.run('t')).rejects.toThrow(/local handler "h" not found/);
    handlers.h = first;
    expect((await runner.run('t')).structured).toBe('first');
  });

  it('a versioned store: the handler is remembered while its version stays, and a change is seen by the next call', async () => {
    const registry = createLocalRegistry({ h: () => 'first' });
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: registry });
    let lookups = 0;
    const get = registry.get.bind(registry);
    registry.get = (name) => {
      lookups += 1;
      return get(name);
    };
    for (let i = 0; i < 5; i++) expect((await runner.run('t')).structured).toBe('first');
    expect(lookups).toBe(1);
    const version = registry.version;
    registry.registerHandler('h', () => 'second');
    expect(registry.version).not.toBe(version);
    expect((await runner.run('t')).structured).toBe('second');
    registry.setEnabled(false);
    await expect(runner.run('t')).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'BACKEND_DISABLED' }) });
    registry.setEnabled(true);
    expect((await runner.run('t')).structured).toBe('second');
    expect(registry.unregisterHandler('h')).toBe(true);
    await expect(runner.run('t')).rejects.toThrow(/local handler "h" not found/);
    registry.registerHandler('other', { name: 'h', handler: () => 'listed as h' });
    expect((await runner.run('t')).structured).toBe('listed as h');
    // a version that does not move (or a failed lookup) changes nothing
    expect(registry.unregisterHandler('missing')).toBe(false);
    registry.setEnabled(true);
    const before = lookups;
    for (let i = 0; i < 3; i++) expect((await runner.run('t')).structured).toBe('listed as h');
    expect(lookups).toBe(before);
  });

  it("a custom registry's version: remembered while it stays, asked again when it moves; no version or a throwing one, asked every call", async () => {
    let answer = 'a';
    let lookups = 0;
    const state = { version: 1 as unknown };
    // a class instance: a plain object literal with more keys than `get` is read as a record of handlers
    class Registry {
      get version(): number {
        if (state.version instanceof Error) throw state.version;
        return state.version as number;
      }
      get(): LocalHandler {
        lookups += 1;
        const value = answer;
        return () => value;
      }
    }
    const registry = new Registry();
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), local: registry });
    for (let i = 0; i < 3; i++) expect((await runner.run('t')).structured).toBe('a');
    expect(lookups).toBe(1);
    answer = 'b';
    state.version = 2;
    expect((await runner.run('t')).structured).toBe('b');
    expect(lookups).toBe(2);
    for (const unusable of ['2', undefined, new Error('version unreadable')]) {
      state.version = unusable;
      const before = lookups;
      for (let i = 0; i < 3; i++) expect((await runner.run('t')).structured).toBe('b');
      expect(lookups).toBe(before + 3);
    }
  });
});
