/**
 * The Python code mode of the agent integrations, run for real (Pyodide): the execute_code
 * meta-tool and the AI SDK's codeTool with `language: 'python'`, and a snippet written against
 * the Python API's stub.
 */
import type { ToolExecutionOptions } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeModeApi, codeTool, metaTool } from '../../src/agent/index.js';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { hasErrorCode } from '../../src/model/index.js';
import { SMALL_TOOLS } from './catalogue.js';
import { pyright } from './pyright.js';

let exec: DefaultExec;
beforeAll(async () => {
  exec = createExec({ tools: SMALL_TOOLS, warmLanguages: ['python'] });
  await exec.connect();
}, 120_000);
afterAll(() => exec.close());

const CALL: ToolExecutionOptions<Record<string, unknown>> = { toolCallId: 'call-1', messages: [], context: {} };

describe('Python through the agent integrations', () => {
  it("execute_code with language 'python' runs the snippet and reports its value, calls and output", async () => {
    const { value } = await metaTool(exec, 'execute_code').run({
      language: 'python',
      code: 'r = tools.run_tool("math:add:1.0.0", {"a": 20, "b": 22})\nprint("ok")\nr["structured"]',
    });
    expect(value).toEqual({ value: 42, toolCalls: [{ id: 'math:add:1.0.0', count: 1 }], stdout: 'ok\n' });
  });

  it("codeTool(exec, { language: 'python' }) runs the model's Python snippet; a failure rejects with the sandbox's error", async () => {
    const tool = (await codeTool(exec, { language: 'python', ids: ['math:add:1.0.0', 'fs:read_text_file'] })) as {
      execute: (input: { code: string }, options: ToolExecutionOptions<Record<string, unknown>>) => Promise<unknown>;
    };
    const output = await tool.execute(
      {
        code: `
total = tools.run_tool("math:add:1.0.0", {"a": 1, "b": 2})["structured"]
text = tools.run_tool("fs:read_text_file", {"path": "a.txt", "head": 1})["structured"]["text"]
{"total": total, "text": text}
`,
      },
      CALL,
    );
    expect(output).toEqual({
      value: { total: 3, text: 'line 1' },
      toolCalls: [
        { id: 'math:add:1.0.0', count: 1 },
        { id: 'fs:read_text_file', count: 1 },
      ],
    });
    const failed = await tool.execute({ code: 'tools.run_tool("fs:read_text_file", {})' }, CALL).catch((e: unknown) => e);
    expect(hasErrorCode(failed, 'VALIDATION')).toBe(true);
  });

  it('a snippet written the way the Python prompt says runs as it reads', async () => {
    const api = await codeModeApi(exec, { language: 'python', ids: ['math:add:1.0.0'] });
    expect(api.prompt).toContain('r["structured"]');
    const run = await exec.executeCode({
      language: 'python',
      code: `
from tools import ToolError
import tools as t
try:
    t.run_tool("util:fail", {})
    outcome = "no error"
except ToolError as err:
    outcome = err.code
found = [s["id"] for s in tools.search_tools("add", 3)]
doc = tools.describe_tool("math:add:1.0.0", "schema")
{"outcome": outcome, "found": found[0], "required": doc["tool"]["inputSchema"]["required"], "namespaces": tools.list_namespaces()}
`,
    });
    expect(run.value).toEqual({ outcome: 'EXECUTION', found: 'math:add:1.0.0', required: ['a', 'b'], namespaces: ['fs', 'math', 'util'] });
  });

  it('the stub describes what the sandbox returns: a snippet that pyright (strict) accepts against it runs as typed', async () => {
    const api = await codeModeApi(exec, { language: 'python' });
    const snippet = `import tools
from tools import ToolError

total = tools.run_tool("math:add:1.0.0", {"a": 2, "b": 3})
kind = total["backend"]["kind"]
name = total["tool"]["name"]
text = tools.run_tool("fs:read_text_file", {"path": "a.txt"})["structured"]
hits = [hit["id"] for hit in tools.search_tools("read file", 2)]
doc = tools.describe_tool("fs:read_text_file", "schema")
schema = doc["tool"]["inputSchema"] if "tool" in doc else {}
chain = tools.run_chain([{"toolId": "math:add:1.0.0", "args": {"a": 1, "b": 1}}, {"toolId": "math:add:1.0.0", "args": {"b": 5}, "argsFrom": {"a": ""}}])
last = chain["result"]["structured"] if chain["result"] is not None else None
steps = [step["toolId"] for step in chain["steps"]]
try:
    tools.run_tool("util:fail")
    code = "none"
except ToolError as err:
    code = err.code
{"total": total["structured"], "kind": kind, "name": name, "text": text, "hit": hits[0], "required": schema.get("required"), "last": last, "steps": steps, "code": code, "namespaces": tools.list_namespaces()}
`;
    expect(pyright(api.declarations, snippet).filter((d) => d.severity === 'error')).toEqual([]);
    const run = await exec.executeCode({ language: 'python', code: snippet });
    expect(run.value).toEqual({
      total: 5,
      kind: 'local',
      name: 'add',
      text: { path: 'a.txt', text: 'line 1\nline 2' },
      hit: 'fs:read_text_file',
      required: ['path'],
      last: 7,
      steps: ['math:add:1.0.0', 'math:add:1.0.0'],
      code: 'EXECUTION',
      namespaces: ['fs', 'math', 'util'],
    });
  });
});
