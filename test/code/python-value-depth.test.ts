/**
 * test/code/value-depth.test.ts for Python snippets (Pyodide in its child processes): the same
 * nesting limit on tool arguments and results, with the same codes and messages, and values that
 * are never cut.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { depthTools } from './depth-tools.js';
import type { ToolexecError } from '../../src/model/index.js';

/** `nest(levels)` nests `{"o": ...}` `levels` deep around `{"leaf": True}`; `depth(v)` counts them back. */
const NEST = `
def nest(levels):
    o = {"leaf": True}
    for _ in range(1, levels):
        o = {"o": o}
    return o
def depth(v):
    d = 1
    while "o" in v:
        v = v["o"]
        d += 1
    return d
`;
/** `x`: lists nested 5,000 deep (deeper than Python's recursion limit; Pyodide frees dicts that deep only up to ~3,000). */
const DEEP_LIST = 'x = []\nfor _ in range(5000):\n    x = [x]\n';

const { tools, calls } = depthTools();

let exec: DefaultExec;
beforeAll(async () => {
  exec = createExec({ tools, poolSize: 1, warmLanguages: ['python'] });
  await exec.connect(); // warms the Python pool
}, 120_000);
afterAll(() => exec.close());

describe("code mode, language 'python': nesting depth of tool arguments and results", () => {
  it('refuses arguments nested too deep with INVALID_ARGUMENT, catchable, neither counted nor traced, the handler never run', async () => {
    calls.count = 0;
    const result = await exec.executeCode({
      language: 'python',
      maxToolCalls: 2,
      code: `${NEST}${DEEP_LIST}
out = []
for k in range(3):
    try:
        tools.run_tool("t:echo", {"x": x})
    except tools.ToolError as e:
        out.append([e.code, e.message, e.details])
try:
    tools.run_tool("t:echo", nest(1000))
except tools.ToolError as e:
    out.append([e.code, e.message])
try:
    tools.run_chain([{"toolId": "t:echo", "args": nest(600)}])
except tools.ToolError as e:
    out.append([e.code, e.message])
out.append(tools.run_tool("t:echo", {"a": 1})["structured"])
out`,
    });
    const message = 'runtime: args of t:echo nest deeper than 512 levels';
    const refused = ['INVALID_ARGUMENT', message, { field: 'args', toolId: 't:echo', maxDepth: 512 }];
    expect(result.value).toEqual([
      refused,
      refused,
      refused,
      ['INVALID_ARGUMENT', message],
      ['INVALID_ARGUMENT', 'runtime: steps[0].args of t:echo nest deeper than 512 levels'],
      { a: 1 },
    ]);
    expect(calls.count).toBe(1);
    expect(result.toolCalls.map((call) => call.args)).toEqual([{ a: 1 }]);
  });

  it('fails the run with that INVALID_ARGUMENT when the snippet does not catch it, as JavaScript does', async () => {
    const err = (await exec
      .executeCode({ language: 'python', code: `${DEEP_LIST}tools.run_tool("t:echo", {"x": x})` })
      .catch((e: unknown) => e)) as ToolexecError;
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toBe('runtime: args of t:echo nest deeper than 512 levels');
  });

  it('passes 512 levels of arguments and 500 of results through whole', async () => {
    const result = await exec.executeCode({
      language: 'python',
      code: `${NEST}
args = depth(tools.run_tool("t:echo", nest(512))["structured"])
back = tools.run_tool("t:nest", {"levels": 500})["structured"]
[args, depth(back)]`,
    });
    expect(result.value).toEqual([512, 500]);
  });

  it('fails a tool call whose result nests too deep with a PROTOCOL error the snippet sees, never a cut value', async () => {
    const result = await exec.executeCode({
      language: 'python',
      code: `${NEST}
out = []
try:
    tools.run_tool("t:nest", {"levels": 1000})
    out.append("delivered")
except tools.ToolError as e:
    out.append([e.code, e.message, e.details])
try:
    tools.run_chain([{"toolId": "t:nest", "args": {"levels": 600}}])
    out.append("delivered")
except tools.ToolError as e:
    out.append([e.code, e.message, e.details])
chain = tools.run_chain([{"toolId": "t:nest", "args": {"levels": 512}}])
out.append(depth(chain["result"]["structured"]))
out.append(depth(chain["steps"][0]["result"]["structured"]))
out`,
    });
    const refused = [
      'PROTOCOL',
      'runtime: protocol error: a value in the reply nests deeper than 512 levels',
      { limit: 'depth', maxDepth: 512 },
    ];
    expect(result.value).toEqual([refused, refused, 512, 512]);
  });
});

describe("code mode, language 'python': the snippet's value", () => {
  it('comes back whole however deep the transport carries it: 512 levels of a tool result, 5,000 of lists', async () => {
    const result = await exec.executeCode({ language: 'python', code: `${NEST}tools.run_tool("t:echo", nest(512))["structured"]` });
    let levels = 0;
    for (let v = result.value as { o?: unknown }; v !== undefined; v = v.o as { o?: unknown }) levels += 1;
    expect(levels).toBe(512);
    const lists = await exec.executeCode({ language: 'python', code: DEEP_LIST + 'x' });
    let depth = 0;
    for (let v = lists.value; Array.isArray(v); v = v[0] as unknown) depth += 1;
    expect(depth).toBe(5001);
  });

  it('too deep for the interpreter to write out, fails on the stack limit as a JavaScript value does; the next run is served', async () => {
    const err = (await exec
      .executeCode({ language: 'python', code: 'x = 0\nfor _ in range(100000):\n    x = [x]\nx' })
      .catch((e: unknown) => e)) as ToolexecError;
    expect(err.code).toBe('LIMIT_EXCEEDED');
    expect(err.message).toBe('limit exceeded: resource limit exceeded: stack (Maximum call stack size exceeded)');
    expect(err.details?.limit).toBe('stack');
    expect((await exec.executeCode({ language: 'python', code: '6 * 7' })).value).toBe(42);
  });
});

describe("code mode, language 'python': values that are not JSON", () => {
  it('refuses a cyclic argument with INVALID_ARGUMENT unsent, and fails a cyclic value with TypeError, as JavaScript does', async () => {
    const result = await exec.executeCode({
      language: 'python',
      code: `c = {}
c["self"] = c
try:
    tools.run_tool("t:echo", c)
    r = "sent"
except tools.ToolError as e:
    r = [e.code, e.message]
r`,
    });
    expect(result.value).toEqual(['INVALID_ARGUMENT', 'runtime: the request cannot be sent as JSON: circular reference']);
    expect(result.toolCalls).toEqual([]);
    const err = (await exec.executeCode({ language: 'python', code: 'a = [1]\na.append(a)\na' }).catch((e: unknown) => e)) as ToolexecError;
    expect(err.code).toBe('CODE_EXECUTION');
    expect(err.message).toBe('TypeError: the result is not JSON-serializable: circular reference');
  });
});
