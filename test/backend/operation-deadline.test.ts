import { describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import {
  createAggregator,
  createBackendRegistry,
  registerBackendTools,
  type Backend,
  type BackendCallOptions,
} from '../../src/backend/index.js';
import { activeTimers, timedFailure } from './helpers.js';

/** A backend whose listTools and start never settle, recording the options they got. */
function stuckBackend(seen: BackendCallOptions[] = []): Backend {
  return {
    kind: 'http',
    name: 'stuck',
    enabled: true,
    listTools: (options) => {
      if (options !== undefined) seen.push(options);
      return new Promise(() => {});
    },
    execute: () => new Promise(() => {}),
    start: (options) => {
      if (options !== undefined) seen.push(options);
      return new Promise(() => {});
    },
  };
}

function registryOf(backend: Backend): ReturnType<typeof createBackendRegistry> {
  const registry = createBackendRegistry();
  registry.register(backend);
  return registry;
}

describe('listAllTools, registerBackendTools and startAll stop with their signal and deadline', () => {
  it('listAllTools: a passed deadline → TIMEOUT, and the backend was told through its signal', async () => {
    const seen: BackendCallOptions[] = [];
    const timers = activeTimers();
    const { error, ms } = await timedFailure(createAggregator(registryOf(stuckBackend(seen))).listAllTools({ deadline: Date.now() + 50 }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.details).toMatchObject({ backend: 'stuck', op: 'listTools' });
    expect(ms).toBeLessThan(1000);
    expect(seen[0]?.signal?.aborted).toBe(true);
    expect(activeTimers()).toBe(timers);
  });

  it('listAllTools: an already-aborted signal → ABORTED at once, its reason as cause', async () => {
    const reason = new Error('stop');
    const { error } = await timedFailure(createAggregator(registryOf(stuckBackend())).listAllTools({ signal: AbortSignal.abort(reason) }));
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);
  });

  it('listAllTools: an abort during the listing → ABORTED', async () => {
    const controller = new AbortController();
    const pending = createAggregator(registryOf(stuckBackend())).listAllTools({ signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect((await timedFailure(pending)).error.code).toBe('ABORTED');
  });

  it('registerBackendTools: a passed deadline → TIMEOUT, nothing registered', async () => {
    const index = createToolIndex();
    const { error } = await timedFailure(registerBackendTools(index, registryOf(stuckBackend()), { deadline: Date.now() + 30 }));
    expect(error.code).toBe('TIMEOUT');
    expect(index.listNamespaces()).toEqual([]);
  });

  it('startAll: an aborted signal → ABORTED; a deadline → TIMEOUT naming the backend', async () => {
    const registry = registryOf(stuckBackend());
    expect((await timedFailure(registry.startAll({ signal: AbortSignal.abort() }))).error.code).toBe('ABORTED');
    const { error } = await timedFailure(registry.startAll({ deadline: Date.now() + 30 }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.details).toMatchObject({ backend: 'stuck', op: 'start' });
  });

  it('without options the listing is unchanged', async () => {
    const backend: Backend = {
      kind: 'x',
      name: 'ok',
      enabled: true,
      listTools: async () => [{ name: 'a', inputSchema: { type: 'object' } }],
      execute: async () => 1,
    };
    expect((await createAggregator(registryOf(backend)).listAllTools()).map((t) => `${t.namespace}:${t.name}`)).toEqual(['ok:a']);
  });
});
