/**
 * The set-up snippet of docs/tracing.md ("Turning tracing on") runs against the SDK the project
 * tests with and exports toolexec's spans and metrics. The OTLP exporters (not installed here)
 * are stood in for by in-memory exporters built the same way, with no arguments.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as api from '@opentelemetry/api';
import * as contextAsyncHooks from '@opentelemetry/context-async-hooks';
import * as sdkMetrics from '@opentelemetry/sdk-metrics';
import * as sdkTrace from '@opentelemetry/sdk-trace';
import { createExec } from '../../src/exec/index.js';

const DOC = new URL('../../docs/tracing.md', import.meta.url);

/** The first `ts` code block after the "Turning tracing on" heading. */
function setupSnippet(): string {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('## Turning tracing on'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (match === null) throw new Error('no ts block under "Turning tracing on"');
  return match[1] as string;
}

const traceExporters: sdkTrace.InMemorySpanExporter[] = [];
const metricExporters: sdkMetrics.InMemoryMetricExporter[] = [];

/** What the snippet's imports name: the real packages, and stand-ins for the OTLP exporters. */
const modules: Record<string, unknown> = {
  '@opentelemetry/api': api,
  '@opentelemetry/context-async-hooks': contextAsyncHooks,
  '@opentelemetry/sdk-trace': sdkTrace,
  '@opentelemetry/sdk-metrics': sdkMetrics,
  '@opentelemetry/exporter-trace-otlp-http': {
    OTLPTraceExporter: class extends sdkTrace.InMemorySpanExporter {
      constructor() {
        super();
        traceExporters.push(this);
      }
    },
  },
  '@opentelemetry/exporter-metrics-otlp-http': {
    OTLPMetricExporter: class extends sdkMetrics.InMemoryMetricExporter {
      constructor() {
        super(sdkMetrics.AggregationTemporality.CUMULATIVE);
        metricExporters.push(this);
      }
    },
  },
};

/** Runs the snippet with its `import { a, b } from 'x';` lines bound to {@link modules}. */
function runSnippet(snippet: string): void {
  const body = snippet.replace(/^import \{([^}]*)\} from '([^']+)';$/gm, (_line, names: string, from: string) => {
    if (!(from in modules)) throw new Error(`the snippet imports ${from}, which this test does not provide`);
    return `const {${names}} = modules[${JSON.stringify(from)}];`;
  });
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the documented snippet, run as written
  new Function('modules', body)(modules);
}

afterAll(() => {
  api.trace.disable();
  api.metrics.disable();
  api.context.disable();
});

describe('docs/tracing.md, "Turning tracing on"', () => {
  it('the snippet registers providers that export toolexec’s spans and metrics', async () => {
    runSnippet(setupSnippet());
    expect(traceExporters).toHaveLength(1);
    expect(metricExporters).toHaveLength(1);
    const exec = createExec({
      tools: [{ tool: { name: 'echo', namespace: 'demo', inputSchema: { type: 'object' } }, handler: (args) => args }],
    });
    try {
      await exec.runTool('demo:echo', { a: 1 });
    } finally {
      await exec.close();
    }
    const tracerProvider = (api.trace.getTracerProvider() as api.ProxyTracerProvider).getDelegate() as sdkTrace.TracerProvider;
    await tracerProvider.forceFlush();
    expect(traceExporters[0]?.getFinishedSpans().map((span) => span.name)).toEqual(['execute_tool demo:echo']);
    const meterProvider = api.metrics.getMeterProvider() as sdkMetrics.MeterProvider;
    await meterProvider.forceFlush();
    const names = (metricExporters[0]?.getMetrics() ?? []).flatMap((rm) =>
      rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.descriptor.name)),
    );
    expect(names).toContain('toolexec.tool.calls');
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });
});
