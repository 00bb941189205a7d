import { describe, expect, it } from 'vitest';
import { createAggregator, createBackendRegistry, createLocalBackend } from '../../src/backend/index.js';
import { createToolIndex } from '../../src/discovery/index.js';
import { createRunner } from '../../src/run/index.js';

describe("the backend layer's idempotency key: the runner's one check", () => {
  const backend = createLocalBackend('b');
  let seenKey: unknown = 'unset';
  backend.registerHandler('x', (_args, ctx) => {
    seenKey = ctx.idempotencyKey;
    return 1;
  });
  const registry = createBackendRegistry();
  registry.register(backend);
  const aggregator = createAggregator(registry);

  it.each([5, '', 'k'.repeat(257), {}])('refuses %j with INVALID_ARGUMENT, as the runner does', async (key) => {
    await expect(aggregator.execute('b:x', {}, { idempotencyKey: key as never })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('idempotencyKey') as unknown,
    });
    await expect(backend.execute('x', {}, { idempotencyKey: key as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const index = createToolIndex();
    index.registerTool({ name: 'x', namespace: 'b', inputSchema: { type: 'object' } }, { kind: 'local', local: { name: 'x' } });
    await expect(createRunner({ index, local: backend }).run('b:x', {}, { idempotencyKey: key as never })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('hands a valid key to the handler', async () => {
    expect(await aggregator.execute('b:x', {}, { idempotencyKey: 'k-1' })).toBe(1);
    expect(seenKey).toBe('k-1');
  });
});
