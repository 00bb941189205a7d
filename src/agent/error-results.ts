/**
 * What an MCP tool sent beside the text of a failure: a result with `isError: true` may carry
 * images, audio, embedded resources and links (a screenshot of the page that failed, the log as a
 * resource). The runner's error quotes the text blocks; these are the others, answered with the
 * error text in each provider's error form, so no block of a failed call is dropped.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { ToolexecError } from '../model/index.js';
import type { ProviderFormat } from './adapters/types.js';
import { DEFAULT_MAX_RESULT_CHARS, limitText } from './result-limit.js';
import {
  errorText,
  successResult,
  type AnthropicToolResult,
  type GeminiFunctionResponsePart,
  type ProviderToolResults,
} from './tool-results.js';

/** The blocks other than text of the MCP `isError` result a failure carries (`details.mcpResult`); none for any other failure. */
function failureBlocks(err: unknown): ContentBlock[] {
  if (!ToolexecError.isInstance(err) || err.details?.isError !== true) return [];
  const result = err.details.mcpResult;
  const content = result !== null && typeof result === 'object' ? (result as { content?: unknown }).content : undefined;
  if (!Array.isArray(content)) return [];
  return content.filter(
    (block): block is ContentBlock =>
      block !== null &&
      typeof block === 'object' &&
      typeof (block as { type?: unknown }).type === 'string' &&
      (block as ContentBlock).type !== 'text',
  );
}

/**
 * A failed call in the format's error form, saying `text` ({@link errorText} of `err` unless
 * given), with the images, resources and links an MCP tool sent beside its error text; the text
 * cut at `maxChars`, as every result a model reads (result-limit.ts).
 */
export function errorResult(
  format: ProviderFormat,
  err: unknown,
  name: string,
  callId: string | undefined,
  text: string = errorText(err),
  maxChars: number = DEFAULT_MAX_RESULT_CHARS,
): ProviderToolResults[ProviderFormat] {
  const blocks = failureBlocks(err);
  // successResult cuts the text with the blocks
  if (blocks.length > 0) return failedWithBlocks(format, text, blocks, name, callId, maxChars);
  text = limitText(text, maxChars);
  switch (format) {
    case 'openai-chat':
      return { role: 'tool', tool_call_id: callId ?? '', content: text };
    case 'openai-responses':
      return { type: 'function_call_output', call_id: callId ?? '', output: text };
    case 'anthropic':
      return { type: 'tool_result', tool_use_id: callId ?? '', content: [{ type: 'text', text }], is_error: true };
    case 'gemini':
      return { functionResponse: { name, response: { error: text }, ...(callId === undefined ? {} : { id: callId }) } };
    case 'mcp':
      return { content: [{ type: 'text', text }], isError: true };
  }
}

/** A failure with an MCP tool's non-text blocks: the text first, the blocks as a result would carry them, marked failed. */
function failedWithBlocks(
  format: ProviderFormat,
  text: string,
  blocks: readonly ContentBlock[],
  name: string,
  callId: string | undefined,
  maxChars: number,
): ProviderToolResults[ProviderFormat] {
  const shown = successResult(
    format,
    { value: text, content: [{ type: 'text', text }, ...blocks], toolId: name, durationMs: 0 },
    name,
    callId,
    { maxChars },
  );
  switch (format) {
    case 'anthropic':
      return { ...(shown as AnthropicToolResult), is_error: true };
    case 'gemini': {
      const { response, ...rest } = (shown as GeminiFunctionResponsePart).functionResponse;
      return { functionResponse: { ...rest, response: { error: typeof response.output === 'string' ? response.output : text } } };
    }
    case 'mcp':
      return { ...(shown as CallToolResult), isError: true };
    default:
      return shown;
  }
}
