/**
 * The way back: a provider's tool definition as a toolexec `Tool`. The name is decoded when
 * `encodeToolName` made it (so `math--add--1-d0-d0` becomes `math:add` version `1.0.0`), else
 * kept as the tool's name; every provider field a `Tool` has no place for is reported.
 */
import { parseToolId, validateTool, type Tool } from '../../model/index.js';
import { layerErrors } from '../../model/internal.js';
import { decodeToolName } from '../tool-names.js';
import { isSchema, lost, pointerToken, type Schema, type WalkContext } from './schema-walk.js';
import type { ProviderFormat, ProviderToolConversion } from './types.js';

const errors = layerErrors('agent');

/** The schemas an adapter read from a provider's object. */
export interface ProviderSchemas {
  /** The argument schema (JSON Schema); undefined for a tool without arguments. */
  input: unknown;
  /** The result schema, where the provider has one. */
  output?: unknown;
}

/** Checks that a provider tool is an object; `INVALID_ARGUMENT` otherwise. */
export function providerObject(value: unknown, format: ProviderFormat): Schema {
  if (!isSchema(value)) throw errors.invalidArgument('providerTool', `must be a ${format} tool object`);
  return value;
}

/** The tool's name, namespace and version from a provider name. */
function identity(name: string): Pick<Tool, 'name' | 'namespace' | 'version'> {
  let id: string;
  try {
    id = decodeToolName(name);
  } catch {
    return { name };
  }
  const parsed = parseToolId(id);
  return {
    name: parsed.name,
    ...(parsed.namespace === undefined ? {} : { namespace: parsed.namespace }),
    ...(parsed.version === undefined ? {} : { version: parsed.version }),
  };
}

/**
 * Builds the `Tool` and its warnings from a provider's object: its `name` and `description`, the
 * `schemas` read from it, and a warning for each of its fields not in `read` (the fields read, or
 * that carry no meaning for a `Tool`, like `type`).
 */
export function toolFromParts(
  format: ProviderFormat,
  source: Schema,
  schemas: ProviderSchemas,
  read: readonly string[],
): ProviderToolConversion<Tool> {
  const { name, description } = source;
  if (typeof name !== 'string' || name === '') throw errors.invalidArgument('providerTool', `has no name (a ${format} tool needs one)`);
  const ctx: WalkContext = { format, toolId: name, warnings: [] };
  const inputSchema = schemas.input === undefined || schemas.input === null ? { type: 'object' } : schemas.input;
  if (!isSchema(inputSchema))
    throw errors.invalidArgument('providerTool', `has a schema that is not a JSON object (${format} tool "${name}")`);
  const { $schema: _dialect, ...schema } = inputSchema;
  const tool: Tool = {
    ...identity(name),
    inputSchema: { type: 'object', ...schema },
  };
  if (typeof description === 'string' && description !== '') tool.description = description;
  if (isSchema(schemas.output)) tool.outputSchema = { type: 'object', ...schemas.output };
  for (const [key, value] of Object.entries(source)) {
    if (read.includes(key) || value === undefined || value === null) continue;
    lost(ctx, key, `/${pointerToken(key)}`, 'a toolexec Tool has no place for it');
  }
  try {
    validateTool(tool);
  } catch (err) {
    throw errors.invalidArgument('providerTool', `does not make a valid tool: ${(err as Error).message}`, { cause: err });
  }
  return { tool, warnings: ctx.warnings };
}
