/**
 * The main example: `npm run example` (or `node --import tsx examples/main.ts`).
 *
 * One `Exec` with three local tools and an MCP server started over stdio. It searches and
 * describes tools, runs one with progress, runs a chain, and runs a code-mode snippet in the WASM
 * sandbox that finds tools and calls them. No Docker, no network.
 */
import { createExec } from 'toolexec';
import { fxServer, shopTools } from './shared/shop.js';

// Three local tools (shop:find_products, shop:quote, shop:restock: a JSON Schema and a handler
// each, see shared/shop.ts) and the MCP server shipped in examples/, started over stdio, whose
// tools are imported as fx:rates, fx:convert and fx:convert_many.
const exec = createExec({ tools: shopTools(), mcpServers: { fx: fxServer } });
const show = (label: string, text: string): void => console.log(`${label.padEnd(10)} ${text}`);
const json = (value: unknown): string => JSON.stringify(value);
function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Error(`unexpected result: ${what}`);
}

try {
  console.log('toolexec: main example\n');

  // 1. Discovery: every tool is in one index (MCP tools are imported on first use).
  const all = await exec.searchTools('', 50);
  const local = all.filter((t) => t.namespace === 'shop').length;
  show('tools', `${all.length} registered: ${local} local (shop), ${all.length - local} from the MCP server "fx" (stdio)`);
  check(local === 3 && all.length === 6, 'six tools, three of them local');

  const hits = await exec.searchTools('convert currency', 3);
  show('search', `"convert currency" → ${hits.map((h) => h.id).join(', ')}`);
  check(hits[0]?.id === 'fx:convert', 'fx:convert ranks first');

  const doc = await exec.getToolDoc('fx:convert', 'schema');
  show('describe', `fx:convert: ${doc.summary.slice(0, 70)}…`);
  show('', `required: ${doc.schemaInfo?.required?.join(', ')}; arguments: ${Object.keys(doc.schemaInfo?.types ?? {}).join(', ')}`);

  // 2. A run with progress: the handler's reports arrive between `started` and `completed`.
  const args = { sku: 'MUG-1', units: 3 };
  show('run', `shop:restock ${json(args)}`);
  const restocked = await exec.runTool('shop:restock', args, {
    onProgress: (p) => show('', `progress ${p.progress}/${p.total ?? '?'} ${p.message ?? ''}`),
  });
  show('', `→ ${json(restocked.value)} in ${restocked.durationMs.toFixed(0)} ms`);
  check((restocked.value as { stock: number }).stock === 8, 'stock is 8 after adding 3');

  // 3. A chain: each step can take the previous step's result as `args.previous`.
  const chain = await exec.runChain([
    { toolId: 'shop:find_products', args: { query: 'mug' } },
    { toolId: 'shop:quote', args: { quantity: 2 }, usePrevious: true },
    { toolId: 'fx:convert', args: { to: 'EUR' }, usePrevious: true },
  ]);
  const [, quoted] = chain.steps;
  const eur = chain.result.value as { amountCents: number; currency: string };
  show('chain', `${chain.steps.map((s) => s.toolId).join(' → ')} (${chain.steps.length} steps, ${chain.result.durationMs.toFixed(0)} ms)`);
  show('', `→ 2 × each mug = ${(quoted?.value as { totalCents: number }).totalCents} USD cents = ${eur.amountCents} ${eur.currency} cents`);
  check(eur.amountCents === 6716 && eur.currency === 'EUR', '7300 USD cents = 6716 EUR cents');

  // 4. Code mode: a snippet in the WASM sandbox finds tools and calls them through `tools`.
  const run = await exec.executeCode({
    code: `
      const [converter] = await tools.searchTools('convert currency', 1);
      console.log('using', converter.id);
      const found = (await tools.runTool('shop:find_products', { query: 'mug' })).structured;
      const quote = (await tools.runTool('shop:quote', { skus: found.items.map((p) => p.sku), quantity: 3 })).structured;
      const chf = (await tools.runTool(converter.id, { amountCents: quote.totalCents, from: 'USD', to: 'CHF' })).structured;
      return { usdCents: quote.totalCents, chfCents: chf.amountCents };
    `,
  });
  show(
    'code',
    `${run.backend?.kind} sandbox (${String(run.backend?.details?.engine)}), ${run.toolCalls.length} tool calls, ${run.durationMs.toFixed(0)} ms`,
  );
  show('', `stdout   ${run.stdout.trim()}`);
  show('', `value    ${json(run.value)}`);
  for (const call of run.toolCalls) show('', `call     ${call.toolId.padEnd(20)} ${call.durationMs.toFixed(1)} ms`);
  check(run.backend?.kind === 'wasm', 'the snippet ran in the WASM sandbox');
  check(json(run.value) === json({ usdCents: 10950, chfCents: 9636 }), '10950 USD cents = 9636 CHF cents');

  console.log('\n✓ main example finished: all good');
} catch (err) {
  console.error(`\n✗ main example failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await exec.close(); // ends the MCP server process and the sandbox workers
}
