import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createBackendRegistry, type Backend, type BackendCallOptions, type BackendRegistry } from '../../src/backend/index.js';
import { DEFAULT_STOP_TIMEOUT_MS } from '../../src/backend/stopping.js';
import type { ToolexecError } from '../../src/model/index.js';
import { TestBackend, activeTimers, sleep, timedFailure } from './helpers.js';

/** A backend whose `stop` never settles and ignores its signal, recording the options it got. */
function hungBackend(name: string, seen: Array<BackendCallOptions | undefined>): Backend {
  return {
    kind: 'http',
    name,
    enabled: true,
    listTools: async () => [],
    execute: async () => 1,
    stop: (options) => {
      seen.push(options);
      return new Promise(() => {});
    },
  };
}

function registryOf(...backends: Backend[]): BackendRegistry {
  const registry = createBackendRegistry();
  for (const backend of backends) registry.register(backend);
  return registry;
}

/**
 * {@link timedFailure}, but a call that has not settled within `ms` fails the test at once (the
 * defect: a stop that never settles hung the call forever), its timer cleared either way.
 */
async function failureWithin(promise: Promise<unknown>, ms = 2_000): Promise<{ error: ToolexecError; ms: number }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the call did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([timedFailure(promise), hung]);
  } finally {
    clearTimeout(timer);
  }
}

describe('stopAll: a stop that never settles takes no other backend down', () => {
  it('a deadline → TIMEOUT naming the hung backend, the backends after it stopped, nothing left on the signal', async () => {
    const seen: Array<BackendCallOptions | undefined> = [];
    const a = new TestBackend('a');
    const z = new TestBackend('z');
    const registry = registryOf(z, hungBackend('hung', seen), a);
    const controller = new AbortController();
    const timers = activeTimers();
    const deadline = Date.now() + 50;
    const { error, ms } = await failureWithin(registry.stopAll({ signal: controller.signal, deadline }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.details).toEqual({ backend: 'hung', op: 'stop', running: ['hung'] });
    expect((error.cause as Error).name).toBe('TimeoutError');
    expect(ms).toBeLessThan(1_000);
    expect([a.stopped, z.stopped]).toEqual([1, 1]);
    // the hung backend was told: its signal aborted at the deadline, which it was handed
    expect(seen[0]?.deadline).toBe(deadline);
    expect(seen[0]?.signal?.aborted).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(activeTimers()).toBeLessThanOrEqual(timers);
  });

  it('an abort → ABORTED at once with its reason as cause, every stop called before it', async () => {
    const seen: Array<BackendCallOptions | undefined> = [];
    const b = new TestBackend('b');
    const c = new TestBackend('c');
    // `a` comes first in name order: before, `b` and `c` were never stopped
    const registry = registryOf(c, b, hungBackend('a', seen), hungBackend('a2', seen));
    const controller = new AbortController();
    const pending = registry.stopAll({ signal: controller.signal });
    await sleep(10);
    expect([b.stopped, c.stopped]).toEqual([1, 1]);
    const reason = new Error('shutting down now');
    controller.abort(reason);
    const { error, ms } = await failureWithin(pending);
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);
    expect(error.details).toEqual({ backend: 'a', op: 'stop', running: ['a', 'a2'] });
    expect(ms).toBeLessThan(500);
    expect(seen.map((options) => options?.signal?.aborted)).toEqual([true, true]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a signal that has already aborted: every stop is still called, told to stop, then ABORTED', async () => {
    const seen: Array<BackendCallOptions | undefined> = [];
    const b = new TestBackend('b');
    const reason = new Error('gone');
    const { error } = await failureWithin(registryOf(hungBackend('a', seen), b).stopAll({ signal: AbortSignal.abort(reason) }));
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);
    expect(b.stopped).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.signal?.aborted).toBe(true);
  });

  it('the stop calls do not wait for each other; the first failure in name order is still the rejection', async () => {
    let bCalled!: () => void;
    const bWasCalled = new Promise<void>((resolve) => (bCalled = resolve));
    const aError = new Error('a could not stop');
    const bError = new Error('b could not stop');
    // `a` fails only once `b` has been called: stopped one after the other, they never finished
    const a: Backend = { ...hungBackend('a', []), stop: () => bWasCalled.then(() => Promise.reject(aError)) };
    const b: Backend = {
      ...hungBackend('b', []),
      stop: () => {
        bCalled();
        return Promise.reject(bError);
      },
    };
    const { error } = await failureWithin(registryOf(b, a).stopAll({ deadline: Date.now() + 5_000 }));
    expect(error.code).toBe('EXECUTION');
    expect(error.cause).toBe(aError);
    expect(error.details).toEqual({ backend: 'a', op: 'stop' });
  });

  it(`without options the wait is bounded by DEFAULT_STOP_TIMEOUT_MS (${DEFAULT_STOP_TIMEOUT_MS} ms): each stop is handed that deadline and its signal`, async () => {
    const seen: Array<BackendCallOptions | undefined> = [];
    let release!: () => void;
    const slow: Backend = {
      ...hungBackend('slow', []),
      stop: (options) => {
        seen.push(options);
        return new Promise<void>((resolve) => (release = resolve));
      },
    };
    const before = Date.now();
    let settled = false;
    const pending = registryOf(slow).stopAll();
    void pending.finally(() => (settled = true));
    await sleep(20);
    expect(settled).toBe(false);
    expect(seen[0]?.deadline).toBeGreaterThanOrEqual(before + DEFAULT_STOP_TIMEOUT_MS);
    expect(seen[0]?.deadline).toBeLessThanOrEqual(Date.now() + DEFAULT_STOP_TIMEOUT_MS);
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(seen[0]?.signal?.aborted).toBe(false);
    // a stop that ends in time ends the call, as before
    release();
    await expect(pending).resolves.toBeUndefined();
  });

  it('options that cannot be read → INVALID_ARGUMENT, and nothing is stopped', async () => {
    const a = new TestBackend('a');
    const registry = registryOf(a);
    for (const options of ['soon', { deadline: 'soon' }, { signal: 'stop' }]) {
      const { error } = await failureWithin(registry.stopAll(options as never));
      expect(error.code).toBe('INVALID_ARGUMENT');
    }
    expect(a.stopped).toBe(0);
  });
});

describe('unregister: a stop that never settles does not hang the call', () => {
  it('a deadline → TIMEOUT, the backend removed all the same, nothing left on the signal', async () => {
    const seen: Array<BackendCallOptions | undefined> = [];
    const registry = registryOf(hungBackend('hung', seen), new TestBackend('other'));
    const controller = new AbortController();
    const timers = activeTimers();
    const { error, ms } = await failureWithin(registry.unregister('hung', { signal: controller.signal, deadline: Date.now() + 50 }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.details).toEqual({ backend: 'hung', op: 'stop', running: ['hung'] });
    expect(ms).toBeLessThan(1_000);
    expect(registry.names()).toEqual(['other']);
    expect(seen[0]?.signal?.aborted).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(activeTimers()).toBeLessThanOrEqual(timers);
  });

  it('an abort → ABORTED at once with its reason; stop was handed the signal (and, without a deadline, the default one)', async () => {
    const seen: Array<BackendCallOptions | undefined> = [];
    const registry = registryOf(hungBackend('hung', seen));
    const controller = new AbortController();
    const before = Date.now();
    const pending = registry.unregister('hung', { signal: controller.signal });
    await sleep(10);
    const reason = new Error('not waiting');
    controller.abort(reason);
    const { error, ms } = await failureWithin(pending);
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);
    expect(ms).toBeLessThan(500);
    expect(seen[0]?.signal?.aborted).toBe(true);
    expect(seen[0]?.deadline).toBeGreaterThanOrEqual(before + DEFAULT_STOP_TIMEOUT_MS);
    expect(registry.names()).toEqual([]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('options that cannot be read → INVALID_ARGUMENT, and the backend stays registered', async () => {
    const a = new TestBackend('a');
    const registry = registryOf(a);
    const { error } = await failureWithin(registry.unregister('a', { deadline: Number.NaN }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(registry.names()).toEqual(['a']);
    expect(a.stopped).toBe(0);
  });
});
