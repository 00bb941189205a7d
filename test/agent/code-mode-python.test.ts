import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  META_TOOL_DEFINITIONS,
  checkSnippet,
  codeModeApi,
  codeTool,
  declarePythonTools,
  defineTool,
  type CodeModeApi,
} from '../../src/agent/index.js';

import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { hasErrorCode, type Tool } from '../../src/model/index.js';
import { SMALL_TOOLS, generatedTools } from './catalogue.js';
import { pyright } from './pyright.js';

const quote = defineTool({
  name: 'quote',
  namespace: 'shop',
  title: 'Price quote',
  description: 'Prices a basket of SKUs.',
  inputSchema: z.object({
    skus: z.array(z.string()).min(1).describe('The SKUs to price'),
    quantity: z.number().int().positive().default(1),
    currency: z.enum(['USD', 'EUR']).optional(),
    address: z.object({ city: z.string(), zip: z.string() }).optional(),
  }),
  outputSchema: z.object({ totalCents: z.number().int(), lines: z.array(z.object({ sku: z.string(), cents: z.number() })) }),
  handler: ({ skus, quantity }) => ({
    totalCents: skus.length * quantity * 250,
    lines: skus.map((sku) => ({ sku, cents: quantity * 250 })),
  }),
});

function tool(
  id: string,
  inputSchema: Record<string, unknown>,
  outputSchema?: Record<string, unknown>,
  description?: string,
): { id: string; tool: Tool } {
  const [namespace, name] = id.split(':') as [string, string];
  return {
    id,
    tool: {
      name,
      namespace,
      inputSchema: inputSchema as Tool['inputSchema'],
      ...(outputSchema === undefined ? {} : { outputSchema: outputSchema as Tool['outputSchema'] }),
      ...(description === undefined ? {} : { description }),
    },
  };
}

/** A nest of `depth` objects, each with one property `child`. */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { child: schema }, required: ['child'] };
  return schema;
}

/** Schemas as MCP servers and zod send them, and the awkward corners of JSON Schema. */
const CATALOGUE: { id: string; tool: Tool }[] = [
  tool(
    'math:add:1.0.0',
    { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    undefined,
    'Adds two numbers.',
  ),
  tool(
    'geo:route',
    {
      type: 'object',
      properties: {
        from: { $ref: '#/$defs/Point' },
        to: { $ref: '#/$defs/Point' },
        via: { type: 'array', items: { $ref: '#/definitions/Stop' } },
      },
      required: ['from', 'to'],
      $defs: { Point: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] } },
      definitions: { Stop: { type: 'string', enum: ['fuel', 'food'] } },
    },
    { type: 'array', items: { type: 'object', properties: { km: { type: 'number' } } } },
  ),
  tool('tree:walk', {
    type: 'object',
    properties: { root: { $ref: '#/$defs/Node' } },
    required: ['root'],
    $defs: {
      Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } },
    },
  }),
  tool('http:request', {
    type: 'object',
    properties: {
      'content-type': { type: 'string' },
      class: { type: 'string', description: 'A Python keyword as a key' },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      query: { type: 'object', patternProperties: { '^x-': { type: 'integer' } } },
      body: { anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'null' }] },
      method: { const: 'GET' },
      retries: { type: ['integer', 'null'] },
      weird: { enum: [1, 'two', true, null, 2.5] },
      remote: { $ref: 'https://example.com/schema.json' },
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
      anything: true,
      nothing: false,
      legacy: { type: 'string', nullable: true },
    },
    required: ['content-type'],
  }),
  tool('pet:adopt', {
    type: 'object',
    allOf: [{ properties: { name: { type: 'string' } }, required: ['name'] }, { $ref: '#/$defs/Tagged' }],
    $defs: { Tagged: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } } },
  }),
  tool('pet:mix', {
    type: 'object',
    properties: { x: { allOf: [{ type: 'string' }, { minLength: 2 }] }, y: { oneOf: [{ type: 'integer' }, { type: 'boolean' }] } },
  }),
  tool('deep:nest', { type: 'object', properties: { top: nested(40) } }),
  tool(
    'doc:odd',
    { type: 'object', properties: { note: { type: 'string', description: 'Ends with a quote "\nand a """ triple \\ backslash' } } },
    undefined,
    'Description with """ triple quotes,\na newline and a trailing backslash \\',
  ),
  tool('doc:odd-2', { type: 'object', properties: { 'x"y': { type: 'string' }, 'ü ñ': { type: 'string' } } }),
  tool("quote's:ünïcode", { type: 'object', properties: {} }),
  tool('3d:render', { type: 'object', properties: { scene: { type: 'string' } }, required: ['scene'] }, { type: 'string' }),
  tool('a:b', { type: 'object' }),
  tool('a-b:x', { type: 'object' }),
  tool('a.b:x', { type: 'object' }),
];

/** `python3 -c 'import ast; ast.parse(...)'` on the text: the error, or '' when it parses. */
function pythonSyntaxError(text: string): string {
  const run = spawnSync('python3', ['-c', 'import ast,sys; ast.parse(sys.stdin.read())'], { input: text, encoding: 'utf8' });
  if (run.error !== undefined) throw run.error;
  return run.status === 0 ? '' : run.stderr;
}

let exec: DefaultExec;
let api: CodeModeApi;
beforeAll(async () => {
  exec = createExec({ tools: [...SMALL_TOOLS, quote] });
  api = await codeModeApi(exec, { language: 'python' });
});
afterAll(() => exec.close());

describe("codeModeApi(exec, { language: 'python' })", () => {
  it('returns the stub of the module tools and the Python prompt', () => {
    expect(api.language).toBe('python');
    expect(api.declarations).toContain(
      '# The code-mode API of toolexec for Python: the stub of the module `tools` (tools.pyi), with 4 tools typed.',
    );
    expect(api.declarations).toContain('def run_tool(id: Literal["shop:quote"], args: ShopQuoteArgs) -> ShopQuoteResult:');
    expect(api.declarations).toContain('def run_tool(id: Literal["math:add:1.0.0"], args: MathAdd_1_0_0Args) -> MathAdd_1_0_0Result:');
    expect(api.prompt).toContain('last line');
    expect(api.prompt).toContain('`print`');
    expect(api.prompt).toContain('`import tools`');
    expect(api.prompt).toContain('no `await`');
    expect(api.prompt).toContain('`tools.ToolError`, whose `.code`');
    expect(pythonSyntaxError(api.declarations)).toBe('');
  });

  it('types a zod tool exactly: required and optional keys, enums, nested objects, the result', () => {
    const [, block] = /(# ---- shop:quote[\s\S]*?ShopQuoteResult = RunResult\[ShopQuoteOutput\])/.exec(api.declarations) ?? [];
    expect(block).toBe(`# ---- shop:quote — Price quote

class ShopQuoteArgs(TypedDict):
    """Prices a basket of SKUs."""
    # The SKUs to price
    skus: list[str]
    quantity: NotRequired[int]
    currency: NotRequired[Literal["USD", "EUR"]]
    address: NotRequired[ShopQuoteArgsAddress]

class ShopQuoteArgsAddress(TypedDict):
    city: str
    zip: str

class ShopQuoteOutput(TypedDict):
    totalCents: int
    lines: list[ShopQuoteOutputLinesItem]

class ShopQuoteOutputLinesItem(TypedDict):
    sku: str
    cents: float

ShopQuoteResult = RunResult[ShopQuoteOutput]`);
  });

  it('keeps the ID order of selection and takes ids / query like the TypeScript API', async () => {
    const one = await codeModeApi(exec, { language: 'python', ids: ['fs:read_text_file'] });
    expect(one.declarations).toContain('with 1 tool typed.');
    expect(one.declarations).toContain(`class FsReadTextFileArgs(TypedDict):
    """Reads a text file."""
    path: str
    head: NotRequired[int]`);
    expect(one.declarations).not.toContain('ShopQuote');
    const none = await codeModeApi(exec, { language: 'python', ids: [] });
    expect(none.declarations).toContain('def run_tool(id: str, args: dict[str, Any] | None = None) -> RunResult[Any]:');
    expect(none.declarations).not.toContain('@overload');
    expect(pythonSyntaxError(none.declarations)).toBe('');
  });

  it('refuses checkSnippet for the Python API', async () => {
    const refused = await checkSnippet(api, 'x = 1').catch((e: unknown) => e);
    expect(hasErrorCode(refused, 'INVALID_ARGUMENT')).toBe(true);
    expect((refused as Error).message).toContain('Python API');
  });
});

describe('declarePythonTools over awkward schemas', () => {
  const stub = declarePythonTools(CATALOGUE);

  it('parses as Python', () => {
    expect(pythonSyntaxError(stub)).toBe('');
  });

  it('parses as Python for a generated catalogue of 300 tools', () => {
    const many = generatedTools(300).map(({ tool: t }) => ({ id: `${t.namespace}:${t.name}`, tool: t }));
    const text = declarePythonTools(many);
    expect(pythonSyntaxError(text)).toBe('');
    expect(text.match(/^@overload$/gm)).toHaveLength(301);
  });

  it('resolves $ref and $defs (recursion too), degrading a remote one to Any with a comment', () => {
    expect(stub).toContain(`GeoRouteArgs = TypedDict("GeoRouteArgs", {
    "from": GeoRoutePoint,
    "to": GeoRoutePoint,
    "via": NotRequired[list[GeoRouteStop]],
})`);
    expect(stub).toContain('class GeoRoutePoint(TypedDict):\n    lat: float\n    lon: float');
    expect(stub).toContain('GeoRouteStop = Literal["fuel", "food"]');
    expect(stub).toContain('GeoRouteOutput = list[GeoRouteOutputItem]');
    expect(stub).toContain('class TreeWalkNode(TypedDict):\n    name: NotRequired[str]\n    children: NotRequired[list[TreeWalkNode]]');
    expect(stub).toContain('    # Any: $ref https://example.com/schema.json is not resolved\n    "remote": NotRequired[Any],');
  });

  it('maps keys that are not identifiers through the functional form, and every other keyword', () => {
    expect(stub).toContain(`HttpRequestArgs = TypedDict("HttpRequestArgs", {
    "content-type": str,
    # A Python keyword as a key
    "class": NotRequired[str],
    "headers": NotRequired[dict[str, str]],
    "query": NotRequired[dict[str, Any]],`); // additionalProperties absent: any value beside the pattern's
    expect(stub).toContain('    "body": NotRequired[str | dict[str, Any] | None],');
    expect(stub).toContain('    "method": NotRequired[Literal["GET"]],');
    expect(stub).toContain('    "retries": NotRequired[int | None],');
    expect(stub).toContain('    "weird": NotRequired[Literal[1, "two", True, None] | float],');
    expect(stub).toContain('    "pair": NotRequired[list[str | float]],');
    expect(stub).toContain('    "anything": NotRequired[Any],');
    expect(stub).toContain('    # Any: a schema that allows nothing\n    "nothing": NotRequired[Any],');
    expect(stub).toContain('    "legacy": NotRequired[str | None],');
    expect(stub).toContain('DocOdd_2Args = TypedDict("DocOdd_2Args", {\n    "x\\"y": NotRequired[str],\n    "ü ñ": NotRequired[str],\n})');
  });

  it('merges allOf of objects into one class, and degrades the rest', () => {
    expect(stub).toContain('class PetAdoptArgs(TypedDict):\n    name: str\n    tags: NotRequired[list[str]]');
    expect(stub).toContain('    x: NotRequired[Any]');
    expect(stub).toContain('    y: NotRequired[int | bool]');
  });

  it('makes valid, distinct names for every ID', () => {
    expect(stub).toContain('def run_tool(id: Literal["quote\'s:ünïcode"], args: QuoteSNCodeArgs | None = None) -> QuoteSNCodeResult:');
    expect(stub).toContain('def run_tool(id: Literal["3d:render"], args: T3dRenderArgs) -> T3dRenderResult:');
    expect(stub).toContain('T3dRenderOutput = str');
    expect(stub).toContain('ABXArgs = dict[str, Any]');
    expect(stub).toContain('def run_tool(id: Literal["a.b:x"], args: ABXArgs2 | None = None) -> ABXResult2:');
    const classes = [...stub.matchAll(/^(?:class (\w+)\(|(\w+) = )/gm)].map((m) => m[1] ?? m[2]);
    expect(new Set(classes).size).toBe(classes.length);
  });

  it('stops at a nesting depth of 32 with Any and a comment', () => {
    expect(stub).toContain('# Any: nested too deeply');
  });

  it('escapes descriptions into docstrings and comments', () => {
    expect(stub).toContain('    """Description with \\"\\"\\" triple quotes,\n    a newline and a trailing backslash \\\\"""');
    expect(stub).toContain('    # Ends with a quote "\n    # and a """ triple \\ backslash\n    note: NotRequired[str]');
  });
});

describe('the stub under a type checker (pyright, strict)', () => {
  it('has no error of its own, and types a snippet: arguments, results, keys, errors', () => {
    const stub = declarePythonTools([
      ...CATALOGUE,
      { id: 'shop:quote', tool: quote.tool },
      { id: 'fs:read_text_file', tool: (SMALL_TOOLS[1] as { tool: Tool }).tool },
    ]);
    const snippet = `import tools
from tools import ToolError

r = tools.run_tool("shop:quote", {"skus": ["A-1"], "currency": "USD"})
reveal_type(r["structured"]["totalCents"])
reveal_type(r["structured"]["lines"][0]["sku"])
r["structured"]["total"]
route = tools.run_tool("geo:route", {"from": {"lat": 1.0, "lon": 2.0}, "to": {"lat": 1.5, "lon": 2.5}})
reveal_type(route["structured"])
walk = tools.run_tool("tree:walk", {"root": {"name": "a", "children": [{"name": "b"}]}})
reveal_type(walk["structured"])
found = tools.search_tools("route", 3)
reveal_type(found[0]["id"])
try:
    tools.run_tool(found[0]["id"], {"any": "thing"})
except ToolError as err:
    reveal_type(err.code)
chain = tools.run_chain([{"toolId": "math:add:1.0.0", "args": {"a": 1, "b": 2}}, {"toolId": "math:add:1.0.0", "argsFrom": {"a": ""}}])
reveal_type(chain["steps"][0]["toolId"])
`;
    const diagnostics = pyright(stub, snippet);
    expect(diagnostics.filter((d) => d.file === 'tools.pyi')).toEqual([]);
    const inSnippet = diagnostics.filter((d) => d.file === 'snippet.py').map((d) => `${d.line} ${d.severity} ${d.message.split('\n')[0]}`);
    expect(inSnippet).toEqual(
      [
        '5 information Type of "r["structured"]["totalCents"]" is "int"',
        '6 information Type of "r["structured"]["lines"][0]["sku"]" is "str"',
        '7 error Could not access item in TypedDict',
        '9 information Type of "route["structured"]" is "list[GeoRouteOutputItem]"',
        '11 information Type of "walk["structured"]" is "Any"',
        '13 information Type of "found[0]["id"]" is "str"',
        '17 information Type of "err.code" is "str"',
        '19 information Type of "chain["steps"][0]["toolId"]" is "str"',
      ].sort((a, b) => parseInt(a) - parseInt(b)),
    );
  }, 60_000);
});

describe('the Python language in the agent integrations', () => {
  it("codeTool(exec, { language: 'python' }) describes the Python API and takes a Python snippet", async () => {
    const tool = (await codeTool(exec, { language: 'python', ids: ['shop:quote'] })) as {
      description: string;
      inputSchema: { jsonSchema: { properties: { code: { description: string } } } };
    };
    expect(tool.description).toContain(
      "The snippet's API, the stub of its module `tools`, in Python:\n```python\n# The code-mode API of toolexec for Python",
    );
    expect(tool.description).toContain('def run_tool(id: Literal["shop:quote"], args: ShopQuoteArgs) -> ShopQuoteResult:');
    expect(tool.description).toContain('Write a Python 3 snippet');
    expect(tool.inputSchema.jsonSchema.properties.code.description).toBe('The Python snippet: its last expression is the value.');
    const typescript = (await codeTool(exec, { ids: ['shop:quote'] })) as { description: string };
    expect(typescript.description).toContain('declared in TypeScript:\n```ts');
  });

  it('codeTool refuses typecheck with Python, and an unknown language', async () => {
    const both = await codeTool(exec, { language: 'python', typecheck: true }).catch((e: unknown) => e);
    // two options of one tool that do not go together: CONFIGURATION, as any bad option
    expect(hasErrorCode(both, 'CONFIGURATION')).toBe(true);
    expect((both as Error).message).toContain("not with language 'python'");
    expect(hasErrorCode(await codeTool(exec, { language: 'ruby' as never }).catch((e: unknown) => e), 'CONFIGURATION')).toBe(true);
  });

  it("the execute_code meta-tool takes language 'python' and says how a Python snippet calls tools", () => {
    const definition = META_TOOL_DEFINITIONS.execute_code;
    expect((definition.inputSchema.properties as { language: { enum: string[] } }).language.enum).toEqual([
      'javascript',
      'typescript',
      'python',
    ]);
    expect(definition.description).toContain('With language "python" the snippet is Python');
    expect(definition.description).toContain('`tools.run_tool(id, args)`');
  });
});
