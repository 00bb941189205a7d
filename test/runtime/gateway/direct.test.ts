import { describe, expect, it } from 'vitest';
import { gatewayContract, createContractFixture } from '../../../src/testing/gateway-contract.js';
import { createDirectGateway, DirectGateway } from '../../../src/runtime/index.js';
import type { ChainResult, ChainStep, Runner, RunOptions, RunResult } from '../../../src/run/index.js';

gatewayContract('direct', (fixture) => createDirectGateway(fixture));

/** A runner that counts calls and delegates to the fixture's real runner. */
function countingRunner(inner: Runner): Runner & { runs: number; chains: number } {
  const counter = {
    runs: 0,
    chains: 0,
    run(id: string, args?: Record<string, unknown>, options?: RunOptions): Promise<RunResult> {
      counter.runs += 1;
      return inner.run(id, args, options);
    },
    runStream: inner.runStream.bind(inner),
    runChain(steps: readonly ChainStep[], options?: RunOptions): Promise<ChainResult> {
      counter.chains += 1;
      return inner.runChain(steps, options);
    },
  };
  return counter;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
}

describe('direct gateway', () => {
  it('requires index, docs and runner (CONFIGURATION)', () => {
    expect(() => createDirectGateway({} as never)).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining('index, docs, runner') }),
    );
  });

  it('limits search results and propagates search errors (237)', async () => {
    const fixture = createContractFixture();
    const gateway = createDirectGateway(fixture);
    await expect(gateway.searchTools('', 2)).resolves.toHaveLength(2);
    const failing = createDirectGateway({
      ...fixture,
      index: Object.assign(Object.create(fixture.index) as typeof fixture.index, {
        search: (): never => {
          throw new Error('search broke');
        },
      }),
    });
    await expect(failing.searchTools('x', 2)).rejects.toThrow('search broke');
  });

  it('checks the signal before anything else (238)', async () => {
    const fixture = createContractFixture();
    const runner = countingRunner(fixture.runner);
    const gateway = createDirectGateway({ ...fixture, runner, maxToolCalls: 1 });
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    expect(await codeOf(gateway.runTool('test:add', { a: 1, b: 2 }, { signal: controller.signal }))).toBe('ABORTED');
    expect(await codeOf(gateway.runChain([{ toolId: 'test:add' }], { signal: controller.signal }))).toBe('ABORTED');
    expect(await codeOf(gateway.listNamespaces({ signal: controller.signal }))).toBe('ABORTED');
    expect(runner.runs + runner.chains).toBe(0);
    expect(gateway.getToolCalls()).toEqual([]);
  });

  it('records every call, with arguments and results (239)', async () => {
    const gateway = createDirectGateway(createContractFixture());
    await gateway.runTool('test:add', { a: 1, b: 2 });
    await gateway.runTool('test:echo', { x: [1] });
    const calls = gateway.getToolCalls();
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ toolId: 'test:add', args: { a: 1, b: 2 }, structured: 3, backendKind: 'local' });
    expect(calls[1]).toMatchObject({ toolId: 'test:echo', args: { x: [1] } });
    calls.pop();
    expect(gateway.getToolCalls()).toHaveLength(2);
  });

  it('records only the executed steps of a failed chain and refunds the rest (240)', async () => {
    const gateway = createDirectGateway({ ...createContractFixture(), maxToolCalls: 4 });
    await expect(
      gateway.runChain([{ toolId: 'test:fail' }, { toolId: 'test:add', args: { a: 1, b: 1 } }, { toolId: 'test:echo' }]),
    ).rejects.toMatchObject({ code: 'EXECUTION' });
    const calls = gateway.getToolCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolId: 'test:fail', errorOp: 'chain', errorCode: 'EXECUTION', backendKind: 'local' });
    for (let i = 0; i < 3; i += 1) await gateway.runTool('test:add', { a: i, b: 0 });
    expect(await codeOf(gateway.runTool('test:add', { a: 1, b: 1 }))).toBe('LIMIT_EXCEEDED');
  });

  it('enforces maxToolCalls; the refused call is not recorded (241)', async () => {
    const gateway = createDirectGateway({ ...createContractFixture(), maxToolCalls: 2 });
    await gateway.runTool('test:add', { a: 1, b: 2 });
    await expect(gateway.runTool('test:fail', {})).rejects.toMatchObject({ code: 'EXECUTION' });
    await expect(gateway.runTool('test:add', { a: 1, b: 2 })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: 'limit exceeded: max 2 tool calls exceeded',
    });
    expect(gateway.getToolCalls()).toHaveLength(2);
    await expect(gateway.runChain([{ toolId: 'test:add', args: { a: 1, b: 2 } }])).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    gateway.reset();
    expect(gateway.getToolCalls()).toEqual([]);
    await expect(gateway.runTool('test:add', { a: 1, b: 2 })).resolves.toMatchObject({ structured: 3 });
  });

  it('enforces maxChainSteps before running anything (242)', async () => {
    const fixture = createContractFixture();
    const runner = countingRunner(fixture.runner);
    const gateway = createDirectGateway({ ...fixture, runner, maxChainSteps: 2 });
    const steps = [1, 2, 3].map((a) => ({ toolId: 'test:add', args: { a, b: 0 } }));
    await expect(gateway.runChain(steps)).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: 'limit exceeded: max 2 chain steps exceeded (got 3)',
    });
    expect(runner.chains).toBe(0);
    await expect(gateway.runChain(steps.slice(0, 2))).resolves.toMatchObject({ steps: [{}, {}] });
  });

  it('answers an empty chain without the runner and without counting (243)', async () => {
    const fixture = createContractFixture();
    const runner = countingRunner(fixture.runner);
    const gateway = createDirectGateway({ ...fixture, runner, maxToolCalls: 1 });
    await expect(gateway.runChain([])).resolves.toMatchObject({ steps: [] });
    expect(runner.chains).toBe(0);
    expect(gateway.getToolCalls()).toEqual([]);
    await expect(gateway.runTool('test:add', { a: 1, b: 2 })).resolves.toBeDefined();
  });

  it('records the backend kind of a failed call', async () => {
    const gateway = createDirectGateway(createContractFixture());
    await expect(gateway.runTool('test:add', { a: 'not a number' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(gateway.runTool('test:missing')).rejects.toMatchObject({ code: 'TOOL_NOT_FOUND' });
    const [invalid, missing] = gateway.getToolCalls();
    expect(invalid).toMatchObject({ toolId: 'test:add', backendKind: 'local', errorOp: 'run', errorCode: 'VALIDATION' });
    expect(invalid?.error).toContain('/a');
    expect(missing).toMatchObject({ toolId: 'test:missing', errorOp: 'run', errorCode: 'TOOL_NOT_FOUND' });
    expect(missing?.backendKind).toBeUndefined();
  });

  it('is safe under concurrent calls against the limit', async () => {
    const gateway = createDirectGateway({ ...createContractFixture(), maxToolCalls: 5 });
    const settled = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => gateway.runTool('test:slow', { ms: 5 + i })));
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(5);
    expect(settled.filter((s) => s.status === 'rejected' && (s.reason as { code?: string }).code === 'LIMIT_EXCEEDED')).toHaveLength(7);
    expect(gateway.getToolCalls()).toHaveLength(5);
  });

  it('is exported as a class', () => {
    expect(createDirectGateway(createContractFixture())).toBeInstanceOf(DirectGateway);
  });
});
