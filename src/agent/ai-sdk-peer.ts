/**
 * The AI SDK as an optional peer dependency: loading it, the loose type of its tools, and the JSON
 * form of a value for a tool result.
 *
 * @internal
 * @module
 */
import type * as AiSdkModule from 'ai';
import type { Tool as AiTool } from 'ai';
import { layerErrors, missingPeerMessage, optionalPeer } from '../model/internal.js';
import { limitText } from './result-limit.js';

const errors = layerErrors('agent');

/** The `ai` module. */
export type AiSdk = typeof AiSdkModule;

/** What a tool's `toModelOutput` returns: the tool result as the model reads it. */
export type ToolResultOutput = Awaited<ReturnType<NonNullable<AiTool<unknown, unknown>['toModelOutput']>>>;

/** Loads the AI SDK on first use. @throws `RUNTIME_UNAVAILABLE` when it is not installed. */
export const loadAiSdk: () => Promise<AiSdk> = optionalPeer(
  'ai',
  (mod) => mod as AiSdk,
  (err) => errors('RUNTIME_UNAVAILABLE', missingPeerMessage('AI SDK tools', 'ai'), { cause: err, details: { missing: 'ai' } }),
);

/** A JSON value of a tool result's `json` output. */
export type JsonValue = Extract<ToolResultOutput, { type: 'json' }>['value'];

/**
 * A value as the `json` output the model reads (`undefined` and functions become null; a value
 * JSON cannot carry at all, a note saying so); a value whose JSON text is longer than `maxChars`
 * as that text, cut with the note of result-limit.ts (a `text` output).
 */
export function jsonOutput(value: unknown, maxChars: number): ToolResultOutput {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch (err) {
    return { type: 'json', value: `(the result cannot be sent as JSON: ${err instanceof Error ? err.message : 'unknown reason'})` };
  }
  if (text.length > maxChars) return { type: 'text', value: limitText(text, maxChars) };
  return { type: 'json', value: JSON.parse(text) as JsonValue };
}

/**
 * An AI SDK `Tool` (of the `ai` package), as {@link codeTool} makes it.
 *
 * @remarks
 * Typed loosely on purpose: `ai` is an optional peer dependency, and the declarations of
 * `toolexec/agent` name nothing from it, so that an app without it type-checks. The value is the
 * AI SDK's own `tool(...)`, and it goes wherever the AI SDK takes a tool without a cast.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assignable to the `ai` package's Tool without naming it
export type AiSdkTool = any;
