/**
 * MCP executor over `@modelcontextprotocol/sdk`: calls tools on MCP servers reached over stdio
 * (owning the whole process tree), Streamable HTTP (with the legacy HTTP+SSE fallback) or any
 * custom transport. Connections are lazy, shared and re-established when they die; calls take a
 * signal, a progress-reset timeout and a progress callback.
 *
 * @module toolexec/mcp
 */
export { SdkMcpExecutor, createMcpExecutor } from './executor.js';
export { DEFAULT_MCP_CLIENT_INFO, DEFAULT_MCP_CONNECT_TIMEOUT_MS, DEFAULT_MCP_REQUEST_TIMEOUT_MS } from './options.js';
export { DEFAULT_KILL_GRACE_MS, DEFAULT_STDERR_TAIL_BYTES, StdioProcessTransport } from './stdio-transport.js';
export type { ProcessExit, StdioProcessTransportOptions } from './stdio-transport.js';
export { DEFAULT_INHERITED_ENV_VARS, serverEnvironment } from './environment.js';
export type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  ElicitationHandler,
  McpLogger,
  Root,
  SamplingHandler,
  ServerRequestInfo,
  McpCallOptions,
  McpCallParams,
  McpCustomServerConfig,
  McpExecutorClient,
  McpExecutorOptions,
  McpHttpServerConfig,
  McpServerConfig,
  McpServerConfigBase,
  McpStdioServerConfig,
  McpTool,
  McpToolSink,
  OAuthClientProvider,
  Transport,
} from './types.js';
