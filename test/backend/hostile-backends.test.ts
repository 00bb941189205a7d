import { describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { ToolexecError, type Tool } from '../../src/model/index.js';
import { createRunner, type StreamEvent } from '../../src/run/index.js';
import { createBackendRegistry, createLocalBackend, registerBackendTools, type Backend } from '../../src/backend/index.js';

/** The rejection (or throw) of `work` as a ToolexecError; fails on a raw error or a success. */
async function libraryFailure(work: () => unknown): Promise<ToolexecError> {
  try {
    await work();
  } catch (err) {
    if (ToolexecError.isInstance(err)) return err;
    throw new Error(
      `expected a ToolexecError, got a raw ${String((err as Error)?.constructor?.name)}: ${String((err as Error)?.message)}`,
      {
        cause: err,
      },
    );
  }
  throw new Error('expected a failure');
}

const tools: Tool[] = [{ name: 't', inputSchema: { type: 'object' } }];

/** A plain backend object; `extra` may define getters that misbehave after registration. */
function backend(name: string, extra: object = {}): Backend {
  const base = { kind: 'x', name, enabled: true, listTools: async () => tools, execute: async () => 'ok' };
  const made: Backend = Object.defineProperties(base, Object.getOwnPropertyDescriptors(extra));
  return made;
}

/** `extra` with a `name` getter that answers `name` once (when the backend is registered), then throws. */
function nameReadOnce(name: string, extra: object): object {
  let reads = 0;
  return Object.defineProperty(extra, 'name', {
    enumerable: true,
    get() {
      reads += 1;
      if (reads > 1) throw new Error('name getter gone bad');
      return name;
    },
  });
}

describe('a registered backend whose getters turn hostile', () => {
  it('stopAll stops every backend by its registered name although one name getter throws', async () => {
    const registry = createBackendRegistry();
    let stoppedAfter = false;
    registry.register(
      backend(
        'a',
        nameReadOnce('a', {
          stop: async () => {
            throw new Error('could not stop');
          },
        }),
      ),
    );
    registry.register(backend('b', { stop: async () => void (stoppedAfter = true) }));
    const error = await libraryFailure(() => registry.stopAll());
    expect(error.code).toBe('EXECUTION');
    expect(error.details).toMatchObject({ backend: 'a', op: 'stop' });
    expect((error.cause as Error).message).toBe('could not stop');
    expect(stoppedAfter).toBe(true);
  });

  it('startAll names a failing backend by its registered name, never reading name again', async () => {
    const registry = createBackendRegistry();
    registry.register(
      backend(
        'a',
        nameReadOnce('a', {
          start: async () => {
            throw new Error('no start');
          },
        }),
      ),
    );
    const error = await libraryFailure(() => registry.startAll());
    expect(error.code).toBe('EXECUTION');
    expect(error.details).toMatchObject({ backend: 'a', op: 'start' });
  });

  it('startAll: an enabled getter that throws stops the start at that backend, after the ones before it started', async () => {
    const registry = createBackendRegistry();
    const started: string[] = [];
    registry.register(backend('a', { start: async () => void started.push('a') }));
    registry.register(
      backend('z', {
        get enabled(): boolean {
          throw new Error('enabled boom');
        },
        start: async () => void started.push('z'),
      }),
    );
    const error = await libraryFailure(() => registry.startAll());
    expect(error.code).toBe('EXECUTION');
    expect(error.details).toMatchObject({ backend: 'z' });
    expect(started).toEqual(['a']);
  });

  it('listByKind: a kind getter that throws is EXECUTION naming the backend', async () => {
    const registry = createBackendRegistry();
    registry.register(
      backend('k', {
        get kind(): string {
          throw new Error('kind boom');
        },
      }),
    );
    const error = await libraryFailure(() => registry.listByKind('x'));
    expect(error.code).toBe('EXECUTION');
    expect(error.details).toMatchObject({ backend: 'k', op: 'kind' });
  });

  it('an executeStream getter that throws: the lookup still works, runStream fails EXECUTION, run still executes', async () => {
    const registry = createBackendRegistry();
    let reads = 0;
    registry.register(
      backend('s', {
        get executeStream() {
          reads += 1;
          if (reads > 1) throw new Error('stream getter gone bad');
          return undefined;
        },
      }),
    );
    expect(typeof registry.localRegistry().get('s:t')).toBe('function');
    const index = createToolIndex();
    await registerBackendTools(index, registry);
    const runner = createRunner({ index, backends: registry });
    expect((await runner.run('s:t', {})).structured).toBe('ok');
    const error = await libraryFailure(async () => {
      const events: StreamEvent[] = [];
      for await (const event of runner.runStream('s:t', {})) events.push(event);
      const last = events[events.length - 1];
      if (last?.kind === 'error' && last.error !== undefined) throw last.error;
    });
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('stream getter gone bad');
  });

  it('an abort reason that cannot be read (a revoked proxy) is ABORTED with it as cause, never a raw TypeError', async () => {
    const registry = createBackendRegistry();
    registry.register(backend('h', { execute: () => new Promise(() => undefined) }));
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const controller = new AbortController();
    const pending = libraryFailure(() => registry.execute('h', 't', {}, { signal: controller.signal }));
    controller.abort(proxy);
    const error = await pending;
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(proxy);
    const before = await libraryFailure(() => registry.execute('h', 't', {}, { signal: controller.signal }));
    expect(before.code).toBe('ABORTED');
  });
});

describe('LocalBackend with hostile input', () => {
  it('execute with a tool name whose toString throws, or a huge one, is TOOL_NOT_FOUND with a readable message', async () => {
    const local = createLocalBackend('L');
    const hostile = {
      toString(): string {
        throw new Error('toString boom');
      },
    };
    const error = await libraryFailure(() => local.execute(hostile as unknown as string, {}));
    expect(error.code).toBe('TOOL_NOT_FOUND');
    const huge = await libraryFailure(() => local.execute('x'.repeat(1_000_000), {}));
    expect(huge.code).toBe('TOOL_NOT_FOUND');
    expect(huge.message.length).toBeLessThan(1000);
  });

  it('registerHandler refuses a definition whose name is not a string (it would break every listing)', async () => {
    const local = createLocalBackend('L');
    const error = await libraryFailure(() => local.registerHandler('t', { name: 42 as unknown as string, handler: () => 1 }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(local.has('t')).toBe(false);
    const registry = createBackendRegistry();
    registry.register(local);
    await expect(registerBackendTools(createToolIndex(), registry)).resolves.toBe(0);
  });
});
