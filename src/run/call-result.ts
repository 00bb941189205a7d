/**
 * How an MCP `tools/call` result is checked: the SDK's `CallToolResultSchema`, with a shortcut for
 * the results nearly every tool returns. The one check of a result, wherever it arrives: the MCP
 * executor of `toolexec/mcp` hands {@link callToolResultSchema} to the SDK's `request`, and the
 * runner checks what an injected `McpExecutor` resolves with ({@link checkCallToolResult}),
 * so that a malformed result is `PROTOCOL` whichever executor served it.
 *
 * @internal
 * @module
 */
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { layerErrors } from '../model/internal.js';

type SafeParse = ReturnType<typeof CallToolResultSchema.safeParse>;

/**
 * True for a result the SDK's schema accepts and gives back equal: `content` of text blocks of
 * exactly `type` and `text`, an optional plain `structuredContent` object, an optional boolean
 * `isError`, and no other key. Anything else (images, resources, annotations, `_meta`, extra keys,
 * a missing `content`, an own `"__proto__"` key) is left to the full schema, which also reports
 * what is wrong.
 */
export function isPlainCallToolResult(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const result = value as Record<string, unknown>;
  // Only the three keys of a plain result: `_meta`, other keys and an own `"__proto__"` (which
  // JSON.parse makes and zod drops) are left to the schema.
  for (const key in result) {
    if (key !== 'content' && key !== 'structuredContent' && key !== 'isError') return false;
  }
  const isError = result.isError;
  if (isError !== undefined && typeof isError !== 'boolean') return false;
  const structured = result.structuredContent;
  if (structured !== undefined && !isPlainRecord(structured)) return false;
  const content = result.content;
  if (!Array.isArray(content)) return false;
  for (const block of content as unknown[]) {
    if (!isPlainTextBlock(block)) return false;
  }
  return true;
}

/** A plain object without an own `"__proto__"` key (zod's record drops that key). */
function isPlainRecord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    if (key === '__proto__') return false;
  }
  return true;
}

function isPlainTextBlock(block: unknown): boolean {
  if (typeof block !== 'object' || block === null) return false;
  const text = block as Record<string, unknown>;
  if (text.type !== 'text' || typeof text.text !== 'string') return false;
  // The schema drops keys it does not know and checks `annotations` / `_meta`: leave those to it.
  for (const key in text) {
    if (key !== 'type' && key !== 'text') return false;
  }
  return true;
}

/**
 * The result schema the executor hands to the SDK's `request` for `tools/call`.
 *
 * @remarks
 * Accepts what `CallToolResultSchema` accepts and gives back an equal value (a test holds the two
 * to the same answers over a corpus of valid and invalid results), but a plain result
 * ({@link isPlainCallToolResult}) is returned as it arrived instead of being rebuilt by zod: that
 * parse costs ~0.1 µs for a text result and ~0.4 µs with `structuredContent`, a few per cent of a
 * whole in-memory call. Every other result goes through the SDK's schema, whose error (a
 * `ZodError`) becomes the executor's PROTOCOL error.
 *
 * The SDK accepts any schema with a zod-3-style `safeParse` (it supports zod 3 and 4), which is
 * what this is.
 */
export const callToolResultSchema = {
  safeParse(data: unknown): SafeParse {
    if (isPlainCallToolResult(data)) return { success: true, data: data as SafeParse['data'] } as SafeParse;
    return CallToolResultSchema.safeParse(data);
  },
} as unknown as typeof CallToolResultSchema;

const errors = layerErrors('run');

/**
 * Checks what an MCP executor resolved with for a call to `serverName`, with the same schema as
 * {@link callToolResultSchema}: a plain result costs a few property reads; anything else is parsed
 * by the SDK's schema. `null` is no result (the Go original's nil) and passes.
 *
 * @throws `PROTOCOL` naming the server (`details.serverName`), the schema's error as `cause`, for
 * anything that is not a `CallToolResult` (a string, a number, `undefined`, `content` that is not an
 * array, a content item that is not a content block, `isError` that is not a boolean, ...);
 * whatever reading the result throws (a throwing getter), for the caller to wrap.
 */
export function checkCallToolResult(serverName: string, result: unknown): void {
  if (result === null || isPlainCallToolResult(result)) return;
  const parsed = CallToolResultSchema.safeParse(result);
  if (parsed.success) return;
  const cause: unknown = parsed.error;
  const why = cause instanceof Error ? cause.message : 'not a CallToolResult';
  throw errors('PROTOCOL', `the MCP executor returned an invalid result for server "${serverName}": ${why}`, {
    cause,
    details: { serverName },
  });
}
