import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  BackendAggregator,
  createAggregator,
  createBackendRegistry,
  createLocalBackend,
  formatBackendToolId,
  parseBackendToolId,
  registerBackendTools,
  type Backend,
  type BackendCallOptions,
  type BackendRegistry,
} from '../../src/backend/index.js';
import { createToolIndex } from '../../src/discovery/index.js';
import { ToolexecError, hasErrorCode, type Tool } from '../../src/model/index.js';
import { TestBackend, activeTimers, sleep, timedFailure, tool } from './helpers.js';

async function failure(promise: Promise<unknown>): Promise<ToolexecError> {
  try {
    await promise;
  } catch (err) {
    if (ToolexecError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

function setup() {
  const registry = createBackendRegistry();
  const local = new TestBackend('local', 'local', [tool('echo'), tool('sum', { namespace: 'math' })]);
  const remote = new TestBackend('remote', 'mcp', [tool('fetch')]);
  const off = new TestBackend('off', 'local', [tool('hidden')], false);
  for (const backend of [remote, off, local]) registry.register(backend);
  return { registry, local, remote, off, aggregator: createAggregator(registry) };
}

describe('Aggregator (cases 139–146)', () => {
  it('case 139: lists the tools of enabled backends only, backends in name order', async () => {
    const { aggregator } = setup();
    expect(aggregator).toBeInstanceOf(BackendAggregator);
    const tools = await aggregator.listAllTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'sum', 'fetch']);
  });

  it('case 140: a tool without a namespace gets the backend name (on a copy)', async () => {
    const { aggregator, local } = setup();
    const tools = await aggregator.listAllTools();
    expect(tools.map((t) => t.namespace)).toEqual(['local', 'math', 'remote']);
    expect(local.tools[0]?.namespace).toBeUndefined();
  });

  it('case 141: a failing listing rejects (a plain error wrapped as EXECUTION with it as cause)', async () => {
    const { aggregator, remote } = setup();
    remote.listError = new Error('server down');
    const err = await failure(aggregator.listAllTools());
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(remote.listError);
    expect(err.details).toMatchObject({ backend: 'remote' });
  });

  it('case 142: "local:echo" runs tool echo on backend local with the args and signal', async () => {
    const { aggregator, local } = setup();
    const signal = new AbortController().signal;
    const result = await aggregator.execute('local:echo', { a: 1 }, { signal });
    expect(result).toEqual({ backend: 'local', tool: 'echo', args: { a: 1 } });
    expect(local.calls[0]).toEqual({ toolName: 'echo', args: { a: 1 }, options: { signal } });
    await aggregator.execute('local:echo');
    expect(local.calls[1]?.args).toEqual({});
  });

  it('case 143: an ID without a backend part → INVALID_TOOL_ID', async () => {
    const { aggregator } = setup();
    expect((await failure(aggregator.execute('toolonly', {}))).code).toBe('INVALID_TOOL_ID');
    expect((await failure(aggregator.execute('a:b:c:d', {}))).code).toBe('INVALID_TOOL_ID');
    expect((await failure(aggregator.execute('', {}))).code).toBe('INVALID_TOOL_ID');
  });

  it('case 144: an unknown backend → BACKEND_NOT_FOUND; a disabled one → BACKEND_DISABLED', async () => {
    const { aggregator, off } = setup();
    expect((await failure(aggregator.execute('nope:echo', {}))).code).toBe('BACKEND_NOT_FOUND');
    expect((await failure(aggregator.execute('off:hidden', {}))).code).toBe('BACKEND_DISABLED');
    expect(off.calls).toHaveLength(0);
  });

  it('backend execution failures: library errors pass, others become EXECUTION with cause', async () => {
    const { aggregator, local } = setup();
    const coded = new ToolexecError('TOOL_NOT_FOUND', 'no such tool');
    local.execute = async () => {
      throw coded;
    };
    expect(await failure(aggregator.execute('local:x'))).toBe(coded);
    const plain = new Error('boom');
    local.execute = async () => {
      throw plain;
    };
    const err = await failure(aggregator.execute('local:x'));
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(plain);
  });

  it('case 145: parseBackendToolId', () => {
    expect(parseBackendToolId('github:create_issue:1.0.0')).toEqual({ backend: 'github', tool: 'create_issue:1.0.0' });
    expect(parseBackendToolId('bad:format:tool')).toEqual({ backend: 'bad', tool: 'format:tool' });
    expect(parseBackendToolId('toolonly')).toEqual({ backend: '', tool: 'toolonly' });
    for (const bad of ['too:many:colons:here', '', ':x', 'x:']) {
      let err: unknown;
      try {
        parseBackendToolId(bad);
      } catch (e) {
        err = e;
      }
      expect(hasErrorCode(err, 'INVALID_TOOL_ID')).toBe(true);
      expect((err as ToolexecError).message).toBe('backend: invalid tool ID format');
    }
  });

  it('case 146: formatBackendToolId', () => {
    expect(formatBackendToolId('', 'tool')).toBe('tool');
    expect(formatBackendToolId('github', 'create_issue:1.0.0')).toBe('github:create_issue:1.0.0');
  });
});

/** A backend that ignores its signal: `execute` resolves after 500 ms whatever happens. */
class DeafBackend extends TestBackend {
  override async execute(toolName: string, args: Record<string, unknown>, options?: BackendCallOptions): Promise<unknown> {
    this.calls.push({ toolName, args, options });
    await sleep(500);
    return 'late';
  }
}

/** A registry holding one backend that lists `listed` (whatever it is). */
function listing(listed: unknown): { registry: BackendRegistry; aggregator: BackendAggregator } {
  const registry = createBackendRegistry();
  registry.register(new TestBackend('fine', 'test', [tool('ok')]));
  const weird: Backend = { kind: 'x', name: 'weird', enabled: true, listTools: async () => listed as Tool[], execute: async () => 1 };
  registry.register(weird);
  return { registry, aggregator: createAggregator(registry) };
}

describe('Aggregator.execute stops on abort and deadline', () => {
  it("the caller's abort rejects at once with ABORTED (the reason as cause) although the backend ignores it; no listener stays", async () => {
    const registry = createBackendRegistry();
    registry.register(new DeafBackend('deaf'));
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 30);
    const { error, ms } = await timedFailure(createAggregator(registry).execute('deaf:t', {}, { signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe(reason);
    expect(error.details).toEqual({ backend: 'deaf', tool: 't' });
    expect(ms).toBeLessThan(300);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("a deadline rejects with TIMEOUT, aborts the backend's signal and leaves no timer", async () => {
    const registry = createBackendRegistry();
    const backend = new (class extends TestBackend {
      override async execute(toolName: string, args: Record<string, unknown>, options?: BackendCallOptions): Promise<unknown> {
        this.calls.push({ toolName, args, options });
        return new Promise(() => {});
      }
    })('hang');
    registry.register(backend);
    await sleep(50);
    const timersBefore = activeTimers();
    const deadline = Date.now() + 40;
    const { error, ms } = await timedFailure(createAggregator(registry).execute('hang:t', {}, { deadline, idempotencyKey: 'k' }));
    expect(error.code).toBe('TIMEOUT');
    expect(ms).toBeLessThan(300);
    const handed = backend.calls[0]?.options as BackendCallOptions;
    expect(handed.deadline).toBe(deadline);
    expect(handed.idempotencyKey).toBe('k');
    expect(handed.signal?.aborted).toBe(true);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it('through a LocalBackend: a 500 ms handler aborted at 30 ms rejects at once', async () => {
    const registry = createBackendRegistry();
    const local = createLocalBackend('tools');
    local.registerHandler('slow', async () => {
      await sleep(500);
      return 'late';
    });
    registry.register(local);
    const { error, ms } = await timedFailure(createAggregator(registry).execute('tools:slow', {}, { signal: AbortSignal.timeout(30) }));
    expect(error.code).toBe('TIMEOUT');
    expect(ms).toBeLessThan(300);
  });
});

describe('a backend whose listing or calls misbehave: only ToolexecErrors, naming the backend', () => {
  it.each([
    ['a null entry', [tool('a'), null], 1],
    ['a string entry', ['echo'], 0],
    ['an array entry', [[tool('a')]], 0],
    ['an entry without a name', [{ inputSchema: { type: 'object' } }], 0],
    ['an entry with an empty name', [{ name: '' }], 0],
  ])(
    'listAllTools and registerBackendTools refuse a listing with %s: EXECUTION, details.backend and index',
    async (_case, listed, index) => {
      const { registry, aggregator } = listing(listed);
      const err = (await timedFailure(aggregator.listAllTools())).error;
      expect(err.code).toBe('EXECUTION');
      expect(err.message).toContain('list tools of weird failed');
      expect(err.details).toEqual({ backend: 'weird', op: 'listTools', index });
      const toolIndex = createToolIndex();
      const registering = (await timedFailure(registerBackendTools(toolIndex, registry))).error;
      expect(registering.code).toBe('EXECUTION');
      expect(registering.details).toMatchObject({ backend: 'weird' });
      expect(toolIndex.listNamespaces()).toEqual([]);
    },
  );

  it('a listing that is not an array, or an entry that cannot be read, is EXECUTION too (the thrown error as cause)', async () => {
    for (const listed of [undefined, null, 'tools', { length: 1 }]) {
      const err = (await timedFailure(listing(listed).aggregator.listAllTools())).error;
      expect(err.code).toBe('EXECUTION');
      expect(err.details).toEqual({ backend: 'weird', op: 'listTools' });
    }
    const boom = new TypeError('getter failed');
    const hostile = Object.defineProperty({}, 'name', {
      enumerable: true,
      get() {
        throw boom;
      },
    });
    const err = (await timedFailure(listing([hostile]).aggregator.listAllTools())).error;
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(boom);
    expect(err.details).toEqual({ backend: 'weird', op: 'listTools' });
  });

  it('a valid listing still gets namespaces filled in on copies', async () => {
    const listed = [tool('a'), tool('b', { namespace: 'own' })];
    const tools = await listing(listed).aggregator.listAllTools();
    expect(tools.map((t) => `${t.namespace}:${t.name}`)).toEqual(['fine:ok', 'weird:a', 'own:b']);
    expect(listed[0]?.namespace).toBeUndefined();
  });

  it('registerBackendTools names the backend and tool the index refuses, with the index code; bad arguments are INVALID_ARGUMENT', async () => {
    const { registry } = listing([{ name: 'no_schema' }]);
    const err = (await timedFailure(registerBackendTools(createToolIndex(), registry))).error;
    expect(err.code).toBe('INVALID_TOOL');
    expect(err.message).toContain('weird:no_schema');
    expect(err.details).toMatchObject({ backend: 'weird', tool: 'no_schema' });
    expect(hasErrorCode(err.cause, 'INVALID_TOOL')).toBe(true);
    const plain = new Error('index full');
    const refusing = {
      registerTool: () => {
        throw plain;
      },
    };
    const refused = (await timedFailure(registerBackendTools(refusing, registry))).error;
    expect(refused.code).toBe('INVALID_ARGUMENT');
    expect(refused.cause).toBe(plain);
    expect(refused.details).toMatchObject({ backend: 'fine', tool: 'ok' });
    expect((await timedFailure(registerBackendTools(createToolIndex(), {} as BackendRegistry))).error.code).toBe('INVALID_ARGUMENT');
    expect(() => createAggregator({} as BackendRegistry)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('registry.execute and the aggregator wrap a synchronous throw or a plain rejection as EXECUTION with it as cause', async () => {
    const registry = createBackendRegistry();
    const typeError = new TypeError('sync throw');
    const plain = new Error('async failure');
    registry.register({
      kind: 'x',
      name: 'sync',
      enabled: true,
      listTools: async () => [],
      execute: () => {
        throw typeError;
      },
    });
    registry.register({ kind: 'x', name: 'async', enabled: true, listTools: async () => [], execute: () => Promise.reject(plain) });
    for (const run of [() => registry.execute('sync', 't', {}), () => createAggregator(registry).execute('sync:t', {})]) {
      const err = (await timedFailure(run())).error;
      expect(err.code).toBe('EXECUTION');
      expect(err.cause).toBe(typeError);
      expect(err.details).toEqual({ backend: 'sync', tool: 't' });
    }
    const err = (await timedFailure(registry.execute('async', 't', {}))).error;
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(plain);
    const coded = new ToolexecError('TIMEOUT', 'its own timeout');
    registry.register({ kind: 'x', name: 'coded', enabled: true, listTools: async () => [], execute: () => Promise.reject(coded) });
    expect((await timedFailure(registry.execute('coded', 't', {}))).error).toBe(coded);
  });

  it('an enabled getter that throws is EXECUTION naming the backend, for calls and listings alike', async () => {
    const registry = createBackendRegistry();
    const boom = new Error('enabled exploded');
    registry.register({
      kind: 'x',
      name: 'flaky',
      get enabled(): boolean {
        throw boom;
      },
      listTools: async () => [],
      execute: async () => 1,
    });
    const call = (await timedFailure(registry.execute('flaky', 't', {}))).error;
    expect(call.code).toBe('EXECUTION');
    expect(call.cause).toBe(boom);
    expect(call.details).toMatchObject({ backend: 'flaky' });
    const listed = (await timedFailure(createAggregator(registry).listAllTools())).error;
    expect(listed.code).toBe('EXECUTION');
    expect(listed.details).toMatchObject({ backend: 'flaky' });
    expect(() => registry.listEnabled()).toThrow(expect.objectContaining({ code: 'EXECUTION' }));
  });
});
