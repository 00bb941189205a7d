import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolSummary } from '../../src/discovery/index.js';
import { ROOT, requireBuiltCli } from './helpers.js';

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });
}

/**
 * The README's `npx toolexec search …`, as a user runs it: the package packed, installed from the
 * tarball into a fresh app, its `bin` run through npx against the example MCP server it ships.
 */
describe('npx toolexec, installed from the tarball', { timeout: 300_000 }, () => {
  let app: string;

  beforeAll(() => {
    requireBuiltCli();
    app = mkdtempSync(join(tmpdir(), 'toolexec-cli-app-'));
    run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', app], ROOT);
    const tarball = readdirSync(app).find((file) => file.endsWith('.tgz'))!;
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', `./${tarball}`], app);
    writeFileSync(
      join(app, 'toolexec.json'),
      JSON.stringify({ mcpServers: { fx: { command: 'node', args: ['node_modules/toolexec/examples/mcp-server/server.mjs'] } } }),
    );
  });

  afterAll(() => {
    if (app !== undefined) rmSync(app, { recursive: true, force: true });
  });

  it('npx toolexec search "convert currency" finds the example server’s tool; run calls it', () => {
    const found = JSON.parse(run('npx', ['--no-install', 'toolexec', 'search', 'convert currency', '--json'], app)) as ToolSummary[];
    expect(found[0]?.id).toBe('fx:convert');
    const value = JSON.parse(
      run('npx', ['--no-install', 'toolexec', 'run', 'fx:convert', '--args', '{"amountCents":1500,"from":"USD","to":"EUR"}'], app),
    ) as unknown;
    expect(value).toEqual({ amountCents: 1380, currency: 'EUR', rate: 0.92 });
  });
});
