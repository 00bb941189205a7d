import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { onAbort } from '../../src/model/internal.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('onAbort', () => {
  it('puts one listener on the signal however many subscribe, and removes it with the last', () => {
    const controller = new AbortController();
    const stops = Array.from({ length: 50 }, () => onAbort(controller.signal, () => undefined));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const stop of stops.slice(1)) stop();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    stops[0]!();
    stops[0]!(); // idempotent
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    // Subscribing again after everyone left starts over.
    const calls: number[] = [];
    onAbort(controller.signal, () => calls.push(1));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(calls).toEqual([1]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('calls every subscriber once on abort, in order, not the ones that left', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    onAbort(controller.signal, () => calls.push('a'));
    const stopB = onAbort(controller.signal, () => calls.push('b'));
    // The same function twice is two subscriptions.
    const c = (): void => void calls.push('c');
    onAbort(controller.signal, c);
    onAbort(controller.signal, c);
    stopB();
    controller.abort();
    controller.abort();
    expect(calls).toEqual(['a', 'c', 'c']);
  });

  it('keeps calling the others when one subscriber throws, and surfaces the error', () => {
    const surfaced: Array<() => void> = [];
    vi.stubGlobal('queueMicrotask', (task: () => void) => surfaced.push(task));
    const controller = new AbortController();
    const calls: string[] = [];
    onAbort(controller.signal, () => {
      throw new Error('listener broke');
    });
    onAbort(controller.signal, () => calls.push('after'));
    controller.abort();
    expect(calls).toEqual(['after']);
    expect(surfaced).toHaveLength(1);
    expect(() => surfaced[0]!()).toThrow('listener broke');
  });

  it('keeps the listeners of different signals apart', () => {
    const a = new AbortController();
    const b = new AbortController();
    const calls: string[] = [];
    onAbort(a.signal, () => calls.push('a'));
    const stop = onAbort(b.signal, () => calls.push('b'));
    a.abort();
    expect(calls).toEqual(['a']);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(1);
    stop();
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
  });
});

describe('Deadline', () => {
  it('stays unarmed until the work waits or reads the signal, and fires at its deadline, not before', async () => {
    const { Deadline, ABORTED } = await import('../../src/model/internal.js');
    const started = performance.now();
    const deadline = new Deadline(undefined, 30);
    expect(deadline.aborted).toBe(false);
    const outcome = await deadline.race(new Promise(() => undefined));
    expect(outcome).toBe(ABORTED);
    expect(deadline.timedOut).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(29);
    expect((deadline.reason as DOMException).name).toBe('TimeoutError');
    expect(deadline.signal.aborted).toBe(true);
  });

  it('with fromNow, counts from construction but still attaches nothing until the work waits', async () => {
    const { Deadline, ABORTED } = await import('../../src/model/internal.js');
    const controller = new AbortController();
    const started = performance.now();
    const deadline = new Deadline(controller.signal, 60, true);
    // nothing attached to the caller's signal while the work is synchronous
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    while (performance.now() - started < 40) {
      // a synchronous step using up most of the budget
    }
    expect(deadline.aborted).toBe(false);
    const waitStarted = performance.now();
    const outcome = await deadline.race(new Promise(() => undefined));
    expect(outcome).toBe(ABORTED);
    expect(deadline.timedOut).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(59);
    // the due time was fixed at construction: the wait took what was left, not a fresh 60 ms
    expect(performance.now() - waitStarted).toBeLessThan(55);
    deadline.dispose();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('shares one timer: deadlines armed out of order each fire at their own time, disposed ones never', async () => {
    const { Deadline } = await import('../../src/model/internal.js');
    const fired: number[] = [];
    const deadlines = [60, 20, 40].map((timeoutMs) => {
      const deadline = new Deadline(undefined, timeoutMs);
      deadline.signal.addEventListener('abort', () => fired.push(timeoutMs));
      return deadline;
    });
    const disposed = new Deadline(undefined, 10);
    disposed.signal.addEventListener('abort', () => fired.push(10));
    disposed.dispose();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fired).toEqual([20, 40, 60]);
    expect(deadlines.every((deadline) => deadline.timedOut)).toBe(true);
    expect(disposed.aborted).toBe(false);
  });

  it('holds the process open only while a deadline is armed, and sets no timer per sequential wait', async () => {
    const { Deadline } = await import('../../src/model/internal.js');
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    try {
      for (let i = 0; i < 50; i++) {
        const deadline = new Deadline(undefined, 30_000);
        const value = await deadline.race(Promise.resolve(i));
        expect(value).toBe(i);
        // armed while it waited: the shared timer held the process open then
        deadline.dispose();
        expect(timers()).toBe(before);
      }
      // one timer for the first wait; the later ones, due later, reuse it
      expect(setTimeoutSpy.mock.calls.length).toBeLessThanOrEqual(1);
      const armed = new Deadline(undefined, 30_000);
      armed.arm();
      expect(timers()).toBe(before + 1);
      armed.dispose();
      expect(timers()).toBe(before);
    } finally {
      setTimeoutSpy.mockRestore();
    }
  });
  it('follows the caller signal with its reason, and a deadline of 0 has passed already', async () => {
    const { Deadline, abortOutcome } = await import('../../src/model/internal.js');
    const controller = new AbortController();
    const deadline = new Deadline(controller.signal, 10_000);
    const signal = deadline.signal;
    controller.abort(new Error('stop'));
    expect(signal.aborted).toBe(true);
    expect(abortOutcome(deadline.reason)).toEqual({ code: 'ABORTED', text: 'aborted: stop' });
    deadline.dispose();
    const passed = new Deadline(undefined, 0);
    expect(passed.aborted).toBe(true);
    expect(abortOutcome(passed.reason).code).toBe('TIMEOUT');
  });
});

describe('an abort reason that cannot be read', () => {
  it('is an abort, not a throw: isTimeoutReason false, abortOutcome ABORTED', async () => {
    const { abortOutcome, isTimeoutReason } = await import('../../src/model/internal.js');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const throwing = Object.defineProperty({}, 'name', {
      get(): never {
        throw new Error('name getter exploded');
      },
    });
    for (const reason of [proxy, throwing]) {
      expect(isTimeoutReason(reason)).toBe(false);
      expect(abortOutcome(reason).code).toBe('ABORTED');
    }
  });
});
