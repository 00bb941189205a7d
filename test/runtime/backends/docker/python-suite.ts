/**
 * The Python checks shared by the docker and gvisor backends: values, output, tool calls (a real
 * MCP server over stdio through exec), errors with their codes and lines, and every limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExec } from '../../../../src/exec/index.js';
import { createRuntime } from '../../../../src/runtime/index.js';
import { SANDBOX_PYTHON_PATH, type ContainerSandboxBackend } from '../../../../src/runtime/backends/docker/index.js';
import { stdioFixture } from '../../../mcp/helpers.js';
import { containersOf } from './engine.js';
import { failure } from './isolation.js';
import { ensurePythonImage, pythonRequest } from './python-engine.js';

const MiB = 1024 * 1024;

/** What {@link pythonSuite} runs against. */
export interface PythonSuiteOptions {
  kind: 'docker' | 'gvisor';
  create: () => ContainerSandboxBackend;
}

/** Registers the Python checks for one backend kind. */
export function pythonSuite(options: PythonSuiteOptions): void {
  describe(`${options.kind}: python`, () => {
    let backend: ContainerSandboxBackend;

    beforeAll(async () => {
      await ensurePythonImage();
      backend = options.create();
    });
    afterAll(async () => {
      await backend?.close();
    });

    it('declares python and returns the last expression as the value', async () => {
      expect(backend.languages).toContain('python');
      const result = await backend.execute(pythonRequest('x = 20\nx * 2 + 2'));
      expect(result.value).toBe(42);
      expect(result.backend).toMatchObject({ kind: options.kind, details: { language: 'python', pooled: false } });
      expect(result.backend.details?.image).toBe(await backend.pythonImage());
      expect(result.limitsEnforced).toMatchObject({ timeout: true, memory: true, pids: true, cpu: true, disk: true, toolCalls: true });
      // `py` is the same language; JSON-safe conversion of tuples, sets and bytes
      const converted = await backend.execute(pythonRequest('{"t": (1, 2), "s": {3}, "b": b"hi", "n": float("nan")}', { language: 'py' }));
      expect(converted.value).toEqual({ t: [1, 2], s: [3], b: [104, 105], n: null });
    });

    it('gives a top-level nan or inf as null, a value (as a JavaScript NaN and as on Pyodide); None is no value', async () => {
      for (const code of ['float("nan")', 'float("inf")', '-float("inf")']) {
        const result = await backend.execute(pythonRequest(code));
        expect(Object.hasOwn(result, 'value'), code).toBe(true);
        expect(result.value, code).toBeNull();
      }
      expect(Object.hasOwn(await backend.execute(pythonRequest('None')), 'value')).toBe(false);
    });

    it('shows the snippet no host path in argv, the executable, the working directory or sys.path', async () => {
      const probe = 'import os, sys\n[sys.argv, sys.orig_argv[0], sys.executable, os.getcwd(), sys.path, sorted(os.environ)]';
      const result = await backend.execute(pythonRequest(probe));
      const text = JSON.stringify(result.value);
      for (const path of [process.cwd(), process.execPath, 'node_modules', 'dist/assets']) expect(text, path).not.toContain(path);
      expect((result.value as unknown[]).slice(0, 4)).toEqual([['-c'], SANDBOX_PYTHON_PATH, SANDBOX_PYTHON_PATH, '/tmp']);
    });

    it('captures print on stdout and stderr; a snippet that ends with a statement has no value', async () => {
      const result = await backend.execute(pythonRequest('import sys\nprint("hello", 42)\nprint("careful", file=sys.stderr)\nx = 1'));
      expect(result.stdout).toBe('hello 42\n');
      expect(result.stderr).toBe('careful\n');
      expect(Object.hasOwn(result, 'value')).toBe(false);
    });

    it('calls a tool of a real MCP server (stdio) through exec.executeCode, traced and counted', async () => {
      const exec = createExec({ mcpServers: { fx: stdioFixture() }, runtime: createRuntime({ backends: { standard: backend } }) });
      try {
        const code = 'import tools\nr = tools.run_tool("fx:structured", {"a": 2, "b": 3})\nr["structured"]["sum"]';
        const result = await exec.executeCode({ language: 'python', code, timeoutMs: 20_000 });
        expect(result.value).toBe(5);
        expect(result.toolCalls.map((call) => call.toolId)).toEqual(['fx:structured']);
        const loop = 'for i in range(5):\n    tools.run_tool("fx:structured", {"a": i, "b": 1})';
        const error = await failure(exec.executeCode({ language: 'python', code: loop, maxToolCalls: 2, timeoutMs: 20_000 }));
        expect(error.code, error.message).toBe('LIMIT_EXCEEDED');
        // the budget holds even when the snippet catches the ToolError and carries on
        const caught = `from tools import ToolError\ntry:\n${loop.replace(/^/gm, '    ')}\nexcept ToolError as e:\n    code = e.code\ncode`;
        const stillFailed = await failure(exec.executeCode({ language: 'python', code: caught, maxToolCalls: 2, timeoutMs: 20_000 }));
        expect(stillFailed.code, stillFailed.message).toBe('LIMIT_EXCEEDED');
      } finally {
        await exec.close();
      }
    });

    it("serializes the tool calls and output of a snippet's threads", async () => {
      const code = [
        'import threading',
        'out = []',
        'def work(i):',
        '    out.append(tools.run_tool("test:add", {"a": i, "b": 1})["structured"])',
        '    print("t" * 70000)',
        'threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]',
        'for t in threads: t.start()',
        'for t in threads: t.join()',
        'sorted(out)',
      ].join('\n');
      const result = await backend.execute(pythonRequest(code));
      expect(result.value).toEqual([1, 2, 3, 4]);
      // print() writes the text and its newline apart, so threads may interleave between the two
      // (as in CPython anywhere); what must hold is that no output is lost or duplicated
      expect(result.stdout.replaceAll('\n', '')).toBe('t'.repeat(4 * 70000));
      expect(result.stdout.split('\n')).toHaveLength(5);
      expect(result.toolCalls).toHaveLength(4);
    });

    it('raises ToolError with the code of a failed call; uncaught, the run fails with that code', async () => {
      const caught = await backend.execute(
        pythonRequest(
          'from tools import ToolError\ntry:\n    tools.run_tool("test:nope", {})\nexcept ToolError as e:\n    out = [e.code, "nope" in e.message]\nout',
        ),
      );
      expect(caught.value).toEqual(['TOOL_NOT_FOUND', true]);
      expect(caught.toolCalls[0]).toMatchObject({ toolId: 'test:nope', errorCode: 'TOOL_NOT_FOUND' });
      const error = await failure(backend.execute(pythonRequest('x = 1\ntools.run_tool("test:fail", {})')));
      expect(error.code, error.message).toBe('EXECUTION');
      expect(error.message).toContain('tool failed on purpose');
      expect(error.details).toMatchObject({ line: 2, column: 1 });
    });

    it('refuses an int beyond 2**53 - 1 in the value or in arguments instead of rounding it', async () => {
      const value = await failure(backend.execute(pythonRequest('[2**53 + 1, 12345678901234567890]')));
      expect(value.code, value.message).toBe('CODE_EXECUTION');
      expect(value.message).toBe(
        'TypeError: the result is not JSON-serializable: the int 9007199254740993 at [0] is too large for a JSON number (over 2**53 - 1 either side of 0); pass it as a str',
      );
      const code = 'try:\n    tools.run_tool("test:echo", {"n": -(2**63)})\nexcept tools.ToolError as e:\n    r = [e.code, e.message]\nr';
      const args = await backend.execute(pythonRequest(code));
      expect(args.value).toEqual(['INVALID_ARGUMENT', expect.stringContaining("the int -9223372036854775808 at ['args']['n']")]);
      expect(args.toolCalls).toEqual([]);
    });

    it('reports a syntax error as CODE_EXECUTION with its line; an exception with its type and line', async () => {
      const syntax = await failure(backend.execute(pythonRequest('x = 1\ny = (\n')));
      expect(syntax.code).toBe('CODE_EXECUTION');
      expect(syntax.message).toMatch(/^SyntaxError: .+ \(line 2, col \d+\)$/);
      expect(syntax.details).toMatchObject({ line: 2, phase: 'compile', name: 'SyntaxError' });
      const indent = await failure(backend.execute(pythonRequest('x = 1\n  y = 2\n')));
      expect(indent.message).toMatch(/^IndentationError: unexpected indent \(line 2, col \d+\)$/);
      expect(indent.details).toMatchObject({ line: 2, phase: 'compile', name: 'IndentationError' });
      const thrown = await failure(backend.execute(pythonRequest('def f():\n    raise ValueError("bad input")\n\nf()')));
      expect(thrown.code).toBe('CODE_EXECUTION');
      expect(thrown.message).toMatch(/^ValueError: bad input/);
      expect(thrown.details).toMatchObject({ line: 2, name: 'ValueError' });
      expect(thrown.details?.stack).toContain('line 4');
    });

    it('a value nested deeper than the encoder goes fails on the stack limit, not without a result', async () => {
      const deep = await failure(backend.execute(pythonRequest('x = []\nfor _ in range(5000):\n    x = [x]\nx')));
      expect(deep.code, deep.message).toBe('RESOURCE_LIMIT');
      expect(deep.message).toContain('stack');
      // 500 levels (under the tool-call limit of 512) come back whole
      const ok = await backend.execute(pythonRequest('x = 1\nfor _ in range(500):\n    x = [x]\nx'));
      let depth = 0;
      for (let v: unknown = ok.value; Array.isArray(v); v = v[0]) depth++;
      expect(depth).toBe(500);
    });

    it('stops a runaway at the deadline by removing its container (TIMEOUT)', async () => {
      const started = performance.now();
      const error = await failure(backend.execute(pythonRequest('print("spinning")\nwhile True:\n    pass', { timeoutMs: 1500 })));
      expect(error.code, error.message).toBe('TIMEOUT');
      expect(error.details).toMatchObject({ timeoutMs: 1500 });
      expect(performance.now() - started).toBeLessThan(15_000);
    });

    it('ends a memory bomb at the container memory cap (RESOURCE_LIMIT memory)', async () => {
      const bomb = 'chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 * 1024))';
      const error = await failure(backend.execute(pythonRequest(bomb, { limits: { memoryBytes: 96 * MiB } })));
      expect(error.code, error.message).toBe('RESOURCE_LIMIT');
      expect(error.details).toMatchObject({ limit: 'memory', memoryBytes: 96 * MiB });
      expect(error.details?.result?.limitsEnforced.memory).toBe(true);
      // an allocation no machine can grant is a MemoryError inside: the same report
      const huge = await failure(backend.execute(pythonRequest('b = bytearray(1 << 46)')));
      expect(huge.code, huge.message).toBe('RESOURCE_LIMIT');
      expect(huge.details).toMatchObject({ limit: 'memory' });
      // a MemoryError says what the memory limit says in every language (docs/limits.md), unless the
      // engine's OOM killer came first (gVisor), recorded or not (docs/security.md)
      expect(huge.message).toMatch(
        /^resource limit exceeded: memory \((the snippet needed more than \d+ bytes: out of memory|the container was OOM-killed .*|the container was killed by SIGKILL under its \d+-byte limit; the engine recorded no OOM kill)\)$/,
      );
    });

    it('caps output (RESOURCE_LIMIT output) and keeps what fit', async () => {
      const error = await failure(
        backend.execute(pythonRequest('while True:\n    print("x" * 100)', { limits: { maxOutputBytes: 2000 } })),
      );
      expect(error.code, error.message).toBe('RESOURCE_LIMIT');
      expect(error.details).toMatchObject({ limit: 'output', maxOutputBytes: 2000 });
      expect(error.details?.result?.stdout.length).toBe(2000);
    });

    it('leaves no container behind once closed', async () => {
      const own = options.create();
      await own.execute(pythonRequest('1'));
      await failure(own.execute(pythonRequest('while True: pass', { timeoutMs: 1000 })));
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error('stop')), 300);
      const aborted = await failure(own.execute(pythonRequest('while True: pass', { signal: controller.signal })));
      clearTimeout(timer);
      expect(aborted.code).toBe('ABORTED');
      await own.close();
      expect(await containersOf(own.id)).toEqual([]);
    });
  });
}
