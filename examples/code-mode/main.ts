/**
 * Code mode: a model writes one snippet that searches tools, reads their docs and calls them;
 * `toolexec/code` runs it in the WASM sandbox with a call budget, a deadline and a trace.
 *
 *   node --import tsx examples/code-mode/main.ts
 *
 * Inside the sandbox the snippet sees `tools` (searchTools, listNamespaces, describeTool,
 * listToolExamples, runTool, runChain — all async) and `console`; its result is what it returns at
 * top level, or what it assigns to `__out`. No `process`, `require`, filesystem or network.
 */
import { createCodeExecutor } from 'toolexec/code';
import { createDocStore, createToolIndex } from 'toolexec/discovery';
import { hasErrorCode, localBackend, toolId, type ToolexecError } from 'toolexec/model';
import { createRunner, type LocalHandler } from 'toolexec/run';
import { createRuntime } from 'toolexec/runtime';
import { shopTools } from '../shared/shop.js';
import { check, failure, json, runExample, show } from '../shared/report.js';

// The layers the facade would wire for you: index + docs + runner, and a runtime for snippets.
const index = createToolIndex();
const docs = createDocStore({ index });
const local: Record<string, LocalHandler> = {};
for (const { tool, handler, doc } of shopTools()) {
  const id = toolId(tool);
  index.registerTool(tool, localBackend(id));
  local[id] = handler;
  if (doc) docs.registerDoc(id, doc);
}
const runtime = createRuntime(); // standard and hardened → the WASM sandbox; dev → the host (opt-in only)
const code = createCodeExecutor({ index, docs, runner: createRunner({ index, local }), runtime, maxToolCalls: 20 });

/** Runs a snippet that must fail; prints and returns the error (its partial result is in details.result). */
async function expectFailure(
  label: string,
  snippet: string,
  params: { timeoutMs?: number; maxToolCalls?: number } = {},
): Promise<ToolexecError> {
  const err = (await failure(code.executeCode({ code: snippet, ...params }), label)) as ToolexecError;
  const partial = err.details?.result as { toolCalls: unknown[]; durationMs: number } | undefined;
  const cause = (err.cause as { code?: string } | undefined)?.code; // LIMIT_EXCEEDED wraps the runtime's TIMEOUT / RESOURCE_LIMIT
  show(err.code, `${label}${cause && cause !== err.code ? ` (cause ${cause})` : ''}: ${err.message.slice(0, 100)}`, 16);
  show('', `partial result: ${partial?.toolCalls.length ?? 0} tool call(s), ${partial?.durationMs.toFixed(0)} ms`, 16);
  return err;
}

await runExample(
  'code-mode',
  async () => {
    // 1. Discover, read the docs, call: one round trip for the model instead of five.
    const explore = await code.executeCode({
      code: `
        const namespaces = await tools.listNamespaces();
        const [finder] = await tools.searchTools('find products by name', 1);
        const doc = await tools.describeTool(finder.id, 'full');
        const [example] = await tools.listToolExamples(finder.id, 1);
        console.log('namespaces:', namespaces.join(','), '| tool:', finder.id, '| example args:', JSON.stringify(example.args));
        const found = await tools.runTool(finder.id, example.args);
        return { summary: doc.summary, skus: found.structured.items.map((p) => p.sku) };
      `,
    });
    show('explore', explore.stdout.trim(), 16);
    show('', `value ${json(explore.value)}`, 16);
    show(
      '',
      `${explore.backend?.kind} (${explore.backend?.readiness}), ${explore.durationMs.toFixed(0)} ms, limits enforced: ${json(explore.limitsEnforced)}`,
      16,
    );
    check(json((explore.value as { skus: string[] }).skus) === json(['MUG-1', 'MUG-2']), 'the two mugs');

    // 2. Parallel calls, a chain inside the snippet, and the __out convention.
    const basket = await code.executeCode({
      code: `
        const [mugs, shirts] = await Promise.all([
          tools.runTool('shop:find_products', { query: 'mug' }),
          tools.runTool('shop:find_products', { query: 'shirt' }),
        ]);
        const skus = [...mugs.structured.items, ...shirts.structured.items].map((p) => p.sku);
        const chain = await tools.runChain([
          { toolId: 'shop:quote', args: { skus, quantity: 2 } },
          { toolId: 'shop:restock', args: { sku: 'TEE-1', units: 2 } },
        ]);
        __out = { skus, totalCents: chain.steps[0].result.structured.totalCents, stock: chain.result.structured.stock };
      `,
    });
    show('basket', json(basket.value), 16);
    for (const call of basket.toolCalls) show('', `trace ${call.toolId.padEnd(19)} ${json(call.args)}`, 16);
    check(
      json(basket.value) === json({ skus: ['MUG-1', 'MUG-2', 'TEE-1'], totalCents: 10900, stock: 7 }),
      'three SKUs, 109.00 USD, 7 shirts',
    );
    check(basket.toolCalls.length === 4, 'two runs and two chain steps in the trace');

    // 3. TypeScript snippets are transpiled (types stripped) before they run.
    const typed = await code.executeCode({
      language: 'typescript',
      code: `
        interface Item { sku: string; priceCents: number }
        const { structured } = await tools.runTool('shop:find_products', { query: 'mug' });
        const items = (structured as { items: Item[] }).items;
        return items.reduce((max: number, i: Item) => Math.max(max, i.priceCents), 0);
      `,
    });
    show('typescript', `most expensive mug: ${json(typed.value)} cents`, 16);
    check(typed.value === 2450, '2450');

    // 4. The sandbox has no host objects.
    const surface = await code.executeCode({ code: 'return [typeof process, typeof require, typeof fetch, typeof WebAssembly]' });
    show('sandbox', `typeof process, require, fetch, WebAssembly → ${json(surface.value)}`, 16);
    check(json(surface.value) === json(['undefined', 'undefined', 'undefined', 'undefined']), 'nothing from the host');

    // 5. Failures: a stable code, a message that points into the snippet, the partial result kept.
    console.log('');
    const thrown = await expectFailure(
      'a bug in the snippet',
      `const x = await tools.runTool('shop:find_products', { query: 'mug' });\nreturn x.structured.itemz.length;`,
    );
    check(hasErrorCode(thrown, 'CODE_EXECUTION') && thrown.details?.line === 2, 'CODE_EXECUTION at line 2');
    const invalid = await expectFailure('an invalid tool call', `await tools.runTool('shop:restock', { sku: 'MUG-1', units: 500 });`);
    check(hasErrorCode(invalid, 'VALIDATION'), 'the call failed validation');
    const budget = await expectFailure(
      'too many tool calls',
      `for (let i = 0; i < 10; i++) await tools.runTool('shop:find_products', { query: 'mug' });`,
      { maxToolCalls: 3 },
    );
    check(
      hasErrorCode(budget, 'LIMIT_EXCEEDED') && (budget.details?.result as { toolCalls: unknown[] }).toolCalls.length === 3,
      'LIMIT_EXCEEDED after 3 calls',
    );
    const loop = await expectFailure('an endless loop', 'while (true) {}', { timeoutMs: 200 });
    check(loop.code === 'LIMIT_EXCEEDED' && hasErrorCode(loop, 'TIMEOUT'), 'stopped at the deadline');
    const memory = await expectFailure('a memory hog', `const a = []; while (true) a.push('x'.repeat(1024) + a.length);`);
    check(memory.code === 'LIMIT_EXCEEDED' && hasErrorCode(memory, 'RESOURCE_LIMIT'), 'stopped at the memory cap');
  },
  async () => {
    await code.close?.();
    await runtime.close();
  },
);
