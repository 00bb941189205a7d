/**
 * Python snippets through the facade, for real (Pyodide in its child processes): the language
 * reaches the runtime, the call trace and the budget hold as for JavaScript, the snippet's span
 * says `python`, and failures keep their codes.
 */
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { codeResultOf } from '../../src/code/index.js';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { hasErrorCode, type ToolexecError } from '../../src/model/index.js';
import { installTracing, isChildOf, spanNamed } from '../run/otel-helpers.js';

let exec: DefaultExec;
let tracing: ReturnType<typeof installTracing>;
beforeAll(async () => {
  tracing = installTracing();
  exec = createExec({
    maxToolCalls: 5,
    warmLanguages: ['python'],
    tools: [
      {
        tool: {
          name: 'add',
          namespace: 'math',
          inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        },
        handler: (args) => (args.a as number) + (args.b as number),
      },
      {
        tool: {
          name: 'double',
          namespace: 'math',
          inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        },
        handler: async (args) => 2 * (args.n as number),
      },
    ],
  });
  await exec.connect(); // warms the Python pool: the tests below do not wait for a cold start
}, 120_000);
afterAll(async () => {
  await exec.close();
  await tracing.uninstall();
});
beforeEach(() => tracing.exporter.reset());

describe("exec.executeCode({ language: 'python' })", () => {
  it('runs the snippet in the Python sandbox: value, stdout, every call in the trace, the span says python', async () => {
    const result = await trace.getTracer('test').startActiveSpan('request', async (span) => {
      try {
        return await exec.executeCode({
          language: 'python',
          code: `
s = tools.run_tool("math:add", {"a": 2, "b": 3})
d = tools.run_tool("math:double", {"n": s["structured"]})
print("sum", s["structured"], "doubled", d["structured"])
{"sum": s["structured"], "doubled": d["structured"], "backend": d["backend"]["kind"]}
`,
        });
      } finally {
        span.end();
      }
    });
    expect(result.value).toEqual({ sum: 5, doubled: 10, backend: 'local' });
    expect(result.stdout).toBe('sum 5 doubled 10\n');
    expect(result.toolCalls.map(({ toolId, args, structured }) => ({ toolId, args, structured }))).toEqual([
      { toolId: 'math:add', args: { a: 2, b: 3 }, structured: 5 },
      { toolId: 'math:double', args: { n: 5 }, structured: 10 },
    ]);
    const spans = await tracing.finished();
    const snippet = spanNamed(spans, 'execute_code');
    expect(snippet.attributes['toolexec.sandbox.language']).toBe('python');
    expect(snippet.attributes['toolexec.code.tool_calls']).toBe(2);
    expect(isChildOf(snippet, spanNamed(spans, 'request'))).toBe(true);
    expect(isChildOf(spanNamed(spans, 'execute_tool math:add'), snippet)).toBe(true);
  });

  it("takes 'py' for python, and a chain from Python fills the trace step by step", async () => {
    const result = await exec.executeCode({
      language: 'py',
      code: `tools.run_chain([{"toolId": "math:add", "args": {"a": 1, "b": 1}}, {"toolId": "math:double", "argsFrom": {"n": ""}}])["result"]["structured"]`,
    });
    expect(result.value).toBe(4);
    expect(result.toolCalls.map((call) => call.toolId)).toEqual(['math:add', 'math:double']);
  });

  it('a facade whose default language is python runs snippets that name none as Python', async () => {
    const python = createExec({ defaultLanguage: 'python', tools: [] });
    try {
      const result = await python.executeCode({ code: 'import math\nmath.floor(7 / 2)' });
      expect(result.value).toBe(3);
    } finally {
      await python.close();
    }
  }, 120_000);

  it('the call budget holds even when the snippet catches the error; the partial result keeps the trace', async () => {
    const err = (await exec
      .executeCode({
        language: 'python',
        maxToolCalls: 2,
        code: `
for i in range(4):
    try:
        tools.run_tool("math:add", {"a": i, "b": i})
    except tools.ToolError as e:
        last = e.code
last
`,
      })
      .catch((e: unknown) => e)) as ToolexecError;
    expect(hasErrorCode(err, 'LIMIT_EXCEEDED')).toBe(true);
    expect(codeResultOf(err)?.toolCalls.filter((call) => call.structured !== undefined)).toHaveLength(2);
  });

  it('an uncaught ToolError keeps its code; a Python exception is CODE_EXECUTION with its type and line', async () => {
    const missing = await exec.executeCode({ language: 'python', code: 'tools.run_tool("math:nope", {})' }).catch((e: unknown) => e);
    expect(hasErrorCode(missing, 'TOOL_NOT_FOUND')).toBe(true);
    const invalid = await exec
      .executeCode({ language: 'python', code: 'tools.run_tool("math:add", {"a": "x", "b": 1})' })
      .catch((e: unknown) => e);
    expect(hasErrorCode(invalid, 'VALIDATION')).toBe(true);
    const crash = (await exec.executeCode({ language: 'python', code: 'x = 1\n{}["nope"]' }).catch((e: unknown) => e)) as ToolexecError;
    expect(crash.code).toBe('CODE_EXECUTION');
    expect(crash.message).toContain("KeyError: 'nope'");
    const syntax = (await exec.executeCode({ language: 'python', code: 'x = (1,\n' }).catch((e: unknown) => e)) as ToolexecError;
    expect(syntax.code).toBe('CODE_EXECUTION');
    expect(syntax.message).toContain('SyntaxError');
  });

  it('meets time, memory and stack with the codes, messages and details of JavaScript snippets (docs/limits.md)', async () => {
    const fail = (code: string, extra: { timeoutMs?: number; memoryBytes?: number } = {}) =>
      exec.executeCode({ language: 'python', code, ...extra }).catch((e: unknown) => e) as Promise<ToolexecError>;
    const timeout = await fail('while True:\n    pass', { timeoutMs: 300 });
    expect(timeout.message).toBe('limit exceeded: timeout after 300 ms');
    const cause = timeout.cause as ToolexecError;
    expect([cause.code, cause.message]).toEqual(['TIMEOUT', 'execution timeout: the snippet ran longer than 300ms']);
    expect(cause.details).toMatchObject({ timeoutMs: 300 });
    const memory = await fail('a = []\nwhile True:\n    a.append(bytearray(10**6))', { memoryBytes: 64 * 1024 * 1024 });
    expect(memory.message).toBe(
      'limit exceeded: resource limit exceeded: memory (the snippet needed more than 67108864 bytes: out of memory)',
    );
    expect(memory.details).toMatchObject({ limit: 'memory', memoryBytes: 64 * 1024 * 1024, line: 3, column: 14 });
    expect((memory.cause as ToolexecError).code).toBe('RESOURCE_LIMIT');
    const stack = await fail('def f(n):\n    return f(n + 1) + 1\nf(0)');
    expect(stack.message).toBe('limit exceeded: resource limit exceeded: stack (Maximum call stack size exceeded)');
    expect(stack.details).toMatchObject({ limit: 'stack', line: 2 });
  });

  it('an uncaught ToolError points at the line of the call, as in JavaScript', async () => {
    const err = (await exec
      .executeCode({ language: 'python', code: 'a = 1\nprint(a)\nc = tools.run_tool("math:add", {"a": "3", "b": 4})' })
      .catch((e: unknown) => e)) as ToolexecError;
    expect(err.code).toBe('VALIDATION');
    expect(err.details).toMatchObject({ line: 3, column: 5 });
  });

  it('caps the value at 8 MiB of JSON with the message of every language, every time; a value up to the cap arrives whole', async () => {
    // a string of n characters is n + 2 bytes of JSON: 8 MiB exactly, then one byte more
    const whole = await exec.executeCode({ language: 'python', code: "'x' * (8 * 1024 * 1024 - 2)" });
    expect(whole.value).toBe('x'.repeat(8 * 1024 * 1024 - 2));
    const messages = new Set<string>();
    for (const code of ["'x' * (8 * 1024 * 1024 - 1)", "'x' * (9 * 1024 * 1024)"]) {
      const err = (await exec.executeCode({ language: 'python', code }).catch((e: unknown) => e)) as ToolexecError;
      expect(err.code).toBe('LIMIT_EXCEEDED');
      expect(err.details?.limit).toBe('result');
      messages.add(err.message);
    }
    // test/code/size-limits.test.ts: the JavaScript sandbox's message
    expect([...messages]).toEqual(['limit exceeded: resource limit exceeded: result (the result is larger than 8388608 bytes)']);
    // 7 MB of JSON, all of it escaped quotes: 14 MB once escaped again on the child's lines, still delivered
    const quotes = await exec.executeCode({ language: 'python', code: "'\"' * 3500000" });
    expect(quotes.value).toBe('"'.repeat(3_500_000));
  });

  it("routes by profile: the dev profile's host backend runs no Python (RUNTIME_UNAVAILABLE naming both)", async () => {
    const err = (await exec.executeCode({ language: 'python', code: '1', profile: 'dev' }).catch((e: unknown) => e)) as ToolexecError;
    expect(err.code).toBe('RUNTIME_UNAVAILABLE');
    expect(err.message).toContain('"python"');
    expect(err.message).toContain('"dev"');
    const hardened = await exec.executeCode({ language: 'python', code: '2 ** 10', profile: 'hardened' });
    expect(hardened.value).toBe(1024);
    expect(hardened.backend?.details?.engine).toBe('pyodide');
  });
});
