import { describe, expect, it, vi } from 'vitest';
import type { ToolIndex } from '../../src/discovery/index.js';
import { ToolexecError, hasErrorCode, type Tool, type ToolBackend } from '../../src/model/index.js';
import { createRunner, type ToolError } from '../../src/run/index.js';
import {
  FakeMcpExecutor,
  FakeProviderExecutor,
  indexWith,
  localBackend,
  mcpBackend,
  providerBackend,
  rejectionOf,
  tool,
} from './helpers.js';

/** A ToolIndex double (the index is an injected interface) over a real index, with failures on demand. */
function indexDouble(base: ToolIndex, overrides: Partial<Pick<ToolIndex, 'getTool' | 'getAllBackends'>>): ToolIndex {
  return new Proxy(base, {
    get(target, key) {
      if (key === 'getTool' && overrides.getTool) return overrides.getTool;
      if (key === 'getAllBackends' && overrides.getAllBackends) return overrides.getAllBackends;
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const handlers = { h: () => 'local', h2: () => 'local2' };

describe('resolution (cases 43–55)', () => {
  it('case 43: the index gives the tool and its backend', async () => {
    const runner = createRunner({ index: indexWith([tool('t', { namespace: 'ns' }), localBackend('h')]), local: handlers });
    const result = await runner.run('ns:t');
    expect(result.tool.name).toBe('t');
    expect(result.backend).toEqual(localBackend('h'));
  });

  it('case 44: all backends of the tool are offered to the selector', async () => {
    const index = indexWith([tool('t'), mcpBackend('s')]);
    index.registerTool(tool('t'), providerBackend('p', 'x'));
    const seen: ToolBackend[][] = [];
    const runner = createRunner({
      index,
      provider: new FakeProviderExecutor(),
      backendSelector: (b) => {
        seen.push(b);
        return b[1] as ToolBackend;
      },
    });
    expect((await runner.run('t')).backend.kind).toBe('provider');
    expect(seen[0]).toEqual([mcpBackend('s'), providerBackend('p', 'x')]);
  });

  it('case 45: getAllBackends failing with another error fails the call with it as cause', async () => {
    const odd = new ToolexecError('INVALID_BACKEND', 'corrupt record');
    const index = indexDouble(indexWith([tool('t'), localBackend('h')]), {
      getAllBackends: () => {
        throw odd;
      },
    });
    const err = (await rejectionOf(createRunner({ index, local: handlers }).run('t'))) as ToolError;
    expect(err.op).toBe('resolve');
    expect(err.cause).toBe(odd);
    expect(err.code).toBe('INVALID_BACKEND');
  });

  it('case 46: getAllBackends not found or empty → the default backend of getTool', async () => {
    const base = indexWith([tool('t'), localBackend('h')]);
    for (const getAllBackends of [
      () => {
        throw new ToolexecError('TOOL_NOT_FOUND', 'gone');
      },
      () => [],
    ]) {
      const runner = createRunner({ index: indexDouble(base, { getAllBackends }), local: handlers });
      expect((await runner.run('t')).backend).toEqual(localBackend('h'));
    }
  });

  it('case 47: getTool failing with another error fails the call with EXECUTION (a failed lookup, not a miss); resolvers are not consulted', async () => {
    const odd = new Error('index offline');
    const toolResolver = vi.fn(() => tool('t'));
    const index = indexDouble(indexWith(), {
      getTool: () => {
        throw odd;
      },
    });
    const err = (await rejectionOf(
      createRunner({ index, toolResolver, backendsResolver: () => [localBackend('h')], local: handlers }).run('t'),
    )) as ToolError;
    expect(err.op).toBe('resolve');
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(odd);
    expect(toolResolver).not.toHaveBeenCalled();
  });

  it('case 48: without an index the resolvers are used (sync or async)', async () => {
    const sync = createRunner({ toolResolver: () => tool('t'), backendsResolver: () => [localBackend('h')], local: handlers });
    expect((await sync.run('t')).structured).toBe('local');
    const async_ = createRunner({
      toolResolver: async () => tool('t'),
      backendsResolver: async () => [localBackend('h2')],
      local: handlers,
    });
    expect((await async_.run('t')).structured).toBe('local2');
  });

  it('case 49: an index miss falls back to the resolvers', async () => {
    const runner = createRunner({
      index: indexWith([tool('other'), localBackend('h')]),
      toolResolver: (id) => (id === 't' ? tool('t') : undefined),
      backendsResolver: () => [localBackend('h2')],
      local: handlers,
    });
    expect((await runner.run('t')).structured).toBe('local2');
  });

  it('case 50: nothing resolves → TOOL_NOT_FOUND (the index miss is the cause)', async () => {
    const runner = createRunner({ index: indexWith(), toolResolver: () => undefined, backendsResolver: () => [localBackend('h')] });
    const err = await rejectionOf(runner.run('t'));
    expect(err.code).toBe('TOOL_NOT_FOUND');
    expect(hasErrorCode(err.cause, 'TOOL_NOT_FOUND')).toBe(true);
  });

  it('case 51: a tool resolver without a backends resolver → NO_BACKENDS', async () => {
    const err = (await rejectionOf(createRunner({ toolResolver: () => tool('t') }).run('t'))) as ToolError;
    expect(err.code).toBe('NO_BACKENDS');
    expect(err.op).toBe('resolve');
    expect(err.message).toBe('run: resolve t: no backends available');
  });

  it('case 52: a tool found in the index never consults the backends resolver', async () => {
    const backendsResolver = vi.fn(() => [localBackend('h2')]);
    const runner = createRunner({ index: indexWith([tool('t'), localBackend('h')]), backendsResolver, local: handlers });
    expect((await runner.run('t')).structured).toBe('local');
    expect(backendsResolver).not.toHaveBeenCalled();
  });

  it('case 53 (TS, differs from Go): a throwing tool resolver fails with op resolve and its error as cause', async () => {
    const boom = new Error('resolver down');
    for (const toolResolver of [
      () => {
        throw boom;
      },
      () => Promise.reject(boom),
    ]) {
      const runner = createRunner({ toolResolver, backendsResolver: () => [localBackend('h')], local: handlers });
      const err = (await rejectionOf(runner.run('t'))) as ToolError;
      expect(err.op).toBe('resolve');
      expect(err.code).toBe('EXECUTION');
      expect(err.cause).toBe(boom);
      expect(err.message).toBe('run: resolve t: tool resolver failed: resolver down');
    }
  });

  it('case 53 (TS): a throwing backends resolver fails with op resolve, its code or EXECUTION, its error as cause', async () => {
    const boom = new ToolexecError('CONNECTION_CLOSED', 'registry gone');
    for (const backendsResolver of [
      () => {
        throw boom;
      },
      async () => {
        throw boom;
      },
    ]) {
      const runner = createRunner({ toolResolver: () => tool('t'), backendsResolver, local: handlers });
      const err = (await rejectionOf(runner.run('t'))) as ToolError;
      expect(err.op).toBe('resolve');
      expect(err.cause).toBe(boom);
      expect(err.code).toBe('CONNECTION_CLOSED');
    }
    const plain = createRunner({
      toolResolver: () => tool('t'),
      backendsResolver: () => {
        throw new Error('x');
      },
    });
    expect((await rejectionOf(plain.run('t'))).code).toBe('EXECUTION');
  });

  it('case 54: a backends resolver returning [] or undefined → NO_BACKENDS', async () => {
    for (const backendsResolver of [() => [], () => undefined, async () => []]) {
      const err = await rejectionOf(createRunner({ toolResolver: () => tool('t'), backendsResolver }).run('t'));
      expect(err.code).toBe('NO_BACKENDS');
    }
  });

  it('case 55: a not-found from the index stays findable as TOOL_NOT_FOUND through the chain', async () => {
    const err = await rejectionOf(createRunner({ index: indexWith() }).run('missing'));
    expect(hasErrorCode(err, 'TOOL_NOT_FOUND')).toBe(true);
    expect(ToolexecError.isInstance(err.cause)).toBe(true);
  });

  it('an async resolver is raced against the signal (ABORTED, op resolve)', async () => {
    const controller = new AbortController();
    const runner = createRunner({
      toolResolver: () => new Promise<Tool | undefined>(() => {}),
      backendsResolver: () => [localBackend('h')],
      local: handlers,
    });
    const pending = runner.run('t', {}, { signal: controller.signal });
    controller.abort();
    const err = (await rejectionOf(pending)) as ToolError;
    expect(err.code).toBe('ABORTED');
    expect(err.op).toBe('resolve');
  });

  it('misbehaving injected objects still give ToolexecErrors (a throwing version getter, a throwing backend)', async () => {
    const base = indexWith([tool('t'), localBackend('h')]);
    const noVersion = new Proxy(base, {
      get(target, key) {
        if (key === 'version') throw new Error('no version here');
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    expect((await createRunner({ index: noVersion, local: handlers }).run('t')).structured).toBe('local');
    const trap = new Error('kind getter exploded');
    const hostile = {
      get kind(): never {
        throw trap;
      },
    } as unknown as ToolBackend;
    const err = (await rejectionOf(
      createRunner({
        toolResolver: () => tool('t'),
        backendsResolver: () => [hostile],
        backendSelector: (b) => b[0] as ToolBackend,
        validateInput: false,
      }).run('t'),
    )) as ToolError;
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBe(trap);
  });

  it('MCP tools resolved through the index dispatch with the right server', async () => {
    const mcp = new FakeMcpExecutor();
    const index = indexWith();
    index.registerToolsFromMcp('files', [{ name: 'read', inputSchema: { type: 'object' } }]);
    await createRunner({ index, mcp }).run('files:read', {});
    expect(mcp.calls[0]).toMatchObject({ serverName: 'files', params: { name: 'read' } });
  });
});
