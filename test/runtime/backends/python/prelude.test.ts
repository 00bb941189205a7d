/**
 * The Python prelude on the host's CPython (the Docker guest's interpreter): the same file the
 * Pyodide child loads, read through `readPythonPrelude` from the sources and from the build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_VALUE_DEPTH } from '../../../../src/runtime/core/errors.js';
import { pythonPreludePath, readPythonPrelude } from '../../../../src/runtime/internal.js';

/** Loads the prelude as a module, runs each case with a scripted transport, prints one JSON line per case. */
const DRIVER = String.raw`
import json, sys, types
source = sys.stdin.read()
prelude = types.ModuleType("toolexec_prelude")
exec(compile(source, "prelude.py", "exec"), vars(prelude))
sys.modules["toolexec_prelude"] = prelude
state = {"calls": []}
def call(type_, payload):
    state["calls"].append([type_, payload])
    if type_ == "run_tool" and payload["id"] == "bad":
        return {"type": "error", "payload": {"error": "no such tool", "code": "TOOL_NOT_FOUND", "toolId": "bad"}}
    if type_ == "run_chain" and payload["steps"] and payload["steps"][0].get("toolId") == "bad":
        step = {"toolId": "bad", "backend": {"kind": "local"}, "error": {"error": "bad a", "code": "VALIDATION", "name": "ToolError",
                "details": {"field": "/a"}, "op": "chain", "toolId": "bad", "backend": {"kind": "local"}, "cause": "x"}}
        return {"type": "error", "payload": {"error": "chain failed", "code": "VALIDATION", "toolId": "bad", "steps": [step]}}
    if type_ == "run_chain" and payload["steps"] and payload["steps"][0].get("toolId") == "soft":
        return {"type": "response", "payload": {"result": None, "steps": [{"toolId": "soft", "error": {"error": "", "op": "chain"}}]}}
    if type_ == "search_tools":
        return {"type": "response", "payload": {"results": [{"id": "a:b"}]}}
    return {"type": "response", "payload": {"structured": {"sum": 3}, "content": []}}
out = []
for code in json.loads(sys.argv[1]):
    before = len(state["calls"])
    out.append({"result": prelude.run_snippet(code, call), "calls": state["calls"][before:]})
print(json.dumps(out))
`;

function hasPython(): boolean {
  return spawnSync('python3', ['-c', 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)']).status === 0;
}

interface CaseOutcome {
  result: {
    ok: boolean;
    value?: unknown;
    error?: { code: string; message: string; name: string; line?: number; column?: number; traceback: string };
  };
  calls: [string, unknown][];
}

function runCases(cases: string[]): CaseOutcome[] {
  const child = spawnSync('python3', ['-I', '-c', DRIVER, JSON.stringify(cases)], { input: readPythonPrelude(), encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return JSON.parse(child.stdout) as CaseOutcome[];
}

// Skipped only on a developer machine without CPython 3.11+; under CI=true it always runs (.ci/run
// installs python3), so a missing interpreter fails there instead of hiding the suite.
describe.runIf(process.env.CI === 'true' || hasPython())('the Python prelude on CPython', () => {
  it('is read from the sources, and the build carries the same file', () => {
    expect(pythonPreludePath()).toMatch(/src\/runtime\/guest\/python\/prelude\.py$/);
    const built = new URL('../../../../dist/assets/python-prelude.py', import.meta.url);
    if (existsSync(built)) expect(readFileSync(built, 'utf8')).toBe(readPythonPrelude());
  });

  it("returns the last expression's value, JSON-safe", () => {
    const [a, b, c, d] = runCases([
      'x = 1\nx + 1',
      'x = 5',
      "a = [1]\n{'a': [a, a], 'nan': float('nan'), 'b': b'hi', 's': {2, 1}, 3: (1,), 'o': object}",
      'def d(n):\n    return [d(n - 1)] if n else 0\nd(70)',
    ]);
    expect(a?.result).toEqual({ ok: true, value: 2 });
    // no value at all: the snippet ends with a statement
    expect(b?.result).toEqual({ ok: true });
    expect(c?.result).toEqual({
      ok: true,
      value: { a: [[1], [1]], nan: null, b: [104, 105], s: [1, 2], '3': [1], o: "<class 'object'>" },
    });
    expect(d?.result).toEqual({ ok: true, value: JSON.parse(`${'['.repeat(70)}0${']'.repeat(70)}`) as unknown });
  });

  it('tells a value that converts to null (nan, inf) from no value (None), as JavaScript tells NaN from undefined', () => {
    const [nan, inf, none, nested] = runCases(["float('nan')", "-float('inf')", 'None', "[float('nan'), {'a': float('inf')}]"]);
    expect(nan?.result).toEqual({ ok: true, value: null });
    expect(inf?.result).toEqual({ ok: true, value: null });
    expect(none?.result).toEqual({ ok: true });
    expect(nested?.result).toEqual({ ok: true, value: [null, { a: null }] });
  });

  it('converts a value of any depth without recursion, and never cuts a snippet value', () => {
    // 100,000 levels: ten times deeper than a recursive walk could go (the driver's own json.dumps
    // stops near 1,000, so the depth is measured inside the snippet)
    const walk = 'd = 0\nwhile isinstance(y, list):\n    y = y[0]\n    d += 1\n[d, y]';
    const [converted, value] = runCases([
      `import toolexec_prelude\nx = 0\nfor _ in range(100000):\n    x = [x]\ny = toolexec_prelude.to_json_safe(x)\n${walk}`,
      'x = 0\nfor _ in range(900):\n    x = [x]\nx',
    ]);
    expect(converted?.result).toEqual({ ok: true, value: [100000, 0] });
    expect(value?.result).toEqual({ ok: true, value: JSON.parse(`${'['.repeat(900)}0${']'.repeat(900)}`) as unknown });
  });

  it("keeps the host's nesting limit: MAX_VALUE_DEPTH of src/runtime/core/errors.ts", () => {
    expect(readPythonPrelude()).toMatch(new RegExp(`^MAX_VALUE_DEPTH = ${MAX_VALUE_DEPTH}$`, 'm'));
  });

  it('sends arguments whole up to 512 levels, and deeper ones cut one level past it, so the host refuses them', () => {
    const nest = (levels: number) => `x = 0\nfor _ in range(${levels}):\n    x = [x]`;
    const [whole, deep, chain] = runCases([
      `${nest(511)}\ntools.run_tool('m:add', {'x': x})\nNone`,
      `${nest(5000)}\ntools.run_tool('m:add', {'x': x})\nNone`,
      `${nest(5000)}\ntools.run_chain([{'toolId': 'm:add', 'args': {'x': x}}])\nNone`,
    ]);
    /** The levels of dicts and lists in `value` (the host's `nestsDeeperThan` measure) and its innermost leaf. */
    const levels = (value: unknown): [number, unknown] => {
      let depth = 0;
      let inner = value;
      for (; inner !== null && typeof inner === 'object'; depth += 1) inner = Array.isArray(inner) ? inner[0] : Object.values(inner)[0];
      return [depth, inner];
    };
    const argsOf = (outcome: CaseOutcome | undefined, path: (payload: Record<string, unknown>) => unknown) =>
      levels(path(outcome?.calls[0]?.[1] as Record<string, unknown>));
    expect(whole?.result).toEqual({ ok: true });
    expect(argsOf(whole, (payload) => payload.args)).toEqual([512, 0]);
    expect(argsOf(deep, (payload) => payload.args)).toEqual([MAX_VALUE_DEPTH + 1, '[Truncated]']);
    const step = (payload: Record<string, unknown>) => (payload.steps as { args: unknown }[])[0]?.args;
    expect(argsOf(chain, step)).toEqual([MAX_VALUE_DEPTH + 1, '[Truncated]']);
  });

  it('refuses a cycle as JavaScript does: a tool call raises INVALID_ARGUMENT unsent, a value fails with TypeError', () => {
    const cyclic = "c = {'a': [1]}\nc['a'].append(c)";
    const [caught, value] = runCases([
      `${cyclic}\ntry:\n    tools.run_tool('m:add', c)\nexcept tools.ToolError as e:\n    r = [e.code, e.message, e.name]\nr`,
      `${cyclic}\nc`,
    ]);
    expect(caught?.result.value).toEqual(['INVALID_ARGUMENT', 'runtime: the request cannot be sent as JSON: circular reference', 'Error']);
    expect(caught?.calls).toEqual([]);
    expect(value?.result).toEqual({
      ok: false,
      error: { code: 'CODE_EXECUTION', message: 'TypeError: the result is not JSON-serializable: circular reference', name: 'TypeError' },
    });
  });

  it('offers tools as a module and a global, with ToolError carrying the code', () => {
    const [run, search, caught, thrown] = runCases([
      "import tools\ntools.run_tool('m:add', {'a': (1, 2)})['structured']",
      "tools.search_tools('q')",
      "try:\n    tools.run_tool('bad')\nexcept tools.ToolError as e:\n    r = [e.code, e.message]\nr",
      "tools.run_tool('bad')",
    ]);
    expect(run?.result).toEqual({ ok: true, value: { sum: 3 } });
    expect(run?.calls).toEqual([['run_tool', { id: 'm:add', args: { a: [1, 2] } }]]);
    expect(search?.result.value).toEqual([{ id: 'a:b' }]);
    expect(search?.calls).toEqual([['search_tools', { query: 'q', limit: 10 }]]);
    expect(caught?.result.value).toEqual(['TOOL_NOT_FOUND', 'no such tool']);
    expect(thrown?.result.error).toMatchObject({ code: 'TOOL_NOT_FOUND', message: 'no such tool' });
  });

  it('tells a snippet that reads a name tools does not have how to call a tool; hasattr and dunders read as usual', () => {
    const [namespace, probes] = runCases([
      "tools.math.add({'a': 1})",
      "[hasattr(tools, 'math'), hasattr(tools, '__wrapped__'), getattr(tools, 'nope', 7), callable(tools.run_tool)]",
    ]);
    expect(namespace?.result.error?.message).toContain(
      "AttributeError: module 'tools' has no attribute 'math': call a tool by its ID, e.g. tools.run_tool('math:<tool>', args)",
    );
    expect(namespace?.calls).toEqual([]);
    const [camel, run] = runCases(["tools.runTool('math:add', {'a': 1})", "tools.run('math:add', {'a': 1})"]);
    expect(camel?.result.error?.message).toContain(
      "AttributeError: module 'tools' has no attribute 'runTool': did you mean tools.run_tool?",
    );
    expect(run?.result.error?.message).toContain('did you mean tools.run_tool or tools.run_chain?');
    expect(probes?.result.value).toEqual([false, false, 7, true]);
  });

  it('decodes chain step errors to the shape a JavaScript snippet gets: name, code, message, details', () => {
    const [raised, returned] = runCases([
      "try:\n    tools.run_chain([{'toolId': 'bad', 'args': {}}])\nexcept tools.ToolError as e:\n    r = e.steps\nr",
      "tools.run_chain([{'toolId': 'soft'}])['steps']",
    ]);
    expect(raised?.result.value).toEqual([
      {
        toolId: 'bad',
        backend: { kind: 'local' },
        error: { name: 'ToolError', code: 'VALIDATION', message: 'bad a', details: { field: '/a' } },
      },
    ]);
    expect(returned?.result.value).toEqual([{ toolId: 'soft', error: { name: 'Error', code: null, message: 'unknown error' } }]);
  });

  it('refuses ints a JSON number cannot hold exactly, naming their place; a tool call with one is never sent', () => {
    const [value, nested, edge, args, chain] = runCases([
      '[2**53 + 1, 12345678901234567890]',
      "{'a': [1, {'b': -(2**63)}]}",
      '[2**53 - 1, -(2**53 - 1), True]',
      "try:\n    tools.run_tool('m:add', {'a': 2**53 + 1, 'b': 0})\nexcept tools.ToolError as e:\n    r = [e.code, e.message, e.name]\nr",
      "tools.run_chain([{'toolId': 'm:add', 'args': {'a': 10**20}}])",
    ]);
    const tooLarge = (text: string, place: string) =>
      `the int ${text} at ${place} is too large for a JSON number (over 2**53 - 1 either side of 0); pass it as a str`;
    expect(value?.result).toEqual({
      ok: false,
      error: {
        code: 'CODE_EXECUTION',
        name: 'TypeError',
        message: `TypeError: the result is not JSON-serializable: ${tooLarge('9007199254740993', '[0]')}`,
      },
    });
    expect(nested?.result.error?.message).toContain(tooLarge('-9223372036854775808', "['a'][1]['b']"));
    expect(edge?.result).toEqual({ ok: true, value: [2 ** 53 - 1, -(2 ** 53 - 1), true] });
    expect(args?.result.value).toEqual([
      'INVALID_ARGUMENT',
      `runtime: the request cannot be sent as JSON: ${tooLarge('9007199254740993', "['args']['a']")}`,
      'Error',
    ]);
    expect(args?.calls).toEqual([]);
    expect(chain?.result.error).toMatchObject({ code: 'INVALID_ARGUMENT', line: 1, column: 1 });
    expect(chain?.result.error?.message).toContain(tooLarge('100000000000000000000', "['steps'][0]['args']['a']"));
    expect(chain?.calls).toEqual([]);
  });

  it('says how to pass arguments when run_tool gets keywords, naming the public function', () => {
    const [keywords, extra] = runCases(["tools.run_tool('m:add', a=1, b=2)", "tools.describe_tool('m:add', 'full', 3)"]);
    expect(keywords?.result.error).toMatchObject({
      name: 'TypeError',
      message:
        "TypeError: tools.run_tool() takes the tool's arguments as one dict, not as keyword arguments: tools.run_tool('m:add', {'a': ..., 'b': ...})",
    });
    expect(extra?.result.error?.message).toBe('TypeError: tools.describe_tool() takes from 1 to 2 positional arguments but 3 were given');
    expect(keywords?.calls).toEqual([]);
  });

  it('gives the line and column (in characters) of an uncaught ToolError and of an exception', () => {
    const [tool, nested, wide] = runCases([
      "x = 1\n\nr = tools.run_tool('bad')",
      "def f():\n    return {}['k']\n\nf()",
      "s = 'éé'; t = 1 + 'x'",
    ]);
    expect(tool?.result.error).toMatchObject({ code: 'TOOL_NOT_FOUND', message: 'no such tool', toolId: 'bad', line: 3, column: 5 });
    expect(nested?.result.error).toMatchObject({ name: 'KeyError', line: 2, column: 12 });
    expect(wide?.result.error).toMatchObject({ name: 'TypeError', line: 1, column: 15 });
  });

  it('reports syntax errors with their line and exceptions with their type', () => {
    const [syntax, zero, exit] = runCases(['x = 1\ndef f(:\n    pass', '1 / 0', 'import sys\nsys.exit(3)']);
    expect(syntax?.result.error).toMatchObject({ code: 'CODE_EXECUTION', name: 'SyntaxError', line: 2 });
    expect(syntax?.result.error?.message).toMatch(/^SyntaxError: .*\(line 2\)$/);
    expect(zero?.result.error).toMatchObject({ code: 'CODE_EXECUTION', message: 'ZeroDivisionError: division by zero', line: 1 });
    expect(zero?.result.error?.traceback).toContain('File "<snippet>", line 1');
    expect(zero?.result.error?.traceback).not.toContain('prelude.py');
    expect(exit?.result.error?.message).toBe('SystemExit: 3');
  });

  it('runs each snippet in fresh state', () => {
    const [, second] = runCases([
      'secret = 42\nimport json\njson.dumps = None\nimport builtins\nbuiltins.leak = 1\nimport fractions\nimport sys\nsys.path.append("/x")\nimport os\nos.environ["LEAK"] = "1"\nos.environ.pop("PATH", None)',
      "import json, sys, builtins, os\n[json.dumps({}), 'fractions' in sys.modules, hasattr(builtins, 'leak'), '/x' in sys.path, 'secret' in globals(), 'LEAK' in os.environ, 'PATH' in os.environ]",
    ]);
    expect(second?.result.value).toEqual(['{}', false, false, false, false, false, 'PATH' in process.env]);
  });
});
