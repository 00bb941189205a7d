import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { EXIT_CODES, runCli as runProgram } from '../../src/cli/index.js';
import { interrupted } from '../../src/cli/errors.js';
import type { ErrorShape } from '../../src/model/index.js';
import { waitUntil } from '../mcp/helpers.js';
import { Workspace, expectFailure, linesOf, startCli, type RunOptions } from './helpers.js';

/** A tool module whose tool returns `n` characters (`big:text`) and one that echoes its arguments (`big:echo`). */
const BIG_MODULE = `export default [
  {
    tool: { namespace: 'big', name: 'text', description: 'n characters.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
    handler: ({ n }) => 'x'.repeat(n),
  },
  {
    tool: { namespace: 'big', name: 'echo', description: 'Its arguments.', inputSchema: { type: 'object' } },
    handler: (args) => args,
  },
];
`;

/**
 * What a demanding user runs into, against the command's sources (so a fix shows before a build):
 * output piped to a reader that keeps up slowly, Ctrl-C while the command waits for stdin, a
 * health check with a required server down, usage errors on one line that say what to do.
 */
describe('toolexec at its edges (from source)', { timeout: 120_000 }, () => {
  let ws: Workspace;
  const start = (args: string[], options: Partial<RunOptions> = {}) => startCli(args, { cwd: ws.dir, fromSource: true, ...options });
  const run = (...args: string[]) => start(args).result;

  beforeAll(() => {
    ws = new Workspace();
    ws.write('big.mjs', BIG_MODULE);
    ws.write('toolexec.json', { mcpServers: {}, tools: ['./big.mjs'] });
  });

  afterEach(async () => {
    await ws.expectNoServersLeft();
  });

  afterAll(() => ws?.remove());

  it('a large result piped to another program arrives whole (the command waits for stdout to drain before it exits)', async () => {
    const n = 3_000_000;
    const { child, result } = start(['run', 'big:text', '--args', JSON.stringify({ n })]);
    // a reader that is slow to start: everything beyond the pipe's buffer waits in the command
    child.stdout!.pause();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    child.stdout!.resume();
    const done = await result;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout.length).toBe(n + 3); // "xxx…" and a newline
    expect((JSON.parse(done.stdout) as string).length).toBe(n);
  });

  it('a reader that leaves before the output is written (| head -c 10) stops the command with 130', async () => {
    const { child, result } = start(['run', 'big:text', '--args', '{"n":3000000}']);
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    child.stdout!.destroy();
    const done = await result;
    expect(done.code, done.stderr).toBe(EXIT_CODES.INTERRUPTED);
  });

  for (const args of [
    ['exec', '-'],
    ['run', 'big:echo', '--args', '-'],
  ]) {
    it(`Ctrl-C while \`${args.join(' ')}\` waits for a stdin that does not end: exit 130 at the first Ctrl-C`, async () => {
      // in this process: main.ts turns the first Ctrl-C into an abort of io.signal (terminal.test.ts)
      const stdin = new PassThrough();
      stdin.write('{');
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let err = '';
      stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
      stdout.resume();
      const controller = new AbortController();
      const io = { stdin, stdout, stderr, cwd: ws.dir, env: process.env, signal: controller.signal };
      const exited = runProgram(args, io);
      await new Promise((resolve) => setTimeout(resolve, 300));
      controller.abort(interrupted('SIGINT'));
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still waiting for stdin'), 5000))]);
      stdin.end();
      expect(code).toBe(EXIT_CODES.INTERRUPTED);
      expect(err).toBe('toolexec: ABORTED: cli: interrupted (SIGINT)\n');
    });
  }

  it('servers with a required server down still lists every server (table and --json), then exits 6', async () => {
    const config = ws.write('required.json', {
      mcpServers: { fx: ws.stdioServer(), broken: { ...ws.stdioServer({ FIXTURE_FAIL_START: 'on purpose' }), required: true } },
    });
    const table = await run('servers', '-c', config);
    expect(table.code, table.stderr).toBe(EXIT_CODES.UNAVAILABLE);
    const rows = linesOf(table.stdout);
    expect(rows[0]).toMatch(/^SERVER\s+STATE\s+TOOLS\s+ERROR$/);
    expect(rows[1]).toMatch(/^fx\s+connected\s+\d+$/);
    expect(rows[2]).toMatch(/^broken\s+failed\s+0\s+.*refusing to start: on purpose/);
    const json = await run('servers', '-c', config, '--json');
    expect(json.code).toBe(EXIT_CODES.UNAVAILABLE);
    const statuses = JSON.parse(json.stdout) as Record<string, { state: string }>;
    expect(Object.fromEntries(Object.entries(statuses).map(([name, status]) => [name, status.state]))).toEqual({
      fx: 'connected',
      broken: 'failed',
    });
    // the other commands still fail without it
    expectFailure(await run('tools', '-c', config), EXIT_CODES.UNAVAILABLE, 'SERVER_UNAVAILABLE');
  });

  it('a server named "__proto__" is a server like any other; one whose name holds ":" is a usage error naming it', async () => {
    // written as text: an object literal's __proto__ key would set its prototype
    const proto = ws.write(
      'proto.json',
      JSON.stringify({ mcpServers: { placeholder: { ...ws.stdioServer(), required: true } } }).replace('"placeholder"', '"__proto__"'),
    );
    const json = await run('servers', '-c', proto, '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(Object.keys(JSON.parse(json.stdout) as object)).toEqual(['__proto__']);
    const colon = ws.write('colon.json', { mcpServers: { 'a:b': ws.stdioServer() } });
    const refused = await run('servers', '-c', colon);
    expectFailure(refused, EXIT_CODES.USAGE, 'CONFIGURATION');
    expect(refused.stderr).toContain('the server name "a:b" must not contain ":"');
  });

  it('a tool module whose export throws when read is a usage error naming it, not an unexpected failure', async () => {
    ws.write('hostile.mjs', `export default [{ get tool() { throw new Error('tool getter'); }, handler: () => 1 }];\n`);
    const result = await run('tools', '--tools', './hostile.mjs');
    expectFailure(result, EXIT_CODES.USAGE, 'CONFIGURATION');
    expect(result.stderr).toContain('could not be read (tool getter)');
  });

  it('a value with no JSON form (a BigInt, a cycle, a function) fails the run with EXECUTION; stdout stays clean', async () => {
    ws.write(
      'odd.mjs',
      `const tool = (name) => ({ namespace: 'odd', name, inputSchema: { type: 'object' } });
export default [
  { tool: tool('big'), handler: () => 10n },
  { tool: tool('cycle'), handler: () => { const o = {}; o.self = o; return o; } },
  { tool: tool('fn'), handler: () => () => 1 },
];\n`,
    );
    for (const name of ['big', 'cycle', 'fn']) {
      const result = await run('--tools', './odd.mjs', 'run', `odd:${name}`);
      expectFailure(result, EXIT_CODES.EXECUTION, 'EXECUTION');
      expect(result.stderr).toContain('the value has no JSON form, so it cannot be printed');
      expect(result.stdout).toBe('');
    }
  });

  it('a usage error with a suggestion is one line (and one JSON message)', async () => {
    const typo = await run('serve');
    expectFailure(typo, EXIT_CODES.USAGE, 'INVALID_ARGUMENT');
    expect(typo.stderr).toBe("toolexec: INVALID_ARGUMENT: unknown command 'serve' (Did you mean servers?)\n");
    const json = await run('tools', '--namespce', 'x', '--json');
    expect(json.code).toBe(EXIT_CODES.USAGE);
    expect((JSON.parse(json.stdout) as ErrorShape).error.message).toBe("cli: unknown option '--namespce' (Did you mean --namespace?)");
  });

  it('a missing module of the config’s "tools" is named as the config’s, not as an option --tools', async () => {
    ws.write('missing-module.json', { tools: ['./nowhere.mjs'] });
    const fromConfig = await run('tools', '-c', 'missing-module.json');
    expectFailure(fromConfig, EXIT_CODES.USAGE, 'CONFIGURATION');
    expect(fromConfig.stderr).toContain('missing-module.json "tools": nowhere.mjs does not exist');
    const fromOption = await run('tools', '--tools', 'elsewhere.mjs');
    expectFailure(fromOption, EXIT_CODES.USAGE, 'CONFIGURATION');
    expect(fromOption.stderr).toContain('option --tools elsewhere.mjs does not exist');
  });

  it('--args @file reads the arguments from a file; a bad one is a usage error that says what to do', async () => {
    ws.write('args.json', { text: 'from a file' });
    const fromFile = await run('run', 'big:echo', '--args', '@args.json');
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toEqual({ text: 'from a file' });
    const missing = await run('run', 'big:echo', '--args', '@nowhere.json');
    expectFailure(missing, EXIT_CODES.USAGE, 'INVALID_ARGUMENT');
    expect(missing.stderr).toContain('--args @nowhere.json: nowhere.json cannot be read');
    const unquoted = await run('run', 'big:echo', '--args', '{text:hi}');
    expectFailure(unquoted, EXIT_CODES.USAGE, 'INVALID_ARGUMENT');
    expect(unquoted.stderr).toContain(`quote it for the shell: --args '{"name":"value"}'`);
  });

  it('an unset ${VAR} says how to set a default', async () => {
    ws.write('unset.json', { mcpServers: { s: { command: 'node', args: ['${TOOLEXEC_TEST_UNSET_VAR}'] } } });
    const unset = await run('servers', '-c', 'unset.json');
    expectFailure(unset, EXIT_CODES.USAGE, 'CONFIGURATION');
    expect(unset.stderr).toContain('${TOOLEXEC_TEST_UNSET_VAR}, which is not set (set it, or write ${TOOLEXEC_TEST_UNSET_VAR:-default})');
  });

  it('a command’s --help lists the options every command takes too', async () => {
    const help = await run('run', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Global Options:');
    for (const option of ['--config <file>', '--tools <module>', '--timeout <ms>', '--json', '--verbose'])
      expect(help.stdout).toContain(option);
    expect(help.stdout).toContain('@file');
  });

  it('a command waiting only on a promise (--timeout 0, a tool that never answers) keeps running until Ctrl-C, never exit 13', async () => {
    ws.write(
      'pending.mjs',
      `export default [{ tool: { namespace: 'p', name: 'wait', inputSchema: { type: 'object' } }, handler: () => new Promise(() => {}) }];\n`,
    );
    const { child, result } = start(['--timeout', '0', '--tools', './pending.mjs', 'run', 'p:wait']);
    let exited: number | null | undefined;
    child.once('exit', (code) => (exited = code));
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(exited, 'the command ended on its own').toBeUndefined();
    child.kill('SIGINT');
    expectFailure(await result, EXIT_CODES.INTERRUPTED, 'ABORTED');
  });

  it('the first Ctrl-C still stops a command that is running a tool (sanity: the stdin race leaves this alone)', async () => {
    const config = ws.write('slow.json', { mcpServers: { fx: ws.stdioServer() } });
    const { child, result } = start(['run', 'fx:slow', '-c', config, '--args', '{"ms":60000}']);
    expect(await waitUntil(() => ws.recordedPids().length === 1, 20_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    child.kill('SIGINT');
    expectFailure(await result, EXIT_CODES.INTERRUPTED, 'ABORTED');
  });
});
