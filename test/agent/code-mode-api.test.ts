import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkSnippet, codeModeApi, declareTools, defineTool, type CodeModeApi } from '../../src/agent/index.js';
import { createExec, type DefaultExec } from '../../src/exec/index.js';
import { hasErrorCode } from '../../src/model/index.js';
import { SMALL_TOOLS } from './catalogue.js';

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

/** A schema with `$defs` and a `$ref`, as MCP servers often send. */
const refTool = {
  tool: {
    name: 'route',
    namespace: 'geo',
    description: 'Plans a route.',
    inputSchema: {
      type: 'object' as const,
      properties: { from: { $ref: '#/$defs/Point' }, to: { $ref: '#/$defs/Point' } },
      required: ['from', 'to'],
      $defs: { Point: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] } },
    },
  },
  handler: () => ({ km: 3 }),
};

let exec: DefaultExec;
let api: CodeModeApi;
beforeAll(async () => {
  exec = createExec({ tools: [...SMALL_TOOLS, quote, refTool] });
  api = await codeModeApi(exec);
});
afterAll(() => exec.close());

/** The declarations compiled on their own with the TypeScript API: every diagnostic. */
function compileDeclarations(declarations: string): string[] {
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2023.d.ts'], types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError) =>
    name === '/api.d.ts' ? ts.createSourceFile(name, declarations, version, true) : read(name, version, onError);
  const program = ts.createProgram({ rootNames: ['/api.d.ts'], options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('codeModeApi: declarations', () => {
  it('compile with tsc, strict, against the ES library only', () => {
    expect(compileDeclarations(api.declarations)).toEqual([]);
  });

  it("type every selected tool's arguments and result from its schemas, keyed by tool ID", () => {
    const d = api.declarations;
    expect(d).toContain('declare namespace MathAdd_1_0_0 {');
    expect(d).toContain('"math:add:1.0.0": MathAdd_1_0_0.Args;');
    expect(d).toContain('"shop:quote": ShopQuote.Result;');
    expect(d).toMatch(/export interface Args \{\n(.*\n)*? {4}skus: string\[\]/);
    expect(d).toMatch(/currency\?: \("USD" \| "EUR"\)/);
    expect(d).toMatch(/lines: \{/);
    expect(d).toContain('export type Result = unknown;'); // math:add has no output schema
    expect(d).toContain('Prices a basket of SKUs.');
    expect(d).toContain('declare const tools: Tools;');
    expect(d).toMatch(/from: Point\n/);
    expect(d).toMatch(/export interface Point \{\n {4}lat: number\n {4}lon: number\n {2}\}/);
  });

  it('select tools by ids and query', async () => {
    const some = await codeModeApi(exec, { ids: ['fs:read_text_file'], query: 'quote', limit: 1 });
    expect(some.declarations).toContain('"fs:read_text_file": FsReadTextFile.Args;');
    expect(some.declarations).toContain('"shop:quote": ShopQuote.Args;');
    expect(some.declarations).not.toContain('"math:add:1.0.0"');
    expect(compileDeclarations(some.declarations)).toEqual([]);
    const none = await codeModeApi(exec, { query: 'nothing matches this' });
    expect(compileDeclarations(none.declarations)).toEqual([]);
  });

  it('never fetch a $ref that points outside the schema (a URL, a file): that tool stays callable, untyped', async () => {
    const declarations = await declareTools([
      { id: 'x:url', tool: { name: 'url', inputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } } } },
      { id: 'x:file', tool: { name: 'file', inputSchema: { type: 'object', properties: { b: { $ref: '/etc/hostname' } } } } },
    ]);
    expect(declarations.match(/export type Args = Record<string, unknown>;/g)).toHaveLength(2);
    expect(declarations).toContain('Not typed: its JSON Schema could not be converted');
    expect(compileDeclarations(declarations)).toEqual([]);
  });

  it('come with a prompt on how to write a snippet', () => {
    expect(api.prompt).toContain('body of an async function');
    expect(api.prompt).toContain('tools.runTool');
    expect(api.prompt).toContain('.structured');
  });

  it('refuses an unknown language and bad options with CONFIGURATION (Python: see code-mode-python.test.ts)', async () => {
    expect(hasErrorCode(await codeModeApi(exec, { language: 'ruby' as never }).catch((e: unknown) => e), 'CONFIGURATION')).toBe(true);
    expect(hasErrorCode(await codeModeApi(exec, { limit: 0 }).catch((e: unknown) => e), 'CONFIGURATION')).toBe(true);
    expect(hasErrorCode(await codeModeApi(exec, 42 as never).catch((e: unknown) => e), 'CONFIGURATION')).toBe(true);
    expect(hasErrorCode(await codeModeApi(exec, { ids: ['no:such'] }).catch((e: unknown) => e), 'TOOL_NOT_FOUND')).toBe(true);
    expect(api.language).toBe('typescript');
    expect((await codeModeApi(exec, { language: 'javascript', ids: ['math:add:1.0.0'] })).language).toBe('typescript');
  });
});

describe('checkSnippet', () => {
  const RIGHT = `
const { structured } = await tools.runTool('shop:quote', { skus: ['MUG-1', 'TEE-1'], quantity: 2 });
const sum = await tools.runTool('math:add:1.0.0', { a: structured.totalCents, b: 1 });
const file = await tools.runTool('fs:read_text_file', { path: 'a.txt' });
const found = await tools.searchTools('route', 1);
const other = await tools.runTool(found[0]!.id, { from: { lat: 0, lon: 0 }, to: { lat: 1, lon: 1 } });
console.log(structured.lines.map((line) => line.sku).join(','));
return { total: structured.totalCents, sum: sum.structured as number, text: (file.structured as { text: string }).text, other: other.structured };
`;

  it('passes a right snippet', async () => {
    const check = await checkSnippet(api, RIGHT);
    expect(check.text).toBe('');
    expect(check).toEqual({ ok: true, diagnostics: [], text: '' });
  });

  it('catches a wrong call: a value of the wrong type, a missing and a misspelled argument, a misused result', async () => {
    const check = await checkSnippet(
      api,
      [
        "const q = await tools.runTool('shop:quote', { skus: 'MUG-1' });",
        "await tools.runTool('math:add:1.0.0', { a: 1 });",
        "await tools.runTool('fs:read_text_file', { pth: 'a.txt' });",
        'const n: string = q.structured.totalCents;',
      ].join('\n'),
    );
    expect(check.ok).toBe(false);
    expect(check.diagnostics.map((d) => d.line)).toEqual([1, 2, 3, 4]);
    expect(check.diagnostics[0]?.message).toContain("Type 'string' is not assignable to type 'string[]'");
    expect(check.diagnostics[1]?.message).toContain("Property 'b' is missing");
    expect(check.diagnostics[2]?.message).toContain("'pth' does not exist");
    expect(check.diagnostics[3]).toMatchObject({ line: 4, column: 7, code: 2322 });
    expect(check.text.split('\n')[0]).toMatch(/^line 1:\d+ TS\d+ /);
  });

  it('refuses what is not a snippet or an API with INVALID_ARGUMENT', async () => {
    expect(hasErrorCode(await checkSnippet(api, 42 as never).catch((e: unknown) => e), 'INVALID_ARGUMENT')).toBe(true);
    expect(hasErrorCode(await checkSnippet({} as never, '').catch((e: unknown) => e), 'INVALID_ARGUMENT')).toBe(true);
  });

  it('a snippet written against the declarations runs for real through exec.executeCode', async () => {
    expect((await checkSnippet(api, RIGHT)).ok).toBe(true);
    const result = await exec.executeCode({ code: RIGHT, language: 'typescript' });
    expect(result.value).toEqual({ total: 1000, sum: 1001, text: 'line 1\nline 2', other: { km: 3 } });
    expect(result.stdout).toBe('MUG-1,TEE-1\n');
    expect(result.toolCalls.map((call) => call.toolId)).toEqual(['shop:quote', 'math:add:1.0.0', 'fs:read_text_file', 'geo:route']);
  });
});
