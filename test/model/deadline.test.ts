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
