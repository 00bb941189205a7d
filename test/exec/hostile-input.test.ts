/**
 * The hostile inputs of the fuzzing report, one by one: only ToolexecErrors leave the public
 * functions, promise-returning ones never throw synchronously, out-of-range options are refused the
 * same way on every method, and a huge string where options belong is refused at once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { createMcpExecutor } from '../../src/mcp/index.js';
import { ToolexecError, hasErrorCode } from '../../src/model/index.js';
import type { StreamEvent } from '../../src/run/index.js';

const exec: DefaultExec = createExec({
  tools: [{ tool: { name: 'echo', namespace: 't', inputSchema: { type: 'object' } }, handler: (args) => args }],
});
afterAll(() => exec.close());

const FIVE_MB = 'x'.repeat(5 * 1024 * 1024);

/** What `call` settles with; fails the test on a synchronous throw. */
async function outcome(call: () => unknown): Promise<{ error?: ToolexecError; value?: unknown }> {
  let pending: unknown;
  try {
    pending = call();
  } catch (err) {
    throw new Error(`threw synchronously: ${String(err)}`, { cause: err });
  }
  try {
    if (pending !== null && typeof pending === 'object' && Symbol.asyncIterator in pending) {
      const events: StreamEvent[] = [];
      for await (const event of pending as AsyncIterable<StreamEvent>) events.push(event);
      return { value: events };
    }
    return { value: await pending };
  } catch (err) {
    expect(ToolexecError.isInstance(err), String(err)).toBe(true);
    return { error: err as ToolexecError };
  }
}

function bombs(): Record<string, unknown> {
  const nullProto = Object.create(null) as object;
  const toStringBomb = {
    toString(): string {
      throw new Error('toString bomb');
    },
  };
  const getter = Object.defineProperty({}, 'timeoutMs', {
    get(): never {
      throw new Error('getter bomb');
    },
    enumerable: true,
  });
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  return { nullProto, toStringBomb, getter, revoked };
}

describe('hostile input to the facade', () => {
  it('a tool ID that is a null-prototype object, or whose toString throws: INVALID_TOOL_ID, never a synchronous throw', async () => {
    const { nullProto, toStringBomb } = bombs();
    for (const id of [nullProto, toStringBomb, 42, undefined]) {
      const { error } = await outcome(() => exec.runTool(id as string));
      expect(error?.code).toBe('INVALID_TOOL_ID');
      expect((await outcome(() => exec.runner.run(id as string))).error?.code).toBe('INVALID_TOOL_ID');
    }
  });

  it('options with a throwing getter or a revoked proxy: INVALID_ARGUMENT with the thrown error as cause', async () => {
    const { getter, revoked } = bombs();
    for (const options of [getter, revoked]) {
      for (const call of [
        () => exec.runTool('t:echo', {}, options as never),
        () => exec.runChain([{ toolId: 't:echo' }], options as never),
        () => exec.runToolStream('t:echo', {}, options as never),
        // snippet params: the code is read first, so the bomb goes off on a params object that has some
        () =>
          exec.executeCode(
            (options === getter
              ? Object.defineProperties({ code: 'return 1' }, Object.getOwnPropertyDescriptors(getter))
              : options) as never,
          ),
        () => exec.connect(options as never),
      ]) {
        const { error } = await outcome(call);
        expect(error?.code).toBe('INVALID_ARGUMENT');
        expect(error?.cause).toBeDefined();
      }
    }
  });

  it('snippet params whose language, profile or timeoutMs getter throws: INVALID_ARGUMENT, never the raw error', async () => {
    for (const key of ['language', 'profile', 'timeoutMs', 'maxToolCalls']) {
      const params = { code: 'return 1' };
      Object.defineProperty(params, key, {
        enumerable: true,
        get() {
          throw new Error(`hostile getter ${key}`);
        },
      });
      const { error } = await outcome(() => exec.executeCode(params));
      expect(error?.code).toBe('INVALID_ARGUMENT');
    }
  });

  it('a 5 MB string where an options object belongs is refused at once, not spread', async () => {
    for (const call of [
      () => exec.runTool('t:echo', {}, FIVE_MB as never),
      () => exec.runChain([{ toolId: 't:echo' }], FIVE_MB as never),
      () => exec.runToolStream('t:echo', {}, FIVE_MB as never),
      () => exec.executeCode(FIVE_MB as never),
      () => exec.connect(FIVE_MB as never),
      () => exec.runner.run('t:echo', {}, FIVE_MB as never),
    ]) {
      const started = performance.now();
      const { error } = await outcome(call);
      expect(performance.now() - started).toBeLessThan(250);
      expect(error?.code).toBe('INVALID_ARGUMENT');
      expect(error?.message).toMatch(/must be an object, got a string of 5242880 characters/);
      expect(error?.message.length).toBeLessThan(300);
    }
  });

  it('a 5 MB string where a tool ID, detail level, language or profile belongs: a message and details of a few hundred characters', async () => {
    const cases: Array<[() => unknown, string]> = [
      [() => exec.runTool(FIVE_MB, {}), 'TOOL_NOT_FOUND'],
      [() => exec.runTool(`t:${FIVE_MB}`, {}), 'TOOL_NOT_FOUND'],
      [() => exec.runner.run(FIVE_MB, {}), 'TOOL_NOT_FOUND'],
      [() => exec.getToolDoc(FIVE_MB), 'TOOL_NOT_FOUND'],
      [() => exec.getToolDoc('t:echo', FIVE_MB as never), 'INVALID_DETAIL'],
      // a language no runtime runs is the caller's bad value (400), not an outage
      [() => exec.executeCode({ code: 'return 1', language: FIVE_MB }), 'INVALID_ARGUMENT'],
      [() => exec.executeCode({ code: 'return 1', profile: FIVE_MB as never }), 'INVALID_ARGUMENT'],
    ];
    for (const [call, code] of cases) {
      const { error } = await outcome(call);
      expect(error?.code).toBe(code);
      // the string is quoted up to 200 characters, with its length
      expect(error?.message.length).toBeLessThan(600);
      expect(JSON.stringify(error?.details ?? {}).length).toBeLessThan(1000);
      expect(`${error?.message} ${JSON.stringify(error?.details ?? {})}`).toMatch(/x… \(52428\d\d characters\)/);
    }
  });

  it('timeoutMs <= 0 or NaN is INVALID_ARGUMENT with the same words on every method', async () => {
    const mcp = createMcpExecutor({ servers: { none: { command: process.execPath, args: ['-e', ''] } } });
    try {
      for (const timeoutMs of [-1, 0, Number.NaN]) {
        const texts = new Set<string>();
        for (const call of [
          () => exec.runTool('t:echo', {}, { timeoutMs }),
          () => exec.runChain([{ toolId: 't:echo' }], { timeoutMs }),
          () => exec.runToolStream('t:echo', {}, { timeoutMs }),
          () => exec.executeCode({ code: 'return 1', timeoutMs }),
          () => exec.connect({ timeoutMs }),
          () => exec.runner.run('t:echo', {}, { timeoutMs }),
          () => exec.runner.runChain([{ toolId: 't:echo' }], { timeoutMs }),
        ]) {
          const { error } = await outcome(call);
          expect(error?.code, `timeoutMs ${timeoutMs}`).toBe('INVALID_ARGUMENT');
          // `<layer>: option timeoutMs must be a positive number of milliseconds, got -1`
          texts.add((error?.message ?? '').replace(/^[a-zA-Z]+: /, ''));
        }
        expect([...texts]).toEqual([`option timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`]);
        const mcpError = (await outcome(() => mcp.callTool('none', { name: 'x' }, { timeoutMs }))).error;
        expect(mcpError?.message).toBe(`mcp: option timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`);
      }
    } finally {
      await mcp.close();
    }
  });

  it('an idempotencyKey that is not a string of 1 to 256 characters is INVALID_ARGUMENT on every method, chains too', async () => {
    for (const idempotencyKey of [5, '', 'k'.repeat(300)]) {
      for (const call of [
        () => exec.runTool('t:echo', {}, { idempotencyKey: idempotencyKey as string }),
        () => exec.runChain([{ toolId: 't:echo' }], { idempotencyKey: idempotencyKey as string }),
        () => exec.runner.runChain([{ toolId: 't:echo' }], { idempotencyKey: idempotencyKey as string }),
      ]) {
        const { error } = await outcome(call);
        expect(error?.code, `idempotencyKey ${String(idempotencyKey).slice(0, 10)}`).toBe('INVALID_ARGUMENT');
        expect(error?.message).toContain('idempotencyKey');
      }
    }
  });

  it('searchTools refuses a limit of 0, -1, NaN or a fraction with INVALID_ARGUMENT; Infinity means all', async () => {
    for (const limit of [0, -1, Number.NaN, 1.5, '3']) {
      expect((await outcome(() => exec.searchTools('echo', limit as number))).error?.code).toBe('INVALID_ARGUMENT');
    }
    expect(((await outcome(() => exec.searchTools('echo', Infinity))).value as unknown[]).length).toBeGreaterThan(0);
  });

  it('hostile tools, schemas and backends at creation: CONFIGURATION or INVALID_*, never a raw error', () => {
    const { getter, revoked, nullProto } = bombs();
    for (const tool of [getter, revoked, nullProto, { name: 'x', inputSchema: revoked }]) {
      let thrown: unknown;
      try {
        createExec({ tools: [{ tool: tool as never, handler: () => 1 }] });
      } catch (err) {
        thrown = err;
      }
      expect(ToolexecError.isInstance(thrown), String(thrown)).toBe(true);
    }
    const toolsGetter = Object.defineProperty({}, 'tools', {
      get(): never {
        throw new Error('getter bomb');
      },
    });
    for (const options of [toolsGetter, revoked]) {
      expect(() => createExec(options as never)).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }) as Error);
    }
  });

  it('a thrown revoked proxy still gets an error shape and a status', async () => {
    const { revoked } = bombs();
    const exec2 = createExec({
      tools: [
        {
          tool: { name: 'bad', namespace: 't', inputSchema: { type: 'object' } },
          handler: () => {
            throw revoked;
          },
        },
      ],
    });
    const { error } = await outcome(() => exec2.runTool('t:bad'));
    expect(error?.code).toBe('EXECUTION');
    expect(hasErrorCode(error, 'EXECUTION')).toBe(true);
    await exec2.close();
  });
});
