/**
 * The `INVALID_SCHEMA` errors of the validator, and how they name the schema: the tool's ID and
 * the slot (`inputSchema` / `outputSchema`) it came from.
 */
import { ToolexecError } from './errors.js';
import { describeType, type SchemaProblem } from './schema-source.js';
import type { Tool } from './tool.js';

/** Where a schema came from, for messages and details. */
export interface SchemaContext {
  readonly tool?: string;
  readonly slot: 'inputSchema' | 'outputSchema' | 'schema';
}

export function invalidSchema(problem: SchemaProblem, context: SchemaContext): ToolexecError {
  const where = context.tool === undefined ? '' : `${context.slot} of tool "${context.tool}": `;
  const details: Record<string, unknown> = { reason: problem.reason };
  if (context.tool !== undefined) {
    details.tool = context.tool;
    details.schema = context.slot;
  }
  return new ToolexecError('INVALID_SCHEMA', `invalid JSON Schema: ${where}${problem.reason}`, { cause: problem.cause, details });
}

/**
 * The tool as messages and `details.tool` name it: its ID (`namespace:name[:version]`, or the bare
 * name), so that `files:write` and `db:write` are told apart. Never throws on a malformed tool.
 */
export function toolIdOf(tool: Tool): string {
  const { name, namespace, version } = tool as { name?: unknown; namespace?: unknown; version?: unknown };
  const bare = typeof name === 'string' ? name : describeType(name);
  if (typeof namespace !== 'string' || namespace === '') return bare;
  return typeof version === 'string' && version !== '' ? `${namespace}:${bare}:${version}` : `${namespace}:${bare}`;
}

export function noTool(tool: unknown): ToolexecError {
  const what = tool === null ? 'null' : tool === undefined ? 'undefined' : `not an object (got ${describeType(tool)})`;
  return new ToolexecError('INVALID_SCHEMA', `invalid JSON Schema: tool is ${what}`, { details: { reason: `tool is ${what}` } });
}

export function noInputSchema(tool: Tool): ToolexecError {
  const name = toolIdOf(tool);
  return new ToolexecError('INVALID_SCHEMA', `invalid JSON Schema: tool "${name}" has no inputSchema`, {
    details: { reason: 'inputSchema is missing', tool: name, schema: 'inputSchema' },
  });
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
