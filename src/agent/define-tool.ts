/**
 * `defineTool`: a local tool whose schemas are written with zod 4, any Standard Schema, or plain
 * JSON Schema, and whose handler's arguments are typed from the input schema.
 */
import { defineTool as defineModelTool, type Tool } from '../model/index.js';
import { layerErrors } from '../model/internal.js';
import type { DocEntry, ToolExample } from '../discovery/index.js';
import type { LocalHandler, LocalHandlerContext } from '../run/index.js';
import type { LocalToolDefinition } from '../exec/index.js';
import {
  isStandardSchema,
  schemaIssuesError,
  toJsonSchema,
  type InferToolArgs,
  type InferToolResult,
  type SchemaSide,
  type StandardResult,
  type StandardSchema,
  type ToolSchema,
} from './define-tool-schema.js';

const errors = layerErrors('agent');

/**
 * A tool written with schemas: the MCP tool's fields (name, namespace, version, description, tags,
 * annotations, ...), its input schema and optional output schema as zod 4 / Standard Schema / JSON
 * Schema, and a handler typed from them.
 *
 * @typeParam I - the input schema; the handler's `args` are its output type (`z.infer`).
 * @typeParam O - the output schema; the handler returns its input type.
 */
export interface SchemaToolDefinition<I extends ToolSchema, O extends ToolSchema | undefined = undefined> extends Omit<
  Tool,
  'inputSchema' | 'outputSchema'
> {
  /** The arguments' schema; must describe an object (a `z.object`, or a union of them: `z.discriminatedUnion`). */
  inputSchema: I;
  /** The structured result's schema; must describe an object. */
  outputSchema?: O;
  /**
   * Runs the tool. Its `args` passed toolexec's JSON Schema check and then the schema's own
   * parse (defaults, transforms and refinements applied), so they have the schema's output type.
   * With a Standard Schema `outputSchema`, what it returns is parsed by that schema too.
   */
  handler: (args: InferToolArgs<I>, ctx: LocalHandlerContext) => HandlerReturn<O>;
  /** Documentation for `getToolDoc` / `tools.describeTool` (summary, notes, examples). */
  doc?: DocEntry;
  /** Examples for `tools.listToolExamples`. */
  examples?: ToolExample[];
}

/** What a handler may return for an output schema: its value, or a promise of it (anything without one). */
export type HandlerReturn<O> = O extends undefined
  ? unknown
  : InferToolResult<O> extends infer R
    ? unknown extends R
      ? unknown
      : R | PromiseLike<R>
    : never;

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function'
  );
}

function isAsyncIterable(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/** `then(value)` now when `value` is plain, after it settles when it is a promise: a synchronous handler stays synchronous. */
function andThen<T>(value: T | PromiseLike<T>, then: (value: T) => unknown): unknown {
  return isPromiseLike(value) ? Promise.resolve(value).then(then) : then(value);
}

/** A Standard Schema's parse: its value, or the side's error with every issue. */
function parser(schema: StandardSchema, side: SchemaSide): (value: unknown) => unknown {
  const validate = schema['~standard'].validate;
  const read = (result: StandardResult<unknown>): unknown => {
    if (result.issues !== undefined) throw schemaIssuesError(side, result.issues);
    return result.value;
  };
  return (value) => andThen(validate(value), read);
}

/**
 * Defines a local tool from zod 4 schemas (or any Standard Schema, or plain JSON Schema), for
 * `createExec({ tools: [...] })`.
 *
 * @remarks
 * - The tool stores JSON Schema: `z.toJSONSchema` of a zod 4 schema (the input side for
 *   `inputSchema`, the output side for `outputSchema`; draft 2020-12), the library's own Standard
 *   JSON Schema converter (`~standard.jsonSchema`) for other vendors, plain JSON Schema as given.
 *   Every call is validated against it by toolexec's validator as any tool is (`VALIDATION` with
 *   violations a model can act on), and models, MCP clients and code mode read it.
 * - Then the schema's own parse runs, so the handler gets the schema's output type: defaults
 *   filled in, transforms applied, and refinements JSON Schema cannot express checked (a refusal
 *   fails the call with a `VALIDATION` error naming each issue, as the cause of the run's error).
 *   A Standard Schema `outputSchema` parses the handler's result the same way (`OUTPUT_VALIDATION`);
 *   a handler that streams (an async iterable) is passed through unparsed.
 *
 * @example
 * ```ts
 * const add = defineTool({
 *   name: 'add', namespace: 'math', description: 'Adds two numbers',
 *   inputSchema: z.object({ a: z.number(), b: z.number() }),
 *   handler: ({ a, b }) => ({ sum: a + b }), // a and b are numbers
 * });
 * const exec = createExec({ tools: [add] });
 * ```
 *
 * @throws `CONFIGURATION` when a schema cannot be converted to JSON Schema
 * (a zod type JSON Schema cannot express, a Standard Schema without a converter) or does not
 * describe an object, or when `handler` is not a function; `INVALID_TOOL` when the tool breaks the
 * model's rules (name, version, tags).
 */
export function defineTool<I extends ToolSchema, O extends ToolSchema | undefined = undefined>(
  definition: SchemaToolDefinition<I, O>,
): LocalToolDefinition {
  const { inputSchema, outputSchema, handler, doc, examples, ...fields } = definition;
  if (typeof handler !== 'function') throw errors.configuration('handler', 'must be a function');
  const tool = { ...fields, inputSchema: toJsonSchema(inputSchema, 'input', 'inputSchema') } as Tool;
  if (outputSchema !== undefined) tool.outputSchema = toJsonSchema(outputSchema, 'output', 'outputSchema') as Tool['outputSchema'];
  const parseArgs = isStandardSchema(inputSchema) ? parser(inputSchema, 'input') : undefined;
  const parseResult = isStandardSchema(outputSchema) ? parser(outputSchema, 'output') : undefined;
  const run = handler as (args: unknown, ctx: LocalHandlerContext) => unknown;
  const finish =
    parseResult === undefined ? undefined : (result: unknown) => (isAsyncIterable(result) ? result : andThen(result, parseResult));
  const call = finish === undefined ? run : (args: unknown, ctx: LocalHandlerContext) => andThen(run(args, ctx), finish);
  const local: LocalHandler = parseArgs === undefined ? call : (args, ctx) => andThen(parseArgs(args), (parsed) => call(parsed, ctx));
  const out: LocalToolDefinition = { tool: defineModelTool(tool), handler: local };
  if (doc !== undefined) out.doc = doc;
  if (examples !== undefined) out.examples = examples;
  return out;
}
