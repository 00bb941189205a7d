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
});
