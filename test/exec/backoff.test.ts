import { describe, expect, it } from 'vitest';
import { DEFAULT_RECONNECT } from '../../src/exec/index.js';
import { backoffDelayMs } from '../../src/exec/backoff.js';

describe('backoffDelayMs', () => {
  const middle = (): number => 0.5;
  it('doubles from initialDelayMs up to maxDelayMs', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffDelayMs(n, DEFAULT_RECONNECT, middle))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('spreads attempts by ±10 %, and never waits less than 1 ms', () => {
    expect(backoffDelayMs(1, DEFAULT_RECONNECT, () => 0)).toBe(900);
    expect(backoffDelayMs(1, DEFAULT_RECONNECT, () => 0.999_999)).toBe(1100);
    expect(backoffDelayMs(1, { initialDelayMs: 0.1, maxDelayMs: 1 }, () => 0)).toBe(1);
  });

  it('never waits longer than maxDelayMs: at the cap the jitter only shortens the wait', () => {
    const policy = { initialDelayMs: 60_000, maxDelayMs: 60_000 };
    expect(backoffDelayMs(1, policy, () => 0.999_999)).toBe(60_000);
    expect(backoffDelayMs(9, policy, () => 0)).toBe(54_000);
    expect(backoffDelayMs(6, DEFAULT_RECONNECT, () => 0.999_999)).toBe(30_000);
  });
});
