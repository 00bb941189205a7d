/**
 * The tool-call metrics through a real meter provider: the duration histograms' bucket boundaries
 * (seconds), and one `_unknown` series for every call whose ID names no tool.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { localBackend, type Tool } from '../../src/model/index.js';
import { createRunner } from '../../src/run/index.js';
import { DURATION_BUCKETS_S, UNKNOWN_TOOL_LABEL } from '../../src/run/spans.js';
import { installMetrics, installTracing, spanNamed } from './otel-helpers.js';

const tools: Tool[] = [
  { name: 'fast', namespace: 'demo', inputSchema: { type: 'object' } },
  { name: 'slow', namespace: 'demo', inputSchema: { type: 'object' } },
  { name: 'fail', namespace: 'demo', inputSchema: { type: 'object' } },
];

/** How far the fake clock has been moved (`performance.now()` = real time + this). */
let skewMs = 0;

function runner() {
  const index = createToolIndex();
  for (const tool of tools) index.registerTool(tool, localBackend(tool.name));
  return createRunner({
    index,
    local: {
      fast: () => {
        skewMs += 100;
        return 1;
      },
      slow: () => {
        skewMs += 1500;
        return 2;
      },
      fail: () => {
        throw new Error('no');
      },
    },
  });
}

interface HistogramValue {
  count: number;
  sum: number;
  buckets: { boundaries: number[]; counts: number[] };
}
type Point = { value: unknown; attributes: Record<string, unknown> };

let metrics: ReturnType<typeof installMetrics>;
let tracing: ReturnType<typeof installTracing>;
beforeAll(() => {
  tracing = installTracing();
});
afterAll(async () => {
  await tracing.uninstall();
});
beforeEach(() => {
  metrics = installMetrics();
  tracing.exporter.reset();
  skewMs = 0;
  const now = performance.now.bind(performance);
  vi.spyOn(performance, 'now').mockImplementation(() => now() + skewMs);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await metrics.uninstall();
});

async function points(name: string): Promise<Point[]> {
  const exporter = await metrics.collect();
  // cumulative: the last export holds everything
  return (exporter.getMetrics().at(-1)?.scopeMetrics ?? [])
    .flatMap((sm) => sm.metrics)
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints as readonly Point[]);
}

/** The bucket a histogram point's one value landed in, checked against where that value belongs. */
function bucketOf(point: Point | undefined): number {
  const value = point?.value as HistogramValue;
  expect(value.count).toBe(1);
  expect(value.buckets.boundaries).toEqual(DURATION_BUCKETS_S);
  const bucket = value.buckets.counts.findIndex((count) => count === 1);
  const belongs = DURATION_BUCKETS_S.findIndex((bound) => value.sum <= bound);
  expect(bucket).toBe(belongs === -1 ? DURATION_BUCKETS_S.length : belongs);
  return bucket;
}

describe('the duration histograms', () => {
  it('advise bucket boundaries in seconds, 5 ms to the 10-minute ceiling', () => {
    expect(DURATION_BUCKETS_S).toEqual([
      0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 15, 30, 60, 120, 300, 600,
    ]);
  });

  it('toolexec.tool.duration: a 0.1 s call and a 1.5 s call land in different buckets of those boundaries', async () => {
    const r = runner();
    await r.run('demo:fast', {});
    await r.run('demo:slow', {});
    const durations = await points('toolexec.tool.duration');
    const fast = durations.find((p) => p.attributes['gen_ai.tool.name'] === 'demo:fast');
    const slow = durations.find((p) => p.attributes['gen_ai.tool.name'] === 'demo:slow');
    expect((fast?.value as HistogramValue).sum).toBeGreaterThanOrEqual(0.1);
    expect((slow?.value as HistogramValue).sum).toBeGreaterThanOrEqual(1.5);
    // with the SDK's default millisecond boundaries both were in (0, 5]
    expect(bucketOf(fast)).toBeGreaterThanOrEqual(DURATION_BUCKETS_S.indexOf(0.25));
    expect(bucketOf(slow)).toBeGreaterThan(bucketOf(fast));
  });
});

describe('metric labels of calls whose ID names no tool', () => {
  it('made-up, overlong and malformed IDs share one _unknown series; the spans still name what was asked', async () => {
    const r = runner();
    const asked = [...Array.from({ length: 40 }, (_, i) => `hallucinated:tool_${i}`), 'x'.repeat(3000), 'bad id with spaces', ''];
    for (const id of asked)
      await expect(r.run(id, {})).rejects.toMatchObject({ code: expect.stringMatching(/TOOL_NOT_FOUND|INVALID_TOOL_ID/) });
    await expect(r.run('demo:fail', {})).rejects.toMatchObject({ code: 'EXECUTION' });
    for (const name of ['toolexec.tool.calls', 'toolexec.tool.errors', 'toolexec.tool.duration']) {
      const labels = new Set((await points(name)).map((p) => p.attributes['gen_ai.tool.name']));
      expect([...labels].sort()).toEqual([UNKNOWN_TOOL_LABEL, 'demo:fail']);
    }
    const calls = await points('toolexec.tool.calls');
    expect(calls.filter((p) => p.attributes['gen_ai.tool.name'] === UNKNOWN_TOOL_LABEL).reduce((n, p) => n + (p.value as number), 0)).toBe(
      asked.length,
    );
    expect(calls.find((p) => p.attributes['error.type'] === 'TOOL_NOT_FOUND')?.attributes).toEqual({
      'gen_ai.tool.name': '_unknown',
      'toolexec.backend.kind': 'none',
      'error.type': 'TOOL_NOT_FOUND',
    });
    const spans = await tracing.finished();
    expect(spanNamed(spans, 'execute_tool hallucinated:tool_7').attributes['gen_ai.tool.name']).toBe('hallucinated:tool_7');
  });

  it('a known tool keeps its ID as label, even when its call fails before resolution (already aborted)', async () => {
    const r = runner();
    const signal = AbortSignal.abort(new Error('stop'));
    await expect(r.run('demo:fast', {}, { signal })).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(r.run('demo:nope', {}, { signal })).rejects.toMatchObject({ code: 'ABORTED' });
    const labels = (await points('toolexec.tool.errors')).map((p) => p.attributes['gen_ai.tool.name']).sort();
    expect(labels).toEqual([UNKNOWN_TOOL_LABEL, 'demo:fast']);
  });
});
