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
export { MAX_TOOL_NAME_CHARS, PROVIDER_TOOL_NAME, decodeToolName, encodeToolName, isShortenedToolName } from './tool-names.js';
export * from './adapters/types.js';
export { OPENAI_STRICT_KEYWORDS } from './adapters/openai.js';
export { ANTHROPIC_STRICT_KEYWORDS } from './adapters/anthropic.js';
export { GEMINI_JSON_SCHEMA_KEYWORDS, GEMINI_OPENAPI_KEYWORDS } from './adapters/gemini.js';
export { dropStrictNulls } from './adapters/strict-nulls.js';
export { restorePropertyKeys } from './adapters/property-keys.js';
export { fromProviderTool, toProviderTool } from './provider-tool.js';
export { agentTools } from './agent-tools.js';
export type {
  AgentCallOptions,
  AgentToolWarning,
  AgentTools,
  AgentToolsOptions,
  AnthropicToolSearchTool,
  OpenAIToolSearchTool,
  ProviderToolDefinitions,
} from './agent-tools.js';
export { errorText } from './tool-results.js';
export { DEFAULT_MAX_RESULT_CHARS } from './result-limit.js';
export type { ResultLimitOptions } from './result-limit.js';
export type {
  AnthropicBase64Source,
  AnthropicToolResult,
  AnthropicToolResultBlock,
  GeminiInlineDataPart,
  GeminiFunctionResponsePart,
  OpenAIChatToolMessage,
  OpenAIResponsesOutputPart,
  OpenAIResponsesToolOutput,
  ProviderToolResults,
} from './tool-results.js';
export { defineTool } from './define-tool.js';
export type { HandlerReturn, SchemaToolDefinition } from './define-tool.js';
export type {
  InferToolArgs,
  InferToolResult,
  JsonSchemaObject,
  StandardIssue,
  StandardFailure,
  StandardResult,
  StandardSchema,
  StandardSuccess,
  ToolSchema,
} from './define-tool-schema.js';
export { CODE_MODE_PROMPT, codeModeApi, declareTools } from './code-mode-api.js';
export { PYTHON_CODE_MODE_PROMPT, declarePythonTools } from './code-mode-python.js';
export type { CodeModeApi, CodeModeApiOptions, DeclaredTool } from './code-mode-api.js';
export { checkSnippet } from './code-mode-check.js';
export type { SnippetCheck, SnippetDiagnostic } from './code-mode-check.js';
export { aiSdkTools } from './ai-sdk.js';
export type { AiSdkToolOutput, AiSdkToolSet, AiSdkToolsOptions } from './ai-sdk.js';
export type { AiSdkTool } from './ai-sdk-peer.js';
export { codeTool } from './code-tool.js';
export type { CodeToolInput, CodeToolOptions, CodeToolOutput } from './code-tool.js';
export { DEFAULT_MCP_SERVER_NAME, DEFAULT_MCP_SERVER_VERSION, createMcpServer } from './mcp-server.js';
export type { CreateMcpServerOptions } from './mcp-server.js';
