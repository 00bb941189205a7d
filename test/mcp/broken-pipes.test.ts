// A stdio server that breaks one of its pipes and keeps running can no longer be spoken to: its
// connection is lost as if it had exited (EXECUTION with `connectionLost`, `onConnectionLost`, a
// reconnect on the next call), not left to time out request after request.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createExec } from '../../src/exec/index.js';
import type { ToolexecError } from '../../src/model/index.js';
import { type McpStdioServerConfig, type SdkMcpExecutor, createMcpExecutor } from '../../src/mcp/index.js';
import { activeResources, expectNoLeakedResources, rejection, textOf, waitUntil } from './helpers.js';

const PIPE_CLOSING_SERVER = fileURLToPath(new URL('../fixtures/mcp-pipe-closing-server.mjs', import.meta.url));
const pipeClosing: McpStdioServerConfig = { command: process.execPath, args: [PIPE_CLOSING_SERVER] };

const executors: SdkMcpExecutor[] = [];

function executor(lost: ToolexecError[]): SdkMcpExecutor {
  const ex = createMcpExecutor({
    servers: { pipes: pipeClosing },
    requestTimeoutMs: 15_000,
    onConnectionLost: (_name, error) => lost.push(error),
  });
  executors.push(ex);
  return ex;
}

afterEach(async () => {
  await Promise.all(executors.splice(0).map((ex) => ex.close()));
});

describe('a stdio server that breaks a pipe and keeps running', () => {
  it('closed stdout: the call in flight fails as a lost connection at once, and the next call reconnects', async () => {
    const baseline = activeResources();
    const lost: ToolexecError[] = [];
    const ex = executor(lost);
    expect(textOf(await ex.callTool('pipes', { name: 'echo', arguments: { text: 'before' } }))).toBe('before');
    const started = Date.now();
    const error = await rejection(ex.callTool('pipes', { name: 'close_stdout' }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.code).toBe('EXECUTION');
    expect(error.message).toContain('MCP server "pipes" closed the connection');
    expect(error.details).toMatchObject({ serverName: 'pipes', connectionLost: true, transportError: expect.stringContaining('stdout') });
    expect(lost.map((e) => e.code)).toEqual(['EXECUTION']);
    expect(textOf(await ex.callTool('pipes', { name: 'echo', arguments: { text: 'after' } }))).toBe('after');
    await ex.close();
    await expectNoLeakedResources(baseline);
  });

  it('closed stdin: the next call fails as a lost connection at once (EPIPE), and the one after reconnects', async () => {
    const lost: ToolexecError[] = [];
    const ex = executor(lost);
    expect(textOf(await ex.callTool('pipes', { name: 'close_stdin' }))).toBe('stdin closed');
    const started = Date.now();
    const error = await rejection(ex.callTool('pipes', { name: 'echo', arguments: { text: 'lost' } }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.code).toBe('EXECUTION');
    expect(error.details).toMatchObject({ serverName: 'pipes', connectionLost: true, transportError: expect.stringContaining('EPIPE') });
    expect(lost.map((e) => e.code)).toEqual(['EXECUTION']);
    expect(textOf(await ex.callTool('pipes', { name: 'echo', arguments: { text: 'again' } }))).toBe('again');
  });

  it('the facade: the server becomes failed, then connects again', { timeout: 30_000 }, async () => {
    const exec = createExec({ mcpServers: { pipes: pipeClosing }, defaultTimeoutMs: 15_000 });
    try {
      await exec.connect();
      const error = await rejection(exec.runTool('pipes:close_stdout', {}));
      expect(error.code).toBe('EXECUTION');
      expect(exec.serverStatus().pipes?.state).toBe('failed');
      // Retried in the background after its backoff.
      expect(await waitUntil(() => exec.serverStatus().pipes?.state === 'connected', 10_000)).toBe(true);
      expect((await exec.runTool('pipes:echo', { text: 'back' })).value).toBe('back');
    } finally {
      await exec.close();
    }
  });
});
