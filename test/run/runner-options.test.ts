import { describe, expect, it } from 'vitest';
import { createRunner, type RunnerOptions } from '../../src/run/index.js';
import { indexWith, localBackend, tool } from './helpers.js';

describe('createRunner refuses options of the wrong type with CONFIGURATION naming the option', () => {
  it.each<[string, unknown]>([
    ['validateInput', 'false'],
    ['validateInput', 0],
    ['index', {}],
    ['mcp', {}],
    ['provider', 'p'],
    ['local', 5],
    ['validator', { validateInput: () => {} }],
  ])('%s: %j', (name, value) => {
    expect(() => createRunner({ [name]: value })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining(name) as unknown }) as Error,
    );
  });

  it('accepts the right types, and null / undefined as absent', () => {
    const index = indexWith([tool('t'), localBackend('h')]);
    expect(() =>
      createRunner({
        index,
        validateInput: false,
        mcp: { callTool: async () => ({ content: [] }) },
        provider: { callTool: async () => 1 },
        local: new Map(),
      }),
    ).not.toThrow();
    expect(() => createRunner({ index: undefined, mcp: null, validateInput: undefined } as unknown as RunnerOptions)).not.toThrow();
  });
});
