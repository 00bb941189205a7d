/**
 * The way back: a provider's tool definition as a toolexec `Tool`. A name with a namespace as
 * `encodeToolName` writes it is decoded when it is the encoding of a valid tool ID (so
 * `math--add--1-d0-d0` becomes `math:add` version `1.0.0`); any other name is kept as it is (a
 * Gemini name holding `:` read as a tool ID);
 * every provider field a `Tool` has no place for is reported. Only function tools convert: a
 * provider's own tools (web search, code execution...) are refused naming their type.
 */
import { parseToolId, validateTool, type Tool } from '../../model/index.js';
import { layerErrors } from '../../model/internal.js';
import { decodeToolName } from '../tool-names.js';
import { admitsNonObject } from './argument-view.js';
import { isSchema, lost, pointerToken, type Schema, type WalkContext } from './schema-walk.js';
import type { FromProviderToolOptions, ProviderFormat, ProviderToolConversion } from './types.js';

const errors = layerErrors('agent');

/** What each format calls the tools that can become a `Tool`, for the refusal of any other. */
const FUNCTION_TOOLS: Readonly<Record<ProviderFormat, string>> = {
  'openai-chat': 'function tools (type "function")',
  'openai-responses': 'function tools (type "function")',
  anthropic: 'custom tools (no type, or type "custom")',
  gemini: 'function declarations',
  mcp: 'MCP tools',
};

/** The schemas an adapter read from a provider's object. */
export interface ProviderSchemas {
  /** The argument schema (JSON Schema); undefined for a tool without arguments. */
  input: unknown;
  /** The result schema, where the provider has one. */
  output?: unknown;
}

/**
 * Checks that a provider tool is an object and, for a format with tool types, that its `type`,
 * when it has one, is one of `types` (the format's function tools); `INVALID_ARGUMENT` otherwise,
 * naming the type.
 */
export function providerObject(value: unknown, format: ProviderFormat, types?: readonly string[]): Schema {
  if (!isSchema(value)) throw errors.invalidArgument('providerTool', `must be a tool object of the ${format} format`);
  const type = value.type;
  if (types !== undefined && type !== undefined && !types.includes(type as string)) {
    throw errors.invalidArgument(
      'providerTool',
      `has type ${JSON.stringify(type)}: only ${FUNCTION_TOOLS[format]} become a toolexec Tool (any other ${format} tool is one the provider runs itself, or takes no JSON Schema)`,
      { details: { format, type } },
    );
  }
  return value;
}

/** The parts of a tool ID as a tool's fields, when they make a valid tool; undefined otherwise. */
function idParts(id: string): Pick<Tool, 'name' | 'namespace' | 'version'> | undefined {
  try {
    const parsed = parseToolId(id);
    const parts = {
      name: parsed.name,
      ...(parsed.namespace === undefined ? {} : { namespace: parsed.namespace }),
      ...(parsed.version === undefined ? {} : { version: parsed.version }),
    };
    validateTool({ ...parts, inputSchema: { type: 'object' } });
    return parts;
  } catch {
    return undefined;
  }
}

/**
 * The tool's name, namespace and version from a provider name: the ID `encodeToolName` made it
 * from when decoding applies (see {@link FromProviderToolOptions.decodeName}) and gives a valid
 * tool ID; otherwise the name as it is; a name holding `:` (Gemini allows it, a tool name does
 * not) read as a tool ID.
 */
function identity(name: string, options: FromProviderToolOptions): Pick<Tool, 'name' | 'namespace' | 'version'> {
  const decode = options.decodeName;
  // By default only a name holding `--`, the namespace separator of encodeToolName, is read as one.
  if (decode === true || (decode === undefined && name.includes('--'))) {
    let id: string | undefined;
    try {
      id = decodeToolName(name);
    } catch {
      id = undefined;
    }
    const decoded = id === undefined ? undefined : idParts(id);
    if (decoded !== undefined) return decoded;
  }
  return (name.includes(':') ? idParts(name) : undefined) ?? { name };
}

/**
 * Builds the `Tool` and its warnings from a provider's object: its `name` and `description`, the
 * `schemas` read from it, and a warning for each of its fields not in `read` (the fields read, or
 * that carry no meaning for a `Tool`, like `type`). The tool is not checked yet: its schemas are
 * compiled first (`compileToolSchemas`, `INVALID_SCHEMA` wherever a schema is broken, its root
 * included), then {@link checkProviderTool}.
 *
 * @throws `INVALID_ARGUMENT` for no name, or a schema field that holds no JSON object.
 */
export function toolFromParts(
  format: ProviderFormat,
  source: Schema,
  schemas: ProviderSchemas,
  read: readonly string[],
  options: FromProviderToolOptions,
): ProviderToolConversion<Tool> {
  const { name, description } = source;
  if (typeof name !== 'string' || name === '')
    throw errors.invalidArgument('providerTool', `has no name (a tool of the ${format} format needs one)`);
  const ctx: WalkContext = { format, toolId: name, warnings: [] };
  const inputSchema = schemas.input === undefined || schemas.input === null ? { type: 'object' } : schemas.input;
  if (!isSchema(inputSchema))
    throw errors.invalidArgument('providerTool', `has a schema that is not a JSON object (${format} tool "${name}")`);
  if (schemas.output !== undefined && schemas.output !== null && !isSchema(schemas.output))
    throw errors.invalidArgument('providerTool', `has a result schema that is not a JSON object (${format} tool "${name}")`);
  const { $schema: _dialect, ...schema } = inputSchema;
  // Anthropic's SDK types the root `properties` and `required` as nullable: null is "none", and
  // left in, it would make a schema every call fails to compile
  for (const key of ['properties', 'required']) if (schema[key] === null) delete schema[key];
  const tool: Tool = {
    ...identity(name, options),
    inputSchema: { type: 'object', ...schema },
  };
  if (typeof description === 'string' && description !== '') tool.description = description;
  if (isSchema(schemas.output)) {
    // `type: 'object'` only where the schema is about objects already: added to one that allows
    // other results (`anyOf: [string, number]`, `{ description }`), it would fail every result
    const output = schemas.output;
    tool.outputSchema = (
      output.type === undefined && !admitsNonObject(output, output) ? { type: 'object', ...output } : output
    ) as Tool['outputSchema'];
  }
  for (const [key, value] of Object.entries(source)) {
    if (read.includes(key) || value === undefined || value === null) continue;
    lost(ctx, key, `/${pointerToken(key)}`, 'a toolexec Tool has no place for it');
  }
  return { tool, warnings: ctx.warnings };
}

/**
 * Checks the `Tool` read from a provider against the model's rules (`validateTool`), once its
 * schemas have compiled: what is left to refuse is a tool no valid schema can fix — a name the
 * model refuses (`get weather`), or a valid schema that describes no object (`type: 'string'`).
 *
 * @throws `INVALID_ARGUMENT` (`providerTool does not make a valid tool: …`), the model's
 * `INVALID_TOOL` as `cause`.
 */
export function checkProviderTool(tool: Tool): void {
  try {
    validateTool(tool);
  } catch (err) {
    throw errors.invalidArgument('providerTool', `does not make a valid tool: ${(err as Error).message}`, { cause: err });
  }
}
