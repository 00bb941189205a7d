/**
 * The code-mode API's Python variant: the stub of the module `tools` a Python snippet gets
 * (`.pyi` text: each declared tool's arguments and result as `TypedDict`s, `run_tool` overloaded
 * per tool ID) and the prompt on how to write a Python snippet. What the stub describes is the
 * prelude's `tools` module (src/runtime/guest/python/prelude.py).
 */
import type { Tool } from '../model/index.js';
import { PythonNames, PythonTypes, pyString } from './python-stubs.js';

/** The stub's fixed first part: imports and the shapes the `tools` functions return. */
const PYTHON_HEADER = `from typing import Any, Generic, Literal, NotRequired, TypedDict, TypeVar, overload

R = TypeVar("R")

class ToolDefinition(TypedDict):
    """A tool's definition, as MCP describes it, plus toolexec's namespace, version and tags."""
    name: str
    namespace: NotRequired[str]
    version: NotRequired[str]
    title: NotRequired[str]
    description: NotRequired[str]
    tags: NotRequired[list[str]]
    inputSchema: dict[str, Any]
    outputSchema: NotRequired[dict[str, Any]]
    annotations: NotRequired[dict[str, Any]]

class ToolBackend(TypedDict):
    """Where a tool ran: {"kind": "local", "local": {"name": ...}}, {"kind": "mcp", "mcp": {"serverName": ...}}, ..."""
    kind: Literal["local", "provider", "mcp"]
    local: NotRequired[dict[str, Any]]
    provider: NotRequired[dict[str, Any]]
    mcp: NotRequired[dict[str, Any]]

class McpResult(TypedDict):
    """An MCP tool's result as the server sent it (every content block, images as base64)."""
    content: list[dict[str, Any]]
    structuredContent: NotRequired[dict[str, Any]]
    isError: NotRequired[bool]

class RunResult(TypedDict, Generic[R]):
    """What run_tool returns: read the tool's value from result["structured"]."""
    structured: R
    tool: ToolDefinition
    backend: ToolBackend
    mcpResult: NotRequired[McpResult]

class ToolSummary(TypedDict):
    """One search hit."""
    id: str
    name: str
    namespace: NotRequired[str]
    summary: NotRequired[str]
    shortDescription: NotRequired[str]
    category: NotRequired[str]
    tags: NotRequired[list[str]]

class ToolExample(TypedDict):
    """A worked example of calling a tool."""
    id: NotRequired[str]
    title: str
    description: str
    args: dict[str, Any] | None
    resultHint: NotRequired[str]

class ToolDoc(TypedDict):
    """A tool's documentation: "summary" (summary, annotations), "schema" (+ tool with its schemas), "full" (+ notes, examples)."""
    summary: str
    tool: NotRequired[ToolDefinition]
    annotations: NotRequired[dict[str, Any]]
    schemaInfo: NotRequired[dict[str, Any]]
    notes: NotRequired[str]
    examples: NotRequired[list[ToolExample]]
    externalRefs: NotRequired[list[str]]

class ChainStep(TypedDict):
    """One step of run_chain."""
    toolId: str
    # the step's own arguments
    args: NotRequired[dict[str, Any]]
    # pass the previous step's result as args["previous"]
    usePrevious: NotRequired[bool]
    # arguments taken from the previous step's result: argument name -> JSON pointer ("/items/0/sku"; "" is the whole result)
    argsFrom: NotRequired[dict[str, str]]

class StepError(TypedDict):
    """A failed chain step's error."""
    name: str
    code: str
    message: str
    details: NotRequired[dict[str, Any]]

class StepResult(TypedDict):
    """What happened to one chain step: its result, or its error."""
    toolId: str
    backend: NotRequired[ToolBackend]
    result: NotRequired[RunResult[Any]]
    error: NotRequired[StepError]

class ChainResult(TypedDict):
    """What run_chain returns."""
    result: RunResult[Any] | None
    steps: list[StepResult]`;

/** The stub's fixed last part: `ToolError` and the functions besides `run_tool`. */
const PYTHON_FUNCTIONS = `def search_tools(query: str, limit: int = 10) -> list[ToolSummary]:
    """Full-text search over every tool (names, IDs, descriptions, tags)."""

def describe_tool(id: str, level: Literal["summary", "schema", "full"] = "summary") -> ToolDoc:
    """A tool's documentation; level "schema" includes its argument and result schemas."""

def list_namespaces() -> list[str]:
    """The catalogue's namespaces."""

def list_tool_examples(id: str, max: int = 0) -> list[ToolExample]:
    """A tool's worked examples (max 0: all)."""

def run_chain(steps: list[ChainStep]) -> ChainResult:
    """Runs the steps in order, stopping at the first failure (which raises ToolError with .steps)."""`;

const TOOL_ERROR = `class ToolError(Exception):
    """What a failed tools.* call raises (also importable: from tools import ToolError)."""
    # VALIDATION (details["violations"] names each field), TOOL_NOT_FOUND (details["suggestions"]), EXECUTION, TIMEOUT, LIMIT_EXCEEDED, ...
    code: str
    message: str
    details: dict[str, Any] | None
    tool_id: str | None
    # run_chain: every step's outcome
    steps: list[StepResult] | None`;

const UNTYPED_RUN_TOOL = `def run_tool(id: str, args: dict[str, Any] | None = None) -> RunResult[Any]:
    """Runs a tool found with search_tools (read its arguments with describe_tool(id, "schema") first)."""`;

/** A docstring line for a function: quotes and backslashes escaped. */
function docLine(text: string): string {
  return `    """${text.replace(/\s+/g, ' ').trim().replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"""`;
}

/**
 * The stub of the module `tools` a Python snippet gets, with each of `tools` typed: its arguments
 * (`<Tool>Args`), its structured result (`<Tool>Output`), `<Tool>Result = RunResult[<Tool>Output]`
 * and a `run_tool` overload keyed by its ID. Valid Python (`ast.parse` reads it); save it as
 * `tools.pyi` to check a snippet with a type checker.
 */
export function declarePythonTools(tools: readonly { id: string; tool: Tool }[]): string {
  const names = new PythonNames();
  const blocks: string[] = [];
  const overloads: string[] = [];
  for (const { id, tool } of tools) {
    const types = new PythonTypes(names, id);
    const argsName = names.take(id, 'Args');
    const outputName = names.take(id, 'Output');
    const resultName = names.take(id, 'Result');
    const input = types.typeOfRoot(tool.inputSchema, argsName, 'Args', tool.description);
    const aliases: string[] = [];
    if (input.type !== argsName) aliases.push(`${argsName} = ${input.type === 'Any' ? 'dict[str, Any]' : input.type}`);
    const output = tool.outputSchema === undefined ? { type: 'Any', notes: [] } : types.typeOfRoot(tool.outputSchema, outputName, 'Output');
    if (output.type !== outputName) aliases.push(`${outputName} = ${output.type}`);
    const notes = [...input.notes, ...output.notes].map((note) => `# ${note}`);
    const title = `# ---- ${id}${tool.title ? ` — ${tool.title.replace(/\s+/g, ' ')}` : ''}`;
    blocks.push(
      [title, ...notes, ...types.blocks.filter((b) => b !== ''), ...aliases, `${resultName} = RunResult[${outputName}]`].join('\n\n'),
    );
    const optional = !(Array.isArray(tool.inputSchema.required) && tool.inputSchema.required.length > 0);
    const about = tool.description ?? tool.title;
    overloads.push(
      [
        '@overload',
        `def run_tool(id: Literal[${pyString(id)}], args: ${optional ? `${argsName} | None = None` : argsName}) -> ${resultName}:`,
        about === undefined || about.trim() === '' ? '    ...' : docLine(about),
      ].join('\n'),
    );
  }
  const runTool = overloads.length === 0 ? UNTYPED_RUN_TOOL : [...overloads, `@overload\n${UNTYPED_RUN_TOOL}`].join('\n\n');
  return [
    `# The code-mode API of toolexec for Python: the stub of the module \`tools\` (tools.pyi), with ${tools.length} tool${tools.length === 1 ? '' : 's'} typed.`,
    '# A snippet has `tools` as a global (or `import tools`). The type names exist only in this stub: read them, do not import them.',
    PYTHON_HEADER,
    ...blocks,
    '# ---- the functions of the module `tools`; each blocks until the tool answers',
    TOOL_ERROR,
    runTool,
    PYTHON_FUNCTIONS,
  ].join('\n\n');
}

/** The prompt of Python snippets: how one is written and run. */
export const PYTHON_CODE_MODE_PROMPT = `Write a Python 3 snippet; it runs in a sandbox like a notebook cell.
- The value of the last line, when it is an expression, is the snippet's result (make it JSON-like: dict, list, str, number, bool, None). \`print\` output is returned too.
- \`tools\` is a global (\`import tools\` works too); its functions are ordinary synchronous calls: no \`await\`, no asyncio.
- \`r = tools.run_tool("namespace:name", {"arg": value})\` runs a tool; its value is in \`r["structured"]\`. Arguments are checked against the tool's schema first.
- Tools that are not declared can be found with \`tools.search_tools(query)\`; read their arguments with \`tools.describe_tool(id, "schema")\`.
- \`tools.run_chain([{"toolId": ..., "args": {...}}, {"toolId": ..., "argsFrom": {"arg": "/pointer/into/previous/result"}}])\` feeds one tool's result to the next.
- The standard library is there; no network, no files of the host, no packages to install.
- A failed call raises \`tools.ToolError\`, whose \`.code\` (VALIDATION, TOOL_NOT_FOUND, EXECUTION, TIMEOUT, ...) and \`.message\` say what to fix;
  catch it to try another way. Tool calls per snippet are limited: do the work in as few snippets as you can.
- The type names in the stub (\`MathAddArgs\`, ...) are for reading: pass plain dicts, and do not import or annotate with them.`;
