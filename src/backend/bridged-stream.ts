/**
 * How a handler of `BackendRegistry.localRegistry()` carries the way to stream its tool: a
 * function under a symbol only this layer and the runner know, so that no user handler's own
 * property is ever taken for it.
 *
 * @internal
 * @module
 */
import type { BridgedHandler } from './types.js';

/** The key of a bridged handler's stream function. */
export const BRIDGED_STREAM: unique symbol = Symbol('toolexec.backend.bridgedStream');

/**
 * Runs the tool through the backend's `executeStream`: its AsyncIterable, or `execute`'s promise
 * when the backend no longer streams.
 */
export type BridgedStream = (
  args: Record<string, unknown>,
  ctx: Parameters<BridgedHandler>[1],
) => AsyncIterable<unknown> | Promise<unknown>;

/** The stream function of a bridged handler of a streaming backend; `undefined` for any other value. */
export function bridgedStreamOf(handler: unknown): BridgedStream | undefined {
  if (typeof handler !== 'function') return undefined;
  try {
    const stream = (handler as { [BRIDGED_STREAM]?: unknown })[BRIDGED_STREAM];
    return typeof stream === 'function' ? (stream as BridgedStream) : undefined;
  } catch {
    // A hostile handler (a proxy whose `get` throws) is not a bridged one.
    return undefined;
  }
}
