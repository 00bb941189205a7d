import type { BackendKind, McpTool, Tool, ToolBackend } from '../model/index.js';

/**
 * What search returns for a tool: its ID and the short, schema-free facts a model needs to pick it.
 */
export interface ToolSummary {
  /** The canonical tool ID (`namespace:name[:version]`, or the bare name). */
  id: string;
  /** The tool's name. */
  name: string;
  /** The tool's namespace; absent when it has none. */
  namespace?: string;
  /** The summary text cut to 120 bytes (never splitting a character). */
  shortDescription?: string;
  /** The same text as `shortDescription`: `_meta.summary`, else the description, cut to 120 bytes. */
  summary?: string;
  /** `_meta.category`, when it is a non-empty string. */
  category?: string;
  /** The string items of `_meta.inputModes`; absent when there are none. */
  inputModes?: string[];
  /** The string items of `_meta.outputModes`; absent when there are none. */
  outputModes?: string[];
  /**
   * The key names of `_meta.securityRequirements` (else of `_meta.securitySchemes`), sorted and
   * joined with `,`; absent when there are none.
   */
  securitySummary?: string;
  /** Normalized tags. */
  tags?: string[];
}

/** The kinds of index change. */
export type ChangeType = 'registered' | 'updated' | 'backend_removed' | 'tool_removed' | 'refreshed';

/** One change of a {@link ToolIndex}, with the index version it produced. */
export interface ChangeEvent {
  /** What changed. */
  type: ChangeType;
  /** The tool concerned (`''` for `refreshed`). */
  toolId: string;
  /** The backend registered or removed, when there is one. */
  backend?: ToolBackend;
  /** The index version after the change; strictly increasing. */
  version: number;
}

/** The precomputed search input of one tool, handed to a {@link Searcher}. */
export interface SearchDoc {
  /** The canonical tool ID. */
  id: string;
  /** Lowercased, space-joined searchable text (name, namespace, description, summary, tags, ...). */
  docText: string;
  /** The tool's summary, as search returns it (read-only). */
  summary: ToolSummary;
}

/**
 * Ranks search docs for a query.
 *
 * @remarks Must not mutate `docs`; equal inputs give the same order (ties broken by ID);
 * `limit <= 0` gives `[]`.
 */
export interface Searcher {
  /** The best at most `limit` summaries among `docs` for `query`, best first. */
  search(query: string, limit: number, docs: readonly SearchDoc[]): ToolSummary[];
  /**
   * True when equal inputs always give the same order. {@link ToolIndex.searchPage} needs it
   * declared: a searcher without `deterministic: true` (unset or `false`) cannot page (`CONFIGURATION`).
   */
  readonly deterministic?: boolean;
}

/** Picks the backend a call uses among a tool's backends. */
export type BackendSelector = (backends: ToolBackend[]) => ToolBackend;

/** One tool and the backend it is registered with. */
export interface ToolRegistration {
  /** The tool definition (copied and frozen by the index). */
  tool: Tool;
  /** The backend that executes it. */
  backend: ToolBackend;
}

/** A page of search results or namespaces. */
export interface Page<T> {
  /** This page's items (at most the requested `limit`). */
  items: T[];
  /** Opaque; absent on the last page. Invalid (INVALID_CURSOR) after any index change, and for any other index. */
  nextCursor?: string;
}

/** Options of {@link createToolIndex}. */
export interface ToolIndexOptions {
  /** @defaultValue {@link defaultBackendSelector} (local > provider > mcp > first) */
  backendSelector?: BackendSelector;
  /** @defaultValue the built-in full-text searcher */
  searcher?: Searcher;
  /**
   * Called when a change listener throws (or returns a promise that rejects). The index and the other listeners are unaffected.
   *
   * @defaultValue emits a process warning (`process.emitWarning`) named
   * `ToolexecListenerWarning`, whose `cause` is the listener's error.
   */
  onListenerError?: (error: unknown, event: ChangeEvent) => void;
}

/**
 * The registry of tools: registration, lookup, search, pages and change events.
 *
 * @remarks In-memory implementations are synchronous; listeners run after the change is applied.
 */
export interface ToolIndex {
  /**
   * Registers a tool with one backend, or adds/replaces a backend of an already registered
   * tool (whose MCP fields must then be the same).
   *
   * @throws `INVALID_TOOL`, `INVALID_BACKEND`
   */
  registerTool(tool: Tool, backend: ToolBackend): void;
  /**
   * Registers in order, all or nothing: every entry is checked (against the index and the entries
   * before it) before any is registered, and listeners hear of the batch once all of it is in.
   *
   * @throws the failing entry's error code (`INVALID_TOOL`, `INVALID_BACKEND`, `INVALID_ARGUMENT`),
   * with a message and `details` naming the entry (`index`, `count`, `name`, `toolId`, `registered: 0`),
   * invisible characters shown as code points, and the entry's own error as `cause`; nothing is registered.
   */
  registerTools(regs: readonly ToolRegistration[]): void;
  /**
   * Registers each tool with an `mcp` backend for `serverName` (namespace = `tool.namespace || serverName`),
   * in order; stops at the first refused tool, the tools before it staying registered (a server's
   * good tools are not held back by one bad one).
   *
   * @throws `INVALID_ARGUMENT` when `serverName` is not a string or `tools` not an array; `INVALID_TOOL`, `INVALID_BACKEND`
   * naming the tool as {@link ToolIndex.registerTools} does, with `details.registered` the count left registered
   */
  registerToolsFromMcp(serverName: string, tools: readonly McpTool[]): void;
  /**
   * Removes one backend of a tool (`backendId` is the server name, the local name, or
   * `providerId:toolId`); the tool goes when its last backend does.
   *
   * @throws `TOOL_NOT_FOUND`, `INVALID_BACKEND`; `INVALID_ARGUMENT` when `toolId` is not a string
   */
  unregisterBackend(toolId: string, kind: BackendKind, backendId: string): void;
  /**
   * The tool with exactly this ID and the backend the selector picks.
   *
   * @throws `TOOL_NOT_FOUND`; `INVALID_ARGUMENT` when `id` is not a string (as the doc store);
   * `EXECUTION` when a custom selector throws (its error as `cause`), `CONFIGURATION` when it
   * returns something that is not a backend
   */
  getTool(id: string): {
    /** The registered tool (frozen; read, do not modify). */
    tool: Tool;
    /** The backend the index's {@link BackendSelector} picked among the tool's backends. */
    backend: ToolBackend;
  };
  /**
   * A copy of the tool's backends in registration order.
   *
   * @throws `TOOL_NOT_FOUND`; `INVALID_ARGUMENT` when `id` is not a string
   */
  getAllBackends(id: string): ToolBackend[];
  /**
   * The best `limit` tools for a free-text query: an exact ID match first, then exact name
   * matches, then by relevance, ties by ID. An empty query lists tools in ID order; `limit <= 0`
   * gives `[]`. Any query string is accepted.
   *
   * @throws `INVALID_ARGUMENT` when `query` is not a string or `limit` is not a number (`'4'`).
   */
  search(query: string, limit: number): ToolSummary[];
  /**
   * One page of `search(query, all)`; pass the previous page's `nextCursor` for the next one.
   *
   * @throws `INVALID_CURSOR` (malformed, from another index or query, or issued before any change since),
   * `INVALID_ARGUMENT` (`limit <= 0`, or not a number), `CONFIGURATION` (a custom searcher that does not declare `deterministic: true`)
   */
  searchPage(query: string, limit: number, cursor?: string): Page<ToolSummary>;
  /** Every namespace in code-point order (`''` when namespace-less tools exist). */
  listNamespaces(): string[];
  /** One page of {@link ToolIndex.listNamespaces}. @throws `INVALID_CURSOR`, `INVALID_ARGUMENT` (`limit <= 0`) */
  listNamespacesPage(limit: number, cursor?: string): Page<string>;
  /**
   * Subscribes to changes; returns an idempotent unsubscribe. Each listener sees events in
   * strictly increasing version order: a change made from inside a listener is applied at once,
   * and its event is delivered after the current one has reached every listener.
   */
  onChange(listener: (event: ChangeEvent) => void): () => void;
  /** Bumps the version (invalidating cursors) and emits `refreshed`. */
  refresh(): number;
  /** The current index version. */
  readonly version: number;
}

/** How much of a tool's documentation to return. */
export type DetailLevel = 'summary' | 'schema' | 'full';

/** A worked example of calling a tool. */
export interface ToolExample {
  /** An optional identifier; an empty one is dropped. */
  id?: string;
  /** A short name for the example. */
  title: string;
  /** What the example does; cut to 300 bytes when registered. */
  description: string;
  /**
   * The call's arguments: a JSON object (not an array, a string or another scalar: `INVALID_ARGUMENT`)
   * or `null`, of at most depth 5 and 50 keys/items in all (`ARGS_TOO_LARGE` otherwise).
   */
  args: Record<string, unknown> | null;
  /** What the call returns, in words; cut to 200 bytes when registered. */
  resultHint?: string;
}

/** What the input schema says about each argument. */
export interface SchemaInfo {
  /** The names listed in the schema's `required`. */
  required?: string[];
  /** Each property's `default` value (a copy), by property name. */
  defaults?: Record<string, unknown>;
  /** Each property's JSON types (`type`, as a list), by property name. */
  types?: Record<string, string[]>;
}

/** A tool's documentation at some {@link DetailLevel}. */
export interface ToolDoc {
  /** Present at `schema` and `full`. */
  tool?: Tool;
  /** The registered doc summary, else the tool's description cut to 200 bytes; may be `''`. */
  summary: string;
  /** As in {@link ToolSummary.inputModes}; absent when the tool is unknown or has none. */
  inputModes?: string[];
  /** As in {@link ToolSummary.outputModes}; absent when the tool is unknown or has none. */
  outputModes?: string[];
  /** As in {@link ToolSummary.securitySummary}; absent when the tool is unknown or has none. */
  securitySummary?: string;
  /**
   * The tool's MCP annotations: `readOnlyHint` and `idempotentHint` always (booleans),
   * `destructiveHint`, `openWorldHint` and `title` when set; absent when the tool has none.
   */
  annotations?: Record<string, unknown>;
  /** What the input schema says about each argument; at `schema` and `full`, when it says anything. */
  schemaInfo?: SchemaInfo;
  /** The registered notes; `full` only. */
  notes?: string;
  /** Copies of the registered examples (capped by `maxExamples`); `full` only. */
  examples?: ToolExample[];
  /** The registered external references; `full` only. */
  externalRefs?: string[];
}

/** Documentation registered for a tool ID. */
export interface DocEntry {
  /** A short description, preferred over the tool's own; cut to 200 bytes. */
  summary?: string;
  /** Longer usage notes; cut to 2000 bytes. */
  notes?: string;
  /** Worked examples (replacing any registered before); deep-copied. */
  examples?: ToolExample[];
  /** Links or references to outside documentation; non-string items are dropped. */
  externalRefs?: string[];
}

/** Options of {@link createDocStore}. */
export interface DocStoreOptions {
  /** Where tools are looked up (the usual source). */
  index?: ToolIndex;
  /** Consulted when the index does not know the ID. */
  toolResolver?: (id: string) => Tool | undefined;
  /**
   * Most examples kept and returned per tool; 0 = no cap. `registerDoc` and `registerExamples`
   * drop the examples past the cap before checking them (a too-large example past the cap is
   * not an error). @defaultValue 0
   */
  maxExamples?: number;
}

/** Tool documentation: summaries, schema facts, notes and examples. */
export interface DocStore {
  /**
   * @throws `ARGS_TOO_LARGE` (nothing stored); `INVALID_ARGUMENT` when `id` is not a string or an
   * example (or its `args`) has the wrong kind, naming the example's index
   */
  registerDoc(id: string, entry: DocEntry): void;
  /** @throws `ARGS_TOO_LARGE`; `INVALID_ARGUMENT` as {@link DocStore.registerDoc} */
  registerExamples(id: string, examples: readonly ToolExample[]): void;
  /**
   * @throws `INVALID_DETAIL`, `TOOL_NOT_FOUND`; `INVALID_ARGUMENT` when a `toolResolver`'s tool
   * cannot be read (a throwing getter, a revoked proxy).
   */
  describeTool(id: string, level: DetailLevel): ToolDoc;
  /**
   * `max <= 0` returns all (up to the store cap).
   *
   * @throws `TOOL_NOT_FOUND`; `INVALID_ARGUMENT` as {@link DocStore.describeTool}.
   */
  listExamples(id: string, max: number): ToolExample[];
}
