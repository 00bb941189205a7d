import { describe, expect, it } from 'vitest';
import { createAggregator, createBackendRegistry, createLocalBackend, type Backend } from '../../src/backend/index.js';

describe('BackendRegistry.register refuses what is not a Backend', () => {
  it.each([
    ['no listTools or execute', { name: 'half', kind: 'x', enabled: true }, 'listTools'],
    ['no execute', { name: 'half', kind: 'x', enabled: true, listTools: async () => [] }, 'execute'],
    [
      'start not a function',
      { name: 'half', kind: 'x', enabled: true, listTools: async () => [], execute: async (): Promise<unknown> => 1, start: 5 },
      'start',
    ],
    [
      'executeStream not a function',
      { name: 'half', kind: 'x', enabled: true, listTools: async () => [], execute: async (): Promise<unknown> => 1, executeStream: 'x' },
      'executeStream',
    ],
  ])('%s → INVALID_BACKEND naming the method, and the other backends still list', async (_label, candidate, method) => {
    const registry = createBackendRegistry();
    const good = createLocalBackend('good');
    good.registerHandler('echo', (args) => args);
    registry.register(good);
    expect(() => registry.register(candidate as unknown as Backend)).toThrow(
      expect.objectContaining({ code: 'INVALID_BACKEND', details: { backend: 'half', method } }) as Error,
    );
    expect(registry.names()).toEqual(['good']);
    expect((await createAggregator(registry).listAllTools()).map((t) => t.name)).toEqual(['echo']);
  });
});
