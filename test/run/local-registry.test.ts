import { describe, expect, it } from 'vitest';
import { ToolexecError } from '../../src/model/index.js';
import { LocalHandlerRegistry, createLocalRegistry, createRunner, type LocalHandler } from '../../src/run/index.js';
import { indexWith, localBackend, tool } from './helpers.js';

describe('createLocalRegistry', () => {
  const h: LocalHandler = () => 1;

  it('case 127: get(missing) is undefined, get(existing) the handler', () => {
    const registry = createLocalRegistry({ a: h });
    expect(registry).toBeInstanceOf(LocalHandlerRegistry);
    expect(registry.get('a')).toBe(h);
    expect(registry.get('b')).toBeUndefined();
    expect(registry.get('toString')).toBeUndefined();
  });

  it('registers, replaces, unregisters and lists names sorted', () => {
    const registry = createLocalRegistry([
      ['z', h],
      ['a', h],
    ]);
    const other: LocalHandler = () => 2;
    registry.register('a', other);
    expect(registry.get('a')).toBe(other);
    expect(registry.names()).toEqual(['a', 'z']);
    expect(registry.has('z')).toBe(true);
    expect(registry.unregister('z')).toBe(true);
    expect(registry.unregister('z')).toBe(false);
    expect(registry.names()).toEqual(['a']);
  });

  it('rejects an empty name or a non-function handler with INVALID_ARGUMENT', () => {
    const registry = createLocalRegistry();
    expect(() => registry.register('', h)).toThrow(ToolexecError);
    try {
      registry.register('x', 'nope' as unknown as LocalHandler);
    } catch (err) {
      expect((err as ToolexecError).code).toBe('INVALID_ARGUMENT');
    }
    expect(() => registry.register('x', 'nope' as unknown as LocalHandler)).toThrow(/must be a function/);
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
