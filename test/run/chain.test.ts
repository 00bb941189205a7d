import { describe, expect, it, vi } from 'vitest';
import { hasErrorCode } from '../../src/model/index.js';
import { ChainError, createRunner, type LocalHandler } from '../../src/run/index.js';
import { indexWith, localBackend, rejectionOf, tool } from './helpers.js';

/** A runner over local tools `name` → handler `name`. */
function chainRunner(handlers: Record<string, LocalHandler>) {
  const index = indexWith();
  for (const name of Object.keys(handlers)) index.registerTool(tool(name), localBackend(name));
  return createRunner({ index, local: handlers });
}

async function chainError(promise: Promise<unknown>): Promise<ChainError> {
  const err = await rejectionOf(promise);
  expect(err).toBeInstanceOf(ChainError);
  return err as ChainError;
}

describe('runChain (cases 93–107)', () => {
  it('case 93: one step gives one step result and its output as the final result', async () => {
    const { result, steps } = await chainRunner({ a: () => ({ v: 1 }) }).runChain([{ toolId: 'a' }]);
    expect(steps).toHaveLength(1);
    expect(steps[0]?.toolId).toBe('a');
    expect(result?.structured).toEqual({ v: 1 });
  });

  it('case 94: steps run in order and the final result is the last one', async () => {
    const order: string[] = [];
    const make =
      (name: string): LocalHandler =>
      () => {
        order.push(name);
        return name;
      };
    const { result } = await chainRunner({ a: make('a'), b: make('b'), c: make('c') }).runChain([
      { toolId: 'a' },
      { toolId: 'b' },
      { toolId: 'c' },
    ]);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(result?.structured).toBe('c');
  });

  it('cases 95–96: usePrevious sets args.previous to the previous structured result, overwriting', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const runner = chainRunner({
      a: () => ({ from: 'a' }),
      b: (args) => {
        seen.push(args);
        return 'b';
      },
    });
    await runner.runChain([{ toolId: 'a' }, { toolId: 'b', args: { previous: 'should-be-overwritten', keep: 1 }, usePrevious: true }]);
    expect(seen[0]).toEqual({ previous: { from: 'a' }, keep: 1 });
  });

  it('case 97: usePrevious on the first step sets the key with undefined', async () => {
    let seen: Record<string, unknown> | undefined;
    await chainRunner({
      a: (args) => {
        seen = args;
        return 1;
      },
    }).runChain([{ toolId: 'a', usePrevious: true }]);
    expect(seen).toHaveProperty('previous');
    expect(seen?.previous).toBeUndefined();
  });

  it('case 98: a failing step 2 of 3 stops the chain: 2 step results, step 3 not run, error set', async () => {
    const third = vi.fn(() => 3);
    const boom = new Error('step two failed');
    const runner = chainRunner({
      a: () => 1,
      b: () => {
        throw boom;
      },
      c: third,
    });
    const err = await chainError(runner.runChain([{ toolId: 'a' }, { toolId: 'b' }, { toolId: 'c' }]));
    expect(err.steps).toHaveLength(2);
    expect(err.steps[0]?.error).toBeUndefined();
    expect(err.steps[1]?.error?.code).toBe('EXECUTION');
    expect(err.steps[1]?.error?.cause).toBe(boom);
    expect(err.stepIndex).toBe(1);
    expect(err.code).toBe('EXECUTION');
    expect(err.op).toBe('execute');
    expect(err.toolId).toBe('b');
    expect(err.cause).toBe(err.steps[1]?.error);
    expect(third).not.toHaveBeenCalled();
  });

  it('case 99 (TS): a signal aborted by step 1 stops the chain before step 2 with ABORTED', async () => {
    const controller = new AbortController();
    const second = vi.fn(() => 2);
    const runner = chainRunner({
      a: () => {
        controller.abort();
        return 1;
      },
      b: second,
    });
    const err = await chainError(runner.runChain([{ toolId: 'a' }, { toolId: 'b' }], { signal: controller.signal }));
    expect(err.code).toBe('ABORTED');
    expect(hasErrorCode(err, 'ABORTED')).toBe(true);
    expect(err.steps).toHaveLength(1);
    expect(err.steps[0]?.result?.structured).toBe(1);
    expect(err.stepIndex).toBe(1);
    expect(second).not.toHaveBeenCalled();
  });

  it('case 100: an empty (or undefined) chain resolves with no steps and no result', async () => {
    const runner = chainRunner({});
    const empty = await runner.runChain([]);
    expect(empty.steps).toEqual([]);
    expect(empty.result).toBeUndefined();
    const none = await runner.runChain(undefined as unknown as []);
    expect(none.steps).toEqual([]);
  });

  it('case 101: the final result is the last step result', async () => {
    const { result, steps } = await chainRunner({ a: () => 1, b: () => 2 }).runChain([{ toolId: 'a' }, { toolId: 'b' }]);
    expect(result?.tool.name).toBe('b');
    expect(result).toBe(steps[1]?.result);
  });

  it('case 102: a successful step records the local backend', async () => {
    const { steps } = await chainRunner({ a: () => 1 }).runChain([{ toolId: 'a' }]);
    expect(steps[0]?.backend?.kind).toBe('local');
  });

  it('case 103: a failing step records the backend from its ToolError', async () => {
    const index = indexWith([tool('t'), localBackend('myhandler')]);
    const runner = createRunner({
      index,
      local: {
        myhandler: () => {
          throw new Error('x');
        },
      },
    });
    const err = await chainError(runner.runChain([{ toolId: 't' }]));
    expect(err.steps[0]?.backend).toEqual(localBackend('myhandler'));
    expect(err.backend).toEqual(localBackend('myhandler'));
  });

  it('case 104: generate → transform → summarize passes data along', async () => {
    const runner = chainRunner({
      generate: () => ({ items: ['a', 'b', 'c'] }),
      transform: (args) => ({ items: (args.previous as { items: string[] }).items.map((i) => i.toUpperCase()) }),
      summarize: (args) =>
        `${(args.previous as { items: string[] }).items.join(',')} (${(args.previous as { items: string[] }).items.length})`,
    });
    const { result } = await runner.runChain([
      { toolId: 'generate' },
      { toolId: 'transform', usePrevious: true },
      { toolId: 'summarize', usePrevious: true },
    ]);
    expect(result?.structured).toBe('A,B,C (3)');
  });

  it('case 105: args absent → the handler gets a fresh {}; given args are copied, not shared', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const args = { x: 1 };
    await chainRunner({
      a: (a) => {
        seen.push(a);
        return 1;
      },
    }).runChain([{ toolId: 'a' }, { toolId: 'a', args, usePrevious: true }]);
    expect(seen[0]).toEqual({});
    expect(seen[1]).toEqual({ x: 1, previous: 1 });
    expect(seen[1]).not.toBe(args);
    expect(args).toEqual({ x: 1 });
  });

  it('case 106: an empty step tool ID fails with validate_tool_id and no backend', async () => {
    const err = await chainError(chainRunner({ a: () => 1 }).runChain([{ toolId: 'a' }, { toolId: '' }]));
    expect(err.steps).toHaveLength(2);
    expect(err.steps[1]?.error?.code).toBe('INVALID_TOOL_ID');
    expect(err.steps[1]?.backend).toBeUndefined();
    expect(err.op).toBe('validate_tool_id');
  });

  it('case 107: a step that returned undefined passes previous present and undefined', async () => {
    let seen: Record<string, unknown> | undefined;
    await chainRunner({
      a: () => undefined,
      b: (args) => {
        seen = args;
        return 1;
      },
    }).runChain([{ toolId: 'a' }, { toolId: 'b', usePrevious: true }]);
    expect(Object.hasOwn(seen ?? {}, 'previous')).toBe(true);
    expect(seen?.previous).toBeUndefined();
  });

  it('timeoutMs covers the whole chain: a slow step fails with TIMEOUT and no timer is left', async () => {
    const runner = chainRunner({ fast: () => 1, slow: () => new Promise((resolve) => setTimeout(() => resolve(2), 1_000)) });
    const err = await chainError(runner.runChain([{ toolId: 'fast' }, { toolId: 'slow' }], { timeoutMs: 20 }));
    expect(err.code).toBe('TIMEOUT');
    expect(err.steps).toHaveLength(2);
    expect(err.steps[1]?.error?.code).toBe('TIMEOUT');
  });

  it('a validation failure in a step carries violations up to the ChainError', async () => {
    const index = indexWith([{ name: 'strict', inputSchema: { type: 'object', required: ['id'] } }, localBackend('strict')]);
    const runner = createRunner({ index, local: { strict: () => 1 } });
    const err = await chainError(runner.runChain([{ toolId: 'strict', args: {} }]));
    expect(err.code).toBe('VALIDATION');
    expect(err.details?.violations).toEqual([expect.objectContaining({ code: 'RequiredMissing', field: '/id' })]);
  });

  it('rejects a non-array with INVALID_ARGUMENT', async () => {
    const err = await rejectionOf(chainRunner({}).runChain('nope' as unknown as []));
    expect(err.code).toBe('INVALID_ARGUMENT');
  });
});

describe('JSON shapes (cases 108–111)', () => {
  it('case 108/110: StreamEvent and StepResult keep their keys; error objects serialize as library JSON', async () => {
    const runner = chainRunner({
      a: () => {
        throw new Error('x');
      },
    });
    const err = await chainError(runner.runChain([{ toolId: 'a', args: { k: 1 }, usePrevious: true }]));
    const json = JSON.parse(JSON.stringify(err.steps[0])) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(['backend', 'error', 'toolId']);
    expect((json.error as Record<string, unknown>).code).toBe('EXECUTION');
  });

  it('case 109: a ChainStep round-trips with toolId, args and usePrevious', () => {
    const step = { toolId: 'ns:t', args: { a: [1, 2] }, usePrevious: true };
    expect(JSON.parse(JSON.stringify(step))).toEqual(step);
  });

  it('case 111: the stream event kinds are progress, chunk, done, error', async () => {
    const kinds: string[] = [];
    const runner = createRunner({
      index: indexWith([tool('t'), localBackend('h')]),
      local: {
        h: async function* (_a, ctx) {
          ctx.onProgress?.({ progress: 1 });
          yield 1;
        },
      },
    });
    for await (const event of runner.runStream('t')) kinds.push(event.kind);
    expect(kinds).toEqual(['progress', 'chunk', 'done']);
  });

  it('a RunResult serializes tool, backend, structured (mcpResult only for MCP)', async () => {
    const { result } = await chainRunner({ a: () => ({ v: 1 }) }).runChain([{ toolId: 'a' }]);
    expect(Object.keys(JSON.parse(JSON.stringify(result)) as object).sort()).toEqual(['backend', 'structured', 'tool']);
  });
});
