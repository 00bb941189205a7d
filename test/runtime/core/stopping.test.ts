import { describe, expect, it } from 'vitest';
import { ToolexecError } from '../../../src/model/index.js';
import { settlesWithin, stoppedError, underSignal, watchDeadline, type StopKind } from '../../../src/runtime/core/stopping.js';

describe('stoppedError', () => {
  it('reads a TimeoutError reason as TIMEOUT and any other as ABORTED, in the runtime style', () => {
    const late = new DOMException('late', 'TimeoutError');
    expect(stoppedError(late, 'execution')).toMatchObject({ code: 'TIMEOUT', message: 'runtime: execution timed out: late', cause: late });
    const bye = new Error('bye');
    expect(stoppedError(bye, 'execution')).toMatchObject({ code: 'ABORTED', message: 'runtime: execution aborted: bye', cause: bye });
  });

  it('returns a reason that is already a TIMEOUT or ABORTED error as it is', () => {
    const own = new ToolexecError('TIMEOUT', 'execution timeout: the sandbox did not start within 5ms');
    expect(stoppedError(own)).toBe(own);
    const other = new ToolexecError('RUNTIME_UNAVAILABLE', 'closed');
    expect(stoppedError(other)).toMatchObject({ code: 'ABORTED', cause: other });
  });
});

describe('underSignal', () => {
  it('rejects as soon as the signal aborts and hands the late value to discard', async () => {
    const controller = new AbortController();
    let release!: (value: string) => void;
    const discarded: string[] = [];
    const pending = underSignal(
      controller.signal,
      'start',
      () => new Promise<string>((resolve) => (release = resolve)),
      (late) => discarded.push(late),
    );
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED', message: 'runtime: start aborted: stop' });
    release('late');
    await Promise.resolve();
    expect(discarded).toEqual(['late']);
  });

  it('passes the step through without a signal, and refuses an aborted one before starting', async () => {
    expect(await underSignal(undefined, 'step', () => Promise.resolve(1))).toBe(1);
    let started = false;
    const step = () => {
      started = true;
      return Promise.resolve(1);
    };
    await expect(underSignal(AbortSignal.abort(new Error('gone')), 'step', step)).rejects.toMatchObject({ code: 'ABORTED' });
    expect(started).toBe(false);
  });
});

describe('watchDeadline', () => {
  it('reports the timeout, the abort, or an abort that came first, once', async () => {
    const kinds: StopKind[] = [];
    watchDeadline(undefined, 5, (kind) => kinds.push(kind));
    await new Promise((resolve) => setTimeout(resolve, 30));
    const controller = new AbortController();
    watchDeadline(controller.signal, 10_000, (kind) => kinds.push(kind))();
    const stop = watchDeadline(controller.signal, 10_000, (kind) => kinds.push(kind));
    controller.abort();
    stop();
    watchDeadline(controller.signal, 10_000, (kind) => kinds.push(kind));
    expect(kinds).toEqual(['timeout', 'aborted', 'aborted']);
  });
});

describe('settlesWithin', () => {
  it('says whether the promise settled in time, and never rejects', async () => {
    expect(await settlesWithin(Promise.resolve(), 1000)).toBe(true);
    expect(await settlesWithin(Promise.reject(new Error('no')), 1000)).toBe(true);
    expect(await settlesWithin(new Promise(() => undefined), 5)).toBe(false);
  });
});
