import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, runCli as runProgram } from '../../src/cli/index.js';
import { failureText } from '../../src/cli/render.js';
import type { ErrorShape } from '../../src/model/index.js';
import { Workspace, expectFailure, fixture, linesOf, type CliRun } from './helpers.js';

/** A second module that defines `local:greet` too (a different file from fixtures/tools.mjs). */
const OTHER_GREET = `export default [
  {
    tool: { namespace: 'local', name: 'greet', description: 'Another greeting.', inputSchema: { type: 'object' } },
    handler: () => 'hi',
  },
];
`;

/**
 * How the command reports what went wrong, run in this process on the sources (`runCli` of
 * src/cli): malformed tool IDs alike in every command, tool modules named twice, a server that is
 * down, a snippet that never started, no command at all.
 */
describe('toolexec reports failures consistently (in process, from source)', { timeout: 120_000 }, () => {
  let ws: Workspace;

  /** Runs the program on `args` in the workspace; its exit code and what it wrote. */
  async function run(...args: string[]): Promise<CliRun> {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const stdin = new PassThrough();
    stdin.end();
    const code = await runProgram(args, { stdin, stdout, stderr, cwd: ws.dir, env: process.env, signal: new AbortController().signal });
    await new Promise((resolve) => setImmediate(resolve));
    return { code, signal: null, stdout: out, stderr: err };
  }

  beforeAll(() => {
    ws = new Workspace();
    ws.write('other-greet.mjs', OTHER_GREET);
    ws.write('toolexec.json', { mcpServers: {}, tools: [fixture('tools.mjs')] });
    ws.write('down.json', { mcpServers: { down: ws.stdioServer({ FIXTURE_FAIL_START: 'on purpose' }) } });
    ws.write('ok.js', 'return 42');
  });

  afterEach(async () => {
    await ws.expectNoServersLeft();
  });

  afterAll(() => ws?.remove());

  it('an empty or malformed tool ID is a usage error (exit 2, INVALID_TOOL_ID) in describe and run alike', async () => {
    for (const id of ['', 'a:b:c:d', ':greet', 'local:']) {
      for (const command of ['describe', 'run']) {
        const failure = await run(command, id);
        expectFailure(failure, EXIT_CODES.USAGE, 'INVALID_TOOL_ID');
        expect(failure.stderr).toContain('namespace:name[:version]');
      }
    }
    const json = await run('describe', '', '--json');
    expect((JSON.parse(json.stdout) as ErrorShape).error).toMatchObject({ code: 'INVALID_TOOL_ID', details: { id: '' } });
    // a well-formed ID that names no tool is still "not found"
    expectFailure(await run('describe', 'local:nope'), EXIT_CODES.NOT_FOUND, 'TOOL_NOT_FOUND');
    expectFailure(await run('run', 'nope'), EXIT_CODES.NOT_FOUND, 'TOOL_NOT_FOUND');
  });

  it('a tool module named in the config and with --tools (or by two paths to one file) is loaded once', async () => {
    const both = await run('tools', '--json', '--tools', fixture('tools.mjs'));
    expect(both.code, both.stderr).toBe(0);
    expect((JSON.parse(both.stdout) as { id: string }[]).map((tool) => tool.id)).toEqual(['local:greet']);
    symlinkSync(fixture('tools.mjs'), join(ws.dir, 'link.mjs'));
    const linked = await run('run', 'local:greet', '-a', '{"name":"you"}', '--tools', './link.mjs', '--tools', fixture('tools.mjs'));
    expect(linked.code, linked.stderr).toBe(0);
    expect(JSON.parse(linked.stdout)).toBe('hello you');
  });

  it('two different modules defining the same tool ID fail, naming both modules', async () => {
    const clash = await run('tools', '--tools', './other-greet.mjs');
    expectFailure(clash, EXIT_CODES.USAGE, 'CONFIGURATION');
    expect(clash.stderr).toContain('local tool "local:greet" is defined in both');
    expect(clash.stderr).toContain('toolexec.json "tools":');
    expect(clash.stderr).toContain('option --tools ./other-greet.mjs');
  });

  it('a tool of a server that is down: SERVER_UNAVAILABLE (exit 6) without the facade’s backoff hint', async () => {
    const failure = await run('run', 'down:echo', '-c', 'down.json');
    expectFailure(failure, EXIT_CODES.UNAVAILABLE, 'SERVER_UNAVAILABLE');
    expect(failure.stderr).toMatch(/MCP server "down" is unavailable; last error: .*refusing to start: on purpose/);
    expect(failure.stderr).not.toContain('next attempt');
    // the trace of a snippet that called it says it the same way
    const snippet = await run('exec', '-c', 'down.json', ws.write('down.js', "return await tools.runTool('down:echo', {})"));
    expect(snippet.code).toBe(EXIT_CODES.UNAVAILABLE);
    expect(snippet.stderr).toContain('tool calls: 1');
    expect(snippet.stderr).not.toContain('next attempt');
  });

  it('describe of a tool of a server that is down: SERVER_UNAVAILABLE (exit 6) as run says, not "not found"', async () => {
    const described = await run('describe', 'down:echo', '-c', 'down.json', '--json');
    expectFailure(described, EXIT_CODES.UNAVAILABLE, 'SERVER_UNAVAILABLE');
    expect(described.stderr).toMatch(/MCP server "down" is unavailable; last error: .*refusing to start: on purpose/);
    expect((JSON.parse(described.stdout) as ErrorShape).error.details).toMatchObject({ server: 'down', toolId: 'down:echo' });
    // a namespace that is no server's: still not found
    expectFailure(await run('describe', 'elsewhere:echo', '-c', 'down.json'), EXIT_CODES.NOT_FOUND, 'TOOL_NOT_FOUND');
  });

  it('a snippet that never started (a usage error) or failed without a tool call prints no trace', async () => {
    const badLanguage = await run('exec', 'ok.js', '--language', 'cobol');
    expectFailure(badLanguage, EXIT_CODES.USAGE, 'INVALID_ARGUMENT');
    expect(badLanguage.stderr).not.toContain('tool calls');
    const thrown = await run('exec', ws.write('throws.js', "console.log('before'); throw new Error('broke')"));
    expectFailure(thrown, EXIT_CODES.EXECUTION, 'CODE_EXECUTION');
    expect(thrown.stdout).toBe('before\n');
    expect(linesOf(thrown.stderr)).toEqual([expect.stringMatching(/^toolexec: CODE_EXECUTION: broke/)]);
    // a snippet that made calls before a failure of the usage class still shows its output and trace
    const afterCalls = await run(
      'exec',
      ws.write('bad-id.js', "console.log('first'); await tools.runTool('local:greet', { name: 'a' }); await tools.runTool('', {})"),
    );
    expectFailure({ ...afterCalls, stderr: linesOf(afterCalls.stderr).at(-1) ?? '' }, EXIT_CODES.USAGE, 'INVALID_TOOL_ID');
    expect(afterCalls.stdout).toBe('first\n');
    expect(linesOf(afterCalls.stderr)[0]).toBe('tool calls: 2');
  });

  it('no command: the help on stderr, exit 2, and with --json an error that says what is missing', async () => {
    const alone = await run('--json');
    expect(alone.code).toBe(EXIT_CODES.USAGE);
    expect(alone.stderr).toContain('Usage: toolexec');
    expect((JSON.parse(alone.stdout) as ErrorShape).error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('no command given') as unknown,
    });
  });

  it('failureText: one line, the backoff hint dropped, the rest as it is', () => {
    expect(failureText('exec: MCP server "x" is unavailable (next attempt in 912 ms); last error:\n  boom')).toBe(
      'exec: MCP server "x" is unavailable; last error: boom',
    );
    expect(failureText('took (next attempt) 5 ms')).toBe('took (next attempt) 5 ms');
  });
});
