import { describe, expect, it } from 'vitest';
import { localBackend, type Tool } from '../../src/model/index.js';
import { Redactor } from '../../src/model/internal.js';
import { createRunner, type ExecEvent, type RunnerOptions } from '../../src/run/index.js';
import { EventSink } from '../../src/run/event-sink.js';
import { withTelemetryConfig } from '../../src/run/telemetry-config.js';
import { useTracing } from './otel-helpers.js';

/** A tool the runner learns of only from its toolResolver, with a redaction path of its own. */
const vault: Tool = {
  name: 'vault',
  namespace: 'r',
  inputSchema: { type: 'object', properties: { pin: { type: 'string' } } },
  _meta: { 'toolexec/redact': ['pin'] },
};

function options(): RunnerOptions {
  return {
    toolResolver: (id) => (id === 'r:vault' ? vault : undefined),
    backendsResolver: async () => [localBackend('vault')],
    local: {
      vault: (args) => {
        if (args.pin === 'good') return { opened: true };
        throw new Error(`wrong pin ${String(args.pin)}`);
      },
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<Error & { details?: { redactions?: string[] } }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe("a tool from the toolResolver: its own redaction paths and name apply like an index tool's", () => {
  it('scrubs its arguments out of the failure when nobody observes the call', async () => {
    const runner = createRunner(options());
    const err = await failure(runner.run('r:vault', { pin: '987654' }));
    expect(err.message).toContain('wrong pin [REDACTED]');
    expect(err.message).not.toContain('987654');
    expect(err.details?.redactions).toEqual(['/pin']);
  });

  it('emits call.started once the tool is resolved, redacted by its paths, with the start time, before the end', async () => {
    const events: ExecEvent[] = [];
    const runner = createRunner(withTelemetryConfig(options(), { redactor: new Redactor(), sink: new EventSink((e) => events.push(e)) }));
    const before = Date.now();
    const err = await failure(runner.run('r:vault', { pin: '987654' }));
    expect(err.message).not.toContain('987654');
    await runner.run('r:vault', { pin: 'good' });
    expect(events.map((e) => e.type)).toEqual(['call.started', 'call.failed', 'call.started', 'call.finished']);
    const [started, failed] = events;
    expect(started).toMatchObject({ args: { pin: '[REDACTED]' }, redactions: ['/pin'] });
    expect((started as { time: number }).time).toBeGreaterThanOrEqual(before);
    expect((started as { time: number }).time).toBeLessThanOrEqual((failed as { time: number }).time);
    expect(JSON.stringify(events)).not.toContain('987654');
  });

  it('a stream of it: the error event and the failure are scrubbed, observed or not', async () => {
    const events: ExecEvent[] = [];
    const observed = createRunner(withTelemetryConfig(options(), { redactor: new Redactor(), sink: new EventSink((e) => events.push(e)) }));
    for (const runner of [createRunner(options()), observed]) {
      const err = await failure(
        (async () => {
          for await (const event of runner.runStream('r:vault', { pin: '987654' })) void event;
        })(),
      );
      expect(err.message).toContain('wrong pin [REDACTED]');
    }
    expect(events[0]).toMatchObject({ type: 'call.started', mode: 'stream', args: { pin: '[REDACTED]' } });
    expect(JSON.stringify(events)).not.toContain('987654');
  });

  describe('its span', () => {
    const tracing = useTracing();

    it('carries its arguments redacted and names the tool, on success and on failure', async () => {
      const runner = createRunner(options());
      await failure(runner.run('r:vault', { pin: '987654' }));
      await runner.run('r:vault', { pin: 'good' });
      const spans = (await tracing.finished()).filter((s) => s.name === 'execute_tool r:vault');
      expect(spans).toHaveLength(2);
      for (const span of spans) {
        expect(span.attributes['toolexec.tool.name']).toBe('vault');
        expect(span.attributes['toolexec.redactions']).toEqual(['/pin']);
        expect(JSON.parse(span.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ pin: '[REDACTED]' });
      }
      expect(JSON.stringify(spans.map((s) => [s.attributes, s.events]))).not.toContain('987654');
      expect(spans[1]?.attributes['toolexec.phase.execute_ms']).toBeTypeOf('number');
    });
  });
});
