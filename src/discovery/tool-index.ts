/**
 * The in-memory tool index: registration, lookup, full-text search, pages and change events
 * (the Go `index` package's behaviour; see docs/go-parity.md).
 */
import {
  ToolexecError,
  backendIdentity,
  errorMessage,
  normalizeTags,
  toolId,
  validateBackend,
  validateTool,
  type BackendKind,
  type McpTool,
  type Tool,
  type ToolBackend,
} from '../model/index.js';
import { compareCodePoints } from './compare.js';
import { decodeCursor, encodeCursor, fingerprint } from './cursor.js';
import { frozenCopy } from './freeze.js';
import { sameMcpFields } from './mcp-equality.js';
import { buildDocText, buildSummary, copySummary } from './summary.js';
import { resolveToolIndexOptions, type ResolvedToolIndexOptions } from './index-options.js';
import { ChangeListeners } from './change-listeners.js';
import { addToMultiMap, multiMapValues, removeFromMultiMap, type MultiMap } from './multi-map.js';
import { selectTop } from './ranking.js';
import { TextEngine, queryTerms, type EngineDoc } from './text-engine.js';
import { metaSummary, category } from './tool-facts.js';
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

/**
 * Read-only views of an in-memory index's lookup tables, for "did you mean" suggestions
 * (suggest.ts): what the public interface can only give by copying every summary.
 *
 * @internal
 */
export interface IndexLookups {
  /** Every tool ID in code-point order (the index's own cached list: do not modify). */
  ids(): readonly string[];
  /** The IDs of the tools in `namespace` (exactly), in code-point order, at most `max`. */
  idsInNamespace(namespace: string, max: number): string[];
  /** The IDs of the tools whose lowercased name is `lowerName`. */
  idsNamed(lowerName: string): readonly string[];
}

const lookupsByIndex = new WeakMap<object, IndexLookups>();

/**
 * The lookups of an index made by {@link createToolIndex}; `undefined` for any other {@link ToolIndex}.
 *
 * @internal
 */
export function indexLookups(index: unknown): IndexLookups | undefined {
  return index !== null && typeof index === 'object' ? lookupsByIndex.get(index) : undefined;
}

function notFound(id: unknown): ToolexecError {
  return errors.toolNotFound(textOf(id), { details: { toolId: textOf(id) } });
}

const { invalidArgument } = errors;

function checkQuery(query: unknown): asserts query is string {
  if (typeof query !== 'string') throw invalidArgument('query must be a string', { query: typeof query });
}

/**
 * `limit` as a count of items: 0 when it is not positive (NaN included).
 *
 * @throws `INVALID_ARGUMENT` when `limit` is not a number at all (`'4'`): a caller's mistake, not an empty request.
 */
function itemCount(limit: unknown): number {
  if (typeof limit !== 'number') throw invalidArgument('limit must be a number', { limit: typeof limit });
  if (!(limit >= 1)) return 0;
  return limit === Infinity ? Infinity : Math.floor(limit);
}

function pageSize(limit: unknown): number {
  const count = itemCount(limit);
  if (count === 0) throw invalidArgument('limit must be positive', { limit });
  return count;
}

function isAbsentCursor(cursor: unknown): boolean {
  return cursor === undefined || cursor === null || cursor === '';
}

/** A frozen copy of a backend with only its kind and identity fields. */
function storedBackend(backend: ToolBackend): ToolBackend {
  switch (backend.kind) {
    case 'mcp':
      return Object.freeze({ kind: 'mcp', mcp: Object.freeze({ serverName: backend.mcp.serverName }) });
    case 'provider':
      return Object.freeze({
        kind: 'provider',
        provider: Object.freeze({ providerId: backend.provider.providerId, toolId: backend.provider.toolId }),
      });
    case 'local':
      return Object.freeze({ kind: 'local', local: Object.freeze({ name: backend.local.name }) });
  }
}

function storedTool(tool: Tool): Tool {
  let copy: Tool;
  try {
    copy = frozenCopy(tool);
  } catch (error) {
    const reason = `tool is not plain data (${errorMessage(error)})`;
    throw errors.invalidTool(reason, { cause: error });
  }
  return copy;
}

function engineDoc(record: ToolRecord): EngineDoc {
  const { tool } = record;
  const description = typeof tool.description === 'string' ? tool.description : '';
  const summary = metaSummary(tool);
  return {
    id: record.id,
    name: tool.name,
    namespace: tool.namespace ?? '',
    description,
    summary: summary !== undefined && summary !== description ? summary : '',
    tags: record.tags.join(' '),
    category: category(tool) ?? '',
  };
}

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
 * search). Ranking: an exact ID match (case-insensitive) first, then exact name matches, then
 * by score, ties broken by ID in code-point order. A custom {@link Searcher} replaces the engine
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
  readonly #namespaces = new Map<string, number>();
  readonly #byLowerId: MultiMap = new Map();
  readonly #byLowerName: MultiMap = new Map();
  readonly #engine: TextEngine | undefined;
  #version = 0;
  readonly #listeners: ChangeListeners;
  // Caches, dropped on every change.
  #sortedIds: string[] | undefined;
  #namespaceList: string[] | undefined;
  #searchDocs: readonly SearchDoc[] | undefined;
  #pageCache: { version: number; query: string; items: readonly Readonly<ToolSummary>[] } | undefined;

  constructor(options?: ToolIndexOptions) {
    this.#options = resolveToolIndexOptions(options);
    this.#listeners = new ChangeListeners(this.#options.onListenerError);
    this.#engine = this.#options.searcher === undefined ? new TextEngine() : undefined;
    lookupsByIndex.set(this, {
      ids: () => this.#sortedIdList(),
      idsInNamespace: (namespace, max) => this.#idsInNamespace(namespace, max),
      idsNamed: (lowerName) => multiMapValues(this.#byLowerName, lowerName) ?? [],
    });
  }

  /** The current index version: 0 when new, increased by every change. */
  get version(): number {
    return this.#version;
  }

  registerTool(tool: Tool, backend: ToolBackend): void {
    guardCall(guardErrors, 'tool', () => this.#registerTool(tool, backend));
  }

  #registerTool(tool: Tool, backend: ToolBackend): void {
    validateTool(tool);
    validateBackend(backend);
    const id = toolId(tool);
    const stored = storedTool(tool);
    const frozenBackend = storedBackend(backend);
    const identity = backendIdentity(frozenBackend);
    const tags = normalizeTags(stored.tags ?? []);
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
      this.#addLookups(record);
      this.#engine?.upsert(engineDoc(record));
      this.#changed('registered', id, frozenBackend);
      return;
    }

    if (!sameMcpFields(existing.tool, stored)) {
      throw errors.invalidTool(`tool "${id}" MCP fields differ from existing registration`, {
        details: { toolId: id, reason: 'MCP fields differ from existing registration' },
      });
    }
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
    this.#engine?.upsert(engineDoc(existing));
    this.#changed('updated', id, frozenBackend);
  }

  registerTools(regs: readonly ToolRegistration[]): void {
    guardCall(guardErrors, 'registrations', () => this.#registerTools(regs));
  }

  #registerTools(regs: readonly ToolRegistration[]): void {
    if (!Array.isArray(regs)) throw invalidArgument('registrations must be an array');
    for (const reg of regs as readonly ToolRegistration[]) {
      if (reg === null || typeof reg !== 'object') throw invalidArgument('each registration must be { tool, backend }');
      this.registerTool(reg.tool, reg.backend);
    }
  }

  registerToolsFromMcp(serverName: string, tools: readonly McpTool[]): void {
    guardCall(guardErrors, 'tools', () => this.#registerFromMcp(serverName, tools));
  }

  #registerFromMcp(serverName: string, tools: readonly McpTool[]): void {
    if (typeof serverName !== 'string') throw invalidArgument('serverName must be a string', { serverName: textOf(serverName) });
    if (!Array.isArray(tools)) throw invalidArgument('tools must be an array');
    for (const tool of tools as readonly McpTool[]) {
      if (tool === null || typeof tool !== 'object') validateTool(tool);
      const namespace = (tool as Tool).namespace || serverName;
      this.registerTool({ ...tool, namespace }, { kind: 'mcp', mcp: { serverName } });
    }
  }

  unregisterBackend(id: string, kind: BackendKind, backendId: string): void {
    if (typeof backendId !== 'string') {
      throw errors.invalidBackend('backendID must be a string');
    }
    let identity: string | undefined;
    if (kind === 'provider') {
      const colon = backendId.indexOf(':');
      if (colon < 0) {
        throw errors.invalidBackend("provider backendID must be in format 'providerID:toolID'", { backendId });
      }
      const providerId = backendId.slice(0, colon);
      const providerToolId = backendId.slice(colon + 1);
      if (providerId === '' || providerToolId === '') {
        throw errors.invalidBackend('provider backendID must have non-empty providerID and toolID', { backendId });
      }
      identity = backendIdentity({ kind, provider: { providerId, toolId: providerToolId } });
    } else if (kind === 'mcp') identity = backendIdentity({ kind, mcp: { serverName: backendId } });
    else if (kind === 'local') identity = backendIdentity({ kind, local: { name: backendId } });

    const record = typeof id === 'string' ? this.#records.get(id) : undefined;
    if (record === undefined) throw notFound(id);
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
    this.#removeLookups(record);
    this.#engine?.remove(id);
    this.#changed('tool_removed', id, removed);
  }

  getTool(id: string): {
    /** The registered tool (frozen; read, do not modify). */
    tool: Tool;
    /** The backend the configured selector picked among the tool's backends. */
    backend: ToolBackend;
  } {
    const record = typeof id === 'string' ? this.#records.get(id) : undefined;
    if (record === undefined) throw notFound(id);
    return { tool: record.tool, backend: this.#options.backendSelector(record.backends.slice()) };
  }

  getAllBackends(id: string): ToolBackend[] {
    const record = typeof id === 'string' ? this.#records.get(id) : undefined;
    if (record === undefined) throw notFound(id);
    return record.backends.slice();
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
    if (this.#options.searcher?.deterministic === false) {
      throw errors.configuration('searchPage needs a deterministic searcher; the configured searcher declares deterministic: false');
    }
    const listing = fingerprint(`search\u0000${query}`);
    const offset = isAbsentCursor(cursor) ? 0 : decodeCursor(cursor, this.#version, listing);
    let cached = this.#pageCache;
    if (cached === undefined || cached.version !== this.#version || cached.query !== query) {
      cached = { version: this.#version, query, items: this.#rank(query, Infinity) };
      this.#pageCache = cached;
    }
    return this.#page(cached.items, offset, size, listing, copySummary);
  }

  listNamespaces(): string[] {
    return this.#sortedNamespaces().slice();
  }

  listNamespacesPage(limit: number, cursor?: string): Page<string> {
    const size = pageSize(limit);
    const offset = isAbsentCursor(cursor) ? 0 : decodeCursor(cursor, this.#version, NAMESPACE_LISTING);
    return this.#page(this.#sortedNamespaces(), offset, size, NAMESPACE_LISTING, (namespace) => namespace);
  }

  onChange(listener: (event: ChangeEvent) => void): () => void {
    return this.#listeners.add(listener);
  }

  refresh(): number {
    this.#changed('refreshed', '', undefined);
    return this.#version;
  }

  #addLookups(record: ToolRecord): void {
    const namespace = record.tool.namespace ?? '';
    const count = this.#namespaces.get(namespace) ?? 0;
    this.#namespaces.set(namespace, count + 1);
    if (count === 0) this.#namespaceList = undefined;
    addToMultiMap(this.#byLowerId, record.id.toLowerCase(), record.id);
    addToMultiMap(this.#byLowerName, record.tool.name.toLowerCase(), record.id);
    this.#sortedIds = undefined;
  }

  #removeLookups(record: ToolRecord): void {
    const namespace = record.tool.namespace ?? '';
    const count = this.#namespaces.get(namespace) ?? 0;
    if (count <= 1) {
      this.#namespaces.delete(namespace);
      this.#namespaceList = undefined;
    } else this.#namespaces.set(namespace, count - 1);
    removeFromMultiMap(this.#byLowerId, record.id.toLowerCase(), record.id);
    removeFromMultiMap(this.#byLowerName, record.tool.name.toLowerCase(), record.id);
    this.#sortedIds = undefined;
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

  #sortedIdList(): string[] {
    this.#sortedIds ??= [...this.#records.keys()].sort(compareCodePoints);
    return this.#sortedIds;
  }

  /** The IDs starting with `namespace:` form one run of the sorted list: found by binary search. */
  #idsInNamespace(namespace: string, max: number): string[] {
    if (!this.#namespaces.has(namespace)) return [];
    const sorted = this.#sortedIdList();
    const prefix = `${namespace}:`;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareCodePoints(sorted[middle] as string, prefix) < 0) low = middle + 1;
      else high = middle;
    }
    const out: string[] = [];
    for (let i = low; i < sorted.length && out.length < max; i++) {
      const id = sorted[i] as string;
      if (!id.startsWith(prefix)) break;
      if ((this.#records.get(id) as ToolRecord).tool.namespace === namespace) out.push(id);
    }
    return out;
  }

  #sortedNamespaces(): string[] {
    this.#namespaceList ??= [...this.#namespaces.keys()].sort(compareCodePoints);
    return this.#namespaceList;
  }

  /** The best `limit` summaries for a query (stored objects; callers copy them). */
  #rank(query: string, limit: number): readonly Readonly<ToolSummary>[] {
    if (this.#options.searcher !== undefined) return this.#searchWith(this.#options.searcher, query, limit);
    const trimmed = query.trim();
    const records = this.#records;
    if (trimmed === '') {
      return this.#sortedIdList()
        .slice(0, limit)
        .map((id) => (records.get(id) as ToolRecord).summary);
    }
    const hits = (this.#engine as TextEngine).search(queryTerms(trimmed));
    const lower = trimmed.toLowerCase();
    const ranked = selectTop(hits, limit, multiMapValues(this.#byLowerId, lower), multiMapValues(this.#byLowerName, lower));
    return ranked.map((entry) => (records.get(entry.id) as ToolRecord).summary);
  }

  #searchWith(searcher: Searcher, query: string, limit: number): readonly Readonly<ToolSummary>[] {
    const docs = this.#snapshot();
    let results: unknown;
    try {
      results = searcher.search(query, limit === Infinity ? docs.length : limit, docs);
    } catch (error) {
      if (ToolexecError.isInstance(error)) throw error;
      throw errors.searcherFailed(errorMessage(error), error);
    }
    if (!Array.isArray(results) || results.some((item) => item === null || typeof item !== 'object')) {
      throw errors.searcherFailed('search() must return an array of summaries');
    }
    const summaries = results as Readonly<ToolSummary>[];
    return limit < summaries.length ? summaries.slice(0, limit) : summaries;
  }

  /** The frozen, ID-sorted search docs, built on first use after a change. */
  #snapshot(): readonly SearchDoc[] {
    if (this.#searchDocs !== undefined) return this.#searchDocs;
    const docs = this.#sortedIdList().map((id) => {
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
    if (end < items.length) page.nextCursor = encodeCursor(end, this.#version, listing);
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
