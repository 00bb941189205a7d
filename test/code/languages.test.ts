import { afterAll, describe, expect, it } from 'vitest';
import { createExec } from '../../src/exec/index.js';
import { createCodeExecutor } from '../../src/code/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { fixture, rejection } from './helpers.js';

/** Which snippets are read as TypeScript: those named so, and those naming no language (the default). */
describe('code mode: JavaScript runs as written, TypeScript is stripped', () => {
  const exec = createExec({ poolSize: 1 });
  afterAll(() => exec.close());

  it('runs a snippet named javascript as node would, where TypeScript reads it differently', async () => {
    const code = 'const a = 1, b = 2, c = 0; return a < b > (c);';
    for (const language of ['javascript', 'js']) expect((await exec.executeCode({ code, language })).value).toBe(true);
    // named TypeScript, the same text is a generic call
    const ts = await rejection(exec.executeCode({ code, language: 'typescript' }));
    expect(ts.message).toMatch(/not a function/);
  });

  it('still strips TypeScript in a snippet that names no language (the documented default)', async () => {
    const code = 'interface P { n: number }\nconst p: P = { n: 2 };\nreturn (p.n as number) * 21;';
    expect((await exec.executeCode({ code })).value).toBe(42);
    expect((await exec.executeCode({ code, language: 'typescript' })).value).toBe(42);
    const js = await rejection(exec.executeCode({ code, language: 'javascript' }));
    expect(js.code).toBe('CODE_EXECUTION');
  });

  it('an executor whose default is not JavaScript runs its default as named', async () => {
    const runtime = createRuntime({ wasm: { poolSize: 1 } });
    const f = fixture();
    const code = createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, runtime, defaultLanguage: 'typescript' });
    try {
      expect((await code.executeCode({ code: 'const n: number = 6; return n * 7;' })).value).toBe(42);
    } finally {
      await code.close();
      await runtime.close();
    }
  });
});

/** A default language no runtime of the library runs is a configuration error at once, not a failure of every call. */
describe('code mode: the default language is checked when the executor is made', () => {
  it('createExec refuses a defaultLanguage its runtime does not run, naming the available ones', () => {
    expect(() => createExec({ defaultLanguage: 'ruby' })).toThrow(
      expect.objectContaining({
        code: 'CONFIGURATION',
        message: expect.stringContaining('available: javascript, typescript, python') as string,
        details: { invalid: ['defaultLanguage'] },
      }) as Error,
    );
  });

  it('createCodeExecutor refuses it too when it makes its own runtime', () => {
    const f = fixture();
    expect(() => createCodeExecutor({ index: f.index, docs: f.docs, runner: f.runner, defaultLanguage: 'ruby' })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringContaining('"ruby"') as string }) as Error,
    );
  });

  it('accepts aliases in any case, and any language for a runtime of the caller (which may run more)', async () => {
    const runtime = createRuntime({ wasm: { poolSize: 1 } });
    const aliased = createExec({ defaultLanguage: 'JS', poolSize: 1 });
    const own = createExec({ defaultLanguage: 'ruby', runtime });
    try {
      expect((await aliased.executeCode({ code: 'return 6 * 7;' })).value).toBe(42);
      // the caller's runtime decides: the library's runtime does not run ruby, so the call says so
      const refused = await rejection(own.executeCode({ code: 'puts 1' }));
      expect(refused.code).toBe('INVALID_ARGUMENT');
      expect(refused.details).toMatchObject({ field: 'language', value: 'ruby' });
    } finally {
      await aliased.close();
      await own.close();
      await runtime.close();
    }
  });
});
