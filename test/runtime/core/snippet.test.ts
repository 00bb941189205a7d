import { describe, expect, it } from 'vitest';
import { ToolexecError } from '../../../src/model/index.js';
import {
  abortError,
  cloneJson,
  partialResultOf,
  prepareSnippet,
  runtimeError,
  withPartialResult,
  limitsEnforcedNone,
} from '../../../src/runtime/internal.js';
import type { ExecuteResult } from '../../../src/runtime/index.js';

describe('prepareSnippet', () => {
  it('leaves plain JavaScript unchanged, whatever the language says', () => {
    const plain = [
      'return 1',
      'const { a, ...rest } = { a: 1, b: 2 };\nclass P { #x = 1; static y = 2; get x() { return this.#x; } }\nreturn [a, rest, new P().x, P.y];',
      'const f = async (x = 1) => x ?? 2;\nlabel: for (const k of [1]) { if (k < 2 && k > 0) break label; }\nreturn await f?.(3);',
      'const re = /a<b>c/g;\nconst t = `x${1 < 2}y`;\nreturn { re: re.source, t };',
    ];
    for (const code of plain) {
      for (const language of [undefined, 'javascript', 'js', 'JavaScript', '', 'typescript']) {
        expect(prepareSnippet({ code, ...(language === undefined ? {} : { language }) })).toEqual({ code, language: 'javascript' });
      }
    }
  });

  it('runs a snippet named JavaScript as written, even where TypeScript would read it otherwise', () => {
    for (const code of ['const a = 1, b = 2, c = 0; return a < b > (c)', 'return 1 as any', 'let type = 5; type\n= 3; return type']) {
      for (const language of ['javascript', 'js', ' JS '])
        expect(prepareSnippet({ code, language })).toEqual({ code, language: 'javascript' });
    }
    // unnamed, the same snippet is read as TypeScript (a generic call)
    expect(prepareSnippet({ code: 'const a = 1, b = 2, c = 0; return a < b > (c)' }).code).not.toContain('>');
  });

  it('strips TypeScript syntax without the language being named', () => {
    for (const language of [undefined, '']) {
      expect(prepareSnippet({ code: 'return 1 as any', ...(language === undefined ? {} : { language }) })).toEqual({
        code: 'return 1 ',
        language: 'javascript',
      });
    }
    const code = 'interface A { a: number }\nconst x: A = { a: 1 };\nreturn x.a;';
    expect(prepareSnippet({ code }).code.split('\n')).toEqual(['', 'const x = { a: 1 };', 'return x.a;']);
  });

  it('hands a JavaScript syntax error to the sandbox as it is (the sandbox reports it)', () => {
    expect(prepareSnippet({ code: 'const = ;' })).toEqual({ code: 'const = ;', language: 'javascript' });
    expect(prepareSnippet({ code: 'const = ;', language: 'js' })).toEqual({ code: 'const = ;', language: 'javascript' });
    // TypeScript on line 1, a slip on line 2: the TypeScript error names the slip's line
    expect(() => prepareSnippet({ code: 'const a: number = 1;\nconst = ;' })).toThrow(
      expect.objectContaining({ code: 'CODE_EXECUTION', details: expect.objectContaining({ line: 2, phase: 'transpile' }) }),
    );
  });

  it('transpiles TypeScript keeping every line in place', () => {
    const code = 'interface A {\n  a: number;\n}\nconst x: A = { a: 1 };\nenum E { X, Y }\nreturn await Promise.resolve(x.a as number);';
    const prepared = prepareSnippet({ code, language: 'typescript' });
    expect(prepared.language).toBe('javascript');
    expect(prepared.code.split('\n')).toHaveLength(code.split('\n').length);
    expect(prepared.code.split('\n')[5]).toBe('return await Promise.resolve(x.a );');
    expect(prepared.code).not.toContain('interface');
    expect(prepareSnippet({ code: 'let n: number = 1', language: 'ts' }).code).toBe('let n = 1');
  });

  it('reports a TypeScript syntax error with line and column (CODE_EXECUTION)', () => {
    let error: ToolexecError | undefined;
    try {
      prepareSnippet({ code: 'const a: number = 1;\nconst b: = 2;', language: 'typescript' });
    } catch (err) {
      error = err as ToolexecError;
    }
    expect(error?.code).toBe('CODE_EXECUTION');
    expect(error?.details).toMatchObject({ line: 2, column: 10 });
    expect(error?.message).toContain('line 2');
  });

  it('rejects other languages, naming them (RUNTIME_UNAVAILABLE)', () => {
    expect(() => prepareSnippet({ code: 'print(1)', language: 'python' })).toThrow(
      expect.objectContaining({ code: 'RUNTIME_UNAVAILABLE', message: expect.stringContaining('"python"') }),
    );
    expect(() => prepareSnippet({ code: 'x', language: 'go' })).toThrow(
      expect.objectContaining({
        details: { language: 'go' },
        message: 'runtime unavailable: language "go" is not supported (use javascript, typescript or python)',
      }),
    );
  });
});

describe('runtime error helpers', () => {
  const result: ExecuteResult = {
    stdout: 'o',
    stderr: '',
    toolCalls: [],
    durationMs: 1,
    backend: { kind: 'wasm', readiness: 'beta' },
    limitsEnforced: limitsEnforcedNone(),
  };

  it('builds failures carrying the partial result', () => {
    const cause = new Error('root');
    const error = runtimeError('TIMEOUT', 'too slow', { cause, result, details: { timeoutMs: 5 } });
    expect(error).toMatchObject({ code: 'TIMEOUT', message: 'too slow', cause, details: { timeoutMs: 5, result } });
    expect(partialResultOf(error)).toBe(result);
    expect(partialResultOf(new Error('x'))).toBeUndefined();
    expect(runtimeError('ABORTED', 'x').details).toBeUndefined();
  });

  it('wraps any error with a partial result, keeping code and cause', () => {
    const original = new ToolexecError('TOOL_NOT_FOUND', 'missing', { details: { id: 'a' } });
    const wrapped = withPartialResult(original, result);
    expect(wrapped).toMatchObject({ code: 'TOOL_NOT_FOUND', message: 'missing', cause: original, details: { id: 'a', result } });
    const plain = withPartialResult(new Error('weird'), result);
    expect(plain.code).toBe('CODE_EXECUTION');
  });

  it('maps abort reasons', () => {
    const controller = new AbortController();
    controller.abort(new Error('bye'));
    expect(abortError(controller.signal)).toMatchObject({ code: 'ABORTED', cause: controller.signal.reason });
    const timeout = AbortSignal.abort(new DOMException('late', 'TimeoutError'));
    expect(abortError(timeout).code).toBe('TIMEOUT');
  });

  it('deep-copies JSON values', () => {
    const value = { a: [1, { b: 2 }] };
    const copy = cloneJson(value);
    expect(copy).toEqual(value);
    expect(copy.a).not.toBe(value.a);
    class Point {
      x = 1;
      move = () => 2;
    }
    expect(cloneJson({ p: new Point() })).toEqual({ p: { x: 1 } });
    expect(cloneJson(undefined)).toBeUndefined();
  });
});
