/**
 * Ajv errors → the seed-004 violation taxonomy, with messages a model can act on: each names the
 * field (a JSON pointer; the whole value is shown as `(root)`) and what was expected.
 */
import type { ErrorObject } from 'ajv';
import {
  fieldLabel,
  show,
  showList,
  text,
  plural,
  scalar,
  valueAt,
  resolveLocal,
  pinnedValue,
  findDiscriminator,
  describeSchema,
  collectProperties,
  cutPointer,
  segment,
} from './schema-description.js';
import { editDistance, typoBudget } from './edit-distance.js';
import type { ContractViolation, ViolationCode } from './schema.js';
import { isPlainObject, jsonTypeOf, safeJson, type SchemaDocument } from './schema-source.js';

/** Params of the explaining `oneOf` / `anyOf` errors (the explaining Ajv's, and the spec engine's once grouped). */
export interface CompositeParams {
  /** Indexes of the branches the value matched. */
  passing: number[];
  /** Per branch: its own errors, or `null` when it matched. */
  branches: (ErrorObject[] | null)[];
}

/** Violations found for one failure, and how many more were left out past the limit. */
export interface ViolationReport {
  violations: ContractViolation[];
  omitted: number;
}

/** Most values a violation's `allowed` lists; a longer list ends with `"… and N more"`. */
export const MAX_ALLOWED = 20;

class Collector {
  readonly violations: ContractViolation[] = [];
  omitted = 0;
  readonly #seen = new Set<string>();

  constructor(
    private readonly root: SchemaDocument,
    private readonly data: unknown,
    private readonly max: number,
  ) {}

  add(code: ViolationCode, field: string, message: string, extra: Partial<ContractViolation> = {}): void {
    const key = `${code}\u0000${field}\u0000${message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    if (this.violations.length >= this.max) {
      this.omitted++;
      return;
    }
    const violation: ContractViolation = { code, field, message };
    for (const name of ['expected', 'actual', 'allowed', 'keyword', 'suggestion'] as const) {
      if (extra[name] !== undefined) (violation as unknown as Record<string, unknown>)[name] = extra[name];
    }
    const { allowed } = violation;
    if (allowed !== undefined && allowed.length > MAX_ALLOWED) {
      violation.allowed = [...allowed.slice(0, MAX_ALLOWED), `… and ${allowed.length - MAX_ALLOWED} more`];
    }
    this.violations.push(violation);
  }

  addAll(errors: readonly ErrorObject[]): void {
    // The items that fail a `contains` schema are not errors by themselves: the `contains` error
    // (how many must match) says it all.
    const containsPaths = errors.filter((e) => e.keyword === 'contains').map((e) => `${e.schemaPath}/`);
    for (const error of errors) {
      // Errors inside `propertyNames` are summed up by its own error.
      if ((error as { propertyName?: unknown }).propertyName !== undefined) continue;
      if (containsPaths.some((path) => error.schemaPath.startsWith(path))) continue;
      this.#one(error);
    }
  }

  #value(error: ErrorObject): unknown {
    return 'data' in error ? error.data : valueAt(this.data, error.instancePath);
  }

  #one(error: ErrorObject): void {
    const field = cutPointer(error.instancePath);
    const label = `Field '${fieldLabel(field)}'`;
    const params = error.params as Record<string, unknown>;
    const keyword = error.keyword;
    switch (keyword) {
      case 'required': {
        const name = text(params.missingProperty);
        const missing = `${field}/${segment(name)}`;
        const typo = this.#typoOf(error, name);
        if (typo === undefined) {
          this.add('RequiredMissing', missing, `Field '${missing}' is required.`, { keyword });
          return;
        }
        const from = `${field}/${segment(typo)}`;
        this.add('RequiredMissing', missing, `Field '${missing}' is required; did you mean '${name}' instead of '${typo}'?`, {
          keyword,
          suggestion: { action: 'rename', from, to: missing },
        });
        return;
      }
      case 'dependentRequired':
      case 'dependencies': {
        if (params.missingProperty === undefined) break;
        const missing = `${field}/${segment(text(params.missingProperty))}`;
        const because = `${field}/${segment(text(params.property))}`;
        this.add('RequiredMissing', missing, `Field '${missing}' is required when '${because}' is present.`, { keyword });
        return;
      }
      case 'type': {
        const expected = params.type;
        const found = this.#value(error);
        const actual = jsonTypeOf(found);
        // NaN and ±Infinity are numbers to JavaScript but not to JSON: say which one was sent.
        const got = typeof found === 'number' && !Number.isFinite(found) ? `${String(found)} (not a finite number)` : actual;
        if (expected === undefined) {
          // The schema that failed could not be located (a reference the error does not follow).
          this.add('InvalidType', field, `${label} has the wrong type, got ${got}.`, { actual, keyword });
          return;
        }
        const names = Array.isArray(expected) ? expected.map(String) : text(expected).split(',');
        const wanted = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
        this.add('InvalidType', field, `${label} must be ${wanted}, got ${got}.`, {
          expected: names.length === 1 ? names[0] : names,
          actual,
          keyword,
        });
        return;
      }
      case 'format': {
        const value = this.#value(error);
        this.add(
          'InvalidFormat',
          field,
          `${label} must be a valid ${text(params.format)} string (format "${text(params.format)}"), got ${show(value)}.`,
          {
            expected: params.format,
            actual: scalar(value),
            keyword,
          },
        );
        return;
      }
      case 'enum': {
        const known = Array.isArray(params.allowedValues);
        const allowed = known ? (params.allowedValues as unknown[]) : [];
        const value = this.#value(error);
        const wanted = !known
          ? 'is not one of the allowed values'
          : allowed.length === 0
            ? 'cannot take any value (its enum is empty)'
            : `must be one of ${showList(allowed)}`;
        this.add('InvalidEnumValue', field, `${label} ${wanted}, got ${show(value)}.`, {
          allowed,
          actual: scalar(value),
          keyword,
        });
        return;
      }
      case 'const': {
        const value = this.#value(error);
        this.add('InvalidEnumValue', field, `${label} must be ${show(params.allowedValue)}, got ${show(value)}.`, {
          allowed: [params.allowedValue],
          actual: scalar(value),
          keyword,
        });
        return;
      }
      case 'oneOf':
      case 'anyOf':
        this.#composite(error, keyword);
        return;
      case 'if':
        // The failing `then`/`else` branch reports its own errors.
        return;
      case 'additionalProperties':
      case 'unevaluatedProperties': {
        const name = text(keyword === 'additionalProperties' ? params.additionalProperty : params.unevaluatedProperty);
        const extra = `${field}/${segment(name)}`;
        const meant = this.#meantBy(error, name);
        if (meant === undefined) {
          this.add('ConstraintViolation', extra, `Field '${extra}' is not allowed.`, { expected: `${keyword} false`, keyword });
          return;
        }
        const to = `${field}/${segment(meant)}`;
        this.add('ConstraintViolation', extra, `Field '${extra}' is not allowed; did you mean '${meant}'?`, {
          expected: `${keyword} false`,
          keyword,
          suggestion: { action: 'rename', from: extra, to },
        });
        return;
      }
      case 'false schema':
        this.add('ConstraintViolation', field, `${label} is not allowed.`, { expected: 'no value (false schema)', keyword });
        return;
      default:
        break;
    }
    this.#constraint(error, field, label, params);
  }

  /** The undeclared key of the object at `field` that looks like a misspelling of the missing `name`. */
  #typoOf(error: ErrorObject, name: string): string | undefined {
    const value = valueAt(this.data, error.instancePath);
    if (!isPlainObject(value)) return undefined;
    const declared = this.#declared(error);
    return closest(
      name,
      Object.keys(value).filter((key) => key !== name && !declared.has(key)),
    );
  }

  /** The missing required property of the object at `field` that the undeclared `name` likely means. */
  #meantBy(error: ErrorObject, name: string): string | undefined {
    const value = valueAt(this.data, error.instancePath);
    const schema = error.parentSchema;
    if (!isPlainObject(value) || !isPlainObject(schema) || !Array.isArray(schema.required)) return undefined;
    const missing = schema.required.filter((key): key is string => typeof key === 'string' && !Object.hasOwn(value, key));
    return closest(name, missing);
  }

  /** The property names the schema of a failing keyword declares (its `properties`, `$ref` and `allOf` included). */
  #declared(error: ErrorObject): Set<string> {
    return new Set(collectProperties(error.parentSchema, this.root).keys());
  }

  #constraint(error: ErrorObject, field: string, label: string, params: Record<string, unknown>): void {
    const keyword = error.keyword;
    const value = this.#value(error);
    const actual = scalar(value);
    const add = (expected: string, message: string, extraActual: unknown = actual) =>
      this.add('ConstraintViolation', field, `${label} ${message}.`, { expected, actual: extraActual, keyword });
    switch (keyword) {
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        add(`${keyword} ${text(params.limit)}`, `must be ${text(params.comparison)} ${text(params.limit)}, got ${show(value)}`);
        return;
      }
      case 'multipleOf':
        add(`multipleOf ${text(params.multipleOf)}`, `must be a multiple of ${text(params.multipleOf)}, got ${show(value)}`);
        return;
      case 'minLength':
      case 'maxLength': {
        const length = typeof value === 'string' ? [...value].length : undefined;
        const bound = keyword === 'minLength' ? 'at least' : 'at most';
        add(
          `${keyword} ${text(params.limit)}`,
          `must be ${bound} ${plural(params.limit, 'character', 'characters')} long${length === undefined ? '' : `, got ${length}`}`,
          length,
        );
        return;
      }
      case 'pattern':
        add(`pattern ${text(params.pattern)}`, `must match the pattern ${text(params.pattern)}, got ${show(value)}`);
        return;
      case 'minItems':
      case 'maxItems':
      case 'minProperties':
      case 'maxProperties': {
        const items = keyword.endsWith('Items');
        const count = items
          ? Array.isArray(value)
            ? value.length
            : undefined
          : isPlainObject(value)
            ? Object.keys(value).length
            : undefined;
        const bound = keyword.startsWith('min') ? 'at least' : 'at most';
        const noun = items ? plural(params.limit, 'item', 'items') : plural(params.limit, 'property', 'properties');
        add(`${keyword} ${text(params.limit)}`, `must have ${bound} ${noun}${count === undefined ? '' : `, got ${count}`}`, count);
        return;
      }
      case 'uniqueItems':
        add('uniqueItems', `must not contain duplicate items (items ${text(params.j)} and ${text(params.i)} are equal)`, undefined);
        return;
      case 'items':
      case 'additionalItems':
      case 'unevaluatedItems':
        add(
          `${keyword} false`,
          `must have at most ${plural(params.limit, 'item', 'items')}${Array.isArray(value) ? `, got ${value.length}` : ''}`,
          undefined,
        );
        return;
      case 'contains': {
        const min = params.minContains;
        const max = params.maxContains;
        const summary = describeSchema(error.schema, this.root);
        const wanted = max === undefined ? `at least ${text(min)}` : `at least ${text(min)} and at most ${text(max)}`;
        add(
          `contains ${summary}`,
          `must contain ${wanted} ${max === 1 || (max === undefined && min === 1) ? 'item' : 'items'} matching ${summary}`,
          undefined,
        );
        return;
      }
      case 'not': {
        const summary = describeSchema(error.schema, this.root);
        add(`not ${summary}`, `must not match ${summary}`);
        return;
      }
      case 'propertyNames': {
        const name = text(params.propertyName);
        const summary = describeSchema(error.schema, this.root);
        add(
          `propertyNames ${summary}`,
          `has a property name that is not allowed: ${show(name)} (names must match ${summary})`,
          scalar(name),
        );
        return;
      }
      default: {
        const bound = error.schema;
        const expected = bound === undefined || typeof bound === 'object' ? keyword : `${keyword} ${show(bound)}`;
        add(expected, error.message ?? `must pass the "${keyword}" keyword`);
      }
    }
  }

  #composite(error: ErrorObject, keyword: 'oneOf' | 'anyOf'): void {
    const field = cutPointer(error.instancePath);
    const label = `Field '${fieldLabel(field)}'`;
    const params = error.params as Partial<CompositeParams> & { passingSchemas?: unknown };
    const branches = Array.isArray(error.schema) ? (error.schema as unknown[]) : [];
    const value = this.#value(error);
    const actual = jsonTypeOf(value);
    const branchErrors = Array.isArray(params.branches) ? params.branches : undefined;

    if (keyword === 'oneOf') {
      const passing = Array.isArray(params.passing)
        ? params.passing
        : Array.isArray(params.passingSchemas)
          ? (params.passingSchemas as unknown[])
          : [];
      if (passing.length > 1) {
        this.add(
          'ConstraintViolation',
          field,
          `${label} must match exactly one oneOf variant, but it matches variants ${passing.join(' and ')}.`,
          {
            expected: branches.map((branch) => describeSchema(branch, this.root)),
            actual,
            keyword,
          },
        );
        return;
      }
    }
    if (branches.length === 0 || branchErrors === undefined) {
      this.add(
        'ConstraintViolation',
        field,
        `${label} must match ${keyword === 'oneOf' ? 'exactly one' : 'at least one'} of the ${keyword} variants.`,
        {
          actual,
          keyword,
        },
      );
      return;
    }

    // Every branch is a fixed value: this is an enum spelled as a union.
    const resolved = branches.map((branch) => resolveLocal(branch, this.root));
    const pinned = resolved.map((branch) =>
      isPlainObject(branch) && Array.isArray(branch.enum) ? { values: branch.enum as unknown[] } : pinnedValueList(branch),
    );
    if (pinned.every((entry) => entry !== undefined)) {
      const allowed: unknown[] = [];
      const seen = new Set<string>();
      for (const entry of pinned) {
        for (const item of entry?.values ?? []) {
          const key = safeJson(item);
          if (!seen.has(key)) {
            seen.add(key);
            allowed.push(item);
          }
        }
      }
      if (!seen.has(safeJson(value))) {
        this.add('InvalidEnumValue', field, `${label} must be one of ${showList(allowed)}, got ${show(value)}.`, {
          allowed,
          actual: scalar(value),
          keyword,
        });
        return;
      }
    }

    // Variants told apart by a pinned property: the value's own discriminator picks the branch.
    const discriminator = findDiscriminator(branches, this.root);
    if (discriminator !== undefined && isPlainObject(value)) {
      const { property, values, branchValues } = discriminator;
      const discriminatorField = `${field}/${segment(property)}`;
      if (Object.hasOwn(value, property)) {
        const given = safeJson(value[property]);
        const selected = branchValues.findIndex((candidates) => candidates.some((candidate) => safeJson(candidate) === given));
        const selectedErrors = selected >= 0 ? branchErrors[selected] : undefined;
        if (selectedErrors && selectedErrors.length > 0) {
          this.addAll(selectedErrors);
          return;
        }
        if (selected < 0) {
          this.add(
            'DiscriminatorMismatch',
            discriminatorField,
            `Field '${discriminatorField}' must be one of ${showList(values)} (it selects the variant), got ${show(value[property])}.`,
            {
              expected: branches.map((branch) => describeSchema(branch, this.root)),
              allowed: values,
              actual: scalar(value[property]),
              keyword,
            },
          );
          return;
        }
      } else {
        this.add(
          'DiscriminatorMismatch',
          discriminatorField,
          `Field '${discriminatorField}' is required to select a variant; it must be one of ${showList(values)}.`,
          {
            expected: branches.map((branch) => describeSchema(branch, this.root)),
            allowed: values,
            keyword,
          },
        );
        return;
      }
    }

    // Only one variant accepts this JSON type: its own errors are the useful ones.
    const fitting: number[] = [];
    branchErrors.forEach((errors, index) => {
      if (errors === null) return;
      const wrongType = errors.some((e) => e.instancePath === error.instancePath && (e.keyword === 'type' || e.keyword === 'false schema'));
      if (!wrongType) fitting.push(index);
    });
    const only = fitting.length === 1 && branches.length > 1 ? branchErrors[fitting[0] as number] : undefined;
    if (only && only.length > 0) {
      this.addAll(only);
      return;
    }

    // The code says what kind of miss it is: a JSON type no variant takes, a value a discriminated
    // union could not place, or constraints of untagged variants (each fits the type, none the rest).
    const code: ViolationCode =
      fitting.length === 0 ? 'InvalidType' : discriminator !== undefined ? 'DiscriminatorMismatch' : 'ConstraintViolation';
    const candidates = branches.map((branch) => describeSchema(branch, this.root));
    this.add(
      code,
      field,
      `${label} must match ${keyword === 'oneOf' ? 'exactly one' : 'at least one'} of these variants: ${candidates.join(' | ')}; got ${actual}.`,
      { expected: candidates, actual, keyword },
    );
  }
}

/** The candidate within a typo's reach of `name`, closest first (`undefined` when none is). */
function closest(name: string, candidates: readonly string[]): string | undefined {
  const budget = typoBudget(name);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate, budget);
    if (distance <= budget && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function pinnedValueList(schema: unknown): { values: unknown[] } | undefined {
  const pinned = pinnedValue(schema);
  return pinned === undefined ? undefined : { values: [pinned.value] };
}

/**
 * Maps Ajv errors (ideally from the explaining validator: verbose, with composite branches) to
 * violations, at most `max` of them, without duplicates.
 */
export function toViolations(errors: readonly ErrorObject[], root: SchemaDocument, data: unknown, max: number): ViolationReport {
  const collector = new Collector(root, data, max);
  collector.addAll(errors);
  if (collector.violations.length === 0 && collector.omitted === 0) {
    collector.add('ConstraintViolation', '', "Field '(root)' does not match the schema.");
  }
  return { violations: collector.violations, omitted: collector.omitted };
}

/** The one-line summary of a failure: the first few messages, then `and N more`. */
export function summarizeViolations(violations: readonly ContractViolation[], omitted: number, shown = 3): string {
  const parts = violations.slice(0, shown).map((v) => v.message.replace(/\.$/, ''));
  const more = violations.length - parts.length + omitted;
  if (more > 0) parts.push(`and ${more} more`);
  return parts.join('; ');
}
