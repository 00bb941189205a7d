/**
 * A snippet's telemetry carries the profile and limits in force — the call's, else the facade's
 * or the executor's defaults and caps — not just what the caller passed: the `execute_code` span,
 * the `sandbox.run` event and the sandbox metrics.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCodeExecutor, type CodeEngine } from '../../src/code/index.js';
import { createDocStore, createToolIndex } from '../../src/discovery/index.js';
import { createExec, type DefaultExec, type ExecEvent } from '../../src/exec/index.js';
import { createRunner } from '../../src/run/index.js';
import { installMetrics, installTracing, spanNamed } from '../run/otel-helpers.js';

const events: ExecEvent[] = [];
const exec: DefaultExec = createExec({
  securityProfile: 'hardened',
  maxToolCalls: 7,
  defaultTimeoutMs: 12_000,
  onEvent: (event) => events.push(event),
});

let tracing: ReturnType<typeof installTracing>;
let metrics: ReturnType<typeof installMetrics>;
beforeAll(() => {
  tracing = installTracing();
});
afterAll(async () => {
  await exec.close();
  await tracing.uninstall();
});
beforeEach(() => {
  tracing.exporter.reset();
  events.length = 0;
  metrics = installMetrics();
});
afterEach(async () => {
  await metrics.uninstall();
});

type Point = { value: unknown; attributes: Record<string, unknown> };
async function sandboxRuns(): Promise<Point[]> {
  const exporter = await metrics.collect();
  return (exporter.getMetrics().at(-1)?.scopeMetrics ?? [])
    .flatMap((sm) => sm.metrics)
    .filter((m) => m.descriptor.name === 'toolexec.sandbox.runs')
    .flatMap((m) => m.dataPoints as readonly Point[]);
}

async function codeSpan() {
  return spanNamed(await tracing.finished(), 'execute_code');
}

describe('the profile and limits in force', () => {
  it('a call without options: the facade’s securityProfile, defaultTimeoutMs and maxToolCalls', async () => {
    await expect(exec.executeCode({ code: 'return 1' })).resolves.toMatchObject({ value: 1 });
    expect((await codeSpan()).attributes).toMatchObject({
      'toolexec.sandbox.language': 'javascript',
      'toolexec.sandbox.profile': 'hardened',
      'toolexec.limit.timeout_ms': 12_000,
      'toolexec.limit.max_tool_calls': 7,
    });
    expect(events.find((e) => e.type === 'sandbox.run')).toMatchObject({ profile: 'hardened', outcome: 'ok' });
    expect((await sandboxRuns()).map((p) => p.attributes['toolexec.sandbox.profile'])).toEqual(['hardened']);
  });

  it('a call’s own options, with maxToolCalls capped by the facade’s', async () => {
    await exec.executeCode({ code: 'return 2', profile: 'standard', timeoutMs: 5_000, maxToolCalls: 50 });
    expect((await codeSpan()).attributes).toMatchObject({
      'toolexec.sandbox.profile': 'standard',
      'toolexec.limit.timeout_ms': 5_000,
      'toolexec.limit.max_tool_calls': 7,
    });
    expect(events.find((e) => e.type === 'sandbox.run')).toMatchObject({ profile: 'standard' });
  });

  it('a call refused for its parameters: no profile on the span, `unknown` (never the caller’s text) on the metrics', async () => {
    await expect(exec.executeCode({ code: 'return 3', profile: 'bogus' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const span = await codeSpan();
    expect(span.attributes).not.toHaveProperty('toolexec.sandbox.profile');
    expect(span.attributes).not.toHaveProperty('toolexec.limit.timeout_ms');
    expect(events.find((e) => e.type === 'sandbox.run')).not.toHaveProperty('profile');
    expect((await sandboxRuns()).map((p) => p.attributes['toolexec.sandbox.profile'])).toEqual(['unknown']);
  });

  it('an executor without a profile: the profile the engine’s result names', async () => {
    const index = createToolIndex();
    const engine: CodeEngine = {
      execute: async () => ({
        value: 1,
        stdout: '',
        stderr: '',
        backend: { kind: 'wasm', readiness: 'prod', details: { profile: 'standard' } },
      }),
    };
    const code = createCodeExecutor({ index, docs: createDocStore({ index }), runner: createRunner({ index }), engine, maxToolCalls: 3 });
    await code.executeCode({ code: 'ignored by the double' });
    expect((await codeSpan()).attributes).toMatchObject({
      'toolexec.sandbox.profile': 'standard',
      'toolexec.limit.timeout_ms': 30_000,
      'toolexec.limit.max_tool_calls': 3,
    });
    expect((await sandboxRuns()).map((p) => p.attributes['toolexec.sandbox.profile'])).toEqual(['standard']);
  });
});
