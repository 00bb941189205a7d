/**
 * The facade's MCP servers, each on its own: connected, imported, failed and retried apart from
 * the others, with a status anyone can read or listen to.
 */
import type { McpTool, Tool, ToolBackend, ToolexecError } from '../model/index.js';
import { ABORTED, Deadline, abortError, layerErrors } from '../model/internal.js';
import type { ToolIndex } from '../discovery/index.js';
import type { McpExecutorClient } from '../mcp/index.js';
import { backoffDelayMs, type ReconnectPolicy } from './backoff.js';
import { boundedWait, closedError, nextTurn, rejectedTool, toToolexecError, unavailableError } from './server-failures.js';
import { newServerEntry, nextStatus, statusRecord, type ServerEntry } from './server-entry.js';
import { registerServerTools, unregisterServerTools } from './server-tools.js';
import type { RejectedTool, ServerStatus } from './types.js';

const errors = layerErrors('exec');

/** How long to wait for something: the caller's signal and timeout. */
export interface WaitBounds {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

/** What the pool needs of the facade. */
export interface ServerPoolOptions {
  client: McpExecutorClient;
  index: ToolIndex;
  /** Server name → whether it is required. */
  servers: ReadonlyMap<string, boolean>;
  reconnect: Required<ReconnectPolicy>;
  /** Longest a search, doc lookup or snippet waits for a server's import in flight (the connect timeout and a grace for the listing). */
  discoveryWaitMs: number;
  /** Told each change of a server's status; must not throw (the facade guards the caller's listener). */
  onStatus: ((name: string, status: ServerStatus) => void) | undefined;
}

/**
 * The MCP servers of one facade.
 *
 * @remarks
 * - Each server connects and imports its tools on its own (`attempt`), started by the first use of
 *   the facade. A server that cannot start, crashes, or does not answer `initialize` within the
 *   connect timeout is `failed`: its tools leave the index, and everything else goes on.
 * - A failed server is tried again after a backoff (`reconnect`), in the background and on demand:
 *   a call for one of its tools after the backoff starts a new attempt and waits for it (bounded by
 *   the call's deadline); a call during the backoff rejects with `SERVER_UNAVAILABLE` at once, the
 *   last connect error as `cause`. A failure is never reused once its backoff has passed.
 * - A `required` server is all-or-nothing: until it is connected, every call waits for it, and its
 *   failure rejects them.
 *
 * @internal
 */
export class ServerPool {
  readonly #options: ServerPoolOptions;
  readonly #entries = new Map<string, ServerEntry>();
  #settled = false;
  #closed = false;

  constructor(options: ServerPoolOptions) {
    this.#options = options;
    const since = Date.now();
    for (const [name, required] of options.servers) this.#entries.set(name, newServerEntry(name, required, since));
  }

  /** True while every server is connected with its tools imported: calls need no check at all. */
  get settled(): boolean {
    return this.#settled;
  }

  /** Every server's status, by name (a copy). */
  status(): Record<string, ServerStatus> {
    return statusRecord(this.#entries.values());
  }

  /**
   * Before a call: starts the attempts that are due, and, when a required server is not connected,
   * returns the wait for it (bounded by `bounds`). `undefined`: the call may go at once.
   */
  beforeCall(bounds: WaitBounds): Promise<void> | undefined {
    if (this.#closed) return Promise.reject(closedError());
    this.#startDue();
    const required = this.#requiredPending();
    return required.length === 0 ? undefined : this.#waitAll(required, bounds);
  }

  /**
   * Before a search, a doc lookup, a namespace listing or a snippet: waits for the required
   * servers, and for the first import of every server (each bounded by the connect timeout), so
   * that what a server offers is found once it is reachable. Failed servers are not waited for.
   * `bounds` (a snippet's signal and budget) cut the wait short: a required server's wait then
   * rejects (`TIMEOUT` / `ABORTED`), the first imports' wait just ends.
   */
  async beforeDiscovery(bounds: WaitBounds = {}): Promise<void> {
    if (this.#closed) throw closedError();
    this.#startDue();
    const required = this.#requiredPending();
    if (required.length > 0) await this.#waitAll(required, bounds);
    const waits: Promise<unknown>[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.attempt === undefined || !entry.blocking) continue;
      // A server slow to list its tools (or hung at it) keeps discovery waiting no longer than
      // `discoveryWaitMs` from the attempt's start; its tools appear once its import finishes.
      const leftMs = entry.attemptStartedMs + this.#options.discoveryWaitMs - performance.now();
      waits.push(leftMs <= 0 ? Promise.resolve() : boundedWait(entry.attempt, leftMs));
    }
    if (waits.length > 0) {
      // The caller's bounds (a snippet's signal, deadline, timeoutMs) end this courtesy wait early:
      // what then runs sees the servers as they are (and the aborted signal or passed deadline).
      const deadline = new Deadline(bounds.signal, bounds.timeoutMs);
      try {
        await deadline.race(Promise.all(waits));
      } finally {
        deadline.dispose();
      }
    }
    if (this.#closed) throw closedError();
  }

  /**
   * The facade's `connect()`: starts an attempt for every server that is neither connected nor
   * connecting (a failed one too, whatever its backoff: the caller asked), and resolves with every
   * status once they have all connected or failed, or when `bounds.timeoutMs` runs out (those
   * still connecting say so). Rejects when a required server failed, or when `bounds.signal` aborts.
   */
  async connect(bounds: WaitBounds): Promise<Record<string, ServerStatus>> {
    if (this.#closed) throw closedError();
    for (const entry of this.#entries.values()) {
      if (entry.status.state !== 'connected' || entry.stale) this.#start(entry);
    }
    const deadline = new Deadline(bounds.signal, bounds.timeoutMs);
    try {
      const all = Promise.all(this.#attempts(() => true));
      const outcome = await deadline.race(all);
      if (outcome === ABORTED && !deadline.timedOut) {
        throw abortError(errors, deadline.reason, 'connect() waiting for the MCP servers was');
      }
    } finally {
      deadline.dispose();
    }
    if (this.#closed) throw closedError();
    for (const entry of this.#entries.values()) {
      if (entry.required && entry.status.state === 'failed') throw unavailableError(entry);
    }
    return this.status();
  }

  /**
   * For a tool the index lacks: when its namespace is a server that is not connected, waits for
   * that server (starting an attempt if its backoff has passed) and answers from the index, or
   * rejects with `SERVER_UNAVAILABLE`. `undefined` when the namespace is no server of this pool, or
   * a connected one (the tool does not exist). The runner bounds the wait by the call's deadline.
   */
  resolveMissing(id: string): Promise<Tool | undefined> | undefined {
    const entry = this.#entryOf(id);
    if (entry === undefined) {
      // An ID of no server's namespace (`convert` for `fx:convert`) may still be a tool a first
      // import brings, or close to one: wait for discovery as a search does, then answer (and
      // suggest) from the index with every reachable server's tools in it.
      return this.#discovering() ? this.beforeDiscovery().then(() => this.#lookup(id)) : undefined;
    }
    if (entry.status.state === 'connected' && !entry.stale && entry.attempt === undefined) return undefined;
    return this.#waitFor(entry, id).then(() => this.#lookup(id));
  }

  /**
   * `SERVER_UNAVAILABLE` for a tool ID whose namespace is a server that failed (its tools are absent
   * from the index), naming it with its last connect error as `cause`; `undefined` otherwise. What a
   * doc lookup of such a tool answers instead of `TOOL_NOT_FOUND`, as a call of it does.
   */
  unavailableFor(id: string): ToolexecError | undefined {
    const entry = this.#entryOf(id);
    return entry !== undefined && entry.status.state === 'failed' ? unavailableError(entry, id) : undefined;
  }

  /** True while a server's first import (what discovery waits for) is in flight. */
  #discovering(): boolean {
    for (const entry of this.#entries.values()) if (entry.attempt !== undefined && entry.blocking) return true;
    return false;
  }

  #lookup(id: string): Tool | undefined {
    try {
      return this.#options.index.getTool(id).tool;
    } catch {
      return undefined;
    }
  }

  /** The backends of a tool found by {@link resolveMissing}. */
  backendsOf(id: string): ToolBackend[] | undefined {
    try {
      return this.#options.index.getAllBackends(id);
    } catch {
      return undefined;
    }
  }

  /**
   * After an OAuth authorization was completed: connects `name` now, whatever its backoff, and
   * resolves once it is connected (rejects with SERVER_UNAVAILABLE when it failed again).
   */
  async reconnectNow(name: string): Promise<void> {
    const entry = this.#entries.get(name);
    if (entry === undefined || this.#closed) return;
    if (entry.attempt === undefined && (entry.status.state !== 'connected' || entry.stale)) this.#start(entry);
    await this.#waitFor(entry);
  }

  /** The server sent tools/list_changed: re-import its tools. */
  markStale(name: string): void {
    const entry = this.#entries.get(name);
    if (entry === undefined || this.#closed) return;
    entry.stale = true;
    this.#settled = false;
    this.#start(entry);
  }

  /** A connection that was open ended by itself (exit, crash): the server is failed until an attempt succeeds. */
  connectionLost(name: string, error: ToolexecError): void {
    const entry = this.#entries.get(name);
    // An attempt in flight sees the loss itself.
    if (entry === undefined || this.#closed || entry.attempt !== undefined) return;
    this.#fail(entry, error);
  }

  /** Stops every retry; every server becomes `closed`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#settled = false;
    for (const entry of this.#entries.values()) {
      clearTimeout(entry.retryTimer);
      entry.retryTimer = undefined;
      this.#set(entry, { state: 'closed', toolCount: 0 });
    }
  }

  /** The attempts in flight of the servers `filter` picks. */
  #attempts(filter: (entry: ServerEntry) => boolean): Promise<void>[] {
    const attempts: Promise<void>[] = [];
    for (const entry of this.#entries.values()) if (entry.attempt !== undefined && filter(entry)) attempts.push(entry.attempt);
    return attempts;
  }

  /** The server whose name is the ID's namespace: the longest that prefixes it (a server's name may hold a colon). */
  #entryOf(id: string): ServerEntry | undefined {
    let found: ServerEntry | undefined;
    for (const entry of this.#entries.values()) {
      if (id.startsWith(`${entry.name}:`) && (found === undefined || entry.name.length > found.name.length)) found = entry;
    }
    return found;
  }

  #requiredPending(): ServerEntry[] {
    const pending: ServerEntry[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.required && (entry.status.state !== 'connected' || entry.attempt !== undefined)) pending.push(entry);
    }
    return pending;
  }

  /** Starts the attempts that are due: servers never tried, and failed ones past their backoff. */
  #startDue(): void {
    const now = Date.now();
    for (const entry of this.#entries.values()) {
      if (entry.attempt !== undefined) continue;
      if (!entry.tried || (entry.status.state === 'failed' && now >= entry.retryAtMs)) this.#start(entry);
    }
  }

  async #waitAll(entries: ServerEntry[], bounds: WaitBounds): Promise<void> {
    const deadline = new Deadline(bounds.signal, bounds.timeoutMs);
    try {
      for (const entry of entries) {
        const outcome = await deadline.race(this.#waitFor(entry));
        if (outcome === ABORTED) {
          throw abortError(errors, deadline.reason, `waiting for the required MCP server "${entry.name}" was`, {
            details: { server: entry.name },
          });
        }
      }
    } finally {
      deadline.dispose();
    }
  }

  /** Resolves once `entry` is connected; rejects with SERVER_UNAVAILABLE when it failed and its backoff has not passed. */
  async #waitFor(entry: ServerEntry, toolId?: string): Promise<void> {
    for (;;) {
      if (this.#closed) throw closedError();
      if (entry.attempt === undefined) {
        if (entry.status.state === 'connected' && !entry.stale) return;
        if (entry.tried && entry.status.state === 'failed' && Date.now() < entry.retryAtMs) throw unavailableError(entry, toolId);
        this.#start(entry);
      }
      await entry.attempt;
      if (entry.status.state === 'failed') throw unavailableError(entry, toolId);
    }
  }

  /** Starts an import of `entry` unless one is in flight. */
  #start(entry: ServerEntry): void {
    if (entry.attempt !== undefined || this.#closed) return;
    clearTimeout(entry.retryTimer);
    entry.retryTimer = undefined;
    entry.blocking = !entry.tried || entry.stale;
    entry.attemptStartedMs = performance.now();
    if (entry.status.state !== 'connected') this.#set(entry, { state: 'connecting', toolCount: 0 });
    // Started on the next turn of the event loop: spawning a server process takes milliseconds,
    // which the call that started the attempt (a local tool, say) must not wait for.
    entry.attempt = nextTurn()
      .then(() => this.#import(entry))
      .finally(() => {
        entry.attempt = undefined;
        entry.blocking = false;
        entry.tried = true;
        // tools/list_changed arrived while this import was listing: list again.
        if (entry.stale && entry.status.state === 'connected') this.#start(entry);
      });
  }

  /** Connects (through the executor) and imports the server's tools; never rejects. */
  async #import(entry: ServerEntry): Promise<void> {
    // This listing sees every change announced so far; one announced from now on lists again.
    entry.stale = false;
    let tools: McpTool[];
    // tools the listing itself refused (malformed: no inputSchema, a description that is not a string, ...)
    const refused: RejectedTool[] = [];
    try {
      tools = await this.#options.client.listTools(entry.name, {
        onRejectedTool: (tool, error) => refused.push(rejectedTool(entry.name, tool, error)),
      });
    } catch (error) {
      if (this.#closed) return;
      this.#fail(entry, toToolexecError(error));
      return;
    }
    if (this.#closed) return;
    try {
      this.#unregister(entry);
      const { toolIds, rejected } = registerServerTools(this.#options.index, entry.name, tools);
      rejected.unshift(...refused);
      entry.toolIds = toolIds;
      entry.failures = 0;
      entry.retryAtMs = 0;
      const next: Omit<ServerStatus, 'since'> = { state: 'connected', toolCount: entry.toolIds.length };
      if (rejected.length > 0) next.rejectedTools = rejected;
      this.#set(entry, next);
    } catch (error) {
      // Nothing in an import may escape: it runs in the background, where no one would catch it.
      this.#fail(entry, toToolexecError(error));
    }
  }

  #fail(entry: ServerEntry, error: ToolexecError): void {
    this.#unregister(entry);
    entry.failures++;
    const delayMs = backoffDelayMs(entry.failures, this.#options.reconnect);
    entry.retryAtMs = Date.now() + delayMs;
    entry.stale = false;
    clearTimeout(entry.retryTimer);
    // The background retry; a call after the backoff starts one on demand as well.
    entry.retryTimer = setTimeout(() => {
      entry.retryTimer = undefined;
      this.#start(entry);
    }, delayMs);
    entry.retryTimer.unref();
    this.#set(entry, { state: 'failed', toolCount: 0, error });
  }

  #unregister(entry: ServerEntry): void {
    unregisterServerTools(this.#options.index, entry.name, entry.toolIds);
    entry.toolIds = [];
  }

  #set(entry: ServerEntry, next: Omit<ServerStatus, 'since'>): void {
    const { status, changed } = nextStatus(entry.status, next);
    entry.status = status;
    this.#settled = !this.#closed && [...this.#entries.values()].every((e) => e.status.state === 'connected' && !e.stale);
    const listener = this.#options.onStatus;
    if (changed && listener !== undefined) listener(entry.name, { ...status });
  }
}
