/**
 * A tool call's outcome in each provider's tool-result form: a `Result` (its MCP content blocks,
 * else its value as JSON text) or a failure (a message the model can act on, in the provider's
 * error form). The app adds nothing but the call's ID (`callId`).
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { ToolexecError } from '../model/index.js';
import { describeValue, layerErrors } from '../model/internal.js';
import type { Result } from '../exec/index.js';
import type { ProviderFormat } from './adapters/types.js';
import { joinedText, partsFor, resultParts, type MediaPart } from './result-parts.js';
import { DEFAULT_MAX_RESULT_CHARS, limitParts, limitText, limitTexts } from './result-limit.js';

/** OpenAI Chat Completions: a `ChatCompletionToolMessageParam` (text only). */
export interface OpenAIChatToolMessage {
  /** Always `tool`. */
  role: 'tool';
  /** The `id` of the model's tool call. */
  tool_call_id: string;
  /** The result as text (a tool message carries text only: media become a note). */
  content: string;
}

/** One part of an OpenAI Responses function-call output: text, an image, or a file. */
export type OpenAIResponsesOutputPart =
  | {
      /** A text part. */
      type: 'input_text';
      /** The text. */
      text: string;
    }
  | {
      /** An image part. */
      type: 'input_image';
      /** The image as a `data:` URL. */
      image_url: string;
      /** Always `auto`. */
      detail: 'auto';
    }
  | {
      /** A file part (PDF). */
      type: 'input_file';
      /** The file as a `data:` URL. */
      file_data: string;
      /** A file name for the model. */
      filename: string;
    };

/** OpenAI Responses: a `function_call_output` input item. */
export interface OpenAIResponsesToolOutput {
  /** Always `function_call_output`. */
  type: 'function_call_output';
  /** The `call_id` of the model's function call. */
  call_id: string;
  /** Text, or text, image and file parts. */
  output: string | OpenAIResponsesOutputPart[];
}

/** Base64 data and its media type, as Anthropic's image and document blocks carry them. */
export interface AnthropicBase64Source<M extends string> {
  /** Always `base64`. */
  type: 'base64';
  /** The media type. */
  media_type: M;
  /** The data, base64. */
  data: string;
}

/** One block of an Anthropic tool result: text, an image, or a PDF document. */
export type AnthropicToolResultBlock =
  | {
      /** A text block. */
      type: 'text';
      /** The text. */
      text: string;
    }
  | {
      /** An image block. */
      type: 'image';
      /** The image. */
      source: AnthropicBase64Source<'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'>;
    }
  | {
      /** A document block. */
      type: 'document';
      /** The PDF. */
      source: AnthropicBase64Source<'application/pdf'>;
    };

/** Anthropic: a `tool_result` content block (`ToolResultBlockParam`). */
export interface AnthropicToolResult {
  /** Always `tool_result`. */
  type: 'tool_result';
  /** The `id` of the model's `tool_use` block. */
  tool_use_id: string;
  /** The result's blocks. */
  content: AnthropicToolResultBlock[];
  /** Set on a failed call. */
  is_error?: boolean;
}

/** Gemini: one medium of a function response (`FunctionResponsePart`). */
export interface GeminiInlineDataPart {
  /** The bytes and their type. */
  inlineData: {
    /** The IANA media type. */
    mimeType: string;
    /** The bytes, base64. */
    data: string;
  };
}

/** Gemini: a `Part` carrying a `FunctionResponse`. */
export interface GeminiFunctionResponsePart {
  /** The response. */
  functionResponse: {
    /** The `id` of the model's function call, when it had one. */
    id?: string;
    /** The function's name. */
    name: string;
    /** `{ output }` on success, `{ error }` on failure (the keys Gemini reads). */
    response: Record<string, unknown>;
    /** Media the tool returned (images, audio, files) as inline data. */
    parts?: GeminiInlineDataPart[];
  };
}

/** The tool-result form of each format. */
export interface ProviderToolResults {
  /** A tool message. */
  'openai-chat': OpenAIChatToolMessage;
  /** A `function_call_output` item. */
  'openai-responses': OpenAIResponsesToolOutput;
  /** A `tool_result` block. */
  anthropic: AnthropicToolResult;
  /** A `functionResponse` part. */
  gemini: GeminiFunctionResponsePart;
  /** An MCP `CallToolResult`. */
  mcp: CallToolResult;
}

const errors = layerErrors('agent');

/**
 * A value as text for a model: strings as they are, anything else as JSON (`undefined` as `null`).
 *
 * @param toolId - The tool whose result `value` is, named in the error.
 * @throws `EXECUTION` when `value` has no JSON form (a cycle, a BigInt, a `toJSON` or getter that
 * throws, a function): the model is told so instead of being sent `[object Object]`.
 */
export function valueText(value: unknown, toolId?: string): string {
  if (typeof value === 'string') return value;
  let text: string | undefined;
  try {
    text = JSON.stringify(value ?? null);
  } catch (err) {
    throw notJson(toolId, err);
  }
  if (text === undefined) throw notJson(toolId, undefined, describeValue(value));
  return text;
}

/** The `EXECUTION` error of a tool result that cannot be serialised as JSON. */
function notJson(toolId: string | undefined, cause: unknown, what?: string): ToolexecError {
  const reason = what ?? firstLine(cause instanceof Error ? cause.message : describeValue(cause));
  const tool = toolId === undefined ? 'the tool' : `tool "${toolId}"`;
  return errors('EXECUTION', `${tool} ran, but its result could not be serialised as JSON (${reason}), so it cannot be shown`, {
    ...(cause === undefined ? {} : { cause }),
    details: toolId === undefined ? { reason } : { toolId, reason },
  });
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? text;
}

/**
 * `result` itself, once its value is known to have a JSON form (what every adapter sends on).
 *
 * @throws `EXECUTION` when it has none (see {@link valueText}).
 */
export function jsonResult(result: Result): Result {
  valueText(result.value, result.toolId);
  return result;
}

/**
 * Whether a result's value already carries every text its content gives a model: true for a local
 * tool's value, and for MCP content of text blocks and media only (the runner makes the value from
 * the text blocks); false when an embedded text resource or a resource link adds text.
 */
function valueHasAllText(result: Result): boolean {
  return (result.content ?? []).every(
    (block) =>
      block.type === 'text' ||
      block.type === 'image' ||
      block.type === 'audio' ||
      (block.type === 'resource' && typeof (block.resource as { text?: unknown }).text !== 'string'),
  );
}

/**
 * A failure as the text a model reads: the code and message (a validation error names each wrong
 * field), and what to do next.
 */
export function errorText(err: unknown): string {
  if (!ToolexecError.isInstance(err)) return `Error: ${err instanceof Error ? err.message : String(err)}`;
  const hint =
    err.code === 'VALIDATION' || err.code === 'INVALID_ARGUMENT'
      ? ' Fix the arguments and call the tool again.'
      : err.code === 'TIMEOUT'
        ? ' The call took too long; try a smaller request.'
        : '';
  const message = err.message.trimEnd();
  return `Error (${err.code}): ${message}${hint !== '' && !/[.!?]$/u.test(message) ? '.' : ''}${hint}`;
}

/**
 * A failure as the AI SDK's tools throw it, so that the model reads what `agentTools` sends for the
 * same failure: the AI SDK hands the model `String(error)` of a failed `execute` (its
 * `error-text`), which is made {@link errorText}, cut at `maxChars` as every result a model reads.
 * The error itself is kept (its class, code, details and cause, for the app's `tool-error` parts);
 * only its `toString` changes. A value that is no extensible `Error` is wrapped in one, as its
 * `cause`. `text` replaces the model's text (a validation message naming renamed property keys as
 * the model was given them).
 */
export function aiSdkToolError(err: unknown, maxChars: number, text: string = errorText(err)): Error {
  const shown = limitText(text, maxChars);
  const error = err instanceof Error && Object.isExtensible(err) ? err : new Error(shown, { cause: err });
  Object.defineProperty(error, 'toString', { value: () => shown, configurable: true, writable: true, enumerable: false });
  return error;
}

/** How {@link successResult} shapes what a model reads. */
export interface ResultShaping {
  /** The resolved `maxResultChars` (see result-limit.ts). @defaultValue {@link DEFAULT_MAX_RESULT_CHARS} */
  maxChars?: number;
  /**
   * MCP only: keep `structuredContent` even when the text is cut, because the client requires it
   * (the tool lists an output schema, which MCP clients check the result against). Otherwise an
   * object value over the limit is not sent as `structuredContent`. @defaultValue false
   */
  keepStructured?: boolean;
}

/** The text an MCP content block gives a model: a text block's, an embedded text resource's. */
function blockText(block: ContentBlock): string | undefined {
  if (block.type === 'text') return block.text;
  if (block.type === 'resource') {
    const text = (block.resource as { text?: unknown }).text;
    return typeof text === 'string' ? text : undefined;
  }
  return undefined;
}

/** `block` (a text block or an embedded text resource, as {@link blockText} reads them) saying `text`. */
function withBlockText(block: ContentBlock, text: string): ContentBlock {
  if (block.type === 'text') return { ...block, text };
  if (block.type === 'resource') return { ...block, resource: { ...block.resource, text } };
  return block;
}

/**
 * A successful call in the format's tool-result form, its text cut at `shaping.maxChars` (the
 * one cut of result-limit.ts: what a model reads, never the app's own `Result`).
 *
 * @throws `EXECUTION` when the result's value has no JSON form ({@link valueText}): the callers
 * answer it with {@link errorResult}, as any failed call.
 */
export function successResult(
  format: ProviderFormat,
  result: Result,
  name: string,
  callId: string | undefined,
  shaping: ResultShaping = {},
): ProviderToolResults[ProviderFormat] {
  const maxChars = shaping.maxChars ?? DEFAULT_MAX_RESULT_CHARS;
  // the one check of the value: every branch below sends it (or this text) on as it is
  const text = valueText(result.value, result.toolId);
  switch (format) {
    case 'openai-chat':
      return {
        role: 'tool',
        tool_call_id: callId ?? '',
        content: joinedText(limitParts(partsFor(format, resultParts(result, text)), maxChars)),
      };
    case 'openai-responses': {
      const output = limitParts(partsFor(format, resultParts(result, text)), maxChars).map((part): OpenAIResponsesOutputPart => {
        if (part.kind === 'text') return { type: 'input_text', text: part.text };
        const url = `data:${part.mimeType};base64,${part.data}`;
        // partsFor left a PDF or an image OpenAI takes
        if (part.mimeType === 'application/pdf') return { type: 'input_file', file_data: url, filename: 'result.pdf' };
        return { type: 'input_image', image_url: url, detail: 'auto' };
      });
      const textOnly = output.every((part) => part.type === 'input_text');
      return {
        type: 'function_call_output',
        call_id: callId ?? '',
        output: textOnly ? output.map((part) => (part as { text: string }).text).join('\n') : output,
      };
    }
    case 'anthropic': {
      const content = limitParts(partsFor(format, resultParts(result, text)), maxChars).map((part): AnthropicToolResultBlock => {
        if (part.kind === 'text') return { type: 'text', text: part.text };
        // partsFor left a PDF or an image Anthropic takes
        if (part.mimeType === 'application/pdf')
          return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: part.data } };
        return { type: 'image', source: { type: 'base64', media_type: part.mimeType as 'image/png', data: part.data } };
      });
      return { type: 'tool_result', tool_use_id: callId ?? '', content };
    }
    case 'gemini': {
      const parts = limitParts(resultParts(result, text), maxChars);
      const media = parts.filter((part): part is MediaPart => part.kind === 'media');
      const texts = parts.filter((part) => part.kind === 'text').map((part) => (part as { text: string }).text);
      // the value (a structured object stays one) when it holds all the text and is within the
      // limit, else every text part (cut), as the other formats send
      const whole = result.value !== undefined && valueHasAllText(result) && text.length <= maxChars;
      const output = whole ? result.value : texts.join('\n');
      const response: GeminiFunctionResponsePart['functionResponse'] = { name, response: { output } };
      if (callId !== undefined) response.id = callId;
      if (media.length > 0) response.parts = media.map((part) => ({ inlineData: { mimeType: part.mimeType, data: part.data } }));
      return { functionResponse: response };
    }
    case 'mcp': {
      const content = limitTexts(result.content ?? [{ type: 'text', text }], maxChars, blockText, withBlockText);
      const out: CallToolResult = { content: [...content] };
      const value = result.value;
      // an object over the limit is no more sent whole beside the cut text, unless the client requires it
      const structured = shaping.keepStructured === true || text.length <= maxChars;
      if (structured && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        out.structuredContent = value as Record<string, unknown>;
      }
      return out;
    }
  }
}
