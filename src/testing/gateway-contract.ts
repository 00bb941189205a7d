/**
 * The gateway contract: a vitest suite every {@link ToolGateway} implementation must pass, and
 * the small real tool set (index, docs, runner) it runs against.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDocStore, createToolIndex, type DocStore, type ToolIndex } from '../discovery/index.js';
import { localBackend, type ErrorCode } from '../model/index.js';
import { Deadline, noop } from '../model/internal.js';
import { createRunner, type LocalHandler, type Runner } from '../run/index.js';
import type { ToolGateway } from '../runtime/index.js';
import { callLabel, expectArray, expectCode, rejected, resolved, settle, show, type Failure } from './contract-checks.js';

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

type Method = 'searchTools' | 'listNamespaces' | 'describeTool' | 'listToolExamples' | 'runTool' | 'runChain';
const METHODS: readonly Method[] = ['searchTools', 'listNamespaces', 'describeTool', 'listToolExamples', 'runTool', 'runChain'];
type Call = (...args: unknown[]) => Promise<unknown>;

/** The gateway as the tests call it: each method checked to return a promise that settles, failures named. */
const rawOf = new WeakMap<ClosableGateway, ClosableGateway>();

function checked(raw: ClosableGateway): ClosableGateway {
  const wrapped: Record<string, unknown> = {};
  for (const method of METHODS) {
    wrapped[method] = (...args: unknown[]) => resolved(callLabel('gateway', method, args), () => (raw[method] as Call).call(raw, ...args));
  }
  const gateway = wrapped as unknown as ClosableGateway;
  rawOf.set(gateway, raw);
  return gateway;
}

/** Calls `gateway.method(...args)`, expecting a rejection with `code`; returns the error. */
async function expectRejection(gateway: ClosableGateway, method: Method, args: unknown[], code: ErrorCode): Promise<Failure> {
  const raw = rawOf.get(gateway) ?? gateway;
  const label = callLabel('gateway', method, args);
  const error = await rejected(label, () => (raw[method] as Call).call(raw, ...args));
  expectCode(error, code, label);
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
 * @remarks Every method must return a promise (a synchronous throw fails the test as such) that
 * settles within 3 s, or within 2 s of its signal aborting; a failure names the call, what was
 * expected and what it resolved or rejected with.
 */
export function gatewayContract(name: string, factory: (fixture: ContractFixture) => ClosableGateway | Promise<ClosableGateway>): void {
  describe(`gateway contract: ${name}`, () => {
    const open: ClosableGateway[] = [];
    const make = async (): Promise<ClosableGateway> => {
      const gateway = await factory(createContractFixture());
      open.push(gateway);
      return checked(gateway);
    };
    afterEach(async () => {
      for (const gateway of open.splice(0)) await gateway.close?.();
    });

    it('searchTools returns at most `limit` summaries', async () => {
      const gateway = await make();
      const five = await gateway.searchTools('', 5);
      expectArray(five, "gateway.searchTools('', 5)");
      expect(five.length).toBeGreaterThan(0);
      expect(five.length).toBeLessThanOrEqual(5);
      const two = await gateway.searchTools('', 2);
      expect(two).toHaveLength(2);
      expectArray(await gateway.searchTools('', 10), "gateway.searchTools('', 10)");
    });

    it('searchTools returns full summaries, exact name first', async () => {
      const gateway = await make();
      const found = await gateway.searchTools('add', 5);
      expectArray(found, "gateway.searchTools('add', 5)");
      const [first] = found;
      expect(first).toMatchObject({ id: 'test:add', name: 'add', namespace: 'test', tags: ['math'] });
      expect(typeof first?.shortDescription).toBe('string');
      expect(first).not.toHaveProperty('inputSchema');
    });

    it('listNamespaces lists the namespaces', async () => {
      const gateway = await make();
      expect(await gateway.listNamespaces()).toEqual(['test']);
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
      await expectRejection(gateway, 'describeTool', ['nonexistent:tool', 'summary'], 'TOOL_NOT_FOUND');
    });

    it('describeTool with a bad level rejects with INVALID_DETAIL', async () => {
      const gateway = await make();
      await expectRejection(gateway, 'describeTool', ['test:add', 'everything'], 'INVALID_DETAIL');
    });

    it('listToolExamples honours max', async () => {
      const gateway = await make();
      const one = await gateway.listToolExamples('test:add', 1);
      expect(one).toEqual([{ title: 'small', description: 'one plus two', args: { a: 1, b: 2 }, resultHint: '3' }]);
      expect(await gateway.listToolExamples('test:add', 10)).toHaveLength(2);
      await expectRejection(gateway, 'listToolExamples', ['nonexistent:tool', 1], 'TOOL_NOT_FOUND');
    });

    it('runTool returns the full result', async () => {
      const gateway = await make();
      const result = await gateway.runTool('test:add', { a: 2, b: 3 });
      expect(result?.structured, `gateway.runTool('test:add', {"a":2,"b":3}) must resolve with a RunResult, got ${show(result)}`).toBe(5);
      expect(result.tool).toMatchObject({ name: 'add', namespace: 'test' });
      expect(result.backend).toEqual({ kind: 'local', local: { name: 'add' } });
    });

    it('runTool failures keep their codes', async () => {
      const gateway = await make();
      const invalid = await expectRejection(gateway, 'runTool', ['test:add', { a: 'x' }], 'VALIDATION');
      expect(invalid.message).toContain('/a');
      const failed = (await expectRejection(gateway, 'runTool', ['test:fail', {}], 'EXECUTION')) as Failure & { toolId?: string };
      expect(failed.message).toContain('tool failed on purpose');
      expect(failed.toolId).toBe('test:fail');
      await expectRejection(gateway, 'runTool', ['test:missing', {}], 'TOOL_NOT_FOUND');
    });

    it('runTool with an aborted signal rejects with ABORTED', async () => {
      const gateway = await make();
      await expectRejection(gateway, 'runTool', ['test:add', { a: 1, b: 2 }, { signal: abortedSignal() }], 'ABORTED');
      await expectRejection(gateway, 'searchTools', ['', 5, { signal: abortedSignal() }], 'ABORTED');
    });

    it('runTool aborted while running rejects with ABORTED', async () => {
      const gateway = await make();
      const raw = rawOf.get(gateway) ?? gateway;
      const controller = new AbortController();
      const label = "gateway.runTool('test:slow', { ms: 5000 }, { signal }) aborted 30ms after the call";
      setTimeout(() => controller.abort(new Error('stop')), 30);
      const outcome = await settle(label, () => raw.runTool('test:slow', { ms: 5_000 }, { signal: controller.signal }), 2_000);
      if (outcome.ok) throw new Error(`expected ${label} to reject, but it resolved with ${show(outcome.value)}`);
      expectCode(outcome.error, 'ABORTED', label);
    });

    it('runChain of no steps resolves with no step results', async () => {
      const gateway = await make();
      const chain = await gateway.runChain([]);
      expect(chain?.steps, `gateway.runChain([]) must resolve with { steps: [] }, got ${show(chain)}`).toEqual([]);
    });

    it('runChain passes the previous result with usePrevious', async () => {
      const gateway = await make();
      const chain = await gateway.runChain([
        { toolId: 'test:add', args: { a: 1, b: 2 } },
        { toolId: 'test:double', usePrevious: true },
      ]);
      expect(chain.result?.structured, `the chain's result.structured (chain: ${show(chain)})`).toBe(6);
      expectArray(chain.steps, 'gateway.runChain(…).steps');
      expect(chain.steps).toHaveLength(2);
      expect(chain.steps.map((step) => step.toolId)).toEqual(['test:add', 'test:double']);
      expect(chain.steps[0]?.result?.structured).toBe(3);
      expect(chain.steps[1]?.backend?.kind).toBe('local');
    });

    it('a failing chain step rejects with its code and the step results so far', async () => {
      const gateway = await make();
      const steps = [{ toolId: 'test:add', args: { a: 1, b: 2 } }, { toolId: 'test:fail' }, { toolId: 'test:add', args: { a: 1, b: 2 } }];
      const error = (await expectRejection(gateway, 'runChain', [steps], 'EXECUTION')) as Failure & {
        steps?: { toolId: string; error?: { code?: string; message?: string } }[];
      };
      expectArray(error.steps, 'the error of a failed gateway.runChain: its `steps`');
      expect(error.steps).toHaveLength(2);
      expect(error.steps?.[1]?.toolId).toBe('test:fail');
      expect(error.steps?.[1]?.error?.code).toBe('EXECUTION');
      expect(error.steps?.[1]?.error?.message).toContain('tool failed on purpose');
    });

    it('concurrent calls all complete', async () => {
      const gateway = await make();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => gateway.runTool('test:add', { a: i, b: 1 })));
      expect(
        results.map((result) => result?.structured),
        'the `structured` of each RunResult',
      ).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    });
  });
}
