import { describe, expect, it } from 'vitest';
import { createToolIndex } from '../../src/discovery/index.js';
import { mcpBackend, type Tool } from '../../src/model/index.js';
import { createRunner, type StreamEvent } from '../../src/run/index.js';
import { createBackendRegistry, registerBackendTools, type Backend, type BackendCallOptions } from '../../src/backend/index.js';

class Streaming implements Backend {
  readonly kind = 'http';
  readonly enabled = true;
  readonly calls: string[] = [];
  streamOptions: BackendCallOptions | undefined;
  constructor(readonly name = 'llm') {}
  async listTools(): Promise<Tool[]> {
    return [{ name: 'complete', inputSchema: { type: 'object' } }];
  }
  async execute(): Promise<unknown> {
    this.calls.push('execute');
    return 'whole text';
  }
  async *executeStream(_tool: string, _args: Record<string, unknown>, options?: BackendCallOptions): AsyncIterable<unknown> {
    this.calls.push('executeStream');
    this.streamOptions = options;
    yield 'whole ';
    yield 'text';
  }
}

async function kinds(stream: AsyncIterable<StreamEvent>): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of stream) if (event.kind !== 'progress') seen.push(`${event.kind}:${JSON.stringify(event.data)}`);
  return seen;
}

describe('runStream over a registry backend that implements executeStream', () => {
  it('streams through executeStream for a backend:tool binding; run still uses execute', async () => {
    const backend = new Streaming();
    const registry = createBackendRegistry();
    registry.register(backend);
    const index = createToolIndex();
    await registerBackendTools(index, registry);
    const runner = createRunner({ index, backends: registry });
    expect(await kinds(runner.runStream('llm:complete', {}, { idempotencyKey: 'k' }))).toEqual([
      'chunk:"whole "',
      'chunk:"text"',
      'done:"text"',
    ]);
    expect(backend.calls).toEqual(['executeStream']);
    expect(backend.streamOptions?.signal).toBeInstanceOf(AbortSignal);
    expect(backend.streamOptions?.idempotencyKey).toBe('k');
    expect((await runner.run('llm:complete', {})).structured).toBe('whole text');
    expect(backend.calls).toEqual(['executeStream', 'execute']);
  });

  it('streams through executeStream for an mcp binding served by the backend', async () => {
    const backend = new Streaming('srv');
    const registry = createBackendRegistry();
    registry.register(backend);
    const index = createToolIndex();
    index.registerTool({ name: 'complete', namespace: 'srv', inputSchema: { type: 'object' } }, mcpBackend('srv'));
    const runner = createRunner({ index, backends: registry });
    expect(await kinds(runner.runStream('srv:complete', {}))).toEqual(['chunk:"whole "', 'chunk:"text"', 'done:"text"']);
    expect(backend.calls).toEqual(['executeStream']);
  });

  it('a backend without executeStream gives one done from execute; one whose executeStream is not iterable fails EXECUTION', async () => {
    const plain: Backend = {
      kind: 'x',
      name: 'plain',
      enabled: true,
      listTools: async () => [{ name: 't', inputSchema: { type: 'object' } }],
      execute: async () => 42,
    };
    const broken: Backend = {
      kind: 'x',
      name: 'broken',
      enabled: true,
      listTools: async () => [{ name: 't', inputSchema: { type: 'object' } }],
      execute: async () => 42,
      executeStream: () => 5 as unknown as AsyncIterable<unknown>,
    };
    const registry = createBackendRegistry();
    registry.register(plain);
    registry.register(broken);
    const index = createToolIndex();
    await registerBackendTools(index, registry);
    const runner = createRunner({ index, backends: registry });
    expect(await kinds(runner.runStream('plain:t', {}))).toEqual(['done:42']);
    await expect(kinds(runner.runStream('broken:t', {}))).rejects.toMatchObject({ code: 'EXECUTION', op: 'stream' });
  });
});
