/**
 * OpenTelemetry SDK set-ups for the telemetry tests: an in-memory span exporter behind a tracer
 * provider with async-hooks context propagation, and an in-memory metric exporter.
 */
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** A tracer provider exporting to memory, registered globally. */
export interface InstalledTracing {
  exporter: InMemorySpanExporter;
  /** The spans ended so far (after a flush). */
  finished: () => Promise<ReadableSpan[]>;
  uninstall: () => Promise<void>;
}

/** Registers a tracer provider exporting to memory (and the async-hooks context manager). */
export function installTracing(): InstalledTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  trace.setGlobalTracerProvider(provider);
  return {
    exporter,
    finished: async () => {
      await provider.forceFlush();
      return exporter.getFinishedSpans();
    },
    uninstall: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

/**
 * Tracing for the enclosing suite: installed before all its tests, removed after them, the
 * exporter emptied before each test.
 */
export function useTracing(): Omit<InstalledTracing, 'uninstall'> {
  let installed: InstalledTracing | undefined;
  const current = (): InstalledTracing => {
    if (installed === undefined) throw new Error('useTracing: read inside a test, not while the suite is collected');
    return installed;
  };
  beforeAll(() => {
    installed = installTracing();
  });
  afterAll(async () => {
    await installed?.uninstall();
    installed = undefined;
  });
  beforeEach(() => {
    installed?.exporter.reset();
  });
  return {
    get exporter() {
      return current().exporter;
    },
    finished: () => current().finished(),
  };
}

/** Registers a meter provider whose reader exports to memory on `collect()`. */
export function installMetrics(): { collect: () => Promise<InMemoryMetricExporter>; uninstall: () => Promise<void> } {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
  return {
    collect: async () => {
      await reader.forceFlush();
      return exporter;
    },
    uninstall: async () => {
      await provider.shutdown();
      metrics.disable();
    },
  };
}

/** The finished span named `name` (exactly one). */
export function spanNamed(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1)
    throw new Error(`expected one span "${name}", found ${found.length} among ${spans.map((s) => s.name).join(', ')}`);
  return found[0] as ReadableSpan;
}

/** True when `child`'s parent is `parent` (same trace). */
export function isChildOf(child: ReadableSpan, parent: ReadableSpan): boolean {
  return child.spanContext().traceId === parent.spanContext().traceId && child.parentSpanContext?.spanId === parent.spanContext().spanId;
}

/** Everything spans carry as text: names, attributes, event attributes and status messages. */
export function spanText(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((span) => ({
      name: span.name,
      attributes: span.attributes,
      events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
      status: span.status,
    })),
  );
}
