/**
 * A result's content as the parts a provider takes: MCP content blocks read as text and media
 * parts, then each medium the provider cannot take in a tool result turned into a text note, and
 * for Anthropic no empty or blank text. One mechanism for `agentTools`' results (tool-results.ts)
 * and for `aiSdkTools`' `toModelOutput` with a `provider` (ai-sdk.ts).
 *
 * @internal
 * @module
 */
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { Result } from '../exec/index.js';
import type { ProviderFormat } from './adapters/types.js';

/** A text part. */
export interface TextPart {
  /** Always `text`. */
  kind: 'text';
  /** The text. */
  text: string;
}

/** A medium (an image, audio, a file) as base64 data. */
export interface MediaPart {
  /** Always `media`. */
  kind: 'media';
  /** The IANA media type. */
  mimeType: string;
  /** The bytes, base64. */
  data: string;
  /** What it is, for a note: `image`, `audio`, `resource <uri>`. */
  what: string;
}

/** One part of a result's content. */
export type ResultPart = TextPart | MediaPart;

/**
 * The image types a model takes in a tool result: Anthropic's image blocks take JPEG, PNG, GIF and
 * WebP; OpenAI's `input_image` PNG, JPEG, WEBP and non-animated GIF (its vision guide). Any other
 * image (SVG, BMP, TIFF...) becomes a text note.
 */
export const MODEL_IMAGES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** What Anthropic gets for a result with no text and no media: it refuses an empty (or blank) text block. */
export const ANTHROPIC_NO_OUTPUT = '(no output)';

/** MCP content blocks as text and media parts (a resource link as a line naming it). */
export function partsOf(content: readonly ContentBlock[]): ResultPart[] {
  const parts: ResultPart[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'text':
        parts.push({ kind: 'text', text: block.text });
        break;
      case 'image':
      case 'audio':
        parts.push({ kind: 'media', mimeType: essence(block.mimeType), data: block.data, what: block.type });
        break;
      case 'resource': {
        const resource = block.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
        if (typeof resource.text === 'string') parts.push({ kind: 'text', text: resource.text });
        else if (typeof resource.blob === 'string') {
          const mimeType = resource.mimeType === undefined ? 'application/octet-stream' : essence(resource.mimeType);
          parts.push({ kind: 'media', mimeType, data: resource.blob, what: `resource ${resource.uri}` });
        }
        break;
      }
      case 'resource_link':
        parts.push({
          kind: 'text',
          text: `[resource ${block.uri}${block.mimeType === undefined ? '' : ` (${block.mimeType})`}: ${block.name}]`,
        });
        break;
      default:
        // a block of a later MCP revision: its JSON (a result's content is JSON-safe)
        parts.push({ kind: 'text', text: JSON.stringify(block) });
    }
  }
  return parts;
}

/**
 * A media type as providers compare it: `type/subtype` in lower case, parameters left out (media
 * types are case-insensitive and may carry parameters, RFC 6838 and RFC 2045: `IMAGE/PNG` and
 * `image/png; charset=binary` are `image/png`).
 */
function essence(mimeType: string): string {
  return (String(mimeType).split(';', 1)[0] ?? '').trim().toLowerCase();
}

/** The parts of a result: its content blocks when it has any, else `text` (its value's text). */
export function resultParts(result: Result, text: string): ResultPart[] {
  return result.content !== undefined && result.content.length > 0 ? partsOf(result.content) : [{ kind: 'text', text }];
}

/** The text of parts that are all text (as {@link partsFor} leaves them for OpenAI Chat), one part a line. */
export function joinedText(parts: readonly ResultPart[]): string {
  return parts.map((part) => (part.kind === 'text' ? part.text : '')).join('\n');
}

/** A medium a provider cannot take, as the text note the model reads instead. */
function note(part: MediaPart, why: string): TextPart {
  return { kind: 'text', text: `[${part.what} (${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes) not shown: ${why}]` };
}

/** Why each format's tool results refuse a medium, and which media they take (none for OpenAI Chat). */
const MEDIA_RULES: Readonly<Partial<Record<ProviderFormat, { takes: (mimeType: string) => boolean; why: string }>>> = {
  'openai-chat': { takes: () => false, why: 'a tool message carries text only' },
  'openai-responses': {
    takes: (mimeType) => MODEL_IMAGES.has(mimeType) || mimeType === 'application/pdf',
    why: 'the Responses API takes PNG, JPEG, WebP and GIF images and PDF files only',
  },
  anthropic: {
    takes: (mimeType) => MODEL_IMAGES.has(mimeType) || mimeType === 'application/pdf',
    why: 'Anthropic takes JPEG, PNG, GIF and WebP images and PDF documents only',
  },
};

/**
 * `parts` as `format` takes them in a tool result: each medium it cannot take (OpenAI Chat: any;
 * OpenAI Responses and Anthropic: other than a JPEG, PNG, GIF or WebP image or a PDF) as a text
 * note; for Anthropic, empty and blank text left out, and {@link ANTHROPIC_NO_OUTPUT} when nothing
 * is left. Gemini and MCP take every part as it is. What stays a medium is one the format takes.
 */
export function partsFor(format: ProviderFormat, parts: readonly ResultPart[]): ResultPart[] {
  const rules = MEDIA_RULES[format];
  const out =
    rules === undefined
      ? [...parts]
      : parts.map((part) => (part.kind === 'media' && !rules.takes(part.mimeType) ? note(part, rules.why) : part));
  if (format !== 'anthropic') return out;
  // Anthropic refuses a text block that is empty or only whitespace
  const shown = out.filter((part) => part.kind !== 'text' || part.text.trim() !== '');
  return shown.length > 0 ? shown : [{ kind: 'text', text: ANTHROPIC_NO_OUTPUT }];
}
