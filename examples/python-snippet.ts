/**
 * A Python snippet in code mode: a facade with one local tool, the Python variant of the typed
 * code-mode API a model would read, and a snippet that calls the tool twice through
 * `tools.run_tool` and returns a dict.
 *
 *   node --import tsx examples/python-snippet.ts
 *
 * The snippet runs in Pyodide (CPython compiled to WebAssembly) in a pooled child process, under
 * Node's permission model and, where bubblewrap is installed, in a network namespace: the
 * `standard` profile's Python sandbox. `tools` is a global there (or `import tools`), its calls
 * block until the host answers, the last expression is the snippet's value and `print` goes to
 * stdout. See docs/guests.md, "Python in code mode".
 */
import { codeModeApi } from 'toolexec/agent';
import { createExec, defineTool, hasErrorCode } from 'toolexec';
import { check, json, runExample, show } from './shared/report.js';

const exec = createExec({
  tools: [
    {
      tool: defineTool({
        namespace: 'shop',
        name: 'quote',
        description: 'Prices a quantity of one SKU, in cents.',
        inputSchema: {
          type: 'object',
          properties: { sku: { type: 'string', pattern: '^[A-Z]+-\\d+$' }, quantity: { type: 'integer', minimum: 1 } },
          required: ['sku', 'quantity'],
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: { sku: { type: 'string' }, totalCents: { type: 'integer' } },
          required: ['sku', 'totalCents'],
        },
      }),
      handler: ({ sku, quantity }) => ({ sku, totalCents: (sku === 'MUG-1' ? 1250 : 2400) * (quantity as number) }),
    },
  ],
  // connect() starts the Python sandbox pool ahead of the first snippet (it takes seconds);
  // `defaultLanguage: 'python'` would do the same
  warmLanguages: ['python'],
});

await runExample(
  'python-snippet',
  async () => {
    const startedMs = performance.now();
    await exec.connect();
    show('warm', `the Python sandbox pool started in ${(performance.now() - startedMs).toFixed(0)} ms`);

    // What a model reads before it writes the snippet: the prompt and the stub of `tools`.
    const api = await codeModeApi(exec, { language: 'python' });
    const overload = api.declarations.split('\n').find((line) => line.startsWith('def run_tool(id: Literal['));
    show('api', overload ?? '(no overload)');
    check(overload === 'def run_tool(id: Literal["shop:quote"], args: ShopQuoteArgs) -> ShopQuoteResult:', 'the typed overload');

    const run = await exec.executeCode({
      language: 'python',
      code: `
mugs = tools.run_tool("shop:quote", {"sku": "MUG-1", "quantity": 2})
shirts = tools.run_tool("shop:quote", {"sku": "TEE-1", "quantity": 1})
total = mugs["structured"]["totalCents"] + shirts["structured"]["totalCents"]
print(f"basket: {total / 100:.2f} USD")
{"skus": [mugs["structured"]["sku"], shirts["structured"]["sku"]], "totalCents": total}
`,
    });
    show('value', json(run.value));
    show('stdout', run.stdout.trim());
    for (const call of run.toolCalls) show('tool call', `${call.toolId} ${json(call.args)} → ${json(call.structured)}`);
    show(
      'backend',
      `${run.backend?.kind} ${run.backend?.readiness ?? ''} (${String(run.backend?.details?.engine)}), ${run.durationMs.toFixed(0)} ms`,
    );
    check(json(run.value) === json({ skus: ['MUG-1', 'TEE-1'], totalCents: 4900 }), 'the basket total');
    check(run.toolCalls.length === 2, 'two tool calls in the trace');

    // A failed call raises tools.ToolError with the library's code; the snippet can catch it.
    const caught = await exec.executeCode({
      language: 'python',
      code: `
try:
    tools.run_tool("shop:quote", {"sku": "mug 1", "quantity": 1})
except tools.ToolError as err:
    result = err.code
result
`,
    });
    show('caught', String(caught.value));
    check(caught.value === 'VALIDATION', 'the validation error inside Python');

    // Not caught, it fails the run with its own code.
    const failed = await exec.executeCode({ language: 'python', code: 'tools.run_tool("shop:nope")' }).catch((err: unknown) => err);
    show('uncaught', `${(failed as Error).message.slice(0, 80)}`);
    check(hasErrorCode(failed, 'TOOL_NOT_FOUND'), 'an uncaught ToolError keeps its code');
  },
  () => exec.close(),
);
