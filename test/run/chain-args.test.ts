/** Chains that feed real tools: a step's arguments built from the previous step's result. */
import { describe, expect, it } from 'vitest';
import { ChainError, createRunner, type ChainStep } from '../../src/run/index.js';
import { indexWith, localBackend, rejectionOf, tool } from './helpers.js';

const listTool = tool('list', {
  namespace: 'fs',
  inputSchema: { type: 'object' },
});
const writeTool = tool('write', {
  namespace: 'fs',
  inputSchema: {
    type: 'object',
    required: ['path', 'text'],
    properties: { path: { type: 'string' }, text: { type: 'string' }, mode: { type: 'string' } },
  },
});

function chainRunner() {
  const written: Record<string, unknown>[] = [];
  const runner = createRunner({
    index: indexWith([listTool, localBackend('list')], [writeTool, localBackend('write')]),
    local: {
      list: () => ({ files: [{ path: '/a.txt' }, { path: '/b.txt' }], content: 'first line' }),
      write: (args: Record<string, unknown>) => {
        written.push(args);
        return { ok: true, path: args.path };
      },
    },
  });
  return { runner, written };
}

describe('runner.runChain with argsFrom', () => {
  it('step 2 takes its arguments from step 1 through JSON pointers, merged over its args', async () => {
    const { runner, written } = chainRunner();
    const steps: ChainStep[] = [
      { toolId: 'fs:list' },
      { toolId: 'fs:write', args: { mode: 'w', path: 'overwritten' }, argsFrom: { path: '/files/0/path', text: '/content' } },
    ];
    const chain = await runner.runChain(steps);
    expect(written).toEqual([{ mode: 'w', path: '/a.txt', text: 'first line' }]);
    expect(chain.result?.structured).toEqual({ ok: true, path: '/a.txt' });
    expect(steps[1]?.args).toEqual({ mode: 'w', path: 'overwritten' });
  });

  it('takes a function of the previous result too', async () => {
    const { runner, written } = chainRunner();
    await runner.runChain([
      { toolId: 'fs:list' },
      {
        toolId: 'fs:write',
        argsFrom: (previous) => {
          const files = (previous as { files: { path: string }[] }).files;
          return { path: files[1]!.path, text: String(files.length) };
        },
      },
    ]);
    expect(written).toEqual([{ path: '/b.txt', text: '2' }]);
  });

  it('a pointer that does not resolve fails the step with INVALID_ARGUMENT naming it', async () => {
    const { runner, written } = chainRunner();
    const err = (await rejectionOf(
      runner.runChain([{ toolId: 'fs:list' }, { toolId: 'fs:write', argsFrom: { path: '/files/5/path', text: '/content' } }]),
    )) as ChainError;
    expect(err).toBeInstanceOf(ChainError);
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.stepIndex).toBe(1);
    expect(err.message).toContain(
      "argsFrom.path: JSON pointer '/files/5/path' does not resolve in the previous step's result (no '/files/5')",
    );
    expect(err.details).toEqual({ argument: 'path', pointer: '/files/5/path', missing: '/files/5' });
    expect(written).toEqual([]);
  });

  it('a malformed pointer or a throwing function fails the step with INVALID_ARGUMENT', async () => {
    const { runner } = chainRunner();
    const bad = await rejectionOf(runner.runChain([{ toolId: 'fs:list' }, { toolId: 'fs:write', argsFrom: { path: 'files' } }]));
    expect(bad.code).toBe('INVALID_ARGUMENT');
    expect(bad.details).toEqual({ argument: 'path', pointer: 'files' });
    const boom = new Error('boom');
    const threw = await rejectionOf(
      runner.runChain([
        { toolId: 'fs:list' },
        {
          toolId: 'fs:write',
          argsFrom: () => {
            throw boom;
          },
        },
      ]),
    );
    expect(threw.code).toBe('INVALID_ARGUMENT');
    expect(threw.message).toContain('argsFrom threw: boom');
    expect((threw.cause as { cause?: unknown }).cause).toBe(boom);
  });

  it('a step that fails with arguments from the previous step names them (message and details)', async () => {
    const { runner } = chainRunner();
    const err = (await rejectionOf(
      runner.runChain([{ toolId: 'fs:list' }, { toolId: 'fs:write', argsFrom: { text: '/content' } }]),
    )) as ChainError;
    expect(err.code).toBe('VALIDATION');
    expect(err.message).toContain("Field '/path' is required");
    expect(err.message).toContain('(arguments from the previous step: text)');
    expect(err.details?.fromPrevious).toEqual(['text']);
    expect(err.details?.violations).toEqual([expect.objectContaining({ field: '/path', code: 'RequiredMissing' })]);
  });

  it('usePrevious keeps its meaning, and a failure names the injected previous', async () => {
    const { runner, written } = chainRunner();
    const err = await rejectionOf(runner.runChain([{ toolId: 'fs:list' }, { toolId: 'fs:write', usePrevious: true }]));
    expect(err.code).toBe('VALIDATION');
    expect(err.message).toContain('(arguments from the previous step: previous)');
    expect(err.details?.fromPrevious).toEqual(['previous']);
    expect(written).toEqual([]);
  });
});
