/**
 * Full: one agent turn, end to end. A scripted "model" discovers tools, reads a schema, makes a
 * wrong call and corrects it from the error it receives, then hands a whole task to code mode.
 *
 *   node --import tsx examples/full/main.ts
 *
 * Shows the pattern for plugging toolexec into an agent loop: every request the model makes is
 * answered with `{ status: 'Ok', value }` or `toErrorShape(err)` — a stable code and a message
 * that names the field and what was expected — so the model can fix its own mistakes.
 * Local tools, an MCP server (stdio) and a provider backend sit behind one `Exec`.
 */
import { createExec, toErrorShape, type CodeResult, type ProgressEvent } from 'toolexec';
import { createToolIndex } from 'toolexec/discovery';
import { defineTool, providerBackend } from 'toolexec/model';
import { fxServer, shopTools } from '../shared/shop.js';
import { check, json, runExample } from '../shared/report.js';

// A provider backend: tools served by an external API (here an in-process stand-in).
const VAT_RATES: Record<string, number> = { DE: 0.19, FR: 0.2, CH: 0.081 };
const index = createToolIndex();
index.registerTool(
  defineTool({
    namespace: 'tax',
    name: 'vat',
    description: 'Value-added tax on an amount in cents for a country (DE, FR, CH).',
    inputSchema: {
      type: 'object',
      properties: { amountCents: { type: 'integer', minimum: 0 }, country: { enum: Object.keys(VAT_RATES) } },
      required: ['amountCents', 'country'],
    },
  }),
  providerBackend('tax-api', 'vat'),
);

const exec = createExec({
  index,
  tools: shopTools(),
  mcpServers: { fx: fxServer },
  provider: {
    callTool: async (_providerId, _toolId, args) => {
      const rate = VAT_RATES[args.country as string] ?? 0;
      return { vatCents: Math.round((args.amountCents as number) * rate), rate };
    },
  },
  securityProfile: 'hardened', // snippets run in a real sandbox (WASM unless you register Docker/gVisor)
  maxToolCalls: 10,
  defaultTimeoutMs: 10_000,
});

/** What the model may ask for, and the envelope it gets back. */
type Request =
  | { op: 'search'; query: string }
  | { op: 'describe'; id: string }
  | { op: 'run'; id: string; args: Record<string, unknown> }
  | { op: 'code'; code: string };
type Reply = { status: 'Ok'; value: unknown } | ReturnType<typeof toErrorShape>;

let progress: ProgressEvent[] = [];
async function answer(request: Request): Promise<Reply> {
  try {
    switch (request.op) {
      case 'search':
        return { status: 'Ok', value: (await exec.searchTools(request.query, 3)).map((t) => `${t.id}: ${t.shortDescription ?? ''}`) };
      case 'describe': {
        const doc = await exec.getToolDoc(request.id, 'schema');
        return { status: 'Ok', value: { summary: doc.summary, arguments: doc.schemaInfo } };
      }
      case 'run': {
        progress = [];
        const onProgress = (p: ProgressEvent): void => {
          progress.push(p);
          console.log(`      … ${p.progress}/${p.total ?? '?'} ${p.message ?? ''}`); // e.g. relay to the user's UI
        };
        return { status: 'Ok', value: (await exec.runTool(request.id, request.args, { onProgress })).value };
      }
      case 'code': {
        const run: CodeResult = await exec.executeCode({ code: request.code });
        return {
          status: 'Ok',
          value: { value: run.value, stdout: run.stdout, calls: run.toolCalls.map((c) => c.toolId), sandbox: run.backend?.kind },
        };
      }
    }
  } catch (err) {
    return toErrorShape(err); // { status: 'Error', error: { code, message, details } }
  }
}

const transcript: Reply[] = [];
async function turn(request: Request): Promise<Reply> {
  if (request.op === 'code') {
    const lines = request.code
      .trim()
      .split('\n')
      .map((l) => l.trim());
    console.log(
      `model → code (a snippet of ${lines.length} line${lines.length === 1 ? '' : 's'})\n${lines.map((l) => `          ${l}`).join('\n')}`,
    );
  } else {
    const { op, ...rest } = request;
    console.log(`model → ${op} ${json(rest)}`);
  }
  const reply = await answer(request);
  const shown = reply.status === 'Ok' ? json(reply.value) : `Error ${reply.error.code}: ${reply.error.message}`;
  console.log(`      ← ${shown.slice(0, 160)}${shown.length > 160 ? '…' : ''}\n`);
  transcript.push(reply);
  return reply;
}

await runExample(
  'full',
  async () => {
    // The user: "What do two travel mugs cost in Germany, in euros, VAT included?"
    await turn({ op: 'search', query: 'convert currency' });
    await turn({ op: 'describe', id: 'fx:convert' });
    const wrong = await turn({ op: 'run', id: 'fx:convert', args: { amount: 4900, currency: 'USD', to: 'euro' } });
    check(
      wrong.status === 'Error' && wrong.error.code === 'VALIDATION' && wrong.error.message.includes("'/to' must be one of"),
      'the model is told what /to accepts',
    );
    const fixed = await turn({ op: 'run', id: 'fx:convert', args: { amountCents: 4900, from: 'USD', to: 'EUR' } });
    check(fixed.status === 'Ok' && (fixed.value as { amountCents: number }).amountCents === 4508, '49.00 USD = 45.08 EUR');

    // Now the whole task as one snippet: search, quote, convert, tax — in the sandbox.
    const task = await turn({
      op: 'code',
      code: `
        const [mug] = (await tools.runTool('shop:find_products', { query: 'travel' })).structured.items;
        const quote = (await tools.runTool('shop:quote', { skus: [mug.sku], quantity: 2 })).structured;
        const eur = (await tools.runTool('fx:convert', { amountCents: quote.totalCents, from: 'USD', to: 'EUR' })).structured;
        const [vatTool] = await tools.searchTools('value-added tax', 1);
        const vat = (await tools.runTool(vatTool.id, { amountCents: eur.amountCents, country: 'DE' })).structured;
        console.log(mug.name, 'x2:', quote.totalCents, 'USD cents =', eur.amountCents, 'EUR cents + VAT', vat.vatCents);
        return { totalEurCents: eur.amountCents + vat.vatCents };
      `,
    });
    check(
      task.status === 'Ok' && json((task.value as { value: unknown }).value) === json({ totalEurCents: 5365 }),
      '45.08 EUR + 19% VAT (8.57) = 53.65 EUR',
    );
    check((task.value as { sandbox: string }).sandbox === 'wasm', 'the hardened profile ran in the WASM sandbox');

    // A runaway snippet hits the budget; the model gets a code, not a crash.
    const runaway = await turn({ op: 'code', code: `for (;;) await tools.runTool('tax:vat', { amountCents: 100, country: 'FR' });` });
    check(runaway.status === 'Error' && runaway.error.code === 'LIMIT_EXCEEDED', 'LIMIT_EXCEEDED after 10 calls');

    const restock = await turn({ op: 'run', id: 'shop:restock', args: { sku: 'MUG-2', units: 2 } });
    check(restock.status === 'Ok' && progress.length === 4, 'restock reported started, 2 units, completed');
    console.log(
      `turn done: ${transcript.length} requests, ${transcript.filter((r) => r.status === 'Error').length} answered with an error the model could act on`,
    );
  },
  () => exec.close(),
);
