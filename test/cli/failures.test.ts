import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_TOOLS } from '../fixtures/mcp/fixture-server.mjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startStreamableHttpFixture, type StreamableHttpFixture } from '../fixtures/mcp/http-server.mjs';
import { EXIT_CODES } from '../../src/cli/index.js';
import type { ErrorShape } from '../../src/model/index.js';
import type { ServerStatus } from '../../src/exec/index.js';
import { Workspace, closedPortUrl, expectFailure, fixture, linesOf, requireBuiltCli, runCli } from './helpers.js';

type StatusJson = Omit<ServerStatus, 'error'> & { error?: ErrorShape['error'] };

/**
 * Failures of the built command: one exit code per class, one line on stderr (no stack unless
 * --verbose), the error shape on stdout with --json; broken configs; servers that are missing or
 * cannot start while the others work.
 */
describe('toolexec failures and exit codes', { timeout: 120_000 }, () => {
  let http: StreamableHttpFixture;
  let ws: Workspace;
  let deadUrl: string;
  const run = (...args: string[]) => runCli(args, { cwd: ws.dir });

  beforeAll(async () => {
    requireBuiltCli();
    http = await startStreamableHttpFixture();
    deadUrl = await closedPortUrl();
    ws = new Workspace();
    ws.write('toolexec.json', {
      mcpServers: {
        fx: ws.stdioServer(),
        web: { url: http.url },
        broken: ws.stdioServer({ FIXTURE_FAIL_START: 'on purpose' }),
        gone: { url: deadUrl },
      },
    });
  });

  afterEach(async () => {
    await ws.expectNoServersLeft();
  });

  afterAll(async () => {
    await http?.close();
    ws?.remove();
  });

  it('servers: a server that fails to start and one that is missing are listed beside the working ones (exit 6)', async () => {
    const table = await run('servers');
    expect(table.code).toBe(EXIT_CODES.UNAVAILABLE);
    const rows = linesOf(table.stdout);
    expect(rows[0]).toMatch(/^SERVER\s+STATE\s+TOOLS\s+ERROR$/);
    expect(rows[1]).toMatch(new RegExp(`^fx\\s+connected\\s+${FIXTURE_TOOLS.length}$`));
    expect(rows[2]).toMatch(new RegExp(`^web\\s+connected\\s+${FIXTURE_TOOLS.length}$`));
    expect(rows[3]).toMatch(/^broken\s+failed\s+0\s+.*refusing to start: on purpose/);
    expect(rows[4]).toMatch(/^gone\s+failed\s+0\s+\S/);

    const json = await run('servers', '--json');
    expect(json.code).toBe(EXIT_CODES.UNAVAILABLE);
    const statuses = JSON.parse(json.stdout) as Record<string, StatusJson>;
    expect(statuses.fx?.state).toBe('connected');
    expect(statuses.web?.state).toBe('connected');
    expect(statuses.broken).toMatchObject({ state: 'failed', toolCount: 0, error: { details: { serverName: 'broken', exitCode: 2 } } });
    expect(statuses.broken?.error?.message).toContain('refusing to start: on purpose');
    expect(statuses.gone).toMatchObject({ state: 'failed', toolCount: 0 });
    expect(statuses.gone?.error?.code).toEqual(expect.any(String));
  });

  it('tools still lists the working servers, with one warning line per failed server', async () => {
    const tools = await run('tools', '--json');
    expect(tools.code).toBe(0);
    const ids = (JSON.parse(tools.stdout) as { id: string }[]).map((tool) => tool.id);
    expect(ids.filter((id) => id.startsWith('fx:'))).toHaveLength(FIXTURE_TOOLS.length);
    expect(ids.filter((id) => id.startsWith('web:'))).toHaveLength(FIXTURE_TOOLS.length);
    expect(ids.some((id) => id.startsWith('broken:') || id.startsWith('gone:'))).toBe(false);
    const warnings = linesOf(tools.stderr);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^toolexec: warning: MCP server "broken" failed: .*refusing to start/);
    expect(warnings[1]).toMatch(/^toolexec: warning: MCP server "gone" failed: /);
  });

  it('exit 6 (unavailable): a tool of a server that cannot start, and of a missing server', async () => {
    expectFailure(await run('run', 'broken:echo', '--args', '{"text":"x"}'), EXIT_CODES.UNAVAILABLE, 'SERVER_UNAVAILABLE');
    const gone = await run('run', 'gone:echo', '--args', '{"text":"x"}', '--json');
    expectFailure(gone, EXIT_CODES.UNAVAILABLE, 'SERVER_UNAVAILABLE');
    const shape = JSON.parse(gone.stdout) as ErrorShape;
    expect(shape).toMatchObject({ status: 'Error', error: { code: 'SERVER_UNAVAILABLE', details: { server: 'gone' } } });
  });

  it('exit 4 (not found): an unknown tool, namespace or doc', async () => {
    const run4 = await run('run', 'fx:nope');
    expectFailure(run4, EXIT_CODES.NOT_FOUND, 'TOOL_NOT_FOUND');
    expectFailure(await run('run', 'nowhere:echo'), EXIT_CODES.NOT_FOUND, 'TOOL_NOT_FOUND');
    expectFailure(await run('describe', 'web:nope'), EXIT_CODES.NOT_FOUND, 'TOOL_NOT_FOUND');
    const namespace = await run('tools', '--namespace', 'nowhere');
    expectFailure(namespace, EXIT_CODES.NOT_FOUND, 'TOOL_NOT_FOUND');
    expect(namespace.stderr).toContain('namespaces: fx, web');
  });

  it('exit 3 (validation): arguments that break the input schema, with the field named', async () => {
    const failure = await run('run', 'web:structured', '--args', '{"a":"one","b":2}', '--json');
    expectFailure(failure, EXIT_CODES.VALIDATION, 'VALIDATION');
    expect(failure.stderr).toContain("'/a'");
    const shape = JSON.parse(failure.stdout) as ErrorShape;
    expect(shape.error.code).toBe('VALIDATION');
    expect(shape.error.details?.violations).toEqual([expect.objectContaining({ field: '/a' })]);
  });

  it('exit 5 (timeout): a call past --timeout, and a snippet past it', async () => {
    // generous enough for the server to start on a loaded machine (the deadline covers connecting too)
    const call = await run('run', 'fx:slow', '--args', '{"ms":20000}', '--timeout', '3000');
    expectFailure(call, EXIT_CODES.TIMEOUT, 'TIMEOUT');
    const snippet = await runCli(['exec', '-', '-c', ws.write('empty.json', {}), '--timeout', '1500'], {
      cwd: ws.dir,
      input: 'while (true) {}',
    });
    // no tool call was made: no (empty) trace, only the one error line
    expectFailure(snippet, EXIT_CODES.TIMEOUT, 'LIMIT_EXCEEDED');
    expect(snippet.stderr).toMatch(/^toolexec: LIMIT_EXCEEDED: .*timeout/);
  });

  it('exit 7 (execution): a tool that fails, a server error, output that breaks its schema, a snippet that throws', async () => {
    expectFailure(await run('run', 'fx:fail', '--args', '{"reason":"demo"}'), EXIT_CODES.EXECUTION, 'EXECUTION');
    expectFailure(await run('run', 'web:throw'), EXIT_CODES.EXECUTION, 'EXECUTION');
    expectFailure(await run('run', 'fx:bad_output'), EXIT_CODES.EXECUTION, 'OUTPUT_VALIDATION');
    const snippet = await runCli(['exec', '-'], {
      cwd: ws.dir,
      input: "await tools.runTool('web:echo', { text: 'before' }); throw new Error('snippet broke');",
    });
    expect(snippet.code).toBe(EXIT_CODES.EXECUTION);
    // the partial trace, then the one error line
    const lines = linesOf(snippet.stderr).filter((line) => !line.startsWith('toolexec: warning:'));
    expect(lines[0]).toBe('tool calls: 1');
    expect(lines[1]).toMatch(/^ {2}1\.\s+web:echo\s+.*ok$/);
    expect(lines.at(-1)).toMatch(/^toolexec: CODE_EXECUTION: .*snippet broke/);
  });

  it('exit 2 (usage): unknown commands and options, bad values, arguments that are not a JSON object', async () => {
    const unknownCommand = await run('launch');
    expect(unknownCommand.code).toBe(EXIT_CODES.USAGE);
    expect(linesOf(unknownCommand.stderr)[0]).toBe("toolexec: INVALID_ARGUMENT: unknown command 'launch'");
    const unknownOption = await run('run', 'fx:echo', '--jsn');
    expect(unknownOption.code).toBe(EXIT_CODES.USAGE);
    // one line, the suggestion included (docs/cli.md: a failure prints one line on stderr)
    expect(linesOf(unknownOption.stderr)).toEqual(["toolexec: INVALID_ARGUMENT: unknown option '--jsn' (Did you mean --json?)"]);
    const missingArgument = await run('describe', '--json');
    expect(missingArgument.code).toBe(EXIT_CODES.USAGE);
    expect(JSON.parse(missingArgument.stdout)).toEqual({
      status: 'Error',
      error: { code: 'INVALID_ARGUMENT', message: "cli: missing required argument 'id'", details: { reason: 'commander.missingArgument' } },
    });
    expect((await run('search', 'x', '--limit', '0')).code).toBe(EXIT_CODES.USAGE);
    expect((await run('--timeout', 'soon', 'servers')).code).toBe(EXIT_CODES.USAGE);
    expect((await run('describe', 'fx:echo', '--level', 'everything')).code).toBe(EXIT_CODES.USAGE);
    expect((await run('exec', '-', '--profile', 'root')).code).toBe(EXIT_CODES.USAGE);
    expect((await run('run')).code).toBe(EXIT_CODES.USAGE);
    expectFailure(await run('run', 'fx:echo', '--args', '{text: 1}'), EXIT_CODES.USAGE, 'INVALID_ARGUMENT');
    expectFailure(await run('run', 'fx:echo', '--args', '[1]'), EXIT_CODES.USAGE, 'INVALID_ARGUMENT');
    expectFailure(await run('run', 'fx:echo', '--pretty', '--json'), EXIT_CODES.USAGE, 'INVALID_ARGUMENT');
    expectFailure(await run('exec', 'no-such-snippet.js'), EXIT_CODES.USAGE, 'INVALID_ARGUMENT');
    const noArgsOnStdin = await runCli(['run', 'fx:echo', '--args', '-'], { cwd: ws.dir, input: 'not json' });
    expectFailure(noArgsOnStdin, EXIT_CODES.USAGE, 'INVALID_ARGUMENT');
    expect(noArgsOnStdin.stderr).toContain('the arguments on stdin must be a JSON object');
  });

  it('--verbose: the whole error with its stack and causes; status changes and the servers’ stderr', async () => {
    const failure = await run('run', 'fx:nope', '--verbose');
    expect(failure.code).toBe(EXIT_CODES.NOT_FOUND);
    expect(failure.stderr).toMatch(/\n\s+at /);
    expect(failure.stderr).toContain("code: 'TOOL_NOT_FOUND'");
    const servers = await run('servers', '--verbose');
    expect(servers.stderr).toContain(`toolexec: server fx: connected (${FIXTURE_TOOLS.length} tools)`);
    expect(servers.stderr).toContain('toolexec: server broken: failed');
    expect(servers.stderr).toContain('[broken] fixture: refusing to start: on purpose');
  });
});

describe('toolexec config files', { timeout: 120_000 }, () => {
  let ws: Workspace;

  beforeAll(() => {
    requireBuiltCli();
    ws = new Workspace();
  });

  afterEach(async () => {
    await ws.expectNoServersLeft();
  });

  afterAll(() => ws?.remove());

  it('no ./toolexec.json: no servers (exit 0); a missing --config file is a usage error', async () => {
    const none = await runCli(['servers', '--json'], { cwd: ws.dir });
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual({});
    const human = await runCli(['servers'], { cwd: ws.dir });
    expect(human.stderr).toContain('no MCP servers configured');
    const missing = await runCli(['servers', '--config', 'missing.json'], { cwd: ws.dir });
    expectFailure(missing, EXIT_CODES.USAGE, 'CONFIGURATION');
    expect(missing.stderr).toContain('option --config missing.json does not exist');
    // an absolute path is named as the user typed it
    const absolute = await runCli(['servers', '--config', '/nonexistent/toolexec.json'], { cwd: ws.dir });
    expectFailure(absolute, EXIT_CODES.USAGE, 'CONFIGURATION');
    expect(absolute.stderr).toContain('option --config /nonexistent/toolexec.json does not exist');
  });

  it('broken configs: one line naming the file and the problem, exit 2', async () => {
    const cases: [string, string | object, RegExp][] = [
      ['not-json.json', '{ "mcpServers": { "fx": ', /not-json\.json: not valid JSON/],
      ['array.json', [], /array\.json: the config must be a JSON object/],
      ['servers-array.json', { mcpServers: [] }, /"mcpServers" must be an object/],
      ['server-string.json', { mcpServers: { fx: 'node server.mjs' } }, /mcpServers\.fx must be an object/],
      ['no-command.json', { mcpServers: { fx: { args: ['x'] } } }, /no-command\.json: .*"fx": a server needs a command/],
      ['bad-type.json', { mcpServers: { fx: { type: 'websocket', url: 'ws://x' } } }, /unknown transport "websocket"/],
      ['tools-string.json', { tools: 'tools.mjs' }, /"tools" must be an array of module paths/],
      [
        'unset-var.json',
        { mcpServers: { web: { url: 'http://127.0.0.1:1/mcp', headers: { authorization: 'Bearer ${NO_SUCH_TOKEN_VAR}' } } } },
        /mcpServers\.web\.headers\.authorization refers to \$\{NO_SUCH_TOKEN_VAR\}/,
      ],
    ];
    for (const [name, content, message] of cases) {
      ws.write(name, content);
      const run = await runCli(['tools', '-c', name], { cwd: ws.dir });
      expectFailure(run, EXIT_CODES.USAGE, 'CONFIGURATION');
      expect(run.stderr, name).toMatch(message);
    }
  });

  it('${VAR} and ${VAR:-default} are expanded; stdio servers start in the config file’s folder', async () => {
    ws.write('vars.json', {
      mcpServers: { fx: { ...ws.stdioServer(), env: { RECORD_PID_FILE: '${PID_FILE_VAR}', GREETING: '${NOT_SET_VAR:-hi there}' } } },
    });
    const env = await runCli(['run', 'fx:env', '-c', 'vars.json'], { cwd: ws.dir, env: { PID_FILE_VAR: ws.pidFile } });
    expect(env.code, env.stderr).toBe(0);
    const serverEnv = JSON.parse(env.stdout) as Record<string, string>;
    expect(serverEnv).toMatchObject({ RECORD_PID_FILE: ws.pidFile, GREETING: 'hi there' });
    expect(ws.recordedPids()).toHaveLength(1);
    // run from elsewhere: the server's cwd is still the config's folder
    const stats = await runCli(['run', 'fx:stats', '-c', `${ws.dir}/vars.json`], { cwd: '/', env: { PID_FILE_VAR: ws.pidFile } });
    expect((JSON.parse(stats.stdout) as { cwd: string }).cwd).toBe(ws.dir);
  });

  it('tool modules: --tools (JS) and the config’s "tools" (TypeScript) together; a module with the wrong export', async () => {
    ws.write('with-tools.json', { tools: [fixture('tools.ts')] });
    const listed = await runCli(['tools', '--json', '-c', 'with-tools.json', '--tools', fixture('tools.mjs')], { cwd: ws.dir });
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((tool) => tool.id)).toEqual(['local:greet', 'local:multiply']);
    const product = await runCli(['run', 'local:multiply', '-a', '{"a":6,"b":7}', '-c', 'with-tools.json'], { cwd: ws.dir });
    expect(JSON.parse(product.stdout)).toEqual({ product: 42 });

    // the same TypeScript module in a CommonJS project (npm's default): compiled to CommonJS, its
    // default export comes back wrapped once more, and is unwrapped
    mkdirSync(join(ws.dir, 'cjs'));
    ws.write('cjs/package.json', { name: 'cjs-project', type: 'commonjs' });
    ws.write('cjs/tools.ts', readFileSync(fixture('tools.ts'), 'utf8'));
    const fromCjs = await runCli(['run', 'local:multiply', '-a', '{"a":2,"b":21}', '--tools', 'cjs/tools.ts'], { cwd: ws.dir });
    expect(fromCjs.code, fromCjs.stderr).toBe(0);
    expect(JSON.parse(fromCjs.stdout)).toEqual({ product: 42 });

    const wrong = await runCli(['tools', '--tools', fixture('not-tools.mjs')], { cwd: ws.dir });
    expectFailure(wrong, EXIT_CODES.USAGE, 'CONFIGURATION');
    expect(wrong.stderr).toContain('must export default an array of { tool, handler }');
    expectFailure(await runCli(['tools', '--tools', 'nowhere.mjs'], { cwd: ws.dir }), EXIT_CODES.USAGE, 'CONFIGURATION');
    // one module named twice is one module
    const twice = await runCli(['tools', '--json', '--tools', fixture('tools.mjs'), '--tools', fixture('tools.mjs')], { cwd: ws.dir });
    expect(twice.code, twice.stderr).toBe(0);
    expect((JSON.parse(twice.stdout) as { id: string }[]).map((tool) => tool.id)).toEqual(['local:greet']);
  });
});
