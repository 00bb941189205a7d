/**
 * The schemas `defineTool` accepts — a zod 4 schema, any Standard Schema, or plain JSON Schema —,
 * the types inferred from them, and their conversion to the JSON Schema toolexec stores and
 * validates with.
 */
import { toJSONSchema } from 'zod';
import { type ToolexecError } from '../model/index.js';
import { layerErrors } from '../model/internal.js';

const errors = layerErrors('agent');

/**
 * The parts of a Standard Schema (standardschema.dev, v1) that toolexec reads: its vendor, its
 * `validate`, the types it infers and, when the library implements Standard JSON Schema, its JSON
 * Schema converter. zod 4, Valibot, ArkType and others implement it.
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly '~standard': {
    /** The version of the standard: 1. */
    readonly version: 1;
    /** The schema library (`zod`, `valibot`, ...). */
    readonly vendor: string;
    /** Validates a value: the typed value, or the issues found. */
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    /** The inferred types (only read by the type checker). */
    readonly types?:
      | {
          /** The type of the values the schema accepts. */
          readonly input: Input;
          /** The type of the values it produces. */
          readonly output: Output;
        }
      | undefined;
    /** Standard JSON Schema: converts the input or output type to JSON Schema, for a target dialect. */
    readonly jsonSchema?:
      | {
          /** The JSON Schema of the values the schema accepts. */
          readonly input: (options: { readonly target: string }) => Record<string, unknown>;
          /** The JSON Schema of the values it produces. */
          readonly output: (options: { readonly target: string }) => Record<string, unknown>;
        }
      | undefined;
  };
}

/** The outcome of a Standard Schema's `validate`: the typed value, or the issues. */
export type StandardResult<Output> = StandardSuccess<Output> | StandardFailure;

/** A Standard Schema's `validate` succeeded. */
export interface StandardSuccess<Output> {
  /** The typed value. */
  readonly value: Output;
  /** Absent on success. */
  readonly issues?: undefined;
}

/** A Standard Schema's `validate` failed. */
export interface StandardFailure {
  /** Every problem found. */
  readonly issues: readonly StandardIssue[];
  /** Absent on failure. */
  readonly value?: undefined;
}

/** One problem a Standard Schema found. */
export interface StandardIssue {
  /** What is wrong. */
  readonly message: string;
  /** Where: property keys (or `{ key }` segments) from the value's root. */
  readonly path?:
    | readonly (
        | PropertyKey
        | {
            /** The property key. */
            readonly key: PropertyKey;
          }
      )[]
    | undefined;
}

/** A plain JSON Schema object (of an object, for a tool's arguments). */
export type JsonSchemaObject = Record<string, unknown>;

/** What `defineTool` takes as a schema: a zod 4 schema or any other Standard Schema, or plain JSON Schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any input/output types: inference reads them back
export type ToolSchema = StandardSchema<any, any> | JsonSchemaObject;

/**
 * The handler's argument type for an input schema: the schema's output type (zod's `z.infer`, a
 * Standard Schema's `InferOutput`), `Record<string, unknown>` for plain JSON Schema.
 */
export type InferToolArgs<S> =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any input type: only the output is read
  S extends StandardSchema<any, infer O> ? O : Record<string, unknown>;

/**
 * What the handler returns for an output schema: the schema's input type (what it parses into the
 * result), `unknown` for plain JSON Schema or none.
 */
export type InferToolResult<S> =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any output type: only the input is read
  S extends StandardSchema<infer I, any> ? I : unknown;

/** Which side of a schema: the values it accepts (`input`) or produces (`output`). */
export type SchemaSide = 'input' | 'output';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** True for a Standard Schema (an object or function with a `~standard` object of version 1). */
export function isStandardSchema(value: unknown): value is StandardSchema {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return isObject(props) && props.version === 1 && typeof props.validate === 'function';
}

/** True for a zod 4 schema (classic or mini): every one carries its internals in `_zod`. */
function isZod4(value: StandardSchema): boolean {
  return isObject((value as unknown as { _zod?: unknown })._zod);
}

const TARGETS = ['draft-2020-12', 'draft-07'] as const;

function fromStandard(schema: StandardSchema, side: SchemaSide, field: string): Record<string, unknown> {
  const { vendor, jsonSchema } = schema['~standard'];
  if (jsonSchema === undefined || typeof jsonSchema[side] !== 'function') {
    const hint = vendor === 'zod' ? ' (a zod 3 schema: use zod 4, whose schemas convert)' : '';
    throw errors.configuration(
      field,
      `is a Standard Schema of "${vendor}" that cannot be converted to JSON Schema${hint}: pass a zod 4 schema, a schema whose library implements Standard JSON Schema (~standard.jsonSchema), or plain JSON Schema`,
      { details: { vendor } },
    );
  }
  let failure: unknown;
  for (const target of TARGETS) {
    try {
      return jsonSchema[side]({ target });
    } catch (err) {
      failure ??= err;
    }
  }
  throw errors.configuration(field, `could not be converted to JSON Schema by "${vendor}": ${message(failure)}`, {
    cause: failure,
    details: { vendor },
  });
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The JSON Schema of `schema`'s `side`: `z.toJSONSchema` for zod 4 (draft 2020-12; a type JSON
 * Schema cannot express, such as a date or a transform's result, is refused), the library's own
 * Standard JSON Schema converter for other vendors, a copy of plain JSON Schema. It must describe
 * an object: `type: 'object'`, or a root union (`oneOf` / `anyOf` / `allOf`, as zod writes
 * `z.discriminatedUnion` and `z.union`) whose every alternative is an object, which gets
 * `type: 'object'` beside it.
 *
 * @throws {@link ToolexecError} `CONFIGURATION` naming `field` when the schema cannot be converted,
 * or describes something else than an object (naming the alternative of a union that is not one).
 */
export function toJsonSchema(schema: unknown, side: SchemaSide, field: string): Record<string, unknown> {
  let converted: unknown;
  if (isStandardSchema(schema)) {
    if (isZod4(schema)) {
      try {
        converted = toJSONSchema(schema as unknown as Parameters<typeof toJSONSchema>[0], { io: side, target: 'draft-2020-12' });
      } catch (err) {
        throw errors.configuration(field, `could not be converted to JSON Schema by zod: ${message(err)}`, { cause: err });
      }
    } else {
      converted = fromStandard(schema, side, field);
    }
  } else if (isObject(schema)) {
    converted = structuredClone(schema);
  } else {
    throw errors.configuration(field, 'must be a zod 4 schema, a Standard Schema or a JSON Schema object');
  }
  if (!isObject(converted)) throw errors.configuration(field, 'was converted to something that is not a JSON Schema object');
  if (converted.type === 'object') return converted;
  const what = `must describe an object (a tool's ${side === 'input' ? 'arguments are' : 'structured result is'} a JSON object)`;
  if (converted.type !== undefined)
    throw errors.configuration(field, `${what}; its JSON Schema has type ${JSON.stringify(converted.type)}`);
  const union = UNIONS.find((keyword) => Array.isArray(converted[keyword]));
  if (union === undefined) {
    throw errors.configuration(
      field,
      `${what}; its JSON Schema has no type and is no union of objects (type: 'object' missing at the root)`,
    );
  }
  (converted[union] as unknown[]).forEach((branch, i) => {
    const type = isObject(branch) ? resolved(branch, converted).type : undefined;
    if (type !== 'object') {
      throw errors.configuration(
        field,
        `${what}; its JSON Schema is a union (${union}) whose alternative ${i} is not an object (${type === undefined ? 'no type' : `type ${JSON.stringify(type)}`}); every alternative of a root union must be a z.object (or have type: 'object')`,
        { details: { keyword: union, index: i } },
      );
    }
  });
  // a union of objects is an object: MCP and the providers want the type at the root
  return { ...converted, type: 'object' };
}

/** The root keywords of a union `toJsonSchema` accepts when every alternative is an object. */
const UNIONS = ['oneOf', 'anyOf', 'allOf'] as const;

/** A schema with its local `$ref` (`#/$defs/...`, `#/definitions/...`) followed, once. */
function resolved(schema: Record<string, unknown>, root: Record<string, unknown>): Record<string, unknown> {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let target: unknown = root;
  for (const token of ref.slice(2).split('/'))
    target = isObject(target) ? target[token.replace(/~1/gu, '/').replace(/~0/gu, '~')] : undefined;
  return isObject(target) ? target : schema;
}

function pointerOf(path: StandardIssue['path']): string {
  if (path === undefined || path.length === 0) return '(root)';
  return path
    .map((segment) => {
      const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
      return `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
    })
    .join('');
}

/**
 * The error for a value a Standard Schema refused after the JSON Schema check passed (a refinement
 * JSON Schema cannot express): `VALIDATION` for arguments, `OUTPUT_VALIDATION` for a result, each
 * issue named by its JSON pointer in the message and in `details.issues`.
 */
export function schemaIssuesError(side: SchemaSide, issues: readonly StandardIssue[]): ToolexecError {
  const listed = issues.map((issue) => ({ field: pointerOf(issue.path), message: issue.message }));
  const text = listed.map((issue) => `${issue.field}: ${issue.message}`).join('; ');
  return side === 'input'
    ? errors('VALIDATION', `the arguments do not satisfy the tool's schema: ${text}`, { details: { issues: listed } })
    : errors('OUTPUT_VALIDATION', `the result does not satisfy the tool's output schema: ${text}`, { details: { issues: listed } });
}
