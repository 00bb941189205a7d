/**
 * Gemini: a `FunctionDeclaration` `{ name, description, parametersJsonSchema | parameters, responseJsonSchema | response }`.
 *
 * Facts, from the types of `@google/genai` 2.32 (`FunctionDeclaration`, `Schema`) and Google's
 * function-calling and structured-output guides:
 * - names: a letter or `_` first, then up to 128 of `[a-zA-Z0-9_.:-]`; parameter (property)
 *   names a letter or `_` first, then `[a-zA-Z0-9_]`, up to 64 (others are renamed, see
 *   `property-keys.ts`);
 * - `parametersJsonSchema` (JSON Schema) and `parameters` (the OpenAPI 3.0 subset of the SDK's
 *   `Schema` class) exclude each other; JSON Schema is preferred;
 * - the JSON Schema keywords taken: `$id`, `$defs`, `$ref`, `$anchor`, `type`, `format`, `title`,
 *   `description`, `enum`, `items`, `prefixItems`, `minItems`, `maxItems`, `minimum`, `maximum`,
 *   `anyOf`, `properties`, `additionalProperties`, `required`, `propertyOrdering` (structured-output
 *   guide), and those the `Schema` class also has: `pattern`, `minLength`, `maxLength`,
 *   `minProperties`, `maxProperties`, `default`, `nullable`, `example`; `oneOf` is read as `anyOf`;
 *   `const` is sent as a one-value `enum`;
 * - the OpenAPI `Schema` has no references (they are inlined; cycles refused), types in capitals
 *   (`STRING`...), `nullable` instead of a `null` type, string `enum` values only, and no boolean
 *   subschemas (`properties` is `Record<string, Schema>`): `true` is sent as `{}`, a `false`
 *   property or alternative left out, `items: false` sent as `maxItems: 0` (see
 *   {@link openApiBooleans}); `parametersJsonSchema` is JSON Schema, where they are valid: kept;
 * - results: `responseJsonSchema` / `response`; no strict flag per tool (strictness is the
 *   request's `functionCallingConfig.mode: 'VALIDATED'`), no deferred tools, no annotations.
 */
import type { Tool } from '../../model/index.js';
import { layerErrors } from '../../model/internal.js';
import { providerObject, toolFromParts } from './from-provider.js';
import { renamePropertyKeys } from './property-keys.js';
import { schemaDoesNotCompile } from './schema-compile.js';
import {
  changed,
  constAsEnum,
  isSchema,
  lost,
  mapChildren,
  oneOfAsAnyOf,
  pointerToken,
  type Schema,
  type WalkContext,
} from './schema-walk.js';
import { convertSchema, toolFacts, toolFieldsLost } from './tool-fields.js';
import type { FromProviderToolOptions, GeminiFunctionDeclaration, ProviderToolConversion, ToProviderToolOptions } from './types.js';

const errors = layerErrors('agent');

/** The JSON Schema keywords Gemini's `parametersJsonSchema` takes. */
export const GEMINI_JSON_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  '$id',
  '$defs',
  '$ref',
  '$anchor',
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'properties',
  'additionalProperties',
  'required',
  'propertyOrdering',
  'pattern',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
  'default',
  'nullable',
  'example',
]);

/** The fields of the SDK's OpenAPI `Schema` class. */
export const GEMINI_OPENAPI_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

const OPENAPI_TYPES: Readonly<Record<string, string>> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
  null: 'NULL',
};

function jsonSchemaAdjust(node: Schema, pointer: string, ctx: WalkContext): Schema {
  return constAsEnum(oneOfAsAnyOf(node, pointer, ctx));
}

/** Why a boolean subschema cannot go into the OpenAPI form. */
const NO_BOOLEAN_SCHEMAS = 'the OpenAPI schema has no boolean subschemas';

/**
 * A node's boolean subschemas in the OpenAPI form, whose `Schema` has none (JSON Schema's `true`
 * accepts any value, `false` none), each with a warning: `true` as `{}` (any value, what it means);
 * a property whose schema is `false` (it can never be sent) left out of `properties` and
 * `required`; a `false` alternative of `anyOf` (it never matches) left out; `items: false` (no
 * item allowed) as `maxItems: 0`, or left out beside `prefixItems` (dropped too: the form has no tuples).
 */
function openApiBooleans(node: Schema, pointer: string, ctx: WalkContext): Schema {
  let out = node;
  const anyValue = (at: string): Schema => {
    changed(ctx, 'boolean schema', at, `${NO_BOOLEAN_SCHEMAS}; true sent as {} (any value)`);
    return {};
  };
  if (isSchema(out.properties) && Object.values(out.properties).some((child) => typeof child === 'boolean')) {
    const properties: Schema = {};
    const never = new Set<string>();
    for (const [name, child] of Object.entries(out.properties)) {
      const at = `${pointer}/properties/${pointerToken(name)}`;
      if (child === false) {
        never.add(name);
        lost(ctx, 'boolean schema', at, `${NO_BOOLEAN_SCHEMAS}; the property is never allowed (false), so it is left out`);
      } else properties[name] = child === true ? anyValue(at) : child;
    }
    out = { ...out, properties };
    if (Array.isArray(out.required)) out.required = out.required.filter((name) => !never.has(name as string));
  }
  if (Array.isArray(out.anyOf) && out.anyOf.some((child) => typeof child === 'boolean')) {
    const alternatives: unknown[] = [];
    out.anyOf.forEach((child, i) => {
      const at = `${pointer}/anyOf/${i}`;
      if (child === false) lost(ctx, 'boolean schema', at, `${NO_BOOLEAN_SCHEMAS}; the alternative false never matches, so it is left out`);
      else alternatives.push(child === true ? anyValue(at) : child);
    });
    const { anyOf: _anyOf, ...rest } = out;
    out = alternatives.length > 0 ? { ...rest, anyOf: alternatives } : rest;
  }
  if (out.items === true) out = { ...out, items: anyValue(`${pointer}/items`) };
  else if (out.items === false) {
    const { items: _items, ...rest } = out;
    if (out.prefixItems === undefined) {
      changed(ctx, 'boolean schema', `${pointer}/items`, `${NO_BOOLEAN_SCHEMAS}; items false (no item allowed) sent as maxItems: 0`);
      out = { ...rest, maxItems: 0 };
    } else {
      lost(ctx, 'boolean schema', `${pointer}/items`, `${NO_BOOLEAN_SCHEMAS}; items false (no item after prefixItems) is left out`);
      out = rest;
    }
  }
  return out;
}

/** One node in the OpenAPI spelling: capital types, `nullable`, `example`, string enums, no boolean subschemas. */
function openApiAdjust(node: Schema, pointer: string, ctx: WalkContext): Schema {
  let out = openApiBooleans(constAsEnum(oneOfAsAnyOf(node, pointer, ctx)), pointer, ctx);
  if (Array.isArray(out.examples) && out.example === undefined) {
    const { examples, ...rest } = out;
    out = { ...rest, example: examples[0] };
  }
  const type = out.type;
  if (Array.isArray(type)) {
    const types = type.filter((item) => item !== 'null');
    const { type: _type, ...rest } = out;
    out = { ...rest, ...(types.length < type.length ? { nullable: true } : {}) };
    if (types.length === 1) out.type = OPENAPI_TYPES[types[0] as string] ?? types[0];
    else if (types.length > 1) out.anyOf = types.map((item) => ({ type: OPENAPI_TYPES[item as string] ?? item }));
  } else if (typeof type === 'string') out = { ...out, type: OPENAPI_TYPES[type] ?? type };
  if (Array.isArray(out.enum)) {
    const values = out.enum.filter((value) => value !== null);
    if (values.length < out.enum.length) out.nullable = true;
    if (values.some((value) => typeof value !== 'string')) {
      const { enum: _enum, ...rest } = out;
      lost(ctx, 'enum', `${pointer}/enum`, 'the OpenAPI schema takes string enum values only');
      out = rest;
    } else out.enum = values;
  }
  return out;
}

/** Gemini's `propertyOrdering` keeps the argument order the tool declares. */
function withOrdering(schema: Schema): Schema {
  const walk = (value: unknown, at: string): unknown => {
    if (!isSchema(value)) return value;
    const node = mapChildren(value, at, walk);
    return isSchema(node.properties) && node.propertyOrdering === undefined && Object.keys(node.properties).length > 1
      ? { ...node, propertyOrdering: Object.keys(node.properties) }
      : node;
  };
  return walk(schema, '') as Schema;
}

/** A tool as a Gemini function declaration. */
export function toGemini(tool: Tool, options: ToProviderToolOptions): ProviderToolConversion<GeminiFunctionDeclaration> {
  const facts = toolFacts(tool, 'gemini', options);
  toolFieldsLost(tool, facts, ['outputSchema']);
  if (options.strict === true)
    lost(facts.ctx, 'strict', '', "Gemini has no strict flag per tool (use the request's functionCallingConfig mode 'VALIDATED')");
  if (options.deferLoading === true) lost(facts.ctx, 'defer_loading', '', 'Gemini has no deferred tools');
  const out: GeminiFunctionDeclaration = { name: facts.name };
  if (facts.description !== undefined) out.description = facts.description;
  const openApi = options.geminiSchema === 'openapi';
  const rules = openApi
    ? { keep: GEMINI_OPENAPI_KEYWORDS, adjust: openApiAdjust, inline: true }
    : { keep: GEMINI_JSON_SCHEMA_KEYWORDS, adjust: jsonSchemaAdjust, inline: options.inlineRefs === true };
  const parameters = renamePropertyKeys(
    withOrdering(convertSchema(facts.inputSchema, '/inputSchema', facts.ctx, rules)),
    facts.inputSchema,
    facts.ctx,
    '/inputSchema',
  );
  const response =
    tool.outputSchema === undefined ? undefined : withOrdering(convertSchema(tool.outputSchema, '/outputSchema', facts.ctx, rules));
  if (openApi) {
    out.parameters = parameters;
    if (response !== undefined) out.response = response;
  } else {
    out.parametersJsonSchema = parameters;
    if (response !== undefined) out.responseJsonSchema = response;
  }
  return { tool: out, warnings: facts.ctx.warnings };
}

/** The SDK `Schema`'s int64 fields: typed as strings (`maxLength: '5'`), JSON Schema wants numbers. */
const INT64_BOUNDS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const;

/** The SDK `Schema`'s numeric bounds (numbers in its types; a JSON text may still hold a string). */
const NUMBER_BOUNDS = ['minimum', 'maximum'] as const;

/**
 * The `INVALID_SCHEMA` of a bound that is not a number JSON Schema can take: the schema at `root`
 * (`/parameters`) cannot compile, as a JSON Schema with `maxLength: 'five'` does not.
 */
function badBound(key: string, value: unknown, root: string, at: string, what: string): never {
  throw schemaDoesNotCompile('gemini', root, `${key} ${JSON.stringify(value)} at ${at}/${key} is not ${what}`);
}

/**
 * A node's bounds as JSON Schema numbers: the int64 fields' decimal strings (`'5'`) as numbers
 * (`5`), a numeric string `minimum` / `maximum` too.
 *
 * @throws `INVALID_SCHEMA` for a bound that is no number (`'five'`, a negative length).
 */
function numericBounds(node: Schema, root: string, at: string): Schema {
  let out = node;
  for (const key of INT64_BOUNDS) {
    const value = node[key];
    if (value === undefined || value === null) continue;
    const number = typeof value === 'string' && /^\s*\d+\s*$/u.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) badBound(key, value, root, at, 'a non-negative integer');
    if (number !== value) out = { ...out, [key]: number };
  }
  for (const key of NUMBER_BOUNDS) {
    const value = node[key];
    if (value === undefined || value === null) continue;
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) badBound(key, value, root, at, 'a number');
    if (number !== value) out = { ...out, [key]: number };
  }
  return out;
}

/**
 * The OpenAPI `Schema` of `parameters` / `response` (at `root` in the declaration; `at` is the
 * node's pointer inside it) as JSON Schema: lower-case types, `nullable` as a `null` type,
 * `example` as `examples`, the int64 bounds the SDK types as strings as numbers.
 *
 * @throws `INVALID_SCHEMA` for a bound that is no number.
 */
function fromOpenApi(value: unknown, root: string, at = ''): unknown {
  if (!isSchema(value)) return value;
  const node = numericBounds(
    mapChildren(value, at, (child, childAt) => fromOpenApi(child, root, childAt)),
    root,
    at,
  );
  const { nullable, type, example, ...rest } = node;
  const out: Schema = { ...rest };
  if (typeof type === 'string' && type !== 'TYPE_UNSPECIFIED') {
    const lower = type.toLowerCase();
    out.type = nullable === true ? [lower, 'null'] : lower;
  } else if (nullable === true && out.anyOf !== undefined) out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
  if (example !== undefined) out.examples = [example];
  return out;
}

/** The fields of a Gemini `Tool` (what holds function declarations, or is a tool Gemini runs itself). */
const GEMINI_TOOL_FIELDS = [
  'functionDeclarations',
  'googleSearch',
  'googleSearchRetrieval',
  'codeExecution',
  'urlContext',
  'retrieval',
  'fileSearch',
  'googleMaps',
  'computerUse',
  'enterpriseWebSearch',
] as const;

/**
 * A Gemini function declaration as a `Tool`.
 *
 * @throws `INVALID_ARGUMENT` for a Gemini `Tool` (`{ functionDeclarations }`, `{ googleSearch }`...)
 * instead of one of its declarations; `INVALID_SCHEMA` for OpenAPI `parameters` / `response` with
 * a bound that is no number (the SDK types `maxLength`, `minItems`... as int64 strings: `'5'`
 * becomes `5`, `'five'` makes a schema that cannot compile).
 */
export function fromGemini(value: unknown, options: FromProviderToolOptions): ProviderToolConversion<Tool> {
  const source = providerObject(value, 'gemini');
  const field = source.name === undefined ? GEMINI_TOOL_FIELDS.find((key) => source[key] !== undefined) : undefined;
  if (field !== undefined) {
    throw errors.invalidArgument(
      'providerTool',
      `is a Gemini Tool (${field}), not a function declaration: ${field === 'functionDeclarations' ? 'convert each of its functionDeclarations' : 'Gemini runs that tool itself; only function declarations become a toolexec Tool'}`,
      { details: { format: 'gemini', field } },
    );
  }
  const inputSchema = source.parametersJsonSchema ?? fromOpenApi(source.parameters, '/parameters');
  const outputSchema = source.responseJsonSchema ?? fromOpenApi(source.response, '/response');
  return toolFromParts(
    'gemini',
    source,
    { input: inputSchema, output: outputSchema },
    ['name', 'description', 'parametersJsonSchema', 'parameters', 'responseJsonSchema', 'response'],
    options,
  );
}
