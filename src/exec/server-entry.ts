/**
 * One configured MCP server as the facade's server pool (`ServerPool`) keeps it: its status, as callers
 * read it and listeners are told of it, and what its attempts and retries need.
 *
 * @internal
 * @module
 */
import type { ServerStatus } from './types.js';

/** One configured server and what the facade knows of it. */
export interface ServerEntry {
  /** The server's name in `mcpServers` (its tools' namespace). */
  readonly name: string;
  /** `required: true` in its config: calls and searches wait for it. */
  readonly required: boolean;
  /** What `serverStatus()` says of it. */
  status: ServerStatus;
  /** The import in flight (connect + tools/list + register); it never rejects. */
  attempt: Promise<void> | undefined;
  /** Whether discovery calls wait for the attempt in flight (a first import, a refresh after tools/list_changed). */
  blocking: boolean;
  /** Set once the first attempt has settled. */
  tried: boolean;
  /** The server announced tools/list_changed: its tools are re-imported. */
  stale: boolean;
  /** Consecutive failures, for the backoff. */
  failures: number;
  /** When the next attempt may start (`Date.now()` clock); 0 when it may start now. */
  retryAtMs: number;
  /** The background retry after a failure. */
  retryTimer: NodeJS.Timeout | undefined;
  /** The tool IDs the last import registered. */
  toolIds: string[];
  /** When the attempt in flight started (`performance.now()`), for the discovery wait. */
  attemptStartedMs: number;
}

/** A server not tried yet: `connecting`, with no tools, since `sinceMs`. */
export function newServerEntry(name: string, required: boolean, sinceMs: number): ServerEntry {
  return {
    name,
    required,
    status: { state: 'connecting', toolCount: 0, since: sinceMs },
    attempt: undefined,
    blocking: false,
    tried: false,
    stale: false,
    failures: 0,
    retryAtMs: 0,
    retryTimer: undefined,
    toolIds: [],
    attemptStartedMs: 0,
  };
}

/** Every server's status by name, each a copy. */
export function statusRecord(entries: Iterable<ServerEntry>): Record<string, ServerStatus> {
  const record: Record<string, ServerStatus> = {};
  // defined, not assigned: a server named `__proto__` (an own key of a JSON config) is listed too
  for (const entry of entries) {
    Object.defineProperty(record, entry.name, { value: { ...entry.status }, enumerable: true, writable: true, configurable: true });
  }
  return record;
}

/**
 * A server's status once it becomes `next`: `since` now, or kept while the state stays the same;
 * `changed` when listeners are to be told (its state, tool count, error or refused tools differ).
 */
export function nextStatus(current: ServerStatus, next: Omit<ServerStatus, 'since'>): { status: ServerStatus; changed: boolean } {
  const changed =
    current.state !== next.state ||
    current.toolCount !== next.toolCount ||
    current.error !== next.error ||
    current.rejectedTools?.length !== next.rejectedTools?.length;
  const status: ServerStatus = { state: next.state, toolCount: next.toolCount, since: Date.now() };
  if (next.error !== undefined) status.error = next.error;
  if (next.rejectedTools !== undefined) status.rejectedTools = next.rejectedTools;
  if (current.state === next.state) status.since = current.since;
  return { status, changed };
}
