/**
 * When a failed MCP server is tried again: exponential backoff with a cap and a little jitter.
 */

/** How a failed MCP server is retried (`ExecOptions.mcpReconnect`). */
export interface ReconnectPolicy {
  /** The wait after the first failure, in milliseconds; at most `maxDelayMs` when both are given. @defaultValue 1000 */
  initialDelayMs?: number;
  /** The longest wait between two attempts, in milliseconds. @defaultValue 30000, or `initialDelayMs` when that is longer */
  maxDelayMs?: number;
}

/** The default {@link ReconnectPolicy}: 1 s, doubling up to 30 s. */
export const DEFAULT_RECONNECT: Readonly<Required<ReconnectPolicy>> = Object.freeze({ initialDelayMs: 1000, maxDelayMs: 30_000 });

// ±10 %: servers that failed together are not all retried in the same millisecond.
const JITTER = 0.1;

/**
 * The wait before the attempt that follows the `failures`-th consecutive failure:
 * `initialDelayMs × 2^(failures − 1)` with ±10 % jitter, never more than `maxDelayMs` (at the cap
 * the jitter only shortens it) and never less than 1 ms.
 *
 * @internal
 */
export function backoffDelayMs(failures: number, policy: Required<ReconnectPolicy>, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** exponent);
  const jittered = Math.min(policy.maxDelayMs, base * (1 - JITTER + 2 * JITTER * random()));
  return Math.max(1, Math.round(jittered));
}
