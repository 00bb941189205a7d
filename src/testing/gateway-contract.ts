/**
 * The gateway contract: a vitest suite every {@link ToolGateway} implementation must pass, and
 * the small real tool set (index, docs, runner) it runs against.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDocStore, createToolIndex, type DocStore, type ToolIndex } from '../discovery/index.js';
import { hasErrorCode, localBackend, type ErrorCode } from '../model/index.js';
import { Deadline, noop } from '../model/internal.js';
import { createRunner, type LocalHandler, type Runner } from '../run/index.js';
import type { ToolGateway } from '../runtime/index.js';

/** The tools, docs and runner a contract suite runs against. */
export interface ContractFixture {
  /** The index holding the `test` namespace's tools. */
  index: ToolIndex;
  /** The docs and examples of those tools. */
  docs: DocStore;
  /** A runner over the index with the tools' local handlers. */
  runner: Runner;
}

/** A gateway under test; `close` (when present) is called after each test. */
export type ClosableGateway = ToolGateway & {
  /** Releases the gateway (and whatever the factory started for it). */
  close?(): Promise<void> | void;
};

/** Waits `ms`; rejects with the signal's reason (an Error) as soon as it aborts. */
async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  const pause = new Deadline(signal, ms);
  try {
    await pause.race(new Promise<never>(noop));
    if (!pause.timedOut) throw pause.reason instanceof Error ? pause.reason : new Error('aborted');
  } finally {
    pause.dispose();
  }
}

const handlers: Record<string, LocalHandler> = {
  add: (args) => (args.a as number) + (args.b as number),
  echo: (args) => args,
  double: (args) => ((args.previous ?? args.value) as number) * 2,
  fail: () => {
    throw new Error('tool failed on purpose');
  },
  slow: async (args, ctx) => {
    await sleep(typeof args.ms === 'number' ? args.ms : 50, ctx.signal);
    return 'slow done';
  },
};

/**
 * Builds the contract's tool set: namespace `test` with `add` (`{a, b}` numbers, required),
 * `echo` (returns its arguments), `double` (`previous ?? value`, times 2), `fail` (always throws
 * `tool failed on purpose`) and `slow` (waits `ms`, default 50, honouring aborts); docs and two
 * examples for `test:add`.
 */
export function createContractFixture(): ContractFixture {
  const index = createToolIndex();
  const number = { type: 'number' };
  index.registerTools([
    {
      tool: {
        name: 'add',
        namespace: 'test',
        description: 'Add two numbers',
        tags: ['math'],
        inputSchema: { type: 'object', properties: { a: number, b: number }, required: ['a', 'b'] },
      },
      backend: localBackend('add'),
    },
    {
      tool: { name: 'echo', namespace: 'test', description: 'Echo the arguments back', inputSchema: { type: 'object' } },
      backend: localBackend('echo'),
    },
    {
      tool: {
        name: 'double',
        namespace: 'test',
        description: 'Double a number (or the previous chain result)',
        inputSchema: { type: 'object', properties: { value: number, previous: number } },
      },
      backend: localBackend('double'),
    },
    {
      tool: { name: 'fail', namespace: 'test', description: 'Always fails', inputSchema: { type: 'object' } },
      backend: localBackend('fail'),
    },
    {
      tool: { name: 'slow', namespace: 'test', description: 'Wait a while', inputSchema: { type: 'object', properties: { ms: number } } },
      backend: localBackend('slow'),
    },
  ]);
  const docs = createDocStore({ index });
  docs.registerDoc('test:add', {
    summary: 'Adds a and b',
    notes: 'Both arguments are required.',
    examples: [
      { title: 'small', description: 'one plus two', args: { a: 1, b: 2 }, resultHint: '3' },
      { title: 'large', description: 'big numbers', args: { a: 1000, b: 2000 } },
    ],
  });
  const runner = createRunner({ index, local: handlers });
  return { index, docs, runner };
}

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<unknown> {
  let error: unknown;
  try {
    await promise;
  } catch (err) {
    error = err;
  }
  expect(error, `expected a rejection with ${code}`).toBeDefined();
  expect((error as { code?: unknown }).code, `expected ${code}, got: ${String((error as Error)?.message)}`).toBe(code);
  expect(hasErrorCode(error, code)).toBe(true);
  return error;
}

function abortedSignal(): AbortSignal {
  const controller = new AbortController();
  controller.abort(new Error('cancelled by the test'));
  return controller.signal;
}

/**
 * Registers the gateway contract for `name`: discovery (summaries, namespaces, every detail
 * level, examples), runs (results, validation / execution / not-found errors with their codes),
 * chains (empty, `usePrevious`, a failing step with its step results), and aborts.
 *
 * @param factory Builds the gateway under test over the suite's {@link ContractFixture}.
 */
export function gatewayContract(name: string, factory: (fixture: ContractFixture) => ClosableGateway | Promise<ClosableGateway>): void {
  describe(`gateway contract: ${name}`, () => {
    const open: ClosableGateway[] = [];
    const make = async (): Promise<ClosableGateway> => {
      const gateway = await factory(createContractFixture());
      open.push(gateway);
      return gateway;
    };
    afterEach(async () => {
      for (const gateway of open.splice(0)) await gateway.close?.();
    });

    it('searchTools returns at most `limit` summaries', async () => {
      const gateway = await make();
      const five = await gateway.searchTools('', 5);
      expect(five.length).toBeGreaterThan(0);
      expect(five.length).toBeLessThanOrEqual(5);
      const two = await gateway.searchTools('', 2);
      expect(two).toHaveLength(2);
      await expect(gateway.searchTools('', 10)).resolves.toBeInstanceOf(Array);
    });

    it('searchTools returns full summaries, exact name first', async () => {
      const gateway = await make();
      const [first] = await gateway.searchTools('add', 5);
      expect(first).toMatchObject({ id: 'test:add', name: 'add', namespace: 'test', tags: ['math'] });
      expect(typeof first?.shortDescription).toBe('string');
      expect(first).not.toHaveProperty('inputSchema');
    });

    it('listNamespaces lists the namespaces', async () => {
      const gateway = await make();
      await expect(gateway.listNamespaces()).resolves.toEqual(['test']);
    });

    it('describeTool gives each detail level', async () => {
      const gateway = await make();
      const summary = await gateway.describeTool('test:add', 'summary');
      expect(summary.summary).toBe('Adds a and b');
      expect(summary.tool).toBeUndefined();
      const schema = await gateway.describeTool('test:add', 'schema');
      expect(schema.tool?.name).toBe('add');
      expect(schema.tool?.inputSchema).toMatchObject({ required: ['a', 'b'] });
      expect(schema.schemaInfo?.required).toEqual(['a', 'b']);
      const full = await gateway.describeTool('test:add', 'full');
      expect(full.notes).toBe('Both arguments are required.');
      expect(full.examples).toHaveLength(2);
    });

    it('describeTool of an unknown tool rejects with TOOL_NOT_FOUND', async () => {
      const gateway = await make();
      await expectCode(gateway.describeTool('nonexistent:tool', 'summary'), 'TOOL_NOT_FOUND');
    });

    it('describeTool with a bad level rejects with INVALID_DETAIL', async () => {
      const gateway = await make();
      await expectCode(gateway.describeTool('test:add', 'everything' as 'full'), 'INVALID_DETAIL');
    });

    it('listToolExamples honours max', async () => {
      const gateway = await make();
      const one = await gateway.listToolExamples('test:add', 1);
      expect(one).toEqual([{ title: 'small', description: 'one plus two', args: { a: 1, b: 2 }, resultHint: '3' }]);
      await expect(gateway.listToolExamples('test:add', 10)).resolves.toHaveLength(2);
      await expectCode(gateway.listToolExamples('nonexistent:tool', 1), 'TOOL_NOT_FOUND');
    });

    it('runTool returns the full result', async () => {
      const gateway = await make();
      const result = await gateway.runTool('test:add', { a: 2, b: 3 });
      expect(result.structured).toBe(5);
      expect(result.tool).toMatchObject({ name: 'add', namespace: 'test' });
      expect(result.backend).toEqual({ kind: 'local', local: { name: 'add' } });
    });

    it('runTool failures keep their codes', async () => {
      const gateway = await make();
      const invalid = (await expectCode(gateway.runTool('test:add', { a: 'x' }), 'VALIDATION')) as Error;
      expect(invalid.message).toContain('/a');
      const failed = (await expectCode(gateway.runTool('test:fail', {}), 'EXECUTION')) as Error & { toolId?: string };
      expect(failed.message).toContain('tool failed on purpose');
      expect(failed.toolId).toBe('test:fail');
      await expectCode(gateway.runTool('test:missing', {}), 'TOOL_NOT_FOUND');
    });

    it('runTool with an aborted signal rejects with ABORTED', async () => {
      const gateway = await make();
      await expectCode(gateway.runTool('test:add', { a: 1, b: 2 }, { signal: abortedSignal() }), 'ABORTED');
      await expectCode(gateway.searchTools('', 5, { signal: abortedSignal() }), 'ABORTED');
    });

    it('runTool aborted while running rejects with ABORTED', async () => {
      const gateway = await make();
      const controller = new AbortController();
      const pending = gateway.runTool('test:slow', { ms: 5_000 }, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('stop')), 30);
      const started = performance.now();
      await expectCode(pending, 'ABORTED');
      expect(performance.now() - started).toBeLessThan(2_000);
    });

    it('runChain of no steps resolves with no step results', async () => {
      const gateway = await make();
      const chain = await gateway.runChain([]);
      expect(chain.steps).toEqual([]);
    });

    it('runChain passes the previous result with usePrevious', async () => {
      const gateway = await make();
      const chain = await gateway.runChain([
        { toolId: 'test:add', args: { a: 1, b: 2 } },
        { toolId: 'test:double', usePrevious: true },
      ]);
      expect(chain.result?.structured).toBe(6);
      expect(chain.steps).toHaveLength(2);
      expect(chain.steps.map((step) => step.toolId)).toEqual(['test:add', 'test:double']);
      expect(chain.steps[0]?.result?.structured).toBe(3);
      expect(chain.steps[1]?.backend?.kind).toBe('local');
    });

    it('a failing chain step rejects with its code and the step results so far', async () => {
      const gateway = await make();
      const error = (await expectCode(
        gateway.runChain([
          { toolId: 'test:add', args: { a: 1, b: 2 } },
          { toolId: 'test:fail' },
          { toolId: 'test:add', args: { a: 1, b: 2 } },
        ]),
        'EXECUTION',
      )) as Error & { steps?: { toolId: string; error?: { code?: string; message?: string } }[] };
      expect(error.steps).toHaveLength(2);
      expect(error.steps?.[1]?.toolId).toBe('test:fail');
      expect(error.steps?.[1]?.error?.code).toBe('EXECUTION');
      expect(error.steps?.[1]?.error?.message).toContain('tool failed on purpose');
    });

    it('concurrent calls all complete', async () => {
      const gateway = await make();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => gateway.runTool('test:add', { a: i, b: 1 })));
      expect(results.map((result) => result.structured)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    });
  });
}
