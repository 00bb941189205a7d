/**
 * Agent apps: hand toolexec's tools to a model in its provider's own format — OpenAI (chat and
 * Responses), Anthropic, Gemini, MCP — with names every provider accepts, schemas each provider
 * takes, and the six meta-tools for catalogues too large to send.
 *
 * @remarks
 * Every part starts from {@link selectTools}: a list of {@link SelectedTool}s, each a tool and the
 * function that runs it through the facade (`exec.runTool`, or a meta-tool's facade method).
 *
 * @module toolexec/agent
 */
export { DEFAULT_QUERY_LIMIT, selectTools } from './selection.js';
export type { SelectToolsOptions, SelectedTool } from './selection.js';
export { MAX_CHAIN_STEPS, MAX_SEARCH_LIMIT, META_TOOL_DEFINITIONS, META_TOOL_NAMES, metaTool, metaTools } from './meta-tools.js';
export type { MetaToolName } from './meta-tools.js';
export { DEFAULT_MCP_SERVER_NAME, DEFAULT_MCP_SERVER_VERSION, createMcpServer } from './mcp-server.js';
export type { CreateMcpServerOptions } from './mcp-server.js';
