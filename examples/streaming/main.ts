/**
 * Streaming and progress: `runToolStream` yields `progress`, `chunk`, `done` (and `error`) events;
 * leaving the loop early stops the tool.
 *
 *   node --import tsx examples/streaming/main.ts
 *
 * A local handler streams by returning an AsyncIterable (one `chunk` per value, then `done` with
 * the last); `ctx.onProgress` reports become `progress` events. MCP tools stream their progress
 * notifications. Every stream starts with the `started` report and ends with `completed` (or
 * `error`), as `onProgress` does. A backend that cannot stream fails with `STREAM_NOT_SUPPORTED`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createExec, defineTool, hasErrorCode, type StreamEvent } from 'toolexec';
import { providerBackend } from 'toolexec/model';
import { fxServer } from '../shared/shop.js';
import { check, failure, json, runExample, show } from '../shared/report.js';

const LINES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
const stopped: string[] = [];

const exec = createExec({
  tools: [
    {
      tool: defineTool({
        namespace: 'logs',
        name: 'tail',
        description: 'Stream log lines as they are read.',
        inputSchema: { type: 'object', properties: { lines: { type: 'integer', minimum: 1 } } },
      }),
      // An async generator: each yielded value is a chunk. `ctx.signal` aborts when the consumer leaves.
      handler: async function* ({ lines = LINES.length }, { signal, onProgress }) {
        const n = Math.min(lines as number, LINES.length);
        signal.addEventListener('abort', () => stopped.push('logs:tail'), { once: true });
        for (let i = 0; i < n; i++) {
          await sleep(10, undefined, { signal });
          onProgress?.({ progress: i + 1, total: n });
          yield { line: i + 1, text: LINES[i] };
        }
      },
    },
  ],
  mcpServers: { fx: fxServer },
  // Tools of `provider` backends run here; this provider has no callToolStream, so it cannot stream.
  provider: { callTool: async (providerId, id, args) => ({ providerId, id, args }) },
});

function describe(e: StreamEvent): string {
  // `kind` narrows the event: a progress event's `data` is a ProgressEvent, an error event has its error.
  if (e.kind === 'progress') return `progress ${e.data.progress}/${e.data.total ?? '?'}${e.data.message ? ` ${e.data.message}` : ''}`;
  if (e.kind === 'error') return `error ${e.error.code}`;
  return `${e.kind.padEnd(8)} ${json(e.data)}`;
}

await runExample(
  'streaming',
  async () => {
    // 1. A local stream: started, progress and chunks interleaved, completed, then done with the last chunk.
    const kinds: string[] = [];
    for await (const event of exec.runToolStream('logs:tail', { lines: 3 })) {
      kinds.push(event.kind);
      show('logs:tail', describe(event), 16);
    }
    check(
      json(kinds) === json(['progress', 'progress', 'chunk', 'progress', 'chunk', 'progress', 'chunk', 'progress', 'done']),
      'started, three progress/chunk pairs, completed, then done',
    );

    // 2. Leaving the loop early aborts the handler's signal and closes the generator.
    let seen = 0;
    for await (const event of exec.runToolStream('logs:tail', {})) {
      if (event.kind === 'chunk' && ++seen === 2) break;
    }
    await sleep(5);
    show('early exit', `read 2 of ${LINES.length} chunks, then break: the handler was told to stop (${stopped.join(', ')})`, 16);
    check(json(stopped) === json(['logs:tail']), 'the handler saw its signal abort');

    // 3. An MCP tool: its progress notifications arrive as events, its result as done.
    const mcpKinds: string[] = [];
    for await (const event of exec.runToolStream('fx:convert_many', {
      amountsCents: [100, 250, 999],
      from: 'USD',
      to: 'EUR',
      delayMs: 10,
    })) {
      mcpKinds.push(event.kind);
      show('fx:convert_many', describe(event), 16);
    }
    check(mcpKinds.filter((k) => k === 'progress').length >= 3 && mcpKinds.at(-1) === 'done', 'MCP progress then done');

    // 4. Progress without streaming: runTool's onProgress gets started → handler reports → completed.
    const reports: string[] = [];
    const run = await exec.runTool(
      'fx:convert_many',
      { amountsCents: [1, 2], from: 'USD', to: 'GBP', delayMs: 5 },
      {
        onProgress: (p) => reports.push(`${p.progress}/${p.total ?? '?'}`),
      },
    );
    show('onProgress', `${reports.join(' → ')} then ${json(run.value)}`, 16);
    check(reports[0] === '0/1' && reports.at(-1) === '1/1' && reports.length === 4, 'started, two reports, completed');

    // 5. A provider without callToolStream cannot stream.
    exec.index.registerTool(
      defineTool({ namespace: 'weather', name: 'forecast', inputSchema: { type: 'object' } }),
      providerBackend('weather-api', 'forecast'),
    );
    const direct = await exec.runTool('weather:forecast', { city: 'Oslo' });
    show('provider', `runTool → ${json(direct.value)}`, 16);
    const err = await failure(
      (async () => {
        for await (const event of exec.runToolStream('weather:forecast', {})) show('', describe(event), 16);
      })(),
      'streaming from a provider without callToolStream',
    );
    show('', `runToolStream → ${hasErrorCode(err, 'STREAM_NOT_SUPPORTED') ? 'STREAM_NOT_SUPPORTED' : String(err)}`, 16);
    check(hasErrorCode(err, 'STREAM_NOT_SUPPORTED'), 'STREAM_NOT_SUPPORTED');
  },
  () => exec.close(),
);
