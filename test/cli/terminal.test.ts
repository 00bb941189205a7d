import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/index.js';
import { waitUntil } from '../mcp/helpers.js';
import { Workspace, expectFailure, hasScript, linesOf, requireBuiltCli, runCli, runInTerminal, startCli } from './helpers.js';

/**
 * The built command in a terminal: the progress bar drawn from a tool's progress notifications
 * (in a pseudo-terminal made by util-linux `script`), none when stderr is not a terminal, and
 * Ctrl-C / SIGTERM closing every MCP server the command started.
 */
describe('toolexec in a terminal', { timeout: 120_000 }, () => {
  let ws: Workspace;
  const PROGRESS = ['run', 'fx:progress', '--args', '{"steps":4,"delayMs":250}'];

  beforeAll(() => {
    requireBuiltCli();
    if (!hasScript()) throw new Error('these tests need util-linux `script` (apt-get install bsdutils)');
    ws = new Workspace();
    ws.write('toolexec.json', { mcpServers: { fx: ws.stdioServer() } });
  });

  afterEach(async () => {
    await ws.expectNoServersLeft();
  });

  afterAll(() => ws?.remove());

  it('draws a progress bar on a terminal’s stderr from the progress notifications, then prints the result', async () => {
    const { code, output } = await runInTerminal(PROGRESS, { cwd: ws.dir });
    expect(code, output).toBe(0);
    // cli-progress redraws the line in place: each state starts with a carriage return / cursor move
    expect(output).toMatch(/fx:progress █+░+ (25|50|75)% \| [123]\/4 step [123]/);
    expect(output).toMatch(/fx:progress █{30} 100% \| 4\/4 done/);
    expect(output).toContain('"done 4"');
    // the cursor hidden while drawing is shown again
    expect(output).toContain('\u001b[?25l');
    expect(output).toContain('\u001b[?25h');
  });

  it('--no-progress: no bar, even on a terminal', async () => {
    const { code, output } = await runInTerminal([...PROGRESS, '--no-progress'], { cwd: ws.dir });
    expect(code, output).toBe(0);
    expect(output).not.toContain('█');
    expect(output.trim()).toBe('"done 4"');
  });

  it('no bar when stderr is not a terminal; --verbose reports progress as lines instead', async () => {
    const quiet = await runCli(PROGRESS, { cwd: ws.dir });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(JSON.parse(quiet.stdout)).toBe('done 4');
    const verbose = await runCli([...PROGRESS, '--verbose'], { cwd: ws.dir });
    expect(linesOf(verbose.stderr).filter((line) => line.includes(' progress '))).toEqual([
      'toolexec: fx:progress progress 1/4 step 1',
      'toolexec: fx:progress progress 2/4 step 2',
      'toolexec: fx:progress progress 3/4 step 3',
      'toolexec: fx:progress progress 4/4 step 4',
    ]);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} stops a running call, closes the MCP server and exits with 130`, async () => {
      const { child, result } = startCli(['run', 'fx:slow', '--args', '{"ms":60000}', '--verbose'], { cwd: ws.dir });
      let stderr = '';
      child.stderr!.on('data', (chunk: string) => (stderr += chunk));
      // the server is connected and the call is on its way
      expect(await waitUntil(() => stderr.includes('server fx: connected'), 20_000)).toBe(true);
      expect(ws.recordedPids()).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      child.kill(signal);
      const run = await result;
      expect(run.code, run.stderr).toBe(EXIT_CODES.INTERRUPTED);
      // --verbose prints the whole error
      expect(run.stderr).toContain(`cli: interrupted (${signal})`);
      expect(run.stderr).toContain("code: 'ABORTED'");
    });
  }

  it('a reader that goes away (EPIPE) stops the command without a crash, and the server is closed', async () => {
    const { child, result } = startCli(['run', 'fx:progress', '--args', '{"steps":20,"delayMs":100}', '--verbose'], { cwd: ws.dir });
    let seen = '';
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (chunk: string) => {
        seen += chunk;
        // like `| head -1` on stderr: the reader leaves after the first progress line
        if (seen.includes(' progress 1/20')) {
          child.stderr!.destroy();
          resolve();
        }
      });
    });
    const run = await result;
    expect(run.code).toBe(EXIT_CODES.INTERRUPTED);
    expect(run.stdout).toBe('');
    expect(ws.recordedPids()).toHaveLength(1);
  });

  it('SIGINT while a server is still connecting (it never answers initialize) ends it too', async () => {
    const config = ws.write('stuck.json', { mcpServers: { fx: ws.stdioServer(), stuck: ws.stdioServer({ RECORD_HANG: '1' }) } });
    const { child, result } = startCli(['search', 'echo', '-c', config], { cwd: ws.dir });
    expect(await waitUntil(() => ws.recordedPids().length === 2, 20_000)).toBe(true);
    child.kill('SIGINT');
    expectFailure(await result, EXIT_CODES.INTERRUPTED, 'ABORTED');
  });
});
