import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { DocEntry, ToolExample } from '../discovery/index.js';
import type { Tool } from '../model/index.js';
import type { LocalHandlerContext } from '../run/index.js';
import type { LocalToolDefinition } from './types.js';

/** A tool whose `inputSchema` is a literal JSON Schema (written `as const`, or inferred as one). */
export type TypedTool<S extends JSONSchema> = Omit<Tool, 'inputSchema'> & {
  /** The input schema; the handler's arguments are inferred from it. */
  readonly inputSchema: S;
};

/** The arguments a handler of a tool with input schema `S` receives: the type `S` describes. */
export type ArgsOf<S extends JSONSchema> = FromSchema<S>;

/** A {@link LocalToolDefinition} whose handler's arguments are typed by the tool's literal input schema. */
export interface TypedLocalToolDefinition<S extends JSONSchema> {
  /** The tool; its `inputSchema` is read as a literal type. */
  tool: TypedTool<S>;
  /**
   * Runs the tool with arguments already validated against `tool.inputSchema` (unless the facade
   * was made with `validateInput: false`: then the types describe what the schema asks for, not
   * what arrived).
   */
  handler: (args: NoInfer<ArgsOf<S>>, ctx: LocalHandlerContext) => unknown;
  /** Documentation for `getToolDoc` / `tools.describeTool`. */
  doc?: DocEntry;
  /** Examples for `tools.listToolExamples`. */
  examples?: ToolExample[];
}

/**
 * A local tool for `createExec({ tools })` whose handler's arguments are inferred from its input
 * schema (with json-schema-to-ts), so no cast is needed:
 *
 * ```ts
 * const add = defineLocalTool({
 *   tool: { name: 'add', namespace: 'math', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } },
 *   handler: ({ a }) => a + 1, // a: number
 * });
 * ```
 *
 * The schema is inferred as a literal type (no `as const` needed, though it does no harm); the
 * handler's parameter is not an inference site (`NoInfer`, TypeScript 5.4 or later). It returns
 * the definition unchanged; `createExec` checks the tool as it checks any other.
 */
export function defineLocalTool<const S extends JSONSchema>(definition: TypedLocalToolDefinition<S>): LocalToolDefinition {
  // The runner validates the arguments against this schema before the handler sees them, and a
  // literal schema's readonly arrays are the same values as the mutable ones `Tool` declares.
  return definition as unknown as LocalToolDefinition;
}
