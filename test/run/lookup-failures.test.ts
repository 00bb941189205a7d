import { describe, expect, it } from 'vitest';
import { ToolexecError, errorStatus, type Tool, type ToolBackend } from '../../src/model/index.js';
import type { ToolIndex } from '../../src/discovery/index.js';
import { createRunner, type LocalHandler, type ToolError } from '../../src/run/index.js';
import { localBackend, rejectionOf } from './helpers.js';

const local: Record<string, LocalHandler> = { echo: (args) => args };

describe('only a real not-found is TOOL_NOT_FOUND', () => {
  it('a toolResolver that fails (ECONNREFUSED) is EXECUTION (502, not 404) with its error as cause', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const runner = createRunner({
      toolResolver: async (): Promise<Tool | undefined> => {
        throw down;
      },
      backendsResolver: () => [localBackend('echo')],
      local,
    });
    const err = (await rejectionOf(runner.run('billing:charge', {}))) as ToolError;
    expect(err.code).toBe('EXECUTION');
    expect(err.op).toBe('resolve');
    expect(err.cause).toBe(down);
    expect(errorStatus(err)).toBe(502);
  });

  it("a toolResolver's library error keeps its code", async () => {
    const unavailable = new ToolexecError('SERVER_UNAVAILABLE', 'fx is down', { details: { serverName: 'fx' } });
    const runner = createRunner({
      toolResolver: () => {
        throw unavailable;
      },
      local,
    });
    const err = await rejectionOf(runner.run('fx:t', {}));
    expect(err.code).toBe('SERVER_UNAVAILABLE');
    expect(err.details).toMatchObject({ serverName: 'fx' });
  });

  it('an index whose getTool throws a TypeError is EXECUTION; its TOOL_NOT_FOUND is still a miss', async () => {
    const broken = {
      getTool() {
        throw new TypeError('index broken');
      },
    } as unknown as ToolIndex;
    const err = await rejectionOf(createRunner({ index: broken, local }).run('a:b', {}));
    expect(err.code).toBe('EXECUTION');
    expect(err.cause).toBeInstanceOf(TypeError);
    const missing = {
      getTool() {
        throw new ToolexecError('TOOL_NOT_FOUND', 'no such tool');
      },
    } as unknown as ToolIndex;
    expect((await rejectionOf(createRunner({ index: missing, local }).run('a:b', {}))).code).toBe('TOOL_NOT_FOUND');
  });
});

describe("a toolResolver's tool is checked with the model's rules", () => {
  function runnerResolving(tool: unknown): ReturnType<typeof createRunner> {
    return createRunner({
      local,
      toolResolver: () => tool as Tool,
      backendsResolver: (): ToolBackend[] => [localBackend('echo')],
    });
  }

  it('a tool whose inputSchema getter throws is INVALID_TOOL (the resolver’s fault), not VALIDATION', async () => {
    const boom = new Error('schema getter');
    const tool = {
      name: 'getter',
      get inputSchema(): never {
        throw boom;
      },
    };
    const err = (await rejectionOf(runnerResolving(tool).run('getter', { a: 1 }))) as ToolError;
    expect(err.code).toBe('INVALID_TOOL');
    expect(err.op).toBe('resolve');
  });

  it('a tool without a name is INVALID_TOOL and the handler is not called', async () => {
    let called = false;
    const runner = createRunner({
      local: {
        echo: () => {
          called = true;
        },
      },
      toolResolver: () => ({ inputSchema: { type: 'object' } }) as Tool,
      backendsResolver: () => [localBackend('echo')],
    });
    const err = await rejectionOf(runner.run('noname', {}));
    expect(err.code).toBe('INVALID_TOOL');
    expect(err.message).toContain('name is required');
    expect(called).toBe(false);
  });

  it('a valid tool runs', async () => {
    expect((await runnerResolving({ name: 'ok', inputSchema: { type: 'object' } }).run('ok', { a: 1 })).structured).toEqual({ a: 1 });
  });
});
