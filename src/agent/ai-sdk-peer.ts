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

/** A value as JSON (`undefined` and functions become null; a value JSON cannot carry at all, a note saying so). */
export function jsonValue(value: unknown): JsonValue {
  try {
    return JSON.parse(JSON.stringify(value) ?? 'null') as JsonValue;
  } catch (err) {
    return `(the result cannot be sent as JSON: ${err instanceof Error ? err.message : 'unknown reason'})`;
  }
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
