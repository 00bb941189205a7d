import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createCodeExecutor, type CodeEngine, type CodeEngineParams } from '../../src/code/index.js';
import { createDocStore, createToolIndex } from '../../src/discovery/index.js';
import { localBackend } from '../../src/model/index.js';
import { createRunner } from '../../src/run/index.js';
import { createDirectGateway, createStreamConnection, serveGateway } from '../../src/runtime/index.js';
import { useTracing, isChildOf, spanNamed } from '../run/otel-helpers.js';

function parts() {
  const index = createToolIndex();
  index.registerTool({ name: 'add', namespace: 'math', inputSchema: { type: 'object' } }, localBackend('add'));
  const runner = createRunner({ index, local: { add: (args) => (args.a as number) + (args.b as number) } });
  return { index, docs: createDocStore({ index }), runner };
}

const tracing = useTracing();

describe('W3C trace context through the code-mode gateway', () => {
  it('into the sandbox: the engine gets the snippet span’s traceparent in its metadata; its calls are the span’s children', async () => {
    let seen: CodeEngineParams | undefined;
    // a test double of the injectable engine: what a sandbox receives, and one call back through the gateway
    const engine: CodeEngine = {
      execute: async (params, tools) => {
        seen = params;
        const result = await tools.runTool('math:add', { a: 1, b: 2 });
        return { value: result.structured, stdout: '', stderr: '' };
      },
    };
    const code = createCodeExecutor({ ...parts(), engine });
    const result = await code.executeCode({ code: 'ignored by the double', metadata: { mine: 1 } });
    expect(result.value).toBe(3);
    const spans = await tracing.finished();
    const snippet = spanNamed(spans, 'execute_code');
    const { traceId, spanId } = snippet.spanContext();
    expect(seen?.metadata).toEqual({ mine: 1, traceparent: `00-${traceId}-${spanId}-01` });
    expect(isChildOf(spanNamed(spans, 'execute_tool math:add'), snippet)).toBe(true);
  });

  it('and back: a gateway request carrying traceparent runs its tool call as a child of that remote parent', async () => {
    const { index, docs, runner } = parts();
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const server = serveGateway(createDirectGateway({ index, docs, runner }), createStreamConnection(toServer, toClient));
    const client = createStreamConnection(toClient, toServer);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    await client.send({
      type: 'run_tool',
      id: '1',
      payload: { id: 'math:add', args: { a: 2, b: 2 } },
      traceparent: `00-${traceId}-${parentId}-01`,
    });
    for await (const item of client.incoming) {
      expect(item).toMatchObject({ kind: 'message', message: { type: 'response', id: '1' } });
      break;
    }
    await client.close();
    await server.done;
    const call = spanNamed(await tracing.finished(), 'execute_tool math:add');
    expect(call.spanContext().traceId).toBe(traceId);
    expect(call.parentSpanContext?.spanId).toBe(parentId);
    expect(call.parentSpanContext?.isRemote).toBe(true);
  });
});
