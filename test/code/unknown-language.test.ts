/**
 * A `language` no runtime of the library runs is the caller's bad value: INVALID_ARGUMENT (400)
 * naming the available languages. A language the library knows whose runtime is not there stays
 * RUNTIME_UNAVAILABLE (503), and so does a runtime of your own refusing a language for its own reasons.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeExecutor, type CodeResult } from '../../src/code/index.js';
import { createExec } from '../../src/exec/index.js';
import { ToolexecError, errorStatus } from '../../src/model/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { fixture, rejection } from './helpers.js';

describe('an unknown language', () => {
  const runtime = createRuntime({ wasm: { poolSize: 1 } });
  const f = fixture();
  const code = createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, runtime });
  const exec = createExec({ poolSize: 1 });
  afterAll(async () => {
    await code.close();
    await runtime.close();
    await exec.close();
  });

  it('is INVALID_ARGUMENT naming the available languages, the runtime refusal as cause, through the executor and the facade', async () => {
    for (const run of [
      () => code.executeCode({ code: 'return 1', language: 'cobol' }),
      () => exec.executeCode({ code: 'return 1', language: 'cobol' }),
    ]) {
      const error = await rejection(run());
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(errorStatus(error)).toBe(400);
      expect(error.message).toBe('executeCode: language "cobol" is not supported; available: javascript, typescript, python');
      expect(error.details).toMatchObject({ field: 'language', value: 'cobol', available: ['javascript', 'typescript', 'python'] });
      // the partial result, as on every executeCode failure
      expect((error.details?.result as CodeResult).toolCalls).toEqual([]);
      expect(error.cause).toMatchObject({ code: 'RUNTIME_UNAVAILABLE', details: { language: 'cobol' } });
    }
  });

  it('the known names and their aliases, in any case, still run', async () => {
    for (const language of ['javascript', 'JS', ' typescript ', 'ts']) {
      expect((await code.executeCode({ code: 'return 6 * 7', language })).value).toBe(42);
    }
  });

  it('a known language whose runtime is not there (Python on the dev profile) stays RUNTIME_UNAVAILABLE', async () => {
    const dev = createExec({ securityProfile: 'dev' });
    try {
      const error = await rejection(dev.executeCode({ code: '1', language: 'python' }));
      expect(error.code).toBe('RUNTIME_UNAVAILABLE');
      expect(errorStatus(error)).toBe(503);
      // an unknown one is still the caller's value there
      expect((await rejection(dev.executeCode({ code: 'return 1', language: 'cobol' }))).code).toBe('INVALID_ARGUMENT');
    } finally {
      await dev.close();
    }
  });

  it('a runtime of your own that is down for a language it runs keeps its RUNTIME_UNAVAILABLE', async () => {
    const down: Runtime = {
      execute: () => Promise.reject(new ToolexecError('RUNTIME_UNAVAILABLE', 'lua: the interpreter pool is down')),
    };
    const own = createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, runtime: down });
    try {
      const error = await rejection(own.executeCode({ code: 'return 1', language: 'lua' }));
      expect(error).toMatchObject({ code: 'RUNTIME_UNAVAILABLE', message: 'lua: the interpreter pool is down' });
    } finally {
      await own.close();
    }
  });
});
