/**
 * `exec.executeCode` reads the caller's params once: the wait for MCP servers still connecting and
 * the run itself see the same `signal`, `timeoutMs`, `deadline`, `profile` and `metadata`, however
 * the caller's object behaves. Params the executor refuses are refused at once, without that wait,
 * and an abort during the wait reads as an abort at any other moment.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createExec, type CodeParams, type DefaultExec, type ExecOptions } from '../../src/exec/index.js';
import { errorStatus } from '../../src/model/index.js';
import { misbehavingFixture } from '../mcp/helpers.js';
import { rejection } from './helpers.js';

const open: DefaultExec[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

function exec(options: ExecOptions = {}): DefaultExec {
  const e = createExec({ poolSize: 1, ...options });
  open.push(e);
  return e;
}

/** A server hung at initialize: snippets wait for its first import (up to the connect timeout) unless their bounds end the wait. */
const HUNG = { mcpServers: { silent: misbehavingFixture('hang') }, mcpOptions: { connectTimeoutMs: 5000 } } satisfies ExecOptions;

/** Params whose every field is a getter counting its reads and answering `values[field][read]` (the last value after that). */
function counting(values: Record<string, unknown[]>): { params: CodeParams; reads: Record<string, number> } {
  const reads: Record<string, number> = {};
  const params = {};
  for (const [field, answers] of Object.entries(values)) {
    Object.defineProperty(params, field, {
      enumerable: true,
      get: () => {
        const n = (reads[field] = (reads[field] ?? 0) + 1);
        return answers[Math.min(n, answers.length) - 1];
      },
    });
  }
  return { params: params as CodeParams, reads };
}

function since(started: number): number {
  return performance.now() - started;
}

describe('executeCode reads its params once', () => {
  it('every field, without MCP servers: profile and metadata are not read again by the executor', async () => {
    const { params, reads } = counting({ code: ['return 6 * 7'], profile: ['standard', 'dev'], metadata: [{ tag: 'a' }, 'not an object'] });
    expect((await exec().executeCode(params)).value).toBe(42);
    expect(reads).toEqual({ code: 1, profile: 1, metadata: 1 });
  });

  it('the wait for a server still connecting and the run see the same signal and timeoutMs', async () => {
    const e = exec(HUNG);
    const aborted = AbortSignal.abort(new Error('first read only'));
    // first read: a short budget that ends the wait at once; a second read would get a signal already aborted
    const { params, reads } = counting({
      code: ['return 1'],
      timeoutMs: [300, -1],
      signal: [undefined, aborted],
      deadline: [undefined, 'x'],
    });
    const started = performance.now();
    expect((await e.executeCode(params)).value).toBe(1);
    expect(since(started)).toBeLessThan(3000);
    expect(reads).toEqual({ code: 1, timeoutMs: 1, signal: 1, deadline: 1 });
  });

  it('bad bounds or a field that cannot be read are refused at once, not after waiting for the servers', async () => {
    const e = exec(HUNG);
    const getter = Object.defineProperty({ code: 'return 1' }, 'timeoutMs', {
      get(): never {
        throw new Error('getter bomb');
      },
    });
    for (const [params, message] of [
      [{ code: 'return 1', timeoutMs: -1 }, 'executeCode: option timeoutMs must be a positive number of milliseconds, got -1'],
      [
        { code: 'return 1', deadline: 'soon' },
        'executeCode: option deadline must be a Date or a finite number of epoch milliseconds, got "soon"',
      ],
      [getter, 'executeCode: option timeoutMs could not be read'],
      ['return 1', 'executeCode: params must be an object, got "return 1"'],
      [null, 'executeCode: params must be an object, got null'],
    ] as const) {
      const started = performance.now();
      const error = await rejection(e.executeCode(params as CodeParams));
      expect(since(started)).toBeLessThan(1500);
      expect({ code: error.code, message: error.message }).toEqual({ code: 'INVALID_ARGUMENT', message });
    }
  });

  it('an abort while a required server is still connecting reads as an abort at any other moment', async () => {
    const e = exec({ ...HUNG, mcpServers: { silent: { ...misbehavingFixture('hang'), required: true } } });
    const reason = new Error('user cancelled');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 200);
    const error = await rejection(e.executeCode({ code: 'return 1', signal: controller.signal }));
    expect(error).toMatchObject({ code: 'ABORTED', message: 'code execution aborted: user cancelled' });
    expect(error.cause).toBe(reason);
    expect(errorStatus(error)).toBe(408);
    expect(error.details?.result).toMatchObject({ toolCalls: [] });
    // and before the wait, as the code executor says it
    const before = await rejection(e.executeCode({ code: 'return 1', signal: AbortSignal.abort(reason) }));
    expect(before).toMatchObject({ code: 'ABORTED', message: 'code execution aborted: user cancelled' });
  });
});

describe('finishAuth', () => {
  it('quotes a server name as text: never through its toString, a long one cut', async () => {
    const e = exec();
    const bomb = {
      toString(): string {
        throw new Error('toString bomb');
      },
    };
    expect(await rejection(e.finishAuth(bomb as unknown as string, 'code'))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'exec: server "an object" is not one of mcpServers',
    });
    const long = await rejection(e.finishAuth('x'.repeat(5_000_000), 'code'));
    expect(long.code).toBe('INVALID_ARGUMENT');
    expect(long.message.length).toBeLessThan(400);
    expect(long.message).toContain('(5000000 characters)');
  });
});

describe('a refused parameter names its field', () => {
  it('details.field for timeoutMs, deadline, signal, queueTimeoutMs, profile and language, as failures.md says', async () => {
    const e = exec();
    const cases: [Partial<CodeParams>, string][] = [
      [{ timeoutMs: -1 }, 'timeoutMs'],
      [{ deadline: 'soon' as unknown as number }, 'deadline'],
      [{ signal: {} as AbortSignal }, 'signal'],
      [{ queueTimeoutMs: 0 }, 'queueTimeoutMs'],
      [{ profile: 'nope' as CodeParams['profile'] }, 'profile'],
      [{ language: 'cobol' }, 'language'],
    ];
    for (const [bad, field] of cases) {
      const error = await rejection(e.executeCode({ code: 'return 1', ...bad }));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.details?.field).toBe(field);
      expect(errorStatus(error)).toBe(400);
    }
  });
});
