/**
 * The schemas of a tool read back from a provider, compiled at once by the validator the facade
 * uses (`createSchemaValidator`): a schema that does not compile is refused when it is read, naming
 * where it sits in the provider's object, instead of failing the tool's first call.
 */
import { ToolexecError, createSchemaValidator, type Tool } from '../../model/index.js';
import { layerErrors } from '../../model/internal.js';
import { isSchema, type Schema } from './schema-walk.js';
import type { ProviderFormat } from './types.js';

const errors = layerErrors('agent');

const validator = createSchemaValidator();

/** Where a format's tool object keeps the argument and result schemas, as JSON pointers (as each adapter reads them). */
function schemaPointers(format: ProviderFormat, source: Schema): { input: string; output?: string } {
  switch (format) {
    case 'openai-chat':
      // a `{ type: 'function', function }` tool, or a bare function definition
      return { input: source.type === 'function' && isSchema(source.function) ? '/function/parameters' : '/parameters' };
    case 'openai-responses':
      return { input: '/parameters', output: '/output_schema' };
    case 'anthropic':
      return { input: '/input_schema' };
    case 'gemini':
      return {
        input: source.parametersJsonSchema === undefined || source.parametersJsonSchema === null ? '/parameters' : '/parametersJsonSchema',
        output: source.responseJsonSchema === undefined || source.responseJsonSchema === null ? '/response' : '/responseJsonSchema',
      };
    case 'mcp':
      return { input: '/inputSchema', output: '/outputSchema' };
  }
}

/**
 * The refusal of a provider tool's schema that does not compile: `INVALID_SCHEMA` naming where the
 * schema sits in the provider's object (`pointer`, `/input_schema`) and why (`reason`, which names
 * the pointer inside the schema). The one form of every such refusal, wherever the schema is broken.
 */
export function schemaDoesNotCompile(format: ProviderFormat, pointer: string, reason: string, cause?: unknown): ToolexecError {
  return errors('INVALID_SCHEMA', `providerTool's schema at ${pointer} does not compile: ${reason}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { format, pointer, reason },
  });
}

/**
 * Compiles the input and output schemas of `tool`, read from the provider's object `source`.
 *
 * @throws `INVALID_SCHEMA` (the facade's code for a schema that does not compile) naming the
 * schema's pointer in `source` and the validator's reason, which names the pointer inside it:
 * `providerTool's schema at /input_schema does not compile: schema is invalid:
 * /properties/a/description must be string`.
 */
export function compileToolSchemas(format: ProviderFormat, source: unknown, tool: Tool): void {
  const at = schemaPointers(format, isSchema(source) ? source : {});
  const schemas: [unknown, string][] = [[tool.inputSchema, at.input]];
  if (tool.outputSchema !== undefined) schemas.push([tool.outputSchema, at.output ?? '/outputSchema']);
  for (const [schema, pointer] of schemas) {
    try {
      validator.compile(schema);
    } catch (err) {
      const details = ToolexecError.isInstance(err) ? err.details : undefined;
      const reason = typeof details?.reason === 'string' ? details.reason : err instanceof Error ? err.message : String(err);
      throw schemaDoesNotCompile(format, pointer, reason, err);
    }
  }
}
