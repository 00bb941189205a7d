/**
 * The server's bound on a client that stops taking its response: an exchange whose output waits
 * on the socket without progress for too long is dropped, so it cannot hold its run slot until
 * node's `requestTimeout`.
 */
import type { ServerResponse } from 'node:http';

/** The most time between two looks at a response's output. */
const MAX_CHECK_INTERVAL_MS = 1000;

/**
 * Calls `onStall` once when `res` has had output waiting for `timeoutMs` without progress: none of
 * it taken by the client (its buffered size never went down, no `drain`). Output that never waits
 * (a client reading as fast as the server writes) never starts the clock, and every bit of progress
 * restarts it. Progress is seen as the socket completes writes, so a single message larger than the
 * socket's buffers must be taken whole within `timeoutMs`. Returns the function that stops watching
 * (idempotent); watching also stops once `onStall` was called or `res` closes.
 */
export function watchWriteStall(res: ServerResponse, timeoutMs: number, onStall: () => void): () => void {
  /** When the current wait began (or last made progress); `undefined` while nothing waits. */
  let since: number | undefined;
  let waiting = 0;
  let drained = false;
  const onDrain = () => {
    drained = true;
  };
  const check = () => {
    const pending = res.writableLength;
    const now = performance.now();
    if (pending === 0) since = undefined;
    else if (since === undefined || drained || pending < waiting) since = now;
    else if (now - since >= timeoutMs) {
      stop();
      onStall();
      return;
    }
    waiting = pending;
    drained = false;
  };
  // not unref'd: it lives no longer than the exchange, whose socket keeps the process up anyway
  const timer = setInterval(check, Math.max(1, Math.min(MAX_CHECK_INTERVAL_MS, Math.floor(timeoutMs / 4))));
  const stop = () => {
    clearInterval(timer);
    res.off('drain', onDrain);
    res.off('close', stop);
  };
  res.on('drain', onDrain);
  res.once('close', stop);
  return stop;
}
