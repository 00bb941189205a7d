/**
 * One MCP executor for the runner when the facade has two: the one it created for `mcpServers`
 * and the caller's own `mcp`.
 */
import { layerErrors } from '../model/internal.js';
import type { CallToolResult, McpExecutor, RunOptions, StreamEvent } from '../run/index.js';

const errors = layerErrors('exec');

type CallParams = { name: string; arguments?: Record<string, unknown> };

/**
 * Sends calls for the servers in `owned` to `ownedExecutor` and every other server to `other`.
 *
 * @internal
 */
export class McpRouter implements McpExecutor {
  readonly #owned: ReadonlySet<string>;
  readonly #ownedExecutor: McpExecutor;
  readonly #other: McpExecutor;

  constructor(owned: Iterable<string>, ownedExecutor: McpExecutor, other: McpExecutor) {
    this.#owned = new Set(owned);
    this.#ownedExecutor = ownedExecutor;
    this.#other = other;
  }

  callTool(serverName: string, params: CallParams, options?: RunOptions): Promise<CallToolResult> {
    return this.#route(serverName).callTool(serverName, params, options);
  }

  callToolStream(serverName: string, params: CallParams, options?: RunOptions): AsyncIterable<StreamEvent> {
    const target = this.#route(serverName);
    if (target.callToolStream !== undefined) return target.callToolStream(serverName, params, options);
    return notStreamable(serverName, params.name);
  }

  #route(serverName: string): McpExecutor {
    return this.#owned.has(serverName) ? this.#ownedExecutor : this.#other;
  }
}

// eslint-disable-next-line require-yield -- a stream that fails on its first iteration
async function* notStreamable(serverName: string, tool: string): AsyncGenerator<StreamEvent> {
  throw errors('STREAM_NOT_SUPPORTED', `stream not supported: the MCP executor of server "${serverName}" cannot stream "${tool}"`, {
    details: { serverName },
  });
}
