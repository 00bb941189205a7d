// The client spans of calls made directly on an MCP executor (no runner, so no runner-level
// redaction): with the OpenTelemetry SDK exporting to memory and a real SDK-built server over stdio,
// a failed request's span records a library error whose message is scrubbed of the call's secrets
// (the default credential paths, the paths the tool declares) and of the server config's
// credentials, never a raw error.
import { afterEach, describe, expect, it } from 'vitest';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { createMcpExecutor, type McpExecutorOptions, type SdkMcpExecutor } from '../../src/mcp/index.js';
import { rejection } from '../exec/helpers.js';
import { spanNamed, spanText, useTracing } from '../run/otel-helpers.js';
import { hostileFixture } from './helpers.js';

const TOKEN = 'sk-live-4242-direct';
const CARD = '4111111111111111';
const ENV_KEY = 'env-key-7777-direct';

const tracing = useTracing();
const closers: SdkMcpExecutor[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((ex) => ex.close()));
});

function executor(env: Record<string, string> = {}, options: Partial<McpExecutorOptions> = {}): SdkMcpExecutor {
  const ex = createMcpExecutor({ servers: { h: hostileFixture(env) }, ...options });
  closers.push(ex);
  return ex;
}

function exception(span: ReadableSpan): Record<string, unknown> | undefined {
  return span.events.find((event) => event.name === 'exception')?.attributes;
}

describe('the tools/call span of a direct call', () => {
  it("records the server's error with the call's secrets scrubbed (default paths and the tool's own); the caller's error is its own", async () => {
    const ex = executor();
    await ex.listTools('h'); // the listing tells the executor that rpc_leak redacts card.number
    const err = await rejection(ex.callTool('h', { name: 'rpc_leak', arguments: { token: TOKEN, card: { number: CARD } } }));
    expect(err.code).toBe('EXECUTION');
    // the caller passed the values itself: its error quotes what the server said
    expect(err.message).toContain(TOKEN);
    const span = spanNamed(await tracing.finished(), 'tools/call rpc_leak');
    expect(span.status).toEqual({ code: 2, message: 'EXECUTION' });
    expect(span.attributes['error.type']).toBe('EXECUTION');
    expect(exception(span)).toMatchObject({ 'exception.type': 'ToolexecError' });
    expect(exception(span)?.['exception.message']).toContain('bad token [REDACTED] for card [REDACTED]');
    const text = spanText(await tracing.finished());
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(CARD);
  });

  it("scrubs a crashing server's stderr of the call's token and of the credentials in the server's env", async () => {
    const ex = executor({ HOSTILE_API_KEY: ENV_KEY });
    const err = await rejection(ex.callTool('h', { name: 'stderr_leak', arguments: { token: TOKEN } }));
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toContain(ENV_KEY);
    const span = spanNamed(await tracing.finished(), 'tools/call stderr_leak');
    expect(exception(span)?.['exception.message']).toContain('refusing token [REDACTED] with key [REDACTED]');
    expect(spanText([span])).not.toContain(TOKEN);
    expect(spanText([span])).not.toContain(ENV_KEY);
  });

  it('withholds the message when the arguments cannot be read to redact it; the span still has the code', async () => {
    const ex = executor();
    const args = {
      token: TOKEN,
      get broken(): string {
        throw new Error(`getter quoting ${TOKEN}`);
      },
    };
    const err = await rejection(ex.callTool('h', { name: 'answer', arguments: args }));
    expect(err.code).toBe('INVALID_ARGUMENT');
    const span = spanNamed(await tracing.finished(), 'tools/call answer');
    expect(span.attributes['error.type']).toBe('INVALID_ARGUMENT');
    expect(String(exception(span)?.['exception.message'])).toContain('withheld');
    expect(spanText([span])).not.toContain(TOKEN);
  });

  it("cuts a server's huge error text at 4 KiB on the span", async () => {
    const ex = executor();
    const message = { error: { code: -32000, message: 'x'.repeat(100_000) } };
    const err = await rejection(ex.callTool('h', { name: 'raw_answer', arguments: { message } }));
    expect(err.code).toBe('EXECUTION');
    const recorded = String(exception(spanNamed(await tracing.finished(), 'tools/call raw_answer'))?.['exception.message']);
    // the caller's message quotes the server's text cut at 4 KiB with its length; the span records it whole
    expect(err.message.length).toBeLessThan(4300);
    expect(err.message).toMatch(/… \(\d+ characters\)$/);
    expect(recorded).toBe(err.message);
  });
});

describe('the tools/list span', () => {
  it('of a server that offers no tools (tools/list is "method not found") ends OK: the listing succeeded', async () => {
    const ex = executor({ HOSTILE_NO_TOOLS: '1' });
    expect(await ex.listTools('h')).toEqual([]);
    const span = spanNamed(await tracing.finished(), 'tools/list');
    expect(span.status.code).toBe(1);
    expect(exception(span)).toBeUndefined();
  });

  it('of a listing that times out records the TIMEOUT the caller gets, not the SDK error', async () => {
    const ex = executor({ HOSTILE_LIST_HANG: '1' });
    await ex.callTool('h', { name: 'stats' }); // connected, so the listing's own timeout applies
    const err = await rejection(ex.listTools('h', { timeoutMs: 300 }));
    expect(err.code).toBe('TIMEOUT');
    const span = spanNamed(await tracing.finished(), 'tools/list');
    expect(span.status).toEqual({ code: 2, message: 'TIMEOUT' });
    expect(exception(span)).toMatchObject({ 'exception.type': 'ToolexecError' });
    expect(String(exception(span)?.['exception.message'])).toBe(err.message);
  });
});
