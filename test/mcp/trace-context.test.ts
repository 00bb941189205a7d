import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { createExec, type ExecEvent } from '../../src/exec/index.js';
import { useTracing, isChildOf, spanNamed, spanText } from '../run/otel-helpers.js';

const TRACE_SERVER = fileURLToPath(new URL('../fixtures/mcp/trace-server.mjs', import.meta.url));
const SECRET = 'sk-live-4242-abcdef';

const tracing = useTracing();

describe('an MCP call over stdio in a trace', () => {
  it('execute_tool → tools/call client span; the server receives that span as traceparent in params._meta', async () => {
    const exec = createExec({ mcpServers: { tr: { command: process.execPath, args: [TRACE_SERVER] } } });
    try {
      await exec.connect();
      const tracer = trace.getTracer('test');
      const result = await tracer.startActiveSpan('request', async (span) => {
        try {
          return await exec.runTool('tr:seen_meta', {});
        } finally {
          span.end();
        }
      });
      const spans = await tracing.finished();
      const request = spanNamed(spans, 'request');
      const tool = spanNamed(spans, 'execute_tool tr:seen_meta');
      const rpc = spanNamed(spans, 'tools/call seen_meta');
      expect(isChildOf(tool, request)).toBe(true);
      expect(isChildOf(rpc, tool)).toBe(true);
      expect(tool.attributes).toMatchObject({ 'toolexec.backend.kind': 'mcp', 'gen_ai.tool.type': 'extension' });
      expect(rpc.kind).toBe(2);
      expect(rpc.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'toolexec.mcp.server': 'tr',
        'gen_ai.tool.name': 'seen_meta',
      });

      const meta = (result.value as { meta: Record<string, unknown> }).meta;
      const { traceId, spanId } = rpc.spanContext();
      expect(meta.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    } finally {
      await exec.close();
    }
  });

  it('an MCP error quoting a secret argument: redacted in the error, the span and the events; the server got the real value', async () => {
    const events: ExecEvent[] = [];
    const exec = createExec({ mcpServers: { tr: { command: process.execPath, args: [TRACE_SERVER] } }, onEvent: (e) => events.push(e) });
    try {
      const err = await exec.runTool('tr:leak', { token: SECRET }).then(
        () => undefined,
        (e: unknown) => e as Error & { code: string; details?: Record<string, unknown> },
      );
      expect(err?.code).toBe('EXECUTION');
      // the server saw the real token: it quoted it back (and that text was scrubbed here)
      expect(err?.message).toContain('bad token [REDACTED]');
      expect(JSON.stringify(err)).not.toContain(SECRET);
      expect(String(err?.stack)).not.toContain(SECRET);
      expect(err?.details?.redactions).toEqual(['/token']);
      const failed = events.find((e) => e.type === 'call.failed');
      expect(failed).toMatchObject({ toolId: 'tr:leak', redactions: ['/token'], error: { code: 'EXECUTION' } });
      expect(JSON.stringify(events)).not.toContain(SECRET);
      expect(spanText(await tracing.finished())).not.toContain(SECRET);
    } finally {
      await exec.close();
    }
  });
});
