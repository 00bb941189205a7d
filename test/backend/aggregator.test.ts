import { describe, expect, it } from 'vitest';
import {
  BackendAggregator,
  createAggregator,
  createBackendRegistry,
  formatBackendToolId,
  parseBackendToolId,
} from '../../src/backend/index.js';
import { ToolexecError, hasErrorCode } from '../../src/model/index.js';
import { TestBackend, tool } from './helpers.js';

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
