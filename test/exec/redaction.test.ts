import { afterAll, describe, expect, it } from 'vitest';
import { createExec, type ExecChainError, type ExecEvent, type LocalToolDefinition } from '../../src/exec/index.js';
import { inspect } from 'node:util';
import { REDACTED, Redactor } from '../../src/model/internal.js';
import { createRunner, type AttemptEvent } from '../../src/run/index.js';
import { createToolIndex } from '../../src/discovery/index.js';
import { localBackend } from '../../src/model/index.js';
import { ToolexecError, toErrorShape } from '../../src/model/index.js';

const SECRET = 'tok-0123456789';
const MINTED = 'minted-0123456789';

describe('Redactor', () => {
  const redactor = new Redactor(['headers.authorization', '/session/id', 'items.*.pin']);

  it('defaults at any depth, case-insensitive; dotted paths match the end of a key path; pointers from the root', () => {
    const input = {
      Password: 'p1-secret',
      nested: { deeper: { apiKey: 'k-12345', TOKEN: 'a-token' } },
      headers: { Authorization: 'Bearer xyz123', accept: 'json' },
      list: [{ secret: 'first-secret' }, { other: 1 }],
      session: { id: 'sess-1234', user: 'ann' },
      other: { session: { id: 'not-anchored' } },
      items: [{ a: { pin: '9999' } }],
    };
    const frozen = JSON.parse(JSON.stringify(input)) as typeof input;
    const { value, redactions, secrets } = redactor.redact(input);
    expect(value).toEqual({
      Password: REDACTED,
      nested: { deeper: { apiKey: REDACTED, TOKEN: REDACTED } },
      headers: { Authorization: REDACTED, accept: 'json' },
      list: [{ secret: REDACTED }, { other: 1 }],
      session: { id: REDACTED, user: 'ann' },
      other: { session: { id: 'not-anchored' } },
      items: [{ a: { pin: REDACTED } }],
    });
    expect(redactions).toEqual([
      '/Password',
      '/nested/deeper/apiKey',
      '/nested/deeper/TOKEN',
      '/headers/Authorization',
      '/list/0/secret',
      '/session/id',
      '/items/0/a/pin',
    ]);
    expect(secrets).toEqual(expect.arrayContaining(['p1-secret', 'k-12345', 'Bearer xyz123', 'sess-1234']));
    expect(input).toEqual(frozen);
    // nothing matched: the very same object, no copy
    const clean = { a: 1, b: { c: 'x' } };
    expect(redactor.redact(clean).value).toBe(clean);
  });

  it('the defaults cover the usual credential names of OAuth, API keys and HTTP headers; near names stay', () => {
    const input = {
      access_token: 'at-123456',
      refreshToken: 'rt-123456',
      id_token: 'it-123456',
      client_secret: 'cs-123456',
      api_key: 'ak-123456',
      privateKey: 'pk-123456',
      headers: { 'X-Api-Key': 'xk-123456', Cookie: 'sid=123456', 'Proxy-Authorization': 'Basic 123456' },
      max_tokens: 512,
      tokenCount: 3,
      secretary: 'Ann',
    };
    const { value, redactions } = new Redactor().redact(input);
    expect(value).toEqual({
      access_token: REDACTED,
      refreshToken: REDACTED,
      id_token: REDACTED,
      client_secret: REDACTED,
      api_key: REDACTED,
      privateKey: REDACTED,
      headers: { 'X-Api-Key': REDACTED, Cookie: REDACTED, 'Proxy-Authorization': REDACTED },
      max_tokens: 512,
      tokenCount: 3,
      secretary: 'Ann',
    });
    expect(redactions).toHaveLength(9);
  });

  it('array indices are skipped by dotted paths', () => {
    expect(new Redactor(['items.pin'], false).redact({ items: [{ pin: '1' }, { pin: '2' }] }).redactions).toEqual([
      '/items/0/pin',
      '/items/1/pin',
    ]);
  });

  it('a wildcard matches one key; keys with "/" and "~" get escaped pointers', () => {
    const r = new Redactor(['items.*.pin', 'a/b'], false);
    expect(r.redact({ items: { x: { pin: '1234' } } }).redactions).toEqual(['/items/x/pin']);
    expect(new Redactor(['/a~1b'], false).redact({ 'a/b': 'value' }).redactions).toEqual(['/a~1b']);
  });

  it('a tool adds paths in _meta["toolexec/redact"]', () => {
    const tool = { name: 't', inputSchema: { type: 'object' as const }, _meta: { 'toolexec/redact': ['card.number'] } };
    expect(redactor.forTool(tool).redact({ card: { number: '4111' } }).redactions).toEqual(['/card/number']);
    expect(redactor.redact({ card: { number: '4111' } }).redactions).toEqual([]);
  });
});

describe('redaction through createExec', () => {
  const received: unknown[] = [];
  const events: ExecEvent[] = [];
  const logLines: { level: string; obj: object; msg?: string }[] = [];
  const logger = {
    debug: (obj: object, msg?: string) => logLines.push({ level: 'debug', obj, msg }),
    info: (obj: object, msg?: string) => logLines.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg?: string) => logLines.push({ level: 'warn', obj, msg }),
    error: (obj: object, msg?: string) => logLines.push({ level: 'error', obj, msg }),
  };
  const tools: LocalToolDefinition[] = [
    {
      tool: {
        name: 'call',
        namespace: 'api',
        inputSchema: {
          type: 'object',
          properties: { url: { type: 'string' }, headers: { type: 'object' }, sessionKey: { type: 'string', pattern: '^sk-' } },
        },
      },
      handler: async (args) => {
        received.push(args);
        if (args.url === 'fail') throw new Error(`request with ${String((args.headers as Record<string, string>).authorization)} refused`);
        return { status: 200 };
      },
    },
    {
      tool: { name: 'login', namespace: 'api', inputSchema: { type: 'object' } },
      handler: () => {
        // the handler's own error, with a secret it did not get from its arguments
        throw new ToolexecError('EXECUTION', `upstream refused ${MINTED}`, {
          details: { upstream: 'auth', session: { token: MINTED }, sessionKey: 'sk-minted-by-handler' },
          cause: new ToolexecError('TIMEOUT', 'slow', { details: { apiKey: 'k-inner-123456' } }),
        });
      },
    },
    {
      tool: { name: 'gen', namespace: 'api', inputSchema: { type: 'object' } },
      handler: async function* (args) {
        yield 1;
        throw new Error(`stream broke on ${String(args.token)}`);
      },
    },
  ];
  const exec = createExec({ tools, redact: ['sessionKey'], onEvent: (e) => events.push(e), logger });
  afterAll(() => exec.close());

  it('the tool gets the real values; events and log lines get the redacted ones', async () => {
    events.length = 0;
    const args = { url: 'ok', headers: { authorization: `Bearer ${SECRET}` } };
    await exec.runTool('api:call', args);
    expect(received.at(-1)).toBe(args);
    expect(args.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(events.map((e) => e.type)).toEqual(['call.started', 'call.finished']);
    expect(events[0]).toMatchObject({ args: { url: 'ok', headers: { authorization: REDACTED } }, redactions: ['/headers/authorization'] });
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(JSON.stringify(logLines)).not.toContain(SECRET);
  });

  it('a handler error quoting a secret: message, stack, cause and the failed event are scrubbed, pointers in details.redactions', async () => {
    events.length = 0;
    const err = (await exec
      .runTool('api:call', { url: 'fail', headers: { authorization: SECRET } })
      .catch((e: unknown) => e)) as ToolexecError;
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toContain(`request with ${REDACTED} refused`);
    expect(err.details?.redactions).toEqual(['/headers/authorization']);
    expect([err.message, String(err.stack), JSON.stringify(err), String((err.cause as Error).message)].join()).not.toContain(SECRET);
    expect(events.at(-1)).toMatchObject({ type: 'call.failed', redactions: ['/headers/authorization'] });
    expect(logLines.at(-1)).toMatchObject({ level: 'warn', msg: 'tool call failed: api:call: EXECUTION' });
    expect(JSON.stringify(events) + JSON.stringify(logLines)).not.toContain(SECRET);
  });

  it("a handler error's own details: keys under redaction paths removed (also on its causes), their values scrubbed from texts", async () => {
    events.length = 0;
    const err = (await exec.runTool('api:login', {}).catch((e: unknown) => e)) as ToolexecError;
    // the runner's ToolError wraps the handler's error, which wraps its own cause
    expect(err.code).toBe('EXECUTION');
    const own = err.cause as ToolexecError;
    expect(own.details).toEqual({ upstream: 'auth', session: { token: REDACTED }, sessionKey: REDACTED });
    expect(own.message).toBe(`upstream refused ${REDACTED}`);
    expect(err.message).toContain(`upstream refused ${REDACTED}`);
    expect((own.cause as ToolexecError).details).toEqual({ apiKey: REDACTED });
    expect(err.details?.redactions).toEqual(['/cause/details/session/token', '/cause/details/sessionKey', '/cause/cause/details/apiKey']);
    const logged = JSON.stringify(events) + JSON.stringify(logLines) + JSON.stringify(err) + JSON.stringify(toErrorShape(err));
    for (const secret of [MINTED, 'sk-minted-by-handler', 'k-inner-123456']) expect(logged).not.toContain(secret);
  });

  it('a validation error quoting a value under a global path (`redact` option) is scrubbed', async () => {
    const err = (await exec.runTool('api:call', { sessionKey: 'xx-private-key' }).catch((e: unknown) => e)) as ToolexecError;
    expect(err.code).toBe('VALIDATION');
    expect(JSON.stringify(err) + err.message).not.toContain('xx-private-key');
    expect(err.details?.redactions).toEqual(['/sessionKey']);
  });

  it('chain records: each step’s args redacted with its own redactions, in results and failures', async () => {
    const ok = await exec.runChain([{ toolId: 'api:call', args: { url: 'ok', headers: { authorization: SECRET } } }]);
    expect(ok.steps[0]).toMatchObject({ args: { headers: { authorization: REDACTED } }, redactions: ['/headers/authorization'] });
    const err = (await exec
      .runChain([
        { toolId: 'api:call', args: { url: 'ok', password: 'hunter22' } },
        { toolId: 'api:call', args: { url: 'fail', headers: { authorization: SECRET } } },
      ])
      .catch((e: unknown) => e)) as ExecChainError;
    expect(err.execSteps.map((s) => s.redactions)).toEqual([['/password'], ['/headers/authorization']]);
    expect(JSON.stringify(err.execSteps) + err.message + JSON.stringify(err)).not.toContain(SECRET);
    // the chain error carries the failed step's details: what was removed from them, relative to that step's args
    expect(err.details?.redactions).toEqual(['/headers/authorization']);
  });

  it('stream failures quoting a secret are scrubbed', async () => {
    const seen: string[] = [];
    const err = await (async () => {
      for await (const event of exec.runToolStream('api:gen', { token: SECRET })) {
        expect(JSON.stringify(event)).not.toContain(SECRET);
        seen.push(event.kind);
      }
    })().catch((e: unknown) => e as ToolexecError);
    // the facade's start and end reports frame the tool's own events
    expect(seen).toEqual(['progress', 'chunk', 'progress']);
    expect(err?.code).toBe('EXECUTION');
    expect(String(err?.message) + JSON.stringify(err)).not.toContain(SECRET);
    expect(err?.details?.redactions).toEqual(['/token']);
  });
});

describe('redaction in the runner, with no one listening', () => {
  const index = createToolIndex();
  const tool = (name: string) => ({ name, namespace: 'r', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } });
  index.registerTool(tool('mint'), localBackend('mint'));
  index.registerTool(tool('use'), localBackend('use'));
  index.registerTool(tool('flaky'), localBackend('flaky'));
  const attempts: AttemptEvent[] = [];
  const runner = createRunner({
    index,
    onAttempt: (event) => attempts.push(event),
    local: {
      mint: () => ({ token: SECRET }),
      use: (args) => {
        throw new Error(`refused ${String((args.previous as { token?: string } | undefined)?.token ?? args.token)}`);
      },
      flaky: (args) => {
        throw new ToolexecError('SERVER_UNAVAILABLE', `down while sending ${String(args.password)}`);
      },
    },
  });

  it("a ToolError's reason is scrubbed too: inspecting or logging the error shows no secret", async () => {
    const err = (await runner.run('r:use', { token: SECRET }).catch((e: unknown) => e)) as ToolexecError & { reason: string };
    expect(err.message).toContain(`refused ${REDACTED}`);
    expect(err.reason).toContain(`refused ${REDACTED}`);
    expect(inspect(err, { depth: 8 })).not.toContain(SECRET);
  });

  it('a chain step failing on arguments built from the previous result (usePrevious) is scrubbed, and so is the chain error', async () => {
    const err = (await runner
      .runChain([{ toolId: 'r:mint' }, { toolId: 'r:use', usePrevious: true }])
      .catch((e: unknown) => e)) as ToolexecError;
    expect(err.code).toBe('EXECUTION');
    expect(err.message).toContain(REDACTED);
    expect(err.details?.redactions).toEqual(['/previous/token']);
    // (the chain error's `steps` hold the first step's result as it was: results are not redacted)
    expect(
      inspect(err.cause, { depth: 8 }) + JSON.stringify(toErrorShape(err)) + (err as ToolexecError & { reason: string }).reason,
    ).not.toContain(SECRET);
  });

  it('attempt events and the attempts recorded on the failure carry the scrubbed message', async () => {
    attempts.length = 0;
    const err = (await runner
      .run('r:flaky', { password: 'hunter2-hunter2' }, { retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 2 } })
      .catch((e: unknown) => e)) as ToolexecError;
    expect(attempts).toHaveLength(2);
    const reported = attempts.map((event) => event.message + inspect(event.error, { depth: 8 })).join();
    expect(reported).toContain(REDACTED);
    expect(reported).not.toContain('hunter2-hunter2');
    expect(inspect(err, { depth: 8 }) + JSON.stringify(err)).not.toContain('hunter2-hunter2');
  });
});

describe('the arguments an event carries are a copy', () => {
  it('a listener cannot change what the tool gets; a cycle back into the arguments does not lead to the secret', async () => {
    const received: Record<string, unknown>[] = [];
    const events: ExecEvent[] = [];
    const exec = createExec({
      tools: [
        { tool: { name: 'see', namespace: 'c', inputSchema: { type: 'object' } }, handler: (args) => (received.push({ ...args }), 'ok') },
      ],
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'call.started') event.args.injected = 'by-listener';
      },
    });
    try {
      await exec.runTool('c:see', { q: 'hello' });
      expect(received).toEqual([{ q: 'hello' }]);
      const cyclic: Record<string, unknown> = { password: 'hunter2-hunter2', q: 'x' };
      cyclic.self = cyclic;
      await exec.runTool('c:see', cyclic);
      const started = events.filter((e) => e.type === 'call.started').at(-1) as { args: Record<string, unknown> };
      expect(started.args).toEqual({ password: REDACTED, q: 'x', self: '[Circular]', injected: 'by-listener' });
      expect(cyclic).not.toHaveProperty('injected');
      expect(JSON.stringify(events)).not.toContain('hunter2-hunter2');
    } finally {
      await exec.close();
    }
  });
});
