/**
 * MCP (protocol 2025-11-25, `@modelcontextprotocol/sdk` 1.32 `Tool`): a toolexec `Tool` is an MCP
 * tool plus `namespace`, `version` and `tags`, so nothing of the schema is lost; the ID goes into
 * the name (MCP names are `[A-Za-z0-9_.-]`, up to 128: the encoded ID); the tags, index data like
 * the backends, are not part of any provider's tool (no format warns about them).
 * JSON Schema is MCP's own, `$schema` included, so the schemas are sent as they are.
 */
import { toMcpTool, type McpTool, type Tool } from '../../model/index.js';
import { providerObject, toolFromParts } from './from-provider.js';
import { lost } from './schema-walk.js';
import { toolFacts } from './tool-fields.js';
import type { ProviderToolConversion, ToProviderToolOptions } from './types.js';

/** A tool as an MCP tool (for `tools/list`). */
export function toMcp(tool: Tool, options: ToProviderToolOptions): ProviderToolConversion<McpTool> {
  const facts = toolFacts(tool, 'mcp', options);
  if (options.strict === true) lost(facts.ctx, 'strict', '', 'MCP has no strict mode');
  if (options.deferLoading === true) lost(facts.ctx, 'defer_loading', '', 'MCP has no deferred tools');
  return { tool: { ...toMcpTool(tool), name: facts.name }, warnings: facts.ctx.warnings };
}

/** An MCP tool as a `Tool` (the name decoded when `encodeToolName` made it). */
export function fromMcp(value: unknown): ProviderToolConversion<Tool> {
  const source = providerObject(value, 'mcp');
  const converted = toolFromParts('mcp', source, { input: source.inputSchema, output: source.outputSchema }, [
    'name',
    'description',
    'inputSchema',
    'outputSchema',
    'title',
    'annotations',
    'icons',
    '_meta',
    'execution',
  ]);
  const { name: _name, description: _description, inputSchema: _input, outputSchema: _output, ...rest } = source;
  const kept = Object.fromEntries(
    Object.entries(rest).filter(([key]) => ['title', 'annotations', 'icons', '_meta', 'execution'].includes(key)),
  );
  // MCP's JSON Schema is the tool's own: `$schema` stays
  const inputSchema =
    typeof source.inputSchema === 'object' && source.inputSchema !== null ? source.inputSchema : converted.tool.inputSchema;
  return { tool: { ...kept, ...converted.tool, inputSchema } as Tool, warnings: converted.warnings };
}
