/**
 * One progress model (issue 23, item 5): for every backend kind — a local handler, a real MCP
 * server over stdio that sends progress notifications, a provider — `runTool`'s `onProgress` and
 * `runToolStream`'s `progress` events carry the same reports, in the same order: `started`, the
 * backend's own reports, then `completed` (or `error`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createExec, defineLocalTool, type Exec } from '../../src/exec/index.js';
import { createToolIndex } from '../../src/discovery/index.js';
import { providerBackend } from '../../src/model/index.js';
import type { ProgressEvent, ProviderExecutor, RunOptions, StreamEvent } from '../../src/run/index.js';
import { stdioFixture } from '../mcp/helpers.js';

const STARTED: ProgressEvent = { progress: 0, total: 1, message: 'started' };
const COMPLETED: ProgressEvent = { progress: 1, total: 1, message: 'completed' };
const FAILED: ProgressEvent = { progress: 1, total: 1, message: 'error' };
const STEPS = 3;
const stepReports = (): ProgressEvent[] =>
  Array.from({ length: STEPS }, (_, i) => ({ progress: i + 1, total: STEPS, message: `step ${i + 1}` }));

const stepsSchema = {
  type: 'object',
  properties: { steps: { type: 'integer', minimum: 0 }, fail: { type: 'boolean' } },
  required: ['steps'],
} as const;

/** A local tool reporting one progress report per step through `ctx.onProgress`. */
const localStepper = defineLocalTool({
  tool: { name: 'progress', namespace: 'loc', inputSchema: stepsSchema },
  handler: async ({ steps, fail }, ctx) => {
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      ctx.onProgress?.({ progress: i, total: steps, message: `step ${i}` });
    }
    if (fail === true) throw new Error('the local tool failed');
    return `done ${steps}`;
  },
});

/**
 * The provider is an interface the user implements: this one reports its steps through
 * `options.onProgress` on `callTool` and as `progress` events on `callToolStream`, as a real one would.
 */
const provider: ProviderExecutor = {
  async callTool(_providerId, _toolId, args, options?: RunOptions) {
    const steps = Number(args.steps);
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      options?.onProgress?.({ progress: i, total: steps, message: `step ${i}` });
    }
    if (args.fail === true) throw new Error('the provider failed');
    return `done ${steps}`;
  },
  async *callToolStream(_providerId, _toolId, args) {
    const steps = Number(args.steps);
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      yield { kind: 'progress', data: { progress: i, total: steps, message: `step ${i}` } };
    }
    if (args.fail === true) throw new Error('the provider failed');
    yield { kind: 'done', data: `done ${steps}` };
  },
};

const index = createToolIndex();
index.registerTool(
  { name: 'progress', namespace: 'prov', inputSchema: { ...stepsSchema, required: [...stepsSchema.required] } },
  providerBackend('steps', 'progress'),
);

const exec: Exec = createExec({ index, tools: [localStepper], provider, mcpServers: { fx: stdioFixture() } });
afterAll(() => exec.close());

/** What `onProgress` of `runTool` received, and how the call ended. */
async function viaRun(toolId: string, args: Record<string, unknown>): Promise<{ reports: ProgressEvent[]; error: unknown }> {
  const reports: ProgressEvent[] = [];
  const error = await exec.runTool(toolId, args, { onProgress: (p) => reports.push(p) }).then(
    () => undefined,
    (err: unknown) => err,
  );
  return { reports, error };
}

/** The `progress` events of `runToolStream` (narrowed on `kind`, no casts), every event, and how the stream ended. */
async function viaStream(
  toolId: string,
  args: Record<string, unknown>,
): Promise<{ reports: ProgressEvent[]; events: StreamEvent[]; error: unknown }> {
  const reports: ProgressEvent[] = [];
  const events: StreamEvent[] = [];
  let error: unknown;
  try {
    for await (const event of exec.runToolStream(toolId, args)) {
      events.push(event);
      if (event.kind === 'progress') reports.push(event.data);
    }
  } catch (err) {
    error = err;
  }
  return { reports, events, error };
}

const BACKENDS = [
  { kind: 'local', toolId: 'loc:progress' },
  { kind: 'mcp (a real SDK server over stdio sending notifications/progress)', toolId: 'fx:progress' },
  { kind: 'provider', toolId: 'prov:progress' },
] as const;

describe.each(BACKENDS)('one progress model: $kind', ({ toolId }) => {
  it("onProgress and the stream's progress events carry the same reports: started, the backend's, completed", async () => {
    const run = await viaRun(toolId, { steps: STEPS, delayMs: 2 });
    const stream = await viaStream(toolId, { steps: STEPS, delayMs: 2 });
    expect(run.error).toBeUndefined();
    expect(stream.error).toBeUndefined();
    expect(run.reports).toEqual([STARTED, ...stepReports(), COMPLETED]);
    expect(stream.reports).toEqual(run.reports);
    // completed comes just before done, and every event names the tool.
    expect(stream.events.slice(-2).map((e) => e.kind)).toEqual(['progress', 'done']);
    expect(stream.events.at(-1)?.data).toBe(`done ${STEPS}`);
    expect(stream.events.every((e) => e.toolId === toolId)).toBe(true);
  });

  it('a call without reports of its own still gets started and completed on both paths', async () => {
    const run = await viaRun(toolId, { steps: 0 });
    const stream = await viaStream(toolId, { steps: 0 });
    expect(run.reports).toEqual([STARTED, COMPLETED]);
    expect(stream.reports).toEqual([STARTED, COMPLETED]);
  });

  it('a call rejected before dispatch (bad arguments) reports started then error on both paths', async () => {
    const run = await viaRun(toolId, { steps: 'three' });
    const stream = await viaStream(toolId, { steps: 'three' });
    expect(run.error).toMatchObject({ code: 'VALIDATION' });
    expect(stream.error).toMatchObject({ code: 'VALIDATION' });
    expect(run.reports).toEqual([STARTED, FAILED]);
    expect(stream.reports).toEqual([STARTED, FAILED]);
  });
});

describe('one progress model: failures after the backend reported', () => {
  it.each([
    ['local', 'loc:progress', { steps: 2, fail: true }],
    ['provider', 'prov:progress', { steps: 2, fail: true }],
  ] as const)('%s: the reports so far, then error, on both paths', async (_kind, toolId, args) => {
    const run = await viaRun(toolId, args);
    const stream = await viaStream(toolId, args);
    expect(run.error).toMatchObject({ code: 'EXECUTION' });
    expect(stream.error).toMatchObject({ code: 'EXECUTION' });
    const expected = [STARTED, { progress: 1, total: 2, message: 'step 1' }, { progress: 2, total: 2, message: 'step 2' }, FAILED];
    expect(run.reports).toEqual(expected);
    expect(stream.reports).toEqual(expected);
  });

  it('mcp: an isError result ends with error before the error event, as onProgress ends with error', async () => {
    const run = await viaRun('fx:fail', { reason: 'no' });
    const stream = await viaStream('fx:fail', { reason: 'no' });
    expect(run.error).toMatchObject({ code: 'EXECUTION' });
    expect(run.reports).toEqual([STARTED, FAILED]);
    expect(stream.reports).toEqual([STARTED, FAILED]);
    expect(stream.events.map((e) => e.kind)).toEqual(['progress', 'progress', 'error']);
  });
});

describe('one progress model: a call stopped by its deadline or its caller', () => {
  const ends = (reports: ProgressEvent[]) => [reports.at(0), reports.at(-1)];

  it('a timeout ends with error on both paths', async () => {
    const reports: ProgressEvent[] = [];
    const run = await exec.runTool('loc:progress', { steps: 10_000 }, { timeoutMs: 60, onProgress: (p) => reports.push(p) }).then(
      () => undefined,
      (err: unknown) => err,
    );
    const streamed: ProgressEvent[] = [];
    let streamError: unknown;
    try {
      for await (const event of exec.runToolStream('loc:progress', { steps: 10_000 }, { timeoutMs: 60 })) {
        if (event.kind === 'progress') streamed.push(event.data);
      }
    } catch (err) {
      streamError = err;
    }
    expect(run).toMatchObject({ code: 'TIMEOUT' });
    expect(streamError).toMatchObject({ code: 'TIMEOUT' });
    expect(ends(reports)).toEqual([STARTED, FAILED]);
    expect(ends(streamed)).toEqual([STARTED, FAILED]);
  });

  it('an abort by the caller ends with error on both paths (the stream then ends quietly)', async () => {
    const runController = new AbortController();
    const reports: ProgressEvent[] = [];
    const run = await exec
      .runTool(
        'loc:progress',
        { steps: 10_000 },
        {
          signal: runController.signal,
          onProgress: (p) => {
            reports.push(p);
            if (p.message === 'step 2') runController.abort();
          },
        },
      )
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    const streamController = new AbortController();
    const streamed: ProgressEvent[] = [];
    for await (const event of exec.runToolStream('loc:progress', { steps: 10_000 }, { signal: streamController.signal })) {
      if (event.kind !== 'progress') continue;
      streamed.push(event.data);
      if (event.data.message === 'step 2') streamController.abort();
    }
    expect(run).toMatchObject({ code: 'ABORTED' });
    expect(ends(reports)).toEqual([STARTED, FAILED]);
    expect(ends(streamed)).toEqual([STARTED, FAILED]);
  });
});
