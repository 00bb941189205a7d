import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startStreamableHttpFixture, type StreamableHttpFixture } from '../fixtures/mcp/http-server.mjs';
import { FIXTURE_TOOLS } from '../fixtures/mcp/fixture-server.mjs';
import { EXIT_CODES } from '../../src/cli/index.js';
import type { ServerStatus } from '../../src/exec/index.js';
import type { ToolDoc, ToolSummary } from '../../src/discovery/index.js';
import type { CodeResult } from '../../src/code/index.js';
import { ROOT, Workspace, fixture, linesOf, requireBuiltCli, runCli } from './helpers.js';

/**
 * Every command of the built `toolexec` against real MCP servers: the fixture server over stdio
 * (`fx`, a child process of the command) and over Streamable HTTP on 127.0.0.1 (`web`, served by
 * this test process), plus a local tool module.
 */
describe('toolexec commands over stdio and HTTP', { timeout: 120_000 }, () => {
  let http: StreamableHttpFixture;
  let ws: Workspace;
  const run = (...args: string[]) => runCli(args, { cwd: ws.dir });

  beforeAll(async () => {
    requireBuiltCli();
    http = await startStreamableHttpFixture();
    ws = new Workspace();
    ws.write('toolexec.json', {
      mcpServers: { fx: ws.stdioServer(), web: { type: 'http', url: http.url } },
      tools: [fixture('tools.mjs')],
    });
  });

  afterEach(async () => {
    await ws.expectNoServersLeft();
  });

  afterAll(async () => {
    await http?.close();
    ws?.remove();
  });

  it('--version prints the package version; --help lists the commands and the exit codes', async () => {
    const version = await run('--version');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = await run('--help');
    expect(help.code).toBe(0);
    for (const command of ['servers', 'tools', 'search', 'describe', 'run', 'exec'])
      expect(help.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
    for (const [name, code] of Object.entries(EXIT_CODES)) expect(help.stdout).toMatch(new RegExp(`\\b${code}  ${name}\\n`));
    const commandHelp = await run('help', 'run');
    expect(commandHelp.code).toBe(0);
    expect(commandHelp.stdout).toContain('--args <json>');
    // no command at all: the help, on stderr, as a usage error
    const bare = await run();
    expect(bare.code).toBe(EXIT_CODES.USAGE);
    expect(bare.stderr).toMatch(/^Usage: toolexec /);
  });

  it('servers: both servers connected with their tool counts (table, then JSON)', async () => {
    const table = await run('servers');
    expect(table.code, table.stderr).toBe(0);
    const rows = linesOf(table.stdout).map((line) => line.split(/\s+/));
    expect(rows).toEqual([
      ['SERVER', 'STATE', 'TOOLS', 'ERROR'],
      ['fx', 'connected', String(FIXTURE_TOOLS.length)],
      ['web', 'connected', String(FIXTURE_TOOLS.length)],
    ]);
    const json = await run('servers', '--json');
    expect(json.code).toBe(0);
    const statuses = JSON.parse(json.stdout) as Record<string, ServerStatus>;
    expect(Object.keys(statuses)).toEqual(['fx', 'web']);
    for (const status of Object.values(statuses)) {
      expect(status).toMatchObject({ state: 'connected', toolCount: FIXTURE_TOOLS.length });
      expect(status.since).toBeGreaterThan(0);
    }
    expect(ws.recordedPids()).toHaveLength(2);
  });

  it('tools: every tool of both servers and the module; --namespace keeps one namespace', async () => {
    const all = await run('tools', '--json');
    expect(all.code, all.stderr).toBe(0);
    const ids = (JSON.parse(all.stdout) as ToolSummary[]).map((tool) => tool.id);
    const expected = [
      'local:greet',
      ...FIXTURE_TOOLS.map((tool) => `fx:${tool.name}`),
      ...FIXTURE_TOOLS.map((tool) => `web:${tool.name}`),
    ].sort();
    expect(ids).toEqual(expected);

    const web = await run('tools', '--namespace', 'web', '--json');
    const webTools = JSON.parse(web.stdout) as ToolSummary[];
    expect(webTools.map((tool) => tool.id)).toEqual(FIXTURE_TOOLS.map((tool) => `web:${tool.name}`).sort());
    expect(webTools.every((tool) => tool.namespace === 'web')).toBe(true);

    const table = await run('tools', '-n', 'local');
    expect(linesOf(table.stdout)).toEqual(['ID           SUMMARY', 'local:greet  Greets someone by name.']);
  });

  it('search: ranked results, --limit, as a table and as JSON', async () => {
    const json = await run('search', 'structured', '--limit', '2', '--json');
    expect(json.code, json.stderr).toBe(0);
    const found = JSON.parse(json.stdout) as ToolSummary[];
    expect(found).toHaveLength(2);
    expect(found.map((tool) => tool.name)).toEqual(['structured', 'structured']);

    const table = await run('search', 'greet');
    expect(table.code).toBe(0);
    expect(linesOf(table.stdout)[1]).toMatch(/^1\.\s+local:greet\s+Greets someone by name\.$/);

    const none = await run('search', 'zzzqqq', '--json');
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  it('describe: summary by default, the schemas at --level schema, notes at --level full', async () => {
    const summary = JSON.parse((await run('describe', 'fx:structured', '--json')).stdout) as ToolDoc;
    expect(summary.summary).toMatch(/^Adds a and b/);
    expect(summary.tool).toBeUndefined();

    const schema = JSON.parse((await run('describe', 'web:structured', '--level', 'schema', '--json')).stdout) as ToolDoc;
    expect(schema.tool?.inputSchema).toMatchObject({ required: ['a', 'b'] });
    expect(schema.tool?.outputSchema).toMatchObject({ required: ['sum'] });

    const full = await run('describe', 'local:greet', '--level', 'full');
    expect(full.code).toBe(0);
    expect(full.stdout).toContain('local:greet\n  Says hello.');
    expect(full.stdout).toContain('notes:\n  A local tool from tools.mjs.');
    expect(full.stdout).toContain('input schema:');
  });

  it('run over stdio: the value as JSON; --json: the whole result', async () => {
    const value = await run('run', 'fx:structured', '--args', '{"a":2,"b":40}');
    expect(value.code, value.stderr).toBe(0);
    expect(JSON.parse(value.stdout)).toEqual({ sum: 42 });
    expect(value.stderr).toBe('');

    // --timeout 0: no deadline of the command's own
    const whole = await run('run', 'fx:echo', '-a', '{"text":"over stdio"}', '--json', '--timeout', '0');
    const result = JSON.parse(whole.stdout) as { toolId: string; value: unknown; content: unknown[]; durationMs: number };
    expect(result).toMatchObject({ toolId: 'fx:echo', value: 'over stdio', content: [{ type: 'text', text: 'over stdio' }] });
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('run over HTTP, and a local tool', async () => {
    const web = await run('run', 'web:structured', '--args', '{"a":1,"b":2}');
    expect(web.code, web.stderr).toBe(0);
    expect(JSON.parse(web.stdout)).toEqual({ sum: 3 });
    expect(http.state.calls).toBeGreaterThan(0);

    const local = await run('run', 'local:greet', '--args', '{"name":"Ada"}');
    expect(JSON.parse(local.stdout)).toBe('hello Ada');
  });

  it('run --args - reads the arguments from stdin', async () => {
    const piped = await runCli(['run', 'web:echo', '--args', '-'], { cwd: ws.dir, input: '{ "text": "from stdin" }\n' });
    expect(piped.code, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout)).toBe('from stdin');
  });

  it('run --pretty: text as text, other content summarised, the duration on stderr', async () => {
    const media = await run('run', 'fx:media', '--pretty');
    expect(media.code, media.stderr).toBe(0);
    expect(linesOf(media.stdout)).toEqual([
      'a red pixel and friends',
      '[image image/png, 8 bytes]',
      '[audio audio/wav, 4 bytes]',
      '[resource file:///notes.txt]',
      'embedded notes',
      '[link report https://example.com/report.pdf]',
    ]);
    expect(media.stderr).toMatch(/^toolexec: fx:media in \d+(\.\d+)? m?s\n$/);

    const structured = await run('run', 'web:structured', '--args', '{"a":5,"b":5}', '--pretty');
    // the text block already says the structured value: it is not printed twice
    expect(linesOf(structured.stdout)).toEqual(['{"sum":10}']);
  });

  it('exec: a snippet calling a stdio and an HTTP tool; the value, the output and the trace', async () => {
    const file = ws.write(
      'snippet.js',
      `const a = (await tools.runTool('fx:structured', { a: 20, b: 1 })).structured;
       const b = (await tools.runTool('web:echo', { text: 'hi' })).structured;
       console.log('sum', a.sum);
       return { sum: a.sum, echo: b };`,
    );
    const human = await run('exec', file);
    expect(human.code, human.stderr).toBe(0);
    expect(linesOf(human.stdout)).toEqual(['sum 21', "{ sum: 21, echo: 'hi' }"]);
    const trace = linesOf(human.stderr);
    expect(trace[0]).toBe('tool calls: 2');
    expect(trace[1]).toMatch(/^ {2}1\.\s+fx:structured\s+\d+(\.\d+)? m?s\s+ok$/);
    expect(trace[2]).toMatch(/^ {2}2\.\s+web:echo\s+\d+(\.\d+)? m?s\s+ok$/);
    expect(trace[3]).toMatch(/^wasm sandbox, /);

    const json = await run('exec', file, '--json');
    const result = JSON.parse(json.stdout) as CodeResult;
    expect(result.value).toEqual({ sum: 21, echo: 'hi' });
    expect(result.stdout).toBe('sum 21\n');
    expect(result.toolCalls.map((call) => [call.toolId, call.backendKind, call.structured])).toEqual([
      ['fx:structured', 'mcp', { sum: 21 }],
      ['web:echo', 'mcp', 'hi'],
    ]);
    expect(result.backend?.kind).toBe('wasm');
  });

  it('exec - reads the snippet from stdin; --language typescript, --profile', async () => {
    const piped = await runCli(['exec', '-', '--language', 'typescript', '--profile', 'hardened', '--json'], {
      cwd: ws.dir,
      input: `const n: number = (await tools.runTool('local:greet', { name: 'TS' })).structured.length; return n;`,
    });
    expect(piped.code, piped.stderr).toBe(0);
    const result = JSON.parse(piped.stdout) as CodeResult;
    expect(result.value).toBe('hello TS'.length);
    expect(result.toolCalls.map((call) => call.toolId)).toEqual(['local:greet']);
  });
});
