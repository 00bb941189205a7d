/**
 * The facade's MCP servers as its constructor wires them: one MCP executor over `mcpServers`, the
 * {@link ServerPool} that connects and fails each server on its own, and the MCP executor the
 * runner dispatches through (the facade's, or a router between it and the caller's own `mcp`).
 *
 * @internal
 * @module
 */
import { callListener, warnListenerFailure } from '../model/internal.js';
import type { ToolIndex } from '../discovery/index.js';
import type { McpExecutor } from '../run/index.js';
import { DEFAULT_MCP_CONNECT_TIMEOUT_MS, createMcpExecutor, type SdkMcpExecutor } from '../mcp/index.js';
import { McpRouter } from './mcp-router.js';
import type { ResolvedExecOptions } from './options.js';
import { ServerPool } from './servers.js';
import type { ServerStatus } from './types.js';

/** How much longer than the connect timeout a search waits for a server's first import: its tool listing. */
const LISTING_GRACE_MS = 1_000;

/** What {@link setUpServers} makes. */
export interface FacadeServers {
  /** The MCP executor over `mcpServers` (closed by the facade). */
  client: SdkMcpExecutor;
  /** The servers, each connected and failing on its own. */
  pool: ServerPool;
  /** The MCP executor the runner dispatches through. */
  mcp: McpExecutor;
}

/**
 * The servers of `o.mcpServers` (`undefined` when there are none). `statusChanged` is told of
 * every change of a server's state before the caller's `onServerStatus`, whose failure (a throw,
 * an async rejection) is a process warning: it neither stops the facade nor ends the process.
 */
export function setUpServers(
  o: ResolvedExecOptions,
  index: ToolIndex,
  statusChanged: (name: string, status: ServerStatus) => void,
): FacadeServers | undefined {
  const serverNames = Object.keys(o.mcpServers);
  if (serverNames.length === 0) return undefined;
  const { onToolsListChanged, onConnectionLost } = o.mcpOptions;
  // eslint-disable-next-line prefer-const -- read by the executor's callbacks, which may run before it is set
  let pool: ServerPool | undefined;
  const client = createMcpExecutor({
    ...o.mcpOptions,
    ...o.mcpClientFeatures,
    servers: o.mcpServers,
    onToolsListChanged: (serverName) => {
      pool?.markStale(serverName);
      onToolsListChanged?.(serverName);
    },
    onConnectionLost: (serverName, error) => {
      pool?.connectionLost(serverName, error);
      onConnectionLost?.(serverName, error);
    },
  });
  pool = new ServerPool({
    client,
    index,
    servers: new Map(serverNames.map((name) => [name, o.mcpServers[name]?.required === true])),
    reconnect: o.mcpReconnect,
    discoveryWaitMs: (o.mcpOptions.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS) + LISTING_GRACE_MS,
    onStatus: (name, status) => {
      statusChanged(name, status);
      const listener = o.onServerStatus;
      if (listener === undefined) return;
      callListener(
        (value: ServerStatus) => listener(name, value),
        status,
        (error) => warnListenerFailure(`an onServerStatus listener threw on server "${name}" becoming ${status.state}`, error),
      );
    },
  });
  const mcp = o.mcp === undefined ? client : new McpRouter(serverNames, client, o.mcp);
  return { client, pool, mcp };
}
