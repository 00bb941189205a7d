/**
 * Retries against a real MCP server over stdio that fails transiently (test/fixtures/mcp/flaky-server.mjs):
 * it drops the connection (the process exits mid-call) or stops answering for the first N calls.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { createExec } from '../../src/exec/index.js';
import { createMcpExecutor, type SdkMcpExecutor } from '../../src/mcp/index.js';
import { hasErrorCode, type ToolexecError } from '../../src/model/index.js';
import { createRunner, type AttemptEvent, type Runner } from '../../src/run/index.js';

const FLAKY_SERVER = fileURLToPath(new URL('../fixtures/mcp/flaky-server.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'toolexec-flaky-'));
let files = 0;
const open: Array<{ close(): Promise<void> }> = [];

/** A fresh state file and the stdio config of a flaky server that uses it. */
function flakyServer(): { config: { command: string; args: string[]; env: Record<string, string> }; calls: (key: string) => number } {
  const state = join(dir, `state-${files++}.json`);
  return {
    config: { command: process.execPath, args: [FLAKY_SERVER], env: { FLAKY_STATE: state } },
    calls: (key) => {
      try {
        return (JSON.parse(readFileSync(state, 'utf8')) as Record<string, number>)[key] ?? 0;
      } catch {
        return 0;
      }
    },
  };
}

/** A runner over an MCP executor for the flaky server, its tools imported (annotations included). */
async function runnerOverFlaky(
  requestTimeoutMs = 10_000,
): Promise<{ runner: Runner; executor: SdkMcpExecutor; calls: (key: string) => number; events: AttemptEvent[] }> {
  const server = flakyServer();
  const executor = createMcpExecutor({ servers: { flaky: server.config }, requestTimeoutMs });
  open.push(executor);
  const index = createToolIndex();
  // Connect with a generous timeout (a loaded machine); the calls then run on the open connection.
  index.registerToolsFromMcp('flaky', await executor.listTools('flaky', { timeoutMs: 20_000 }));
  const events: AttemptEvent[] = [];
  const runner = createRunner({ index, mcp: executor, onAttempt: (event) => events.push(event) });
  return { runner, executor, calls: server.calls, events };
}

async function rejection(promise: Promise<unknown>): Promise<ToolexecError> {
  try {
    await promise;
  } catch (err) {
    return err as ToolexecError;
  }
  throw new Error('expected a rejection');
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('retries against a real MCP server that fails transiently', () => {
  it('a read-only tool whose server drops the connection twice succeeds on the third attempt', async () => {
    const { runner, calls, events } = await runnerOverFlaky();
    const result = await runner.run(
      'flaky:read_report',
      { key: 'a', failTimes: 2, mode: 'drop' },
      { retry: { initialDelayMs: 20, maxDelayMs: 50 } },
    );
    expect(result.structured).toMatchObject({ key: 'a', calls: 3 });
    expect(calls('read_report/a')).toBe(3);
    expect(result.attempts).toHaveLength(2);
    expect(events.map((e) => e.willRetry)).toEqual([true, true]);
    for (const event of events) expect(event.error.message).toContain('closed the connection');
  });

  it('an idempotent tool whose request times out is retried with the default policy', async () => {
    const { runner, calls } = await runnerOverFlaky(300);
    const result = await runner.run('flaky:put_record', { key: 'b', failTimes: 1, mode: 'hang' });
    expect(result.structured).toMatchObject({ calls: 2 });
    expect(calls('put_record/b')).toBe(2);
    expect(result.attempts?.[0]?.code).toBe('TIMEOUT');
  });

  it('a tool that is neither read-only nor idempotent is not retried: one call reached the server', async () => {
    const { runner, calls, events } = await runnerOverFlaky();
    const err = await rejection(runner.run('flaky:send_payment', { key: 'c', failTimes: 1, mode: 'drop' }));
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toContain('closed the connection');
    expect(calls('send_payment/c')).toBe(1);
    expect(events).toHaveLength(0);
  });

  it('the caller may opt a non-idempotent call in; its idempotency key reaches the server in _meta on every attempt', async () => {
    const { runner, calls } = await runnerOverFlaky();
    const result = await runner.run(
      'flaky:send_payment',
      { key: 'd', failTimes: 1, mode: 'drop' },
      { retry: { initialDelayMs: 10, maxDelayMs: 20 }, idempotencyKey: 'payment-0001' },
    );
    expect(calls('send_payment/d')).toBe(2);
    expect(result.structured).toMatchObject({ calls: 2, meta: { 'toolexec/idempotencyKey': 'payment-0001' } });
  });

  it('an error the server reports (a JSON-RPC error) is not transient: no retry', async () => {
    const { runner, calls } = await runnerOverFlaky();
    const err = await rejection(runner.run('flaky:read_report', { key: 'e', failTimes: 1, mode: 'error' }));
    expect(err.code).toBe('EXECUTION');
    expect(calls('read_report/e')).toBe(1);
  });

  it('the deadline bounds every attempt together, and the server is given only the time left', async () => {
    const { runner, calls } = await runnerOverFlaky(250);
    const started = Date.now();
    const err = await rejection(
      runner.run('flaky:read_report', { key: 'f', failTimes: 50, mode: 'hang' }, { deadline: new Date(Date.now() + 900) }),
    );
    const elapsed = Date.now() - started;
    expect(err.code).toBe('TIMEOUT');
    expect(elapsed).toBeGreaterThanOrEqual(240);
    expect(elapsed).toBeLessThan(2_500);
    expect(calls('read_report/f')).toBeGreaterThanOrEqual(1);
    expect(calls('read_report/f')).toBeLessThanOrEqual(4);
  });

  it('the executor cuts its request timeout to the deadline and refuses a deadline already past without sending', async () => {
    const { executor, calls } = await runnerOverFlaky(60_000);
    const started = Date.now();
    const err = await rejection(
      executor.callTool(
        'flaky',
        { name: 'read_report', arguments: { key: 'g', failTimes: 5, mode: 'hang' } },
        { deadline: Date.now() + 300 },
      ),
    );
    expect(err.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(3_000);
    const past = await rejection(
      executor.callTool('flaky', { name: 'read_report', arguments: { key: 'h' } }, { deadline: Date.now() - 1 }),
    );
    expect(past.code).toBe('TIMEOUT');
    expect(calls('read_report/h')).toBe(0);
  });

  it('through the facade: a read-only MCP tool is retried after a dropped connection; Result.attempts says so', async () => {
    const server = flakyServer();
    const events: AttemptEvent[] = [];
    const exec = createExec({ mcpServers: { flaky: server.config }, onAttempt: (event) => events.push(event) });
    open.push(exec);
    const result = await exec.runTool('flaky:read_report', { key: 'i', failTimes: 1, mode: 'drop' });
    expect(result.value).toMatchObject({ calls: 2 });
    expect(result.attempts).toHaveLength(1);
    expect(events).toHaveLength(1);
    // The dropped connection marked the server failed; connect() brings it (and its tools) back.
    expect((await exec.connect()).flaky?.state).toBe('connected');
    const err = await rejection(exec.runTool('flaky:send_payment', { key: 'j', failTimes: 1, mode: 'drop' }));
    expect(hasErrorCode(err, 'EXECUTION')).toBe(true);
    expect(server.calls('send_payment/j')).toBe(1);
  });
});
