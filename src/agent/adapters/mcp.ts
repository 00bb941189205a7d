/**
 * MCP (protocol 2025-11-25, `@modelcontextprotocol/sdk` 1.32 `Tool`): a toolexec `Tool` is an MCP
 * tool plus `namespace`, `version` and `tags`, so nothing of the schema is lost; the ID goes into
 * the name (MCP names are `[A-Za-z0-9_.-]`, up to 128: the encoded ID); the tags, index data like
 * the backends, are not part of any provider's tool (no format warns about them).
 * JSON Schema is MCP's own, `$schema` included, so the schemas are sent as they are — but for
 * their root: MCP requires `type: 'object'` there (the SDK's `ListToolsResultSchema` refuses the
 * whole list otherwise, every tool with it), and root `properties` that are objects. A root
 * without the type gets it (alternatives at the root stay, under the object root), with a
 * warning; boolean property schemas become `{}` / `{ not: {} }`.
 */
import { toMcpTool, type McpTool, type Tool } from '../../model/index.js';
import { providerObject, toolFromParts } from './from-provider.js';
import { admitsNonObject } from './argument-view.js';
import { changed, isSchema, lost, pointerToken, type Schema, type WalkContext } from './schema-walk.js';
import { toolFacts } from './tool-fields.js';
import type { FromProviderToolOptions, ProviderToolConversion, ToProviderToolOptions } from './types.js';

/** Whether a schema's root type allows an object (no type does). */
function allowsObject(type: unknown): boolean {
  return type === undefined || type === 'object' || (Array.isArray(type) && type.includes('object'));
}

/** A schema given as JSON text, read (undefined when it is no JSON); any other value as it is. */
function parsedSchema(schema: unknown): unknown {
  if (typeof schema !== 'string') return schema;
  try {
    return JSON.parse(schema) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A tool schema with the root MCP requires: `type: 'object'`, root `properties` all objects. A
 * schema given as JSON text is read; a boolean schema becomes an object one. `undefined` when the
 * schema cannot describe an object at all (only an output schema can be so: the tool's validation
 * requires an object root of its input).
 */
function mcpRoot(schema: unknown, ctx: WalkContext, pointer: string): Schema | undefined {
  const value = parsedSchema(schema);
  if (value === true || value === undefined || value === null) {
    changed(ctx, 'type', `${pointer}/type`, "MCP requires an object schema with type: 'object' at the root; sent as { type: 'object' }");
    return { type: 'object' };
  }
  if (value === false) {
    changed(
      ctx,
      'type',
      `${pointer}/type`,
      "MCP requires an object schema with type: 'object' at the root; sent as { type: 'object', not: {} }",
    );
    return { type: 'object', not: {} };
  }
  if (!isSchema(value) || !allowsObject(value.type)) return undefined;
  let root: Schema = value;
  if (root.type !== 'object') {
    const what = root.type === undefined ? 'added' : `sent instead of ${JSON.stringify(root.type)} (arguments are an object)`;
    changed(ctx, 'type', `${pointer}/type`, `MCP requires type: 'object' at the root; ${what}`);
    root = { ...root, type: 'object' };
  }
  if (isSchema(root.properties) && Object.values(root.properties).some((property) => typeof property === 'boolean')) {
    const properties: Schema = {};
    for (const [name, property] of Object.entries(root.properties)) {
      if (typeof property !== 'boolean') properties[name] = property;
      else {
        properties[name] = property ? {} : { not: {} };
        changed(ctx, 'properties', `${pointer}/properties/${pointerToken(name)}`, 'MCP requires each root property schema to be an object');
      }
    }
    root = { ...root, properties };
  }
  return root;
}

/** A tool as an MCP tool (for `tools/list`): its schemas with an object root, as MCP clients require. */
export function toMcp(tool: Tool, options: ToProviderToolOptions): ProviderToolConversion<McpTool> {
  const facts = toolFacts(tool, 'mcp', options);
  if (options.strict === true) lost(facts.ctx, 'strict', '', 'MCP has no strict mode');
  if (options.deferLoading === true) lost(facts.ctx, 'defer_loading', '', 'MCP has no deferred tools');
  const out: McpTool = { ...toMcpTool(tool), name: facts.name };
  const input = mcpRoot(tool.inputSchema, facts.ctx, '/inputSchema');
  if (input === undefined) {
    changed(
      facts.ctx,
      'type',
      '/inputSchema/type',
      "MCP requires type: 'object' at the root; the schema describes no object, sent as { type: 'object' }",
    );
  }
  out.inputSchema = (input ?? { type: 'object' }) as McpTool['inputSchema'];
  if (tool.outputSchema !== undefined) {
    const parsed = parsedSchema(tool.outputSchema);
    if (parsed !== false && admitsNonObject(parsed, isSchema(parsed) ? parsed : {})) {
      delete out.outputSchema;
      lost(
        facts.ctx,
        'outputSchema',
        '/outputSchema',
        'the output schema allows results that are no object, and MCP clients refuse a result without structuredContent (an object) from a tool that lists one',
      );
      return { tool: out, warnings: facts.ctx.warnings };
    }
    const output = mcpRoot(tool.outputSchema, facts.ctx, '/outputSchema');
    if (output === undefined) {
      delete out.outputSchema;
      lost(
        facts.ctx,
        'outputSchema',
        '/outputSchema',
        "MCP requires an output schema with type: 'object' at the root (structuredContent is an object)",
      );
    } else out.outputSchema = output as McpTool['outputSchema'];
  }
  return { tool: out, warnings: facts.ctx.warnings };
}

/** An MCP tool as a `Tool` (the name kept, or decoded with `decodeName`). */
export function fromMcp(value: unknown, options: FromProviderToolOptions): ProviderToolConversion<Tool> {
  const source = providerObject(value, 'mcp');
  const converted = toolFromParts(
    'mcp',
    source,
    { input: source.inputSchema, output: source.outputSchema },
    ['name', 'description', 'inputSchema', 'outputSchema', 'title', 'annotations', 'icons', '_meta', 'execution'],
    options,
  );
  const { name: _name, description: _description, inputSchema: _input, outputSchema: _output, ...rest } = source;
  const kept = Object.fromEntries(
    Object.entries(rest).filter(([key]) => ['title', 'annotations', 'icons', '_meta', 'execution'].includes(key)),
  );
  // MCP's JSON Schema is the tool's own: `$schema` stays
  const inputSchema =
    typeof source.inputSchema === 'object' && source.inputSchema !== null ? source.inputSchema : converted.tool.inputSchema;
  return { tool: { ...kept, ...converted.tool, inputSchema } as Tool, warnings: converted.warnings };
}
