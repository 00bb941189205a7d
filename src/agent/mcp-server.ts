/**
 * toolexec as an MCP server: the facade's tools (or the six meta-tools) served to any MCP client
 * over any transport, each call run through the facade — validation, deadlines, progress and
 * cancellation included.
 */
import { layerErrors } from '../model/internal.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ChangeEvent } from '../discovery/index.js';
import type { RunOptions } from '../run/index.js';
import type { Exec } from '../exec/index.js';
import { progressForwarder } from './mcp-server-progress.js';
import { toProviderTool } from './provider-tool.js';
import { checkSelectOptions, selectTools, type SelectToolsOptions, type SelectedTool } from './selection.js';
import { toolsByName } from './tool-names.js';
import { errorResult } from './error-results.js';
import { successResult } from './tool-results.js';
import { readMaxResultChars, type ResultLimitOptions } from './result-limit.js';
import { optionsError } from './option-errors.js';

const errors = layerErrors('agent');

/** The server name sent in `initialize` unless one is given. */
export const DEFAULT_MCP_SERVER_NAME = 'toolexec';

/** The server version sent in `initialize` unless one is given. */
export const DEFAULT_MCP_SERVER_VERSION = '0.1.0';

/**
 * Options of {@link createMcpServer}: what it lists, and how much of a result a call answers with
 * ({@link ResultLimitOptions}).
 */
export interface CreateMcpServerOptions extends ResultLimitOptions {
  /**
   * What the server lists: `'tools'`, the facade's tools themselves (all of them, or those `ids`,
   * `query` and `limit` select); `'meta'`, the six meta-tools (`search_tools`, `list_namespaces`,
   * `describe_tool`, `run_tool`, `run_chain`, `execute_code`), for catalogues too large to list.
   * @defaultValue 'tools'
   */
  expose?: 'tools' | 'meta';
  /** Sent as `serverInfo.name`. @defaultValue 'toolexec' */
  name?: string;
  /** Sent as `serverInfo.version`. @defaultValue '0.1.0' */
  version?: string;
  /** With `expose: 'tools'`: list these tools (see `selectTools`). @defaultValue every tool */
  ids?: string[];
  /** With `expose: 'tools'`: list the best matches of this search (see `selectTools`). */
  query?: string;
  /** With `expose: 'tools'`: most tools the query (or the listing of every tool) adds. */
  limit?: number;
  /** Deadline of every call in milliseconds. @defaultValue the facade's `defaultTimeoutMs` */
  timeoutMs?: number;
  /**
   * Most tools in one `tools/list` page: a longer listing ends with an opaque `nextCursor` that
   * the client sends back for the next page (MCP pagination). A positive integer, or `Infinity`
   * for one page whatever the size.
   * @defaultValue 100
   */
  pageSize?: number;
}

/** The default of {@link CreateMcpServerOptions.pageSize}. */
const DEFAULT_PAGE_SIZE = 100;

/** What the server needs to know when the facade's tools change: the index's change events (`DefaultExec.index`). */
interface ChangeSource {
  onChange(listener: (event: ChangeEvent) => void): () => void;
  readonly version: number;
}

function changeSourceOf(exec: Exec): ChangeSource | undefined {
  const index = (exec as { index?: Partial<ChangeSource> }).index;
  return index !== undefined && typeof index.onChange === 'function' && typeof index.version === 'number'
    ? (index as ChangeSource)
    : undefined;
}

/**
 * The options checked when the server is made: `CONFIGURATION` for a bad one,
 * the selection's (`ids`, `query`, `limit`) too, rather than on the first `tools/list`.
 */
function checkOptions(options: unknown): CreateMcpServerOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object') throw optionsError();
  const o = options as CreateMcpServerOptions;
  if (o.expose !== undefined && o.expose !== 'tools' && o.expose !== 'meta') {
    throw errors.configuration('expose', `must be 'tools' or 'meta' (got ${JSON.stringify(o.expose)})`);
  }
  for (const field of ['name', 'version'] as const) {
    if (o[field] !== undefined && (typeof o[field] !== 'string' || o[field] === '')) {
      throw errors.configuration(field, 'must be a non-empty string');
    }
  }
  if (o.timeoutMs !== undefined && (typeof o.timeoutMs !== 'number' || !(o.timeoutMs > 0))) {
    throw errors.configuration('timeoutMs', 'must be a positive number of milliseconds');
  }
  if (o.pageSize !== undefined && !(o.pageSize === Infinity || (Number.isSafeInteger(o.pageSize) && o.pageSize > 0))) {
    throw errors.configuration('pageSize', `must be a positive integer or Infinity (got ${String(o.pageSize)})`);
  }
  checkSelectOptions(selectionOf(o));
  return o;
}

/** What `expose: 'tools'` lists (see `selectTools`). */
function selectionOf(o: CreateMcpServerOptions): SelectToolsOptions {
  return {
    ...(o.ids === undefined ? {} : { ids: o.ids }),
    ...(o.query === undefined ? {} : { query: o.query }),
    ...(o.limit === undefined ? {} : { limit: o.limit }),
  };
}

/** The tools one server lists, by MCP name, for one version of the facade's index. */
interface Listing {
  version: number | undefined;
  tools: McpTool[];
  byName: Map<string, SelectedTool>;
  /** The names of the tools listed with an output schema: their results must carry `structuredContent`. */
  structured: Set<string>;
}

/**
 * An MCP server (the SDK's `McpServer`) that serves the facade's tools: connect it to any
 * transport — `StdioServerTransport`, `StreamableHTTPServerTransport`, an in-memory pair.
 *
 * @remarks
 * - `tools/list` lists the selected tools with their input and output schemas, annotations,
 *   titles and icons, named by `encodeToolName` (`math:add` → `math--add`, legal for every MCP
 *   client and model provider); with `expose: 'meta'` the six meta-tools. A listing longer than
 *   `pageSize` (100) comes in pages: each ends with an opaque `nextCursor` to send back; a cursor
 *   this server did not issue is a JSON-RPC error (`InvalidParams`, -32602). Two tools with one
 *   name (a hash collision of two long IDs) fail the listing with the `INVALID_ARGUMENT` of
 *   `agentTools`, naming both, rather than list a name that stands for two tools.
 * - `tools/call` runs the tool through the facade: arguments are validated (a failure is an
 *   `isError` result whose text names every violation, which a model can act on), the call's
 *   deadline applies (`timeoutMs`, else the facade's), the run's progress reaches the client as
 *   `notifications/progress` when it sent a `progressToken`, and the client's cancellation
 *   (`notifications/cancelled`) aborts the run. Any failure of the tool is an `isError` result; an
 *   unknown tool name is a JSON-RPC error (`InvalidParams`), as MCP says. A result's text is cut
 *   at `maxResultChars` (100,000 characters by default), ending with a note saying how much was
 *   cut; an object value over it is then sent as `structuredContent` only when the tool lists an
 *   output schema (MCP clients require it then).
 * - When the facade's index changes (a tool registered or removed, an MCP server imported or
 *   failed), connected clients get `notifications/tools/list_changed` (once per burst of changes);
 *   the server declares `tools.listChanged` for that. With `expose: 'meta'` it does not: the
 *   meta-tools never change.
 * - The server's tool handlers are set on `server.server`: do not `registerTool` on the returned
 *   server. Closing the server (`server.close()`) stops listening to the index; the facade stays
 *   open (it is yours to close).
 *
 * @throws `CONFIGURATION` for bad options (`maxResultChars`, `ids`, `query` and `limit` included).
 *
 * @example
 * ```ts
 * const server = createMcpServer(exec, { expose: 'tools' });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(exec: Exec, options?: CreateMcpServerOptions): McpServer {
  const o = checkOptions(options);
  const maxChars = readMaxResultChars(o.maxResultChars);
  const meta = o.expose === 'meta';
  // The tools capability is declared on the low-level server, not through McpServer's options:
  // McpServer answers those with its own tool handlers, which declare listChanged: true whatever
  // was asked. The meta-tools never change, so with them listChanged is not declared.
  const server = new McpServer({ name: o.name ?? DEFAULT_MCP_SERVER_NAME, version: o.version ?? DEFAULT_MCP_SERVER_VERSION });
  server.server.registerCapabilities({ tools: meta ? {} : { listChanged: true } });
  const pageSize = o.pageSize ?? DEFAULT_PAGE_SIZE;
  const selection: SelectToolsOptions = meta ? { meta: true } : selectionOf(o);
  const source = changeSourceOf(exec);
  let listing: Promise<Listing> | undefined;

  const currentListing = (): Promise<Listing> => {
    const version = source?.version;
    if (listing === undefined || version === undefined) {
      listing = list(exec, selection, version);
    } else {
      listing = listing.then((known) => (known.version === version ? known : list(exec, selection, version)));
    }
    // A failed listing is not kept: the next request tries again.
    listing.catch(() => {
      listing = undefined;
    });
    return listing;
  };

  server.server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const current = await currentListing();
    return toolsPage(current, request.params?.cursor, pageSize);
  });

  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const current = await currentListing();
    const entry = current.byName.get(name);
    if (entry === undefined) throw invalidParams(`Tool ${name} not found`);
    const runOptions: RunOptions = { signal: extra.signal };
    if (o.timeoutMs !== undefined) runOptions.timeoutMs = o.timeoutMs;
    const progressToken = request.params._meta?.progressToken;
    if (progressToken !== undefined) runOptions.onProgress = progressForwarder(progressToken, extra.sendNotification);
    try {
      // the text is cut at maxResultChars; structuredContent stays whole where the listed output schema requires it
      const shaping = { maxChars, keepStructured: current.structured.has(name) };
      return successResult('mcp', await entry.run(args ?? {}, runOptions), name, undefined, shaping) as CallToolResult;
    } catch (error) {
      return errorResult('mcp', error, name, undefined, undefined, maxChars) as CallToolResult;
    }
  });

  if (!meta && source !== undefined) watchIndex(server, source);
  return server;
}

/**
 * One page of a listing. The cursor is opaque to the client: the index version the listing was made
 * for and where the next page starts. A cursor of an older version (the tools changed between two
 * pages: the client is told by `tools/list_changed` and lists again) continues at the same place in
 * the new listing; anything this server could not have issued is invalid params (-32602), as MCP says.
 */
function toolsPage(listing: Listing, cursor: string | undefined, pageSize: number): { tools: McpTool[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : cursorStart(listing, cursor);
  const end = start + pageSize;
  if (start === 0 && end >= listing.tools.length) return { tools: listing.tools };
  const tools = listing.tools.slice(start, end);
  return end < listing.tools.length ? { tools, nextCursor: encodeCursor(listing.version, end) } : { tools };
}

function encodeCursor(version: number | undefined, start: number): string {
  return btoa(JSON.stringify([version ?? null, start]));
}

function cursorStart(listing: Listing, cursor: string): number {
  const start = issuedStart(listing, cursor);
  if (start !== undefined) return start;
  throw invalidParams(`Invalid cursor for tools/list: ${JSON.stringify(cursor.slice(0, 100))} (list again without a cursor)`);
}

/**
 * The JSON-RPC error `InvalidParams` (-32602) a request handler throws. Not an `McpError`: the SDK
 * sends a handler's `message` as the error's message, and an `McpError`'s already starts with
 * "MCP error -32602: ", which the client's own `McpError` adds again
 * ("MCP error -32602: MCP error -32602: ...").
 */
function invalidParams(message: string): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
}

/** Where the page of `cursor` starts, when this server could have issued it (for this listing or an older one). */
function issuedStart(listing: Listing, cursor: string): number | undefined {
  let decoded: unknown;
  try {
    decoded = JSON.parse(atob(cursor));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) return undefined;
  const [version, start] = decoded as [unknown, unknown];
  // Exactly as issued: a page starts after the first, at a whole index.
  if (!Number.isSafeInteger(start) || (start as number) <= 0 || encodeCursor(version as number | undefined, start as number) !== cursor) {
    return undefined;
  }
  const length = listing.tools.length;
  // Without an index to follow, every listing is made afresh: cursors carry no version.
  if (listing.version === undefined) return version === null && (start as number) < length ? (start as number) : undefined;
  if (!Number.isSafeInteger(version) || (version as number) > listing.version) return undefined;
  // This listing issued cursors below its length; an older listing's may be past the end of this one (nothing left).
  if (version === listing.version) return (start as number) < length ? (start as number) : undefined;
  return Math.min(start as number, length);
}

async function list(exec: Exec, selection: SelectToolsOptions, version: number | undefined): Promise<Listing> {
  // two tools with one name (a hash collision of two long IDs) fail the listing, as agentTools refuses them
  const byName = toolsByName(await selectTools(exec, selection));
  // The MCP adapter: the tool as it is (schemas, title, annotations, icons), named by the name encoding.
  const tools = [...byName].map(([name, entry]) => toProviderTool(entry.tool, 'mcp', { name }).tool as McpTool);
  const structured = new Set(tools.filter((tool) => tool.outputSchema !== undefined).map((tool) => tool.name));
  return { version, tools, byName, structured };
}

/**
 * Sends `notifications/tools/list_changed` after each burst of index changes while a client is
 * connected; listens from creation until the server closes, and again when a client initializes a
 * reconnected server.
 */
function watchIndex(server: McpServer, source: ChangeSource): void {
  let unsubscribe: (() => void) | undefined;
  let pending: NodeJS.Immediate | undefined;
  const subscribe = (): void => {
    unsubscribe ??= source.onChange(() => {
      // registerToolsFromMcp registers a server's tools in one go: one notification for the burst.
      pending ??= setImmediate(() => {
        pending = undefined;
        if (server.isConnected()) server.sendToolListChanged();
      });
    });
  };
  subscribe();
  const low = server.server;
  const previousClose = low.onclose;
  low.onclose = () => {
    unsubscribe?.();
    unsubscribe = undefined;
    if (pending !== undefined) clearImmediate(pending);
    pending = undefined;
    previousClose?.();
  };
  const previousInitialized = low.oninitialized;
  low.oninitialized = () => {
    subscribe();
    previousInitialized?.();
  };
}
