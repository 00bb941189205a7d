import { afterAll, describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { createExec, type ExecEvent } from '../../src/exec/index.js';
import { REDACTED, Redactor, scrubText, scrubValue } from '../../src/model/internal.js';
import type { ToolexecError } from '../../src/model/index.js';

/** Every form a message could quote `secret` in: as it is, JSON-escaped, and the starts of both (as a cut quote shows). */
function formsOf(secret: string): string[] {
  const escaped = JSON.stringify(secret).slice(1, -1);
  return [secret, escaped, secret.slice(0, 8), escaped.slice(0, 8)];
}

/** Everything a failed call lets out: the error's message and JSON shape, each violation's message, the events. */
function exposed(err: ToolexecError, events: readonly ExecEvent[]): string {
  const violations = (err.details?.violations ?? []) as { message: string }[];
  return [err.message, String(err.stack), JSON.stringify(err), ...violations.map((v) => v.message), JSON.stringify(events)].join('\n');
}

describe('secrets quoted by validation messages (escaped, cut)', () => {
  const events: ExecEvent[] = [];
  const exec = createExec({
    validateOutput: false,
    onEvent: (event) => events.push(event),
    tools: [
      {
        tool: {
          name: 'login',
          inputSchema: {
            type: 'object',
            properties: {
              password: { type: 'string', pattern: '^[a-z]{1,8}$' },
              token: { type: 'string', pattern: '^sk-[a-z]{10}$' },
              secret: { enum: ['a', 'b'] },
            },
          },
        },
        handler: () => 'ok',
      },
    ],
  });
  afterAll(() => exec.close());

  const cases: [string, Record<string, unknown>, string][] = [
    ['a quote', { password: 'hunter"2-is-my-password' }, 'hunter"2-is-my-password'],
    ['backslashes', { password: 'C:\\secret\\pass' }, 'C:\\secret\\pass'],
    ['a newline', { password: 'line1\nline2-secret' }, 'line1\nline2-secret'],
    ['a control character and a long tail', { password: `ctl\u0001${'x'.repeat(80)}` }, `ctl\u0001${'x'.repeat(80)}`],
    ['a 123-character token (cut to ~60)', { token: `sk-${'A1b2C3d4E5'.repeat(12)}` }, `sk-${'A1b2C3d4E5'.repeat(12)}`],
    ['a 300-character token (actual cut to 200)', { token: `sk-${'Z9y8X7w6V5'.repeat(30)}` }, `sk-${'Z9y8X7w6V5'.repeat(30)}`],
    ['a string inside a secret object', { secret: { nested: 'deep"secret\\value' } }, 'deep"secret\\value'],
  ];

  it.each(cases)('%s: not in the message, the violations or the call.failed event', async (_label, args, secret) => {
    events.length = 0;
    const err = (await exec.runTool('login', args).catch((e: unknown) => e)) as ToolexecError;
    expect(err.code).toBe('VALIDATION');
    expect(events.at(-1)?.type).toBe('call.failed');
    const text = exposed(err, events);
    for (const form of formsOf(secret)) expect(text).not.toContain(form);
    expect(err.message).toContain(REDACTED);
    const violations = err.details?.violations as { message: string; actual?: unknown }[];
    expect(violations[0]?.message).toContain(REDACTED);
    if (typeof violations[0]?.actual === 'string') expect(violations[0].actual).toBe(REDACTED);
  });
});

describe('secrets below the depth limit', () => {
  const events: ExecEvent[] = [];
  const exec = createExec({
    validateOutput: false,
    onEvent: (event) => events.push(event),
    tools: [
      {
        tool: {
          name: 'store',
          inputSchema: { type: 'object', properties: { n: { $ref: '#' }, password: { type: 'string', pattern: '^[0-9]+$' } } },
        },
        handler: () => 'ok',
      },
    ],
  });
  afterAll(() => exec.close());

  const nest = (depth: number, inner: Record<string, unknown>): Record<string, unknown> => {
    let args = inner;
    for (let i = 0; i < depth; i++) args = { n: args };
    return args;
  };

  it.each([10, 63, 64, 65, 70, 200])('a password nested %i levels deep is not in the message or the events', async (depth) => {
    events.length = 0;
    const err = (await exec.runTool('store', nest(depth, { password: 'hunter2-very-secret' })).catch((e: unknown) => e)) as ToolexecError;
    expect(err.code).toBe('VALIDATION');
    expect(exposed(err, events)).not.toContain('hunter2-very-secret');
    expect(err.message).toContain(REDACTED);
    // above the limit the password goes; from the limit on, the whole part nested there
    const removed = depth < 64 ? `${'/n'.repeat(depth)}/password` : '/n'.repeat(64);
    expect(err.details?.redactions).toEqual([removed]);
    expect(events[0]).toMatchObject({ type: 'call.started', redactions: [removed] });
  });
});

describe('scrubText', () => {
  it('removes a secret as it is, JSON-escaped, and cut (its start followed by "…", either form)', () => {
    const secret = 'a"b\\c\nd-0123456789';
    const escaped = JSON.stringify(secret).slice(1, -1);
    expect(scrubText(`got ${secret}!`, [secret])).toBe(`got ${REDACTED}!`);
    expect(scrubText(`got "${escaped}".`, [secret])).toBe(`got "${REDACTED}".`);
    expect(scrubText(`got "${escaped.slice(0, 9)}… (99 characters)`, [secret])).toBe(`got "${REDACTED} (99 characters)`);
    expect(scrubText(`got ${secret.slice(0, 6)}…`, [secret])).toBe(`got ${REDACTED}`);
    // a cut in the middle of an escape sequence
    expect(scrubText(`got "a\\"b\\…`, [secret])).toBe(`got "${REDACTED}`);
  });

  it('keeps the minimum length: values and cut starts shorter than 4 characters stay, as does a start not followed by "…"', () => {
    expect(new Redactor().redact({ password: 'abc', token: 1234 }).secrets).toEqual(['1234']);
    expect(scrubText('got "sec…"', ['secret-value'])).toBe('got "sec…"');
    expect(scrubText('got "secr…"', ['secret-value'])).toBe(`got "${REDACTED}"`);
    expect(scrubText('the secr is out', ['secret-value'])).toBe('the secr is out');
    expect(scrubText('got secret-vXlue…', ['secret-value'])).toBe('got secret-vXlue…');
  });

  it('a long secret inside a long text stays fast', () => {
    const secret = 'q'.repeat(100_000);
    const text = `${'q'.repeat(50_000)}… and ${'q…'.repeat(10_000)}`;
    const started = performance.now();
    expect(scrubText(text, [secret])).toBe(`${REDACTED} and ${'q…'.repeat(10_000)}`);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('Redactor: the depth limit fails closed', () => {
  const nest = (depth: number, inner: unknown): unknown => {
    let value = inner;
    for (let i = 0; i < depth; i++) value = { n: value };
    return value;
  };

  it('the part beyond the limit is replaced, listed, and its strings become secrets', () => {
    const input = nest(80, { password: 'deep-secret', note: 'deep-note' });
    const { value, redactions, secrets } = new Redactor().redact(input);
    const serialized = JSON.stringify(value);
    expect(serialized).not.toContain('deep-secret');
    expect(serialized).not.toContain('deep-note');
    expect(serialized).toContain(REDACTED);
    expect(redactions).toEqual([`/${Array.from({ length: 64 }, () => 'n').join('/')}`]);
    expect(secrets).toEqual(expect.arrayContaining(['deep-secret', 'deep-note']));
  });

  it('a value just above the limit is walked as before', () => {
    const { value, redactions, secrets } = new Redactor().redact(nest(63, { password: 'deep-secret', note: 'deep-note' }));
    expect(JSON.stringify(value)).toContain('deep-note');
    expect(redactions).toHaveLength(1);
    expect(redactions[0]).toMatch(/\/password$/);
    expect(secrets).toEqual(['deep-secret']);
  });

  it('every string of a redacted value is a secret, however deep', () => {
    const { secrets } = new Redactor().redact({ password: nest(200, 'very-deep-secret') });
    expect(secrets).toEqual(['very-deep-secret']);
    const cyclic: Record<string, unknown> = { pin: 'pin-12345' };
    cyclic.self = cyclic;
    expect(new Redactor().redact({ password: cyclic }).secrets).toEqual(['pin-12345']);
  });

  it("collecting a redacted array's secrets leaves the caller's array as it was, however long", () => {
    const keys = ['key-aaaa', 'key-bbbb', 'key-cccc'];
    expect(new Redactor().redact({ password: keys }).secrets).toEqual(['key-aaaa', 'key-bbbb', 'key-cccc']);
    expect(keys).toEqual(['key-aaaa', 'key-bbbb', 'key-cccc']);
    const many = Array.from({ length: 300_000 }, (_, i) => `secret-${i}`);
    expect(new Redactor().redact({ password: many }).secrets).toHaveLength(300_000);
    expect(many[0]).toBe('secret-0');
  });

  it('scrubValue replaces what is nested too deep to scrub', () => {
    const scrubbed = scrubValue(nest(80, { note: 'the deep-secret here' }), ['deep-secret']);
    expect(JSON.stringify(scrubbed)).not.toContain('deep-secret');
    expect(JSON.stringify(scrubbed)).toContain(REDACTED);
  });
});

describe('default credential names, however they are spelled', () => {
  it('a key ending with a credential word is redacted; one that only contains it is not', () => {
    const secret = 'value-1234';
    const credentials = [
      'api-key',
      'db_password',
      'newPassword',
      'client-secret',
      'aws_secret_access_key',
      'X-Auth-Token',
      'session_cookie',
      'SMTP.PASSWD',
    ];
    const ordinary = ['max_tokens', 'tokenCount', 'passwordHint', 'author', 'monkey', 'secretary_name'];
    const input = Object.fromEntries([...credentials, ...ordinary].map((key) => [key, secret]));
    const { value, redactions } = new Redactor().redact(input);
    for (const key of credentials) expect((value as Record<string, unknown>)[key], key).toBe(REDACTED);
    for (const key of ordinary) expect((value as Record<string, unknown>)[key], key).toBe(secret);
    expect(redactions).toHaveLength(credentials.length);
  });

  it('applies at any depth, to a tool with its own paths too, and not without the defaults', () => {
    const input = { db: { connection: { db_password: 'hunter22' } } };
    expect(new Redactor().redact(input).redactions).toEqual(['/db/connection/db_password']);
    const tool = { name: 't', inputSchema: { type: 'object' as const }, _meta: { 'toolexec/redact': ['card'] } };
    expect(new Redactor().forTool(tool).redact({ ...input, card: '4111' }).redactions).toEqual(['/db/connection/db_password', '/card']);
    expect(new Redactor([], false).redact(input).redactions).toEqual([]);
  });
});

describe('scrubValue and cycles', () => {
  it('a reference back to an ancestor becomes [Circular]: the copy never leads back into the original', () => {
    const details: Record<string, unknown> = { note: 'the key is sk-12345678', inner: { password: 'sk-12345678' } };
    (details.inner as Record<string, unknown>).parent = details;
    const scrubbed = scrubValue<Record<string, unknown>>(details, ['sk-12345678']);
    expect(scrubbed).not.toBe(details);
    expect(scrubbed.note).toBe(`the key is ${REDACTED}`);
    expect((scrubbed.inner as Record<string, unknown>).parent).toBe('[Circular]');
    expect(inspect(scrubbed, { depth: 10 })).not.toContain('sk-12345678');
    // the caller's object is left as it was
    expect((details.inner as Record<string, unknown>).parent).toBe(details);
  });
});
