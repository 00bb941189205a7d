/**
 * toolexec's own provider shapes checked against the providers' SDK types (openai 6,
 * @anthropic-ai/sdk, @google/genai, @modelcontextprotocol/sdk): what `agentTools` hands out must be
 * accepted where each SDK takes it.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { FunctionDeclaration, Part } from '@google/genai';
import type { CallToolResult, Tool as McpSdkTool } from '@modelcontextprotocol/sdk/types.js';
import type { ChatCompletionFunctionTool, ChatCompletionTool, ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { FunctionTool, ResponseInputItem, Tool as ResponsesTool } from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AgentTools,
  AnthropicTool,
  AnthropicToolResult,
  GeminiFunctionDeclaration,
  GeminiFunctionResponsePart,
  OpenAIChatTool,
  OpenAIChatToolMessage,
  OpenAIResponsesTool,
  OpenAIResponsesToolOutput,
} from '../../src/agent/index.js';

describe('provider shapes fit the SDK types', () => {
  it('tool definitions', () => {
    expectTypeOf<OpenAIChatTool>().toExtend<ChatCompletionFunctionTool>();
    expectTypeOf<OpenAIResponsesTool>().toExtend<FunctionTool>();
    expectTypeOf<AnthropicTool>().toExtend<Anthropic.Tool>();
    expectTypeOf<GeminiFunctionDeclaration>().toExtend<FunctionDeclaration>();
    expectTypeOf<AgentTools<'openai-chat'>['tools'][number]>().toExtend<ChatCompletionTool>();
    expectTypeOf<AgentTools<'openai-responses'>['tools'][number]>().toExtend<ResponsesTool>();
    expectTypeOf<AgentTools<'anthropic'>['tools'][number]>().toExtend<Anthropic.ToolUnion>();
    expectTypeOf<AgentTools<'mcp'>['tools'][number]>().toExtend<McpSdkTool>();
  });

  it('tool results', () => {
    expectTypeOf<OpenAIChatToolMessage>().toExtend<ChatCompletionToolMessageParam>();
    expectTypeOf<OpenAIResponsesToolOutput>().toExtend<ResponseInputItem.FunctionCallOutput>();
    expectTypeOf<AnthropicToolResult>().toExtend<Anthropic.ToolResultBlockParam>();
    expectTypeOf<GeminiFunctionResponsePart>().toExtend<Part>();
    expectTypeOf<Awaited<ReturnType<AgentTools<'mcp'>['call']>>>().toExtend<CallToolResult>();
    expectTypeOf<Awaited<ReturnType<AgentTools<'anthropic'>['call']>>>().toExtend<Anthropic.ToolResultBlockParam>();
  });
});
