/**
 * The in-memory tool index: registration, lookup, full-text search, pages and change events
 * (the Go `index` package's behaviour; see docs/go-parity.md).
 */
import { validateTool, type ToolexecError, type BackendKind, type McpTool, type Tool, type ToolBackend } from '../model/index.js';
import { decodeCursor, encodeCursor, fingerprint, isAbsentCursor, itemCount, newIndexId, pageSize } from './cursor.js';
import { batchEntryError, checkSameMcpFields, identityOf, prepareRegistration, type PreparedRegistration } from './registration.js';
import { ToolLookups, lookupsByIndex } from './index-lookups.js';
import { runSearcher } from './custom-searcher.js';
import { selectBackend } from './backend-selector.js';
import { engineDoc } from './search-fields.js';
import { buildDocText, buildSummary, copySummary } from './summary.js';
import { resolveToolIndexOptions, type ResolvedToolIndexOptions } from './index-options.js';
import { ChangeListeners } from './change-listeners.js';
import { selectTop } from './ranking.js';
import { TextEngine, queryTerms } from './text-engine.js';
import type {
  ChangeEvent,
  ChangeType,
  Page,
  SearchDoc,
  Searcher,
  ToolIndex,
  ToolIndexOptions,
  ToolRegistration,
  ToolSummary,
} from './types.js';
import { discoveryErrors as errors, guardErrors } from './errors.js';
import { checkQuery, checkToolId } from './arguments.js';
import { guardCall, textOf } from '../model/internal.js';

interface ToolRecord {
  readonly id: string;
  /** Deep-frozen copy of the registered tool (raw tags). */
  tool: Tool;
  /** Frozen backends in registration order, with their identities at the same positions. */
  readonly backends: ToolBackend[];
  readonly identities: string[];
  summary: Readonly<ToolSummary>;
  tags: readonly string[];
  /** Built on first use by the search-doc snapshot. */
  docText: string | undefined;
}

const NAMESPACE_LISTING = fingerprint('namespaces');

function notFound(id: string): ToolexecError {
  return errors.toolNotFound(textOf(id), { details: { toolId: textOf(id) } });
}

const { invalidArgument } = errors;

/**
 * The in-memory {@link ToolIndex}.
 *
 * @remarks
 * All methods are synchronous. Stored tools and backends are deep-frozen copies: what
 * `getTool` and `getAllBackends` return can be read freely but not modified (assigning to them
 * throws in strict mode), and changing an object after registering it does not change the index.
 * Summaries are fresh copies on every call.
 *
 * Search uses a MiniSearch (BM25+) index kept in step with every registration (never rebuilt per
 * search; words by their stem, typos for words that match nothing, namespace pieces at a tiny
 * score: see text-engine.ts). Ranking: an exact ID match (case-insensitive) first, then exact
 * name matches, then by score, ties broken by ID in code-point order. A custom {@link Searcher} replaces the engine
 * and receives the frozen, ID-sorted {@link SearchDoc} snapshot, rebuilt only after a change.
 *
 * Change listeners run synchronously after the change, from a snapshot of the listener list
 * (a listener added during a notification misses it, one removed during it still gets it). A
 * change a listener makes (registering a tool from inside a listener) is applied at once, but its
 * event is delivered after the current event has reached every listener: each listener sees
 * events in strictly increasing version order. A throwing listener does not affect the index or
 * the other listeners; its error goes to {@link ToolIndexOptions.onListenerError}.
 */
export class InMemoryToolIndex implements ToolIndex {
  readonly #options: ResolvedToolIndexOptions;
  readonly #records = new Map<string, ToolRecord>();
  readonly #lookups = new ToolLookups(this.#records);
  readonly #engine: TextEngine | undefined;
  /** Random, written into this index's cursors so that no other index accepts them. */
  readonly #indexId = newIndexId();
  #version = 0;
  readonly #listeners: ChangeListeners;
  // Caches, dropped on every change.
  #searchDocs: readonly SearchDoc[] | undefined;
  #pageCache: { version: number; query: string; listing: string; items: readonly Readonly<ToolSummary>[] } | undefined;

  constructor(options?: ToolIndexOptions) {
    this.#options = resolveToolIndexOptions(options);
    this.#listeners = new ChangeListeners(this.#options.onListenerError);
    this.#engine = this.#options.searcher === undefined ? new TextEngine() : undefined;
    lookupsByIndex.set(this, this.#lookups);
  }

  /** The current index version: 0 when new, increased by every change. */
  get version(): number {
    return this.#version;
  }

  registerTool(tool: Tool, backend: ToolBackend): void {
    guardCall(guardErrors, 'tool', () => this.#registerTool(tool, backend));
  }

  #registerTool(tool: Tool, backend: ToolBackend): void {
    this.#apply(prepareRegistration(tool, backend));
  }

  /** Registers a checked tool and backend (see {@link ToolIndex.registerTool}). */
  #apply(prepared: PreparedRegistration): void {
    const { id, tool: stored, backend: frozenBackend, identity, tags } = prepared;
    const existing = this.#records.get(id);

    if (existing === undefined) {
      const record: ToolRecord = {
        id,
        tool: stored,
        backends: [frozenBackend],
        identities: [identity],
        summary: buildSummary(stored, id, tags),
        tags,
        docText: undefined,
      };
      this.#records.set(id, record);
      this.#lookups.add(id, stored);
      this.#engine?.upsert(engineDoc(id, stored, tags));
      this.#changed('registered', id, frozenBackend);
      return;
    }

    checkSameMcpFields(id, existing.tool, stored);
    existing.tool = stored;
    existing.tags = tags;
    existing.summary = buildSummary(stored, id, tags);
    existing.docText = undefined;
    const position = existing.identities.indexOf(identity);
    if (position >= 0) existing.backends[position] = frozenBackend;
    else {
      existing.backends.push(frozenBackend);
      existing.identities.push(identity);
    }
    this.#engine?.upsert(engineDoc(id, stored, tags));
    this.#changed('updated', id, frozenBackend);
  }

  registerTools(regs: readonly ToolRegistration[]): void {
    guardCall(guardErrors, 'registrations', () => this.#registerTools(regs));
  }

  /** All or nothing: every entry is checked (against the index and the entries before it) before any is registered. */
  #registerTools(regs: readonly ToolRegistration[]): void {
    if (!Array.isArray(regs)) throw invalidArgument('registrations must be an array');
    const entries = regs as readonly ToolRegistration[];
    const prepared: PreparedRegistration[] = [];
    const batchTools = new Map<string, Tool>();
    entries.forEach((reg, index) => {
      try {
        if (reg === null || typeof reg !== 'object') throw invalidArgument('each registration must be { tool, backend }');
        const entry = prepareRegistration(reg.tool, reg.backend);
        const before = batchTools.get(entry.id) ?? this.#records.get(entry.id)?.tool;
        if (before !== undefined) checkSameMcpFields(entry.id, before, entry.tool);
        batchTools.set(entry.id, entry.tool);
        prepared.push(entry);
      } catch (error) {
        throw batchEntryError(error, reg, { index, count: entries.length, registered: 0 });
      }
    });
    // Listeners hear of the batch once all of it is in, so none can change the index half-way.
    this.#listeners.batch(() => {
      for (const entry of prepared) this.#apply(entry);
    });
  }

  registerToolsFromMcp(serverName: string, tools: readonly McpTool[]): void {
    guardCall(guardErrors, 'tools', () => this.#registerFromMcp(serverName, tools));
  }

  #registerFromMcp(serverName: string, tools: readonly McpTool[]): void {
    if (typeof serverName !== 'string') throw invalidArgument('serverName must be a string', { serverName: textOf(serverName) });
    if (!Array.isArray(tools)) throw invalidArgument('tools must be an array');
    const list = tools as readonly McpTool[];
    list.forEach((tool, index) => {
      try {
        if (tool === null || typeof tool !== 'object') validateTool(tool);
        const namespace = (tool as Tool).namespace || serverName;
        this.#registerTool({ ...tool, namespace }, { kind: 'mcp', mcp: { serverName } });
      } catch (error) {
        throw batchEntryError(error, { tool }, { index, count: list.length, registered: index });
      }
    });
  }

  unregisterBackend(id: string, kind: BackendKind, backendId: string): void {
    const identity = identityOf(kind, backendId);
    const record = this.#record(id);
    const position = identity === undefined ? -1 : record.identities.indexOf(identity);
    if (position < 0) {
      throw errors.toolNotFound(`backend not found (${textOf(kind)} "${textOf(backendId)}" of ${textOf(id)})`, {
        details: { toolId: id, kind, backendId },
      });
    }
    const [removed] = record.backends.splice(position, 1);
    record.identities.splice(position, 1);
    if (record.backends.length > 0) {
      this.#changed('backend_removed', id, removed);
      return;
    }
    this.#records.delete(id);
    this.#lookups.remove(id, record.tool);
    this.#engine?.remove(id);
    this.#changed('tool_removed', id, removed);
  }

  getTool(id: string): {
    /** The registered tool (frozen; read, do not modify). */
    tool: Tool;
    /** The backend the configured selector picked among the tool's backends. */
    backend: ToolBackend;
  } {
    const record = this.#record(id);
    return { tool: record.tool, backend: selectBackend(this.#options.backendSelector, record.backends, record.id) };
  }

  getAllBackends(id: string): ToolBackend[] {
    return this.#record(id).backends.slice();
  }

  /** The record of a registered tool: `INVALID_ARGUMENT` for an ID that is not a string, `TOOL_NOT_FOUND` for an unknown one. */
  #record(id: string): ToolRecord {
    checkToolId(id);
    const record = this.#records.get(id);
    if (record === undefined) throw notFound(id);
    return record;
  }

  search(query: string, limit: number): ToolSummary[] {
    checkQuery(query);
    const count = itemCount(limit);
    if (count === 0) return [];
    return this.#rank(query, count).map(copySummary);
  }

  searchPage(query: string, limit: number, cursor?: string): Page<ToolSummary> {
    checkQuery(query);
    const size = pageSize(limit);
    const { searcher } = this.#options;
    if (searcher !== undefined && searcher.deterministic !== true) {
      throw errors.configuration(
        `searchPage needs a deterministic searcher; the configured searcher declares deterministic: ${String(searcher.deterministic)} (declare deterministic: true)`,
      );
    }
    // The listing's fingerprint is kept with the ranked list, so that a long query is hashed once.
    const previous = this.#pageCache?.query === query ? this.#pageCache : undefined;
    const listing = previous?.listing ?? fingerprint(`search\u0000${query}`);
    const offset = isAbsentCursor(cursor) ? 0 : decodeCursor(cursor, this.#version, listing, this.#indexId);
    let cached = previous;
    if (cached === undefined || cached.version !== this.#version) {
      cached = { version: this.#version, query, listing, items: this.#rank(query, Infinity) };
      this.#pageCache = cached;
    }
    return this.#page(cached.items, offset, size, listing, copySummary);
  }

  listNamespaces(): string[] {
    return this.#lookups.namespaces().slice();
  }

  listNamespacesPage(limit: number, cursor?: string): Page<string> {
    const size = pageSize(limit);
    const offset = isAbsentCursor(cursor) ? 0 : decodeCursor(cursor, this.#version, NAMESPACE_LISTING, this.#indexId);
    return this.#page(this.#lookups.namespaces(), offset, size, NAMESPACE_LISTING, (namespace) => namespace);
  }

  onChange(listener: (event: ChangeEvent) => void): () => void {
    return this.#listeners.add(listener);
  }

  refresh(): number {
    this.#changed('refreshed', '', undefined);
    return this.#version;
  }

  /** Applies the bookkeeping of a successful change, then tells the listeners (see {@link ChangeListeners}). */
  #changed(type: ChangeType, id: string, backend: ToolBackend | undefined): void {
    this.#version += 1;
    this.#searchDocs = undefined;
    this.#pageCache = undefined;
    if (!this.#listeners.any) return;
    const event: ChangeEvent = { type, toolId: id, version: this.#version };
    if (backend !== undefined) event.backend = backend;
    this.#listeners.deliver(Object.freeze(event));
  }

  /** The best `limit` summaries for a query (stored objects; callers copy them). */
  #rank(query: string, limit: number): readonly Readonly<ToolSummary>[] {
    if (this.#options.searcher !== undefined) return this.#searchWith(this.#options.searcher, query, limit);
    const trimmed = query.trim();
    const records = this.#records;
    if (trimmed === '') {
      return this.#lookups
        .ids()
        .slice(0, limit)
        .map((id) => (records.get(id) as ToolRecord).summary);
    }
    const hits = (this.#engine as TextEngine).search(queryTerms(trimmed));
    const lower = trimmed.toLowerCase();
    const ranked = selectTop(hits, limit, this.#lookups.idsWithLowerId(lower), this.#lookups.idsWithLowerName(lower));
    return ranked.map((entry) => (records.get(entry.id) as ToolRecord).summary);
  }

  #searchWith(searcher: Searcher, query: string, limit: number): readonly Readonly<ToolSummary>[] {
    return runSearcher(searcher, query, limit, this.#snapshot());
  }

  /** The frozen, ID-sorted search docs, built on first use after a change. */
  #snapshot(): readonly SearchDoc[] {
    if (this.#searchDocs !== undefined) return this.#searchDocs;
    const docs = this.#lookups.ids().map((id) => {
      const record = this.#records.get(id) as ToolRecord;
      record.docText ??= buildDocText(record.tool, record.tags);
      return Object.freeze({ id, docText: record.docText, summary: record.summary });
    });
    this.#searchDocs = Object.freeze(docs);
    return this.#searchDocs;
  }

  #page<S, T>(items: readonly S[], offset: number, size: number, listing: string, copy: (item: S) => T): Page<T> {
    if (offset >= items.length) return { items: [] };
    const end = Math.min(offset + size, items.length);
    const page: Page<T> = { items: items.slice(offset, end).map(copy) };
    if (end < items.length) page.nextCursor = encodeCursor(end, this.#version, listing, this.#indexId);
    return page;
  }
}

/**
 * Creates an in-memory {@link ToolIndex}.
 *
 * @throws {@link toolexec/model!ToolexecError} `CONFIGURATION` when an option has the wrong type.
 */
export function createToolIndex(options?: ToolIndexOptions): InMemoryToolIndex {
  return guardCall(guardErrors, 'index options', () => new InMemoryToolIndex(options));
}
