/**
 * The runtime backend contract, in Python: the cases of src/testing/runtime-surface-contract.ts and
 * src/testing/runtime-failure-contract.ts that apply to a Python guest, each written as the Python
 * a model would write (tool calls are synchronous, the last expression is the value, `print` is
 * the console), against the real Pyodide backend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasErrorCode, type ErrorCode } from '../../../../src/model/index.js';
import { createDirectGateway, type ExecuteRequest, type ExecuteResult, type ToolGateway } from '../../../../src/runtime/index.js';
import { createPythonBackend, type PythonBackend } from '../../../../src/runtime/backends/python/index.js';
import { createContractFixture } from '../../../../src/testing/gateway-contract.js';

type Failure = Error & { code?: string; details?: Record<string, unknown> };

async function rejection(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected the run to fail, but it succeeded');
}

function expectCode(error: Failure, code: ErrorCode): void {
  expect(error.code, `expected ${code}, got ${String(error.code)}: ${error.message}`).toBe(code);
  expect(hasErrorCode(error, code)).toBe(true);
}

function partial(error: Failure): ExecuteResult {
  const result = error.details?.result as ExecuteResult | undefined;
  expect(result, 'a failed run carries its partial result in details.result').toBeDefined();
  return result as ExecuteResult;
}

describe('runtime backend contract: python (Pyodide)', { timeout: 60_000 }, () => {
  let backend: PythonBackend;
  beforeAll(async () => {
    backend = createPythonBackend({ poolSize: 2 });
    await backend.warm();
  }, 120_000);
  afterAll(async () => {
    await backend?.close();
  });

  const gateway = (): ToolGateway => createDirectGateway(createContractFixture());
  const request = (code: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
    code,
    language: 'python',
    gateway: gateway(),
    ...extra,
  });
  const run = (code: string, extra: Partial<ExecuteRequest> = {}) => backend.execute(request(code, extra));

  it('reports its kind, readiness and languages', () => {
    expect(backend.kind).toBe('wasm');
    expect(backend.readiness).toBe('beta');
    expect(backend.languages).toEqual(['python', 'py']);
  });

  it('rejects a request without a gateway or code, and bad limits', async () => {
    expectCode(await rejection(backend.execute({ ...request('1'), gateway: undefined as unknown as ToolGateway })), 'MISSING_GATEWAY');
    expectCode(await rejection(run('')), 'MISSING_CODE');
    const error = await rejection(run('1', { limits: { maxToolCalls: -1 } }));
    expectCode(error, 'INVALID_LIMITS');
    expect(error.message).toContain('maxToolCalls');
  });

  it("returns the last expression's value, and none after a statement", async () => {
    expect((await run("'hello'")).value).toBe('hello');
    expect((await run('x = 1')).value).toBeUndefined();
    expect((await run("{'list': [1, 'two', None, True], 'nested': {'n': 1.5}}")).value).toEqual({
      list: [1, 'two', null, true],
      nested: { n: 1.5 },
    });
    expect((await run('py', { code: '6 * 7', language: 'py' })).value).toBe(42);
  });

  it('captures print and stderr', async () => {
    const result = await run("import sys\nprint('out', 1, {'a': 1})\nprint('err', file=sys.stderr)");
    expect(result.stdout).toBe("out 1 {'a': 1}\n");
    expect(result.stderr).toBe('err\n');
  });

  it('reaches search_tools, list_namespaces, describe_tool and list_tool_examples', async () => {
    const result = await run(
      [
        "found = tools.search_tools('add', 5)",
        'namespaces = tools.list_namespaces()',
        "doc = tools.describe_tool('test:add', 'schema')",
        "examples = tools.list_tool_examples('test:add', 1)",
        "{'first': found[0]['id'], 'namespaces': namespaces, 'summary': doc['summary'], 'required': doc['schemaInfo']['required'], 'examples': len(examples)}",
      ].join('\n'),
    );
    expect(result.value).toEqual({ first: 'test:add', namespaces: ['test'], summary: 'Adds a and b', required: ['a', 'b'], examples: 1 });
  });

  it('runs tools (import tools, or the global) and records each call', async () => {
    const result = await run("import tools as t\nr = t.run_tool('test:add', {'a': 2, 'b': 3})\nr");
    expect(result.value).toMatchObject({ structured: 5, tool: { name: 'add' }, backend: { kind: 'local' } });
    // what docs/guests.md says run_tool returns: these keys (and mcpResult for an MCP tool), no content
    expect(Object.keys(result.value as object).sort()).toEqual(['backend', 'structured', 'tool']);
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ toolId: 'test:add', args: { a: 2, b: 3 }, structured: 5, backendKind: 'local' });
  });

  it('runs chains and records every step with its effective arguments', async () => {
    const result = await run(
      "tools.run_chain([{'toolId': 'test:add', 'args': {'a': 1, 'b': 2}}, {'toolId': 'test:double', 'usePrevious': True}])",
    );
    const chain = result.value as { result: { structured: unknown }; steps: unknown[] };
    expect(chain.result.structured).toBe(6);
    expect(chain.steps).toHaveLength(2);
    expect(result.toolCalls.map((call) => call.toolId)).toEqual(['test:add', 'test:double']);
    expect(result.toolCalls[1]?.args).toEqual({ previous: 3 });
  });

  it('surfaces a tool error inside the snippet as ToolError with its code', async () => {
    const result = await run(
      "try:\n    tools.run_tool('test:missing', {})\n    r = 'no error'\nexcept tools.ToolError as err:\n    r = {'code': err.code, 'message': err.message}\nr",
    );
    expect(result.value).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    expect(result.toolCalls[0]).toMatchObject({ toolId: 'test:missing', errorCode: 'TOOL_NOT_FOUND', errorOp: 'run' });
  });

  it('fails the run with the code, line and column of an uncaught tool error', async () => {
    const error = await rejection(run("print('before')\nr = tools.run_tool('test:fail', {})"));
    expectCode(error, 'EXECUTION');
    expect(error.message).toContain('tool failed on purpose');
    expect(error.details).toMatchObject({ line: 2, column: 5 });
    const result = partial(error);
    expect(result.stdout).toBe('before\n');
    expect(result.toolCalls).toHaveLength(1);
  });

  it('enforces maxToolCalls and maxChainSteps (LIMIT_EXCEEDED), even when the snippet catches it', async () => {
    const loop = "for i in range(3):\n    tools.run_tool('test:add', {'a': i, 'b': 1})\n'done'";
    const error = await rejection(run(loop, { limits: { maxToolCalls: 2 } }));
    expectCode(error, 'LIMIT_EXCEEDED');
    expect(partial(error).toolCalls).toHaveLength(2);
    const swallowed =
      "seen = []\nfor i in range(3):\n    try:\n        tools.run_tool('test:add', {'a': i, 'b': 1})\n    except tools.ToolError as e:\n        seen.append(e.code)\nprint('caught', *seen)\n'swallowed'";
    const caught = await rejection(run(swallowed, { limits: { maxToolCalls: 2 } }));
    expectCode(caught, 'LIMIT_EXCEEDED');
    expect(caught.details?.limit).toBe('maxToolCalls');
    expect(partial(caught).stdout).toBe('caught LIMIT_EXCEEDED\n');
    const chain = "tools.run_chain([{'toolId': 'test:add', 'args': {'a': 1, 'b': 2}}, {'toolId': 'test:double', 'usePrevious': True}])";
    expectCode(await rejection(run(chain, { limits: { maxChainSteps: 1 } })), 'LIMIT_EXCEEDED');
  });

  it('reports an exception as CODE_EXECUTION with its line, column and a Python traceback', async () => {
    const error = await rejection(run("a = 1\nb = 2\nraise ValueError('boom on three')"));
    expectCode(error, 'CODE_EXECUTION');
    expect(error.message).toBe('ValueError: boom on three (line 3, col 1)');
    expect(error.details).toMatchObject({ line: 3, column: 1 });
    const inner = await rejection(run("def f(d):\n    return d['k']\n\nf({})"));
    expect(inner.message).toBe("KeyError: 'k' (line 2, col 12)");
    expect(String(error.details?.stack)).toContain('File "<snippet>", line 3');
    expect(String(error.details?.stack)).not.toContain('prelude');
    expect(partial(error).backend.kind).toBe('wasm');
  });

  it('reports a syntax error as CODE_EXECUTION with its line', async () => {
    const error = await rejection(run('a = 1\ndef (:\n'));
    expectCode(error, 'CODE_EXECUTION');
    expect(error.details).toMatchObject({ line: 2, phase: 'compile', name: 'SyntaxError' });
    // its subclasses too, named once
    const indent = await rejection(run('a = 1\n  b = 2\n'));
    expectCode(indent, 'CODE_EXECUTION');
    expect(indent.message).toMatch(/^IndentationError: unexpected indent \(line 2, col \d+\)$/);
    expect(indent.details).toMatchObject({ line: 2, phase: 'compile', name: 'IndentationError' });
  });

  it('rejects other languages (RUNTIME_UNAVAILABLE)', async () => {
    const error = await rejection(run('return 1', { language: 'javascript' }));
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toContain('javascript');
  });

  it('stops an endless loop at timeoutMs (TIMEOUT), and one that swallows the interrupt by killing its process', async () => {
    let started = performance.now();
    const error = await rejection(run('while True:\n    pass', { timeoutMs: 300 }));
    expectCode(error, 'TIMEOUT');
    expect(performance.now() - started).toBeLessThan(300 + 5_000);
    expect(partial(error).limitsEnforced.timeout).toBe(true);
    started = performance.now();
    const stubborn = await rejection(
      run('while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass', { timeoutMs: 300 }),
    );
    expectCode(stubborn, 'TIMEOUT');
    expect(stubborn.details?.killed).toBe(true);
    expect(performance.now() - started).toBeLessThan(300 + 5_000);
  });

  it('stops when the signal aborts (ABORTED), also while a tool call is pending', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const pending = run("print('started')\ntools.run_tool('test:slow', {'ms': 20000})", { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 300);
    expectCode(await rejection(pending), 'ABORTED');
    expect(performance.now() - started).toBeLessThan(300 + 5_000);
    const before = new AbortController();
    before.abort();
    expectCode(await rejection(run('1', { signal: before.signal })), 'ABORTED');
  });

  it('caps output (RESOURCE_LIMIT)', async () => {
    const error = await rejection(run("for i in range(1000):\n    print('x' * 100)", { limits: { maxOutputBytes: 2000 } }));
    expectCode(error, 'RESOURCE_LIMIT');
    expect(error.details?.limit).toBe('output');
    expect(partial(error).stdout.length).toBeLessThanOrEqual(2000);
  });

  it('describes the backend and the limits it enforced', async () => {
    const result = await run('1', { limits: { maxToolCalls: 5 } });
    expect(result.backend).toMatchObject({
      kind: 'wasm',
      readiness: 'beta',
      details: { engine: 'pyodide', memoryBytes: 512 * 1024 * 1024 },
    });
    expect(result.durationMs).toBeGreaterThan(0);
    expect(result.limitsEnforced).toEqual({
      timeout: true,
      toolCalls: true,
      chainSteps: true,
      memory: true,
      cpu: false,
      pids: false,
      disk: false,
    });
  });

  it('refuses a memory cap Pyodide cannot start in (RESOURCE_LIMIT) and one above the ceiling (INVALID_LIMITS)', async () => {
    const small = await rejection(run('1', { limits: { memoryBytes: 16 * 1024 * 1024 } }));
    expectCode(small, 'RESOURCE_LIMIT');
    expect(small.details?.limit).toBe('memory');
    expectCode(await rejection(run('1', { limits: { memoryBytes: 8 * 1024 * 1024 * 1024 } })), 'INVALID_LIMITS');
    expect((await run('7')).value).toBe(7);
  });

  it('refuses a source over maxSourceBytes (LIMIT_EXCEEDED) before it runs', async () => {
    const error = await rejection(run(`x = 1\n${'#'.repeat(1024 * 1024)}`));
    expectCode(error, 'LIMIT_EXCEEDED');
    expect(error.details?.limit).toBe('sourceBytes');
  });

  it('keeps concurrent runs apart', async () => {
    const ids = [1, 2, 3, 4];
    const results = await Promise.all(
      ids.map((id) => run(`print('run ${id}')\nr = tools.run_tool('test:echo', {'id': ${id}})\nr['structured']['id']`)),
    );
    results.forEach((result, i) => {
      expect(result.value).toBe(ids[i]);
      expect(result.stdout).toBe(`run ${ids[i]}\n`);
      expect(result.toolCalls).toHaveLength(1);
    });
  });

  it('hands chain step errors over as JavaScript does: name, code, message, details', async () => {
    const result = await run(
      "try:\n    tools.run_chain([{'toolId': 'test:add', 'args': {'a': 1, 'b': 2}}, {'toolId': 'test:fail'}])\nexcept tools.ToolError as e:\n    err = e.steps[-1]['error']\nsorted(err), err['code'], err['message']",
    );
    expect(result.value).toEqual([['code', 'message', 'name'], 'EXECUTION', expect.stringContaining('tool failed on purpose')]);
  });

  it('refuses an int beyond 2**53 - 1 in a value or in arguments, never rounds it', async () => {
    const value = await rejection(run('[1, 2**53 + 1]'));
    expectCode(value, 'CODE_EXECUTION');
    expect(value.message).toBe(
      'TypeError: the result is not JSON-serializable: the int 9007199254740993 at [1] is too large for a JSON number (over 2**53 - 1 either side of 0); pass it as a str',
    );
    const args = await run(
      "try:\n    tools.run_tool('test:echo', {'n': 12345678901234567890})\nexcept tools.ToolError as e:\n    r = e.code\nr",
    );
    expect(args.value).toBe('INVALID_ARGUMENT');
    expect(args.toolCalls).toEqual([]);
  });

  it("fails a run its backend closes with RUNTIME_UNAVAILABLE, not as the snippet's fault", async () => {
    const own = createPythonBackend({ poolSize: 1 });
    await own.warm();
    const pending = rejection(own.execute(request('while True:\n    pass', { timeoutMs: 30_000 })));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await own.close();
    const error = await pending;
    expectCode(error, 'RUNTIME_UNAVAILABLE');
    expect(error.message).toBe('runtime unavailable: the python backend was closed during the run');
    expect(partial(error).backend.kind).toBe('wasm');
  });

  it('runs each snippet in fresh state', async () => {
    await run(
      "secret = 42\nimport json\njson.dumps = None\nimport builtins\nbuiltins.leak = 1\nimport fractions\nimport sys\nsys.path.append('/x')",
    );
    const result = await run(
      "import json, sys, builtins\n[json.dumps({}), 'fractions' in sys.modules, hasattr(builtins, 'leak'), '/x' in sys.path, 'secret' in globals()]",
    );
    expect(result.value).toEqual(['{}', false, false, false, false]);
  });
});
