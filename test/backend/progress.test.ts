import { describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { createRunner, type ProgressEvent, type StreamEvent } from '../../src/run/index.js';
import { createBackendRegistry, createLocalBackend, registerBackendTools } from '../../src/backend/index.js';

async function servedThroughRegistry(): Promise<{ runner: ReturnType<typeof createRunner>; sawOnProgress: () => boolean | undefined }> {
  const backend = createLocalBackend('files');
  let saw: boolean | undefined;
  backend.registerHandler('work', (_args, ctx) => {
    saw = typeof ctx.onProgress === 'function';
    ctx.onProgress?.({ progress: 1, total: 2, message: 'half' });
    return { ok: true };
  });
  const registry = createBackendRegistry();
  registry.register(backend);
  const index = createToolIndex();
  await registerBackendTools(index, registry);
  return { runner: createRunner({ index, backends: registry }), sawOnProgress: () => saw };
}

describe('progress of a handler served through a backend registry', () => {
  it("reaches run's onProgress between started and completed", async () => {
    const { runner, sawOnProgress } = await servedThroughRegistry();
    const seen: ProgressEvent[] = [];
    await runner.run('files:work', {}, { onProgress: (p) => seen.push(p) });
    expect(sawOnProgress()).toBe(true);
    expect(seen).toEqual([
      { progress: 0, total: 1, message: 'started' },
      { progress: 1, total: 2, message: 'half' },
      { progress: 1, total: 1, message: 'completed' },
    ]);
  });

  it('becomes a progress event of runStream', async () => {
    const { runner } = await servedThroughRegistry();
    const events: StreamEvent[] = [];
    for await (const event of runner.runStream('files:work', {})) events.push(event);
    expect(events.map((e) => e.kind)).toContain('progress');
    expect(events.filter((e) => e.kind === 'progress').map((e) => e.data)).toContainEqual({ progress: 1, total: 2, message: 'half' });
    expect(events.at(-1)).toMatchObject({ kind: 'done', data: { ok: true } });
  });

  it('is absent from ctx when nobody listens, and a throwing listener does not fail the handler', async () => {
    const { runner, sawOnProgress } = await servedThroughRegistry();
    await runner.run('files:work', {});
    expect(sawOnProgress()).toBe(false);
    const result = await runner.run(
      'files:work',
      {},
      {
        onProgress: () => {
          throw new Error('listener boom');
        },
      },
    );
    expect(result.structured).toEqual({ ok: true });
  });

  it('LocalBackend.execute hands options.onProgress to the handler', async () => {
    const backend = createLocalBackend('b');
    backend.registerHandler('t', (_args, ctx) => {
      ctx.onProgress?.({ progress: 3 });
      return 'ok';
    });
    const seen: unknown[] = [];
    expect(await backend.execute('t', {}, { onProgress: (p) => seen.push(p) })).toBe('ok');
    expect(seen).toEqual([{ progress: 3 }]);
    await expect(backend.execute('t', {}, { onProgress: 5 as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
