import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { codeResultOf } from '../../src/code/index.js';
import { createExec, type DefaultExec, type ExecEvent } from '../../src/exec/index.js';
import type { ToolexecError } from '../../src/model/index.js';
import { installTracing, isChildOf, spanNamed, spanText } from '../run/otel-helpers.js';

const SECRET = 'pw-9f8e7d6c5b';
const CARD = '4111111111111111';

const events: ExecEvent[] = [];
const exec: DefaultExec = createExec({
  onEvent: (event) => events.push(event),
  tools: [
    {
      tool: {
        name: 'add',
        namespace: 'math',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      },
      handler: (args) => (args.a as number) + (args.b as number),
    },
    {
      tool: { name: 'double', namespace: 'math', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
      handler: async (args) => 2 * (args.n as number),
    },
    {
      tool: {
        name: 'login',
        namespace: 'acct',
        inputSchema: { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string' }, card: { type: 'object' } } },
        _meta: { 'toolexec/redact': ['card.number'] },
      },
      handler: (args) => {
        if (args.password !== SECRET) throw new Error(`wrong password ${String(args.password)}`);
        return { ok: true, user: args.user, card: (args.card as { number: string }).number.slice(-4) };
      },
    },
  ],
});

let tracing: ReturnType<typeof installTracing>;
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
});

describe('a snippet in a trace (WASM sandbox)', () => {
  it('the tools a snippet calls are children of its execute_code span, itself a child of the caller', async () => {
    const result = await trace.getTracer('test').startActiveSpan('request', async (span) => {
      try {
        return await exec.executeCode({
          code: `const s = await tools.runTool('math:add', { a: 2, b: 3 });
                 const d = await tools.runTool('math:double', { n: s.structured });
                 return d.structured;`,
        });
      } finally {
        span.end();
      }
    });
    expect(result.value).toBe(10);
    const spans = await tracing.finished();
    const snippet = spanNamed(spans, 'execute_code');
    expect(isChildOf(snippet, spanNamed(spans, 'request'))).toBe(true);
    const add = spanNamed(spans, 'execute_tool math:add');
    const double = spanNamed(spans, 'execute_tool math:double');
    expect(isChildOf(add, snippet)).toBe(true);
    expect(isChildOf(double, snippet)).toBe(true);
    expect(snippet.attributes).toMatchObject({
      'toolexec.sandbox.language': 'javascript',
      'toolexec.sandbox.backend': 'wasm',
      'toolexec.code.tool_calls': 2,
    });
    const run = events.find((e) => e.type === 'sandbox.run');
    expect(run).toMatchObject({ outcome: 'ok', backend: 'wasm', toolCalls: 2, traceId: snippet.spanContext().traceId });
  });

  it('a chain from a snippet: run_chain under the snippet, its steps under the chain', async () => {
    await exec.executeCode({
      code: `return (await tools.runChain([{ toolId: 'math:add', args: { a: 1, b: 1 } }, { toolId: 'math:double', argsFrom: { n: '' } }])).result.structured;`,
    });
    const spans = await tracing.finished();
    const chain = spanNamed(spans, 'run_chain');
    expect(isChildOf(chain, spanNamed(spans, 'execute_code'))).toBe(true);
    expect(isChildOf(spanNamed(spans, 'execute_tool math:double'), chain)).toBe(true);
  });

  it('secrets in a snippet’s calls: the trace, the error, the spans and the events carry none, with the pointers listed', async () => {
    const failure = await exec
      .executeCode({
        code: `const ok = await tools.runTool('acct:login', { user: 'ann', password: '${SECRET}', card: { number: '${CARD}' } });
               await tools.runTool('acct:login', { user: 'bob', password: 'not-${SECRET}', card: { number: '${CARD}' } });
               return ok;`,
      })
      .then(
        () => undefined,
        (e: unknown) => e as ToolexecError,
      );
    expect(failure).toBeDefined();
    const partial = codeResultOf(failure);
    expect(partial?.toolCalls).toHaveLength(2);
    expect(partial?.toolCalls[0]).toMatchObject({
      args: { user: 'ann', password: '[REDACTED]', card: { number: '[REDACTED]' } },
      redactions: ['/password', '/card/number'],
      structured: { ok: true, user: 'ann', card: '1111' },
    });
    expect(partial?.toolCalls[1]?.error).toContain('wrong password [REDACTED]');
    const everything = [
      JSON.stringify(failure),
      String(failure?.message),
      String(failure?.stack),
      JSON.stringify(events),
      spanText(await tracing.finished()),
    ].join('\n');
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(CARD);
    const run = events.find((e) => e.type === 'sandbox.run');
    expect(run).toMatchObject({ outcome: 'error' });
    expect((run as { redactions?: string[] }).redactions).toEqual(
      expect.arrayContaining(['/toolCalls/0/args/password', '/toolCalls/0/args/card/number', '/toolCalls/1/args/password']),
    );
    const started = events.filter((e) => e.type === 'call.started');
    expect(started).toHaveLength(2);
    expect(started[0]).toMatchObject({ toolId: 'acct:login', redactions: ['/password', '/card/number'] });
  });

  it('a limit hit: a limit.hit event and the span says which limit', async () => {
    const limited = createExec({ maxToolCalls: 1, onEvent: (event) => events.push(event), tools: [] });
    try {
      await expect(
        limited.executeCode({ code: `for (let i = 0; i < 2; i++) { try { await tools.runTool('x:y', {}); } catch {} } return 1;` }),
      ).rejects.toMatchObject({
        code: 'LIMIT_EXCEEDED',
      });
    } finally {
      await limited.close();
    }
    expect(events.find((e) => e.type === 'limit.hit')).toMatchObject({ limit: 'maxToolCalls', code: 'LIMIT_EXCEEDED', backend: 'wasm' });
    const snippet = spanNamed(await tracing.finished(), 'execute_code');
    expect(snippet.status).toEqual({ code: 2, message: 'LIMIT_EXCEEDED' });
    expect(snippet.attributes['toolexec.limit.hit']).toBe('maxToolCalls');
  });
});
