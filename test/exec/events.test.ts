import { describe, expect, it } from 'vitest';
import { createExec, type ExecEvent, type Logger } from '../../src/exec/index.js';
import { ToolexecError } from '../../src/model/index.js';
import { misbehavingFixture, stdioFixture } from '../mcp/helpers.js';

const echo = {
  tool: { name: 'echo', namespace: 'demo', inputSchema: { type: 'object' as const } },
  handler: (args: Record<string, unknown>) => args,
};

/** pino's LogFn, spelled as pino declares it: a pino logger must fit `logger`. */
interface PinoLogFn {
  <T extends object>(obj: T, msg?: string, ...args: unknown[]): void;
  (obj: unknown, msg?: string, ...args: unknown[]): void;
  (msg: string, ...args: unknown[]): void;
}

describe('events', () => {
  it('one typed stream: call started / finished / failed in order, with one callId per call', async () => {
    const events: ExecEvent[] = [];
    const exec = createExec({ tools: [echo], onEvent: (e) => events.push(e) });
    try {
      await exec.runTool('demo:echo', { a: 1 });
      await exec.runTool('demo:nope', {}).catch(() => undefined);
    } finally {
      await exec.close();
    }
    expect(events.map((e) => e.type)).toEqual(['call.started', 'call.finished', 'call.started', 'call.failed']);
    const [started, finished, , failed] = events;
    expect(started).toMatchObject({ toolId: 'demo:echo', mode: 'run', args: { a: 1 } });
    expect(finished).toMatchObject({ toolId: 'demo:echo', backendKind: 'local', callId: (started as { callId: string }).callId });
    expect((finished as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(0);
    expect(failed).toMatchObject({ toolId: 'demo:nope', error: { code: 'TOOL_NOT_FOUND' } });
    expect(started?.time).toBeGreaterThan(Date.now() - 60_000);
  });

  it("the facade's chain steps are observed as chain steps, each sent its own idempotency key", async () => {
    const events: ExecEvent[] = [];
    const keys: Array<string | undefined> = [];
    const keyed = {
      tool: { name: 'keyed', namespace: 'demo', inputSchema: { type: 'object' as const } },
      handler: (_args: Record<string, unknown>, ctx: { idempotencyKey?: string | undefined }) => {
        keys.push(ctx.idempotencyKey);
        return 'ok';
      },
    };
    const exec = createExec({ tools: [echo, keyed], onEvent: (e) => events.push(e) });
    try {
      await exec.runChain([{ toolId: 'demo:keyed' }, { toolId: 'demo:keyed', args: { n: 2 } }], { idempotencyKey: 'job-1' });
    } finally {
      await exec.close();
    }
    const started = events.filter((e) => e.type === 'call.started');
    expect(started.map((e) => (e as { mode: string }).mode)).toEqual(['chain_step', 'chain_step']);
    expect(keys).toEqual(['job-1:0', 'job-1:1']);
  });

  it('async listeners that reject (onEvent, subscribe, onProgress, onAttempt, index changes) leave no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    // An async listener, passed where a void one is declared (as users do): typed as the void kind.
    const failing = (async (): Promise<void> => {
      throw new Error('async listener bug');
    }) as () => void;
    const flaky = {
      tool: { name: 'flaky', namespace: 'demo', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } },
      handler: () => {
        throw new ToolexecError('SERVER_UNAVAILABLE', 'down');
      },
    };
    const exec = createExec({ tools: [echo, flaky], onEvent: failing, onAttempt: failing });
    try {
      exec.subscribe(failing);
      exec.index.onChange(failing);
      exec.index.registerTool(
        { name: 'late', namespace: 'demo', inputSchema: { type: 'object' } },
        { kind: 'local', local: { name: 'late' } },
      );
      await expect(exec.runTool('demo:echo', { a: 1 }, { onProgress: failing })).resolves.toMatchObject({ value: { a: 1 } });
      await exec.runTool('demo:flaky', {}, { retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 2 } }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await exec.close();
    }
  });

  it("validateOutput: 'warn' keeps the result and tells of the problem: onWarning, a call.warning event and a warn log line", async () => {
    const events: ExecEvent[] = [];
    const warnings: unknown[] = [];
    const lines: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (_obj, msg) => lines.push(String(msg)),
      error: () => undefined,
    };
    const sloppy = {
      tool: {
        name: 'sloppy',
        namespace: 'demo',
        inputSchema: { type: 'object' as const },
        outputSchema: { type: 'object' as const, properties: { n: { type: 'number' } }, required: ['n'] },
      },
      handler: () => ({ n: 'not a number' }),
    };
    const exec = createExec({
      tools: [sloppy],
      validateOutput: 'warn',
      onWarning: (w) => warnings.push(w),
      onEvent: (e) => events.push(e),
      logger,
    });
    try {
      await expect(exec.runTool('demo:sloppy', {})).resolves.toMatchObject({ value: { n: 'not a number' } });
    } finally {
      await exec.close();
    }
    expect(warnings).toEqual([
      expect.objectContaining({ toolId: 'demo:sloppy', error: expect.objectContaining({ code: 'OUTPUT_VALIDATION' }) }),
    ]);
    expect(events.map((e) => e.type)).toEqual(['call.started', 'call.warning', 'call.finished']);
    expect(events[1]).toMatchObject({ toolId: 'demo:sloppy', backendKind: 'local', error: { code: 'OUTPUT_VALIDATION' } });
    expect(lines).toEqual(['tool call warning: demo:sloppy: OUTPUT_VALIDATION']);
    expect(() => createExec({ onWarning: 'no' as never })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }) as Error);
  });

  it('subscribe adds listeners and removes them; a throwing listener does not fail the call', async () => {
    const exec = createExec({
      tools: [echo],
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    try {
      const seen: string[] = [];
      const unsubscribe = exec.subscribe((e) => seen.push(e.type));
      await expect(exec.runTool('demo:echo', {})).resolves.toMatchObject({ value: {} });
      unsubscribe();
      await exec.runTool('demo:echo', {});
      expect(seen).toEqual(['call.started', 'call.finished']);
      expect(() => exec.subscribe('nope' as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as Error);
    } finally {
      await exec.close();
    }
  });

  it('server status changes arrive as server.status events and log lines (info, warn for a failure)', async () => {
    const events: ExecEvent[] = [];
    const lines: { level: string; msg: string | undefined }[] = [];
    const at =
      (level: string) =>
      (_obj: object, msg?: string): void => {
        lines.push({ level, msg });
      };
    const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    const exec = createExec({
      mcpServers: { fx: stdioFixture(), bad: misbehavingFixture('garbage') },
      mcpOptions: { connectTimeoutMs: 2_000 },
      onEvent: (e) => events.push(e),
      logger,
    });
    try {
      await exec.connect();
    } finally {
      await exec.close();
    }
    const statuses = events.filter((e) => e.type === 'server.status');
    expect(statuses).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ server: 'fx', state: 'connected' }),
        expect.objectContaining({ server: 'bad', state: 'failed', error: expect.objectContaining({ code: expect.any(String) }) }),
        expect.objectContaining({ server: 'fx', state: 'closed' }),
      ]),
    );
    expect((statuses.find((e) => e.server === 'fx' && e.state === 'connected') as { toolCount: number }).toolCount).toBeGreaterThan(0);
    expect(lines).toEqual(
      expect.arrayContaining([
        { level: 'info', msg: 'MCP server fx connected' },
        { level: 'warn', msg: 'MCP server bad failed' },
      ]),
    );
  });

  it('the logger option accepts a pino-shaped logger and is checked; without one the library is silent', async () => {
    const calls: unknown[][] = [];
    const method: PinoLogFn = (...args: unknown[]) => {
      calls.push(args);
    };
    const pinoLike = { debug: method, info: method, warn: method, error: method, level: 'debug', child: () => pinoLike };
    const exec = createExec({ tools: [echo], logger: pinoLike });
    try {
      await exec.runTool('demo:echo', { password: 'hunter22' });
    } finally {
      await exec.close();
    }
    expect(calls.map((c) => c[1])).toEqual(['tool call started: demo:echo', 'tool call finished: demo:echo']);
    expect(calls[0]?.[0]).toMatchObject({ type: 'call.started', args: { password: '[REDACTED]' } });
    expect(() => createExec({ logger: { info: () => undefined } as never })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', details: { invalid: ['logger'] } }) as Error,
    );
    expect(() => createExec({ redact: [''] })).toThrow(expect.objectContaining({ code: 'CONFIGURATION' }) as Error);
  });
});
