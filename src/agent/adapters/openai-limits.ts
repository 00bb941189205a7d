/**
 * The size limits OpenAI's structured outputs (strict mode) put on a schema, from the "Supported
 * schemas" section of OpenAI's structured-outputs guide: at most 5,000 object properties in all,
 * at most 10 levels of object nesting, at most 1,000 enum values in all, at most 120,000
 * characters of property names, definition names, enum values and const values together, and for
 * one string enum of more than 250 values at most 15,000 characters of values. A schema past one
 * of them is refused by the API; the adapter sends it without strict mode instead. Strict mode
 * also takes one `items` schema per array, not draft-07's tuple form (`items: [...]`).
 */
import { isSchema, pointerToken, resolveLocalRef, type Schema } from './schema-walk.js';
import type { StrictProblem } from './strict.js';

/** Most object properties in one strict schema. */
export const OPENAI_MAX_PROPERTIES = 5000;
/** Most levels of object nesting in one strict schema (the root object is the first). */
export const OPENAI_MAX_NESTING = 10;
/** Most enum values in one strict schema, every enum together. */
export const OPENAI_MAX_ENUM_VALUES = 1000;
/** Most characters of property names, definition names, enum values and const values together. */
export const OPENAI_MAX_STRING_CHARS = 120_000;
/** Most characters of the values of one string enum with more than {@link OPENAI_LARGE_ENUM} values. */
export const OPENAI_MAX_LARGE_ENUM_CHARS = 15_000;
/** How many values make a string enum large. */
export const OPENAI_LARGE_ENUM = 250;

/** Keywords whose value is a map of name → subschema. */
const MAPS = ['properties', '$defs', 'definitions'] as const;
/** Keywords whose value is one subschema or a list of them. */
const CHILDREN = ['items', 'anyOf', 'oneOf', 'allOf', 'prefixItems', 'additionalProperties'] as const;

function isObjectNode(node: Schema): boolean {
  const type = node.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || isSchema(node.properties);
}

function textLength(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}

/** Each direct subschema of a node (`$defs` left out: they count where referenced). */
function children(node: Schema): unknown[] {
  const out: unknown[] = isSchema(node.properties) ? Object.values(node.properties) : [];
  for (const key of CHILDREN) {
    const value = node[key];
    if (Array.isArray(value)) out.push(...(value as unknown[]));
    else if (isSchema(value)) out.push(value);
  }
  return out;
}

/**
 * What takes the schema about to be sent (already strict: filtered, closed) past OpenAI's
 * limits, each as a {@link StrictProblem} (pointers into the tool's schema, `pointer` its root).
 */
export function openAiLimitProblems(schema: Schema, pointer: string): StrictProblem[] {
  const problems: StrictProblem[] = [];
  let properties = 0;
  let enumValues = 0;
  let chars = 0;
  // every node once, where it is written (`$defs` entries too)
  const count = (value: unknown, at: string): void => {
    if (!isSchema(value)) return;
    for (const key of MAPS) {
      const map = value[key];
      if (!isSchema(map)) continue;
      if (key === 'properties') properties += Object.keys(map).length;
      for (const [name, child] of Object.entries(map)) {
        chars += name.length;
        count(child, `${at}/${key}/${pointerToken(name)}`);
      }
    }
    if (Array.isArray(value.enum)) {
      enumValues += value.enum.length;
      const length = value.enum.reduce((sum: number, item) => sum + textLength(item), 0);
      chars += length;
      const strings = value.enum.filter((item) => typeof item === 'string').length;
      if (strings > OPENAI_LARGE_ENUM && length > OPENAI_MAX_LARGE_ENUM_CHARS) {
        problems.push({
          pointer: `${at}/enum`,
          reason: `a string enum of ${strings} values (more than ${OPENAI_LARGE_ENUM}) whose values have ${length} characters in all; OpenAI's strict mode allows ${OPENAI_MAX_LARGE_ENUM_CHARS}`,
        });
      }
    }
    if ('const' in value) chars += textLength(value.const);
    if (Array.isArray(value.items)) {
      problems.push({
        pointer: `${at}/items`,
        reason: "an array whose items are a tuple (draft-07's items: [...]), which strict mode cannot take",
      });
    }
    for (const key of CHILDREN) {
      const child = value[key];
      if (Array.isArray(child)) child.forEach((item, i) => count(item, `${at}/${key}/${i}`));
      else count(child, `${at}/${key}`);
    }
  };
  count(schema, pointer);
  if (properties > OPENAI_MAX_PROPERTIES) {
    problems.push({ pointer, reason: `${properties} object properties in all; OpenAI's strict mode allows ${OPENAI_MAX_PROPERTIES}` });
  }
  if (enumValues > OPENAI_MAX_ENUM_VALUES) {
    problems.push({ pointer, reason: `${enumValues} enum values in all; OpenAI's strict mode allows ${OPENAI_MAX_ENUM_VALUES}` });
  }
  if (chars > OPENAI_MAX_STRING_CHARS) {
    problems.push({
      pointer,
      reason: `${chars} characters of property names, definition names, enum and const values in all; OpenAI's strict mode allows ${OPENAI_MAX_STRING_CHARS}`,
    });
  }
  const levels = nesting(schema);
  if (levels > OPENAI_MAX_NESTING) {
    problems.push({ pointer, reason: `objects nested ${levels} levels deep; OpenAI's strict mode allows ${OPENAI_MAX_NESTING}` });
  }
  return problems;
}

/**
 * How many levels of objects the deepest path of the schema nests (the root object is level 1),
 * following local references; each referenced schema is measured once, and a reference back into
 * one being measured (recursion, which OpenAI takes) counts nothing more.
 */
function nesting(root: Schema): number {
  const measured = new Map<string, number>();
  const measure = (value: unknown): number => {
    if (!isSchema(value)) return 0;
    let below = 0;
    if (typeof value.$ref === 'string') {
      const ref = value.$ref;
      if (!measured.has(ref)) {
        measured.set(ref, 0);
        measured.set(ref, measure(resolveLocalRef(root, ref)));
      }
      below = measured.get(ref) ?? 0;
    }
    for (const child of children(value)) below = Math.max(below, measure(child));
    return isObjectNode(value) ? below + 1 : below;
  };
  return measure(root);
}
