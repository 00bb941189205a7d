/**
 * The tools the examples share: a tiny shop (three local tools) and the MCP server "fx" shipped in
 * `examples/mcp-server/server.mjs` (currency conversion at fixed rates). Everything is in memory
 * and deterministic, so the examples can check their results.
 */
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineTool, type LocalToolDefinition, type McpServerConfig } from 'toolexec';

/** The catalog. Prices are in USD cents. */
export const PRODUCTS = [
  { sku: 'MUG-1', name: 'Enamel mug', priceCents: 1200 },
  { sku: 'MUG-2', name: 'Travel mug', priceCents: 2450 },
  { sku: 'TEE-1', name: 'Logo t-shirt', priceCents: 1800 },
] as const;

/** One line of a quote. */
export interface QuoteItem {
  sku: string;
  quantity: number;
}

/** The result of `shop:quote`. */
export interface Quote {
  items: QuoteItem[];
  totalCents: number;
  currency: 'USD';
}

/**
 * The shop's local tools, with their own stock (5 of each product):
 * - `shop:find_products {query}` → `{ items: [{ sku, name, priceCents }] }`
 * - `shop:quote {skus?, quantity?, previous?}` → `{ items, totalCents, currency: 'USD' }`; in a
 *   chain the SKUs can come from the previous step's `items`.
 * - `shop:restock {sku, units}` → `{ sku, added, stock }`, reporting progress once per unit.
 */
export function shopTools(): LocalToolDefinition[] {
  const stock = new Map<string, number>(PRODUCTS.map((p) => [p.sku, 5]));
  return [
    {
      tool: defineTool({
        namespace: 'shop',
        name: 'find_products',
        description: 'Find products in the catalog by name.',
        tags: ['catalog', 'search'],
        inputSchema: { type: 'object', properties: { query: { type: 'string', minLength: 1 } }, required: ['query'] },
        outputSchema: {
          type: 'object',
          properties: { items: { type: 'array', items: { type: 'object', required: ['sku', 'name', 'priceCents'] } } },
          required: ['items'],
        },
      }),
      handler: ({ query }) => ({
        items: PRODUCTS.filter((p) => p.name.toLowerCase().includes(String(query).toLowerCase())),
      }),
      doc: {
        summary: 'Find products whose name contains the query (case-insensitive).',
        notes: 'Prices are in USD cents.',
        examples: [
          { title: 'Mugs', description: 'Every mug in the catalog.', args: { query: 'mug' }, resultHint: '{ items: [2 products] }' },
        ],
      },
    },
    {
      tool: defineTool({
        namespace: 'shop',
        name: 'quote',
        description:
          'Price a basket: each SKU times a quantity, in USD cents. In a chain, the SKUs can come from the previous step (previous.items).',
        tags: ['pricing'],
        inputSchema: {
          type: 'object',
          properties: {
            skus: { type: 'array', items: { type: 'string', pattern: '^[A-Z]+-\\d+$' }, minItems: 1 },
            quantity: { type: 'integer', minimum: 1, default: 1 },
            // Every array says what it holds (OpenAI's strict mode needs it); the items stay open to
            // whatever else a previous step's items carry.
            previous: {
              type: 'object',
              properties: {
                items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
              },
              required: ['items'],
            },
          },
        },
        outputSchema: {
          type: 'object',
          properties: { totalCents: { type: 'integer', minimum: 0 }, currency: { const: 'USD' } },
          required: ['totalCents', 'currency'],
        },
      }),
      handler: ({ skus, quantity = 1, previous }) => {
        const chosen =
          (skus as string[] | undefined) ?? ((previous as { items?: { sku: string }[] } | undefined)?.items ?? []).map((p) => p.sku);
        const items: QuoteItem[] = chosen.map((sku) => ({ sku, quantity: quantity as number }));
        const totalCents = items.reduce((sum, i) => sum + i.quantity * (PRODUCTS.find((p) => p.sku === i.sku)?.priceCents ?? 0), 0);
        const quote: Quote = { items, totalCents, currency: 'USD' };
        return quote;
      },
    },
    {
      tool: defineTool({
        namespace: 'shop',
        name: 'restock',
        description: 'Add units of a product to the stock, one at a time (reports progress).',
        tags: ['inventory'],
        inputSchema: {
          type: 'object',
          properties: { sku: { type: 'string', pattern: '^[A-Z]+-\\d+$' }, units: { type: 'integer', minimum: 1, maximum: 20 } },
          required: ['sku', 'units'],
        },
      }),
      handler: async ({ sku, units }, { signal, onProgress }) => {
        const n = units as number;
        for (let i = 1; i <= n; i++) {
          await sleep(15, undefined, { signal }); // stands in for real work; rejects when the call is aborted
          onProgress?.({ progress: i, total: n, message: `unit ${i} of ${n}` });
        }
        stock.set(sku as string, (stock.get(sku as string) ?? 0) + n);
        return { sku, added: n, stock: stock.get(sku as string) };
      },
    },
  ];
}

/** Path of the example MCP server. */
export const FX_SERVER_PATH = fileURLToPath(new URL('../mcp-server/server.mjs', import.meta.url));

/** The example MCP server over stdio: register it as `mcpServers: { fx: fxServer }`. */
export const fxServer: McpServerConfig = { command: process.execPath, args: [FX_SERVER_PATH] };
