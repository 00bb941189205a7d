/**
 * How long the facade's calls take: the monotonic clock their `durationMs` is read from, and the
 * duration a failed call's error carries ({@link durationOf}).
 *
 */

/** The monotonic clock, held once: reading the `performance` global on every call costs ~4 ns. */
const clock = performance;

/**
 * Milliseconds on the monotonic clock (`performance.now()`); the start for {@link elapsedMs}.
 *
 * @internal
 */
export function nowMs(): number {
  return clock.now();
}

/**
 * Wall-clock milliseconds since `start` (from {@link nowMs}), rounded to the nanosecond: a warm
 * call to a synchronous local tool takes well under a microsecond, and its duration must still be
 * measured (> 0), not rounded away.
 *
 * @internal
 */
export function elapsedMs(start: number): number {
  return Math.round((clock.now() - start) * 1e6) / 1e6;
}

/**
 * Attaches the call's duration to a failed call's error as a non-enumerable `durationMs` (read it
 * with {@link durationOf}); the error is otherwise the run layer's, unchanged.
 *
 * @internal
 */
export function withDuration(err: unknown, durationMs: number): unknown {
  if (err !== null && typeof err === 'object' && Object.isExtensible(err)) {
    Object.defineProperty(err, 'durationMs', { value: durationMs, configurable: true, writable: true, enumerable: false });
  }
  return err;
}

/** How long a failed `runTool` call took (the `durationMs` the facade attaches to its rejection), if known. */
export function durationOf(err: unknown): number | undefined {
  const value = (err as { durationMs?: unknown } | null)?.durationMs;
  return typeof value === 'number' ? value : undefined;
}
