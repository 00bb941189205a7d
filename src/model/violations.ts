/**
 * Ajv errors → the seed-004 violation taxonomy, with messages a model can act on: each names the
 * field (a JSON pointer; the whole value is shown as `(root)`) and what was expected.
 */
import type { ErrorObject } from 'ajv';
import { explainComposite } from './composite-violations.js';
import { explainConstraint } from './constraint-violations.js';
import { fieldLabel, show, showList, text, scalar, valueAt, collectProperties, cutPointer, segment } from './schema-description.js';
import { editDistance, typoBudget } from './edit-distance.js';
import type { ContractViolation, ViolationCode } from './schema.js';
import { isPlainObject, jsonTypeOf, type SchemaDocument } from './schema-source.js';
import type { ViolationSink } from './violation-sink.js';

/** Violations found for one failure, and how many more were left out past the limit. */
export interface ViolationReport {
  violations: ContractViolation[];
  omitted: number;
}

/** Most values a violation's `allowed` lists; a longer list ends with `"… and N more"`. */
export const MAX_ALLOWED = 20;

class Collector implements ViolationSink {
  readonly violations: ContractViolation[] = [];
  omitted = 0;
  readonly #seen = new Set<string>();

  constructor(
    readonly root: SchemaDocument,
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

  value(error: ErrorObject): unknown {
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
        const found = this.value(error);
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
        const value = this.value(error);
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
        const value = this.value(error);
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
        const value = this.value(error);
        this.add('InvalidEnumValue', field, `${label} must be ${show(params.allowedValue)}, got ${show(value)}.`, {
          allowed: [params.allowedValue],
          actual: scalar(value),
          keyword,
        });
        return;
      }
      case 'oneOf':
      case 'anyOf':
        explainComposite(this, error, keyword);
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
    explainConstraint(this, error, field, label, params);
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
