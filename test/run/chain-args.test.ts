/** Chains that feed real tools: a step's arguments built from the previous step's result. */
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/model/index.js';
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

describe('a step whose arguments cannot be read', () => {
  const exploded = new Error('getter exploded');
  const throwingArgs = (): Record<string, unknown> =>
    Object.defineProperty({ mode: 'w' }, 'path', {
      enumerable: true,
      get(): never {
        throw exploded;
      },
    });
  const revoked = (): Record<string, unknown> => {
    const { proxy, revoke } = Proxy.revocable({ path: '/a.txt', text: 'x' }, {});
    revoke();
    return proxy;
  };

  it.each([
    ['args with a throwing getter', throwingArgs],
    ['args that are a revoked proxy', revoked],
  ])('%s: the step fails with VALIDATION (400), as runner.run fails them; the tool never runs', async (_label, args) => {
    const { runner, written } = chainRunner();
    const run = await rejectionOf(runner.run('fs:write', args()));
    const err = (await rejectionOf(runner.runChain([{ toolId: 'fs:write', args: args() }]))) as ChainError;
    expect(err).toBeInstanceOf(ChainError);
    expect(run.code).toBe('VALIDATION');
    expect(err.code).toBe(run.code);
    expect(errorStatus(err)).toBe(400);
    expect(err.steps[0]?.error).toMatchObject({ code: 'VALIDATION', op: 'validate_input', toolId: 'fs:write' });
    expect(err.message).toContain('step args could not be read');
    expect(err.details?.violations).toEqual([expect.objectContaining({ field: '' })]);
    expect(written).toEqual([]);
  });

  it('the cause is what was thrown', async () => {
    const { runner } = chainRunner();
    const err = (await rejectionOf(runner.runChain([{ toolId: 'fs:write', args: throwingArgs() }]))) as ChainError;
    expect(err.steps[0]?.error?.cause).toBe(exploded);
  });

  it('an argsFrom whose keys cannot be listed, or whose function returns such an object: INVALID_ARGUMENT (400)', async () => {
    const { runner, written } = chainRunner();
    const keysExploded = new Error('ownKeys exploded');
    const unlistable = new Proxy(
      { path: '/files/0/path' },
      {
        ownKeys(): never {
          throw keysExploded;
        },
      },
    );
    for (const argsFrom of [unlistable, () => unlistable]) {
      const err = (await rejectionOf(runner.runChain([{ toolId: 'fs:list' }, { toolId: 'fs:write', argsFrom }]))) as ChainError;
      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(errorStatus(err)).toBe(400);
      expect(err.stepIndex).toBe(1);
      expect(err.message).toContain('could not be read: ownKeys exploded');
      expect(err.steps[1]?.error?.cause).toBe(keysExploded);
    }
    expect(written).toEqual([]);
  });

  it('a step whose args or argsFrom getter throws: INVALID_ARGUMENT naming the field', async () => {
    const { runner } = chainRunner();
    for (const field of ['args', 'argsFrom', 'usePrevious']) {
      const step = Object.defineProperty({ toolId: 'fs:write' }, field, {
        get(): never {
          throw exploded;
        },
      }) as ChainStep;
      const err = (await rejectionOf(runner.runChain([step]))) as ChainError;
      expect(err.code, field).toBe('INVALID_ARGUMENT');
      expect(err.message).toContain(`step ${field} could not be read: getter exploded`);
    }
  });
});
